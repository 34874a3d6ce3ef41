"""The serving layer: the wire (granian), the API processes that answer the connections they accept, and the
hold of long-polls and event streams on each process's event loop.

- ``server``: granian's server and its worker processes, supervised by ``referee serve`` / ``referee api``;
- ``front``: the ASGI application of one API process (turns by client address, deadlines, held requests);
- ``wsgi``: Flask, called in that process as any WSGI server calls it;
- ``hub``: the process's one pub/sub connection that wakes held requests at their match's commits.

It may import the HTTP API (service.api, service.api.app) and the referee's core; nothing outside it imports it but
the command line (clients/cli.py).
"""
