"""Adapters: the only modules that touch a dependency's private names.

Where a library offers no public way to do what the service needs, the private use lives here, one small
module per library, each with a test in tests/test_adapters.py that names the private thing and fails with
the library's version when an upgrade changes it (docs/architecture.md, "Private names of dependencies").
Everything else in the product uses the libraries' public APIs only.  An adapter imports its library and
nothing of the service.
"""
