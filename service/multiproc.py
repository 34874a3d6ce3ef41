"""The folder prometheus_client's multiprocess mode shares between the processes of ``referee serve``,
``referee api`` and ``referee worker`` (service/metrics.py).

prometheus_client chooses at import whether its values live in the process or in files of
``PROMETHEUS_MULTIPROC_DIR``, so the supervisor sets the variable (:func:`start`) before anything imports it
and before it forks a child; every child then writes its own files there, and ``/metrics`` (or the workers'
``--metrics-port``) sums them.  The folder is private (mode 0700), new at every start and removed at stop
(:func:`stop`): a restarted service starts its counters from zero, as Prometheus expects of a restart.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile

ENV = "PROMETHEUS_MULTIPROC_DIR"


def start() -> str:
    """A fresh private folder for this service's metrics, in the environment its children inherit."""
    if "prometheus_client" in sys.modules and not os.environ.get(ENV):
        raise RuntimeError("prometheus_client was imported before the metrics folder was set")
    path = tempfile.mkdtemp(prefix="referee-metrics-")
    os.environ[ENV] = path
    return path


def stop(path: str) -> None:
    shutil.rmtree(path, ignore_errors=True)


def process_dead(pid: int | None) -> None:
    """A child died or was replaced: its live gauges (held streams and long-polls) no longer count."""
    if pid is None or not os.environ.get(ENV):
        return
    from prometheus_client import multiprocess

    try:
        multiprocess.mark_process_dead(pid)
    except OSError:
        pass
