"""Referee, the service: one folder a layer, lowest first (a module imports its own layer and those below, never
one above; tests/house/test_layers.py checks it, docs/architecture.md draws it).

- ``games``: the game contract (base, shape, plugin, wire) and the five games, one package each; pure rules.
- ``infra``: what every layer stands on: settings, problem details, Redis connections, the embedded server,
  processes; and ``adapters``, the only modules that touch a dependency's private names (one a library).
- ``integrations``: what the service tells the world besides its API: logs, request ids, metrics, webhooks.
- ``core``: the referee itself: load, authorise, apply the rules, commit, and what a commit owes.
- ``competition``: bot accounts, tournaments and the ladder, built on the core.
- ``api``: the HTTP API (Flask + flask-smorest): one blueprint per resource, the schemas, the OpenAPI document.
- ``serving``: the API processes: granian, turns by client, held long-polls and streams.
- ``static``: the web pages (lobby, table, tournament) and the vendored API viewers; no Python.

Above ``service`` stand ``workers`` (RQ jobs, the dispatcher, the built-in bots) and ``clients`` (the CLI, the
arena, the benchmarks).
"""
