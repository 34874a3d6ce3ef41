"""What the service tells the world besides its API: JSON log lines (``logs``), request ids carried into jobs
(``requestid``), Prometheus metrics (``metrics``, with ``multiproc`` for the folder the processes share) and
webhooks by the Standard Webhooks specification (``webhooks``).

It may import ``infra`` and the games; the core and everything above import it (a move counts itself, a commit
owes its webhooks).  What needs the store at a scrape lives in the core (service/core/gauges.py).
"""
