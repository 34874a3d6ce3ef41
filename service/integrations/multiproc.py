"""The folder prometheus_client's multiprocess mode shares between the processes of ``referee serve``,
``referee api`` and ``referee worker`` (service/integrations/metrics.py).

prometheus_client chooses at import whether its values live in the process or in files of
``PROMETHEUS_MULTIPROC_DIR``, so the supervisor sets the variable (:func:`start`) before anything imports it
and before it forks a child; every child then writes its own files there, and ``/metrics`` (or the workers'
``--metrics-port``) sums them.  The folder is private (mode 0700), new at every start and removed at stop
(:func:`stop`): a restarted service starts its counters from zero, as Prometheus expects of a restart.  Its
name carries the supervisor's pid, so a start also removes the folders of supervisors that were killed
before they could (:func:`remove_stale`).
"""

from __future__ import annotations

import glob
import os
import shutil
import sys
import tempfile

ENV = "PROMETHEUS_MULTIPROC_DIR"


def start() -> str:
    """A fresh private folder for this service's metrics, in the environment its children inherit."""
    if "prometheus_client" in sys.modules and not os.environ.get(ENV):
        raise RuntimeError("prometheus_client was imported before the metrics folder was set")
    remove_stale()
    path = tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-")
    os.environ[ENV] = path
    return path


PREFIX = "referee-metrics-"


def remove_stale() -> None:
    """Remove this user's metrics folders whose supervisor is gone (killed, it could not remove its own)."""
    for path in glob.glob(os.path.join(tempfile.gettempdir(), f"{PREFIX}*-*")):
        pid = os.path.basename(path)[len(PREFIX):].split("-", 1)[0]
        if not pid.isdigit() or os.stat(path).st_uid != os.getuid():
            continue
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            shutil.rmtree(path, ignore_errors=True)
        except PermissionError:
            pass


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


def sweep_dead() -> None:
    """Mark dead every process whose live gauges are still in the folder: an API process that granian replaced
    (killed, stuck) could not do it itself.  Its successor calls this as it starts."""
    path = os.environ.get(ENV)
    if not path:
        return
    for name in glob.glob(os.path.join(path, "gauge_live*_*.db")):
        pid = os.path.basename(name).rsplit("_", 1)[1][:-3]
        if not pid.isdigit():
            continue
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            process_dead(int(pid))
        except PermissionError:
            pass
