"""Run RQ worker processes (JSON serializer, never pickle) and the sweeper.

``referee worker`` calls ``run_workers``; ``referee serve`` does too, next to the API.
"""

from __future__ import annotations

import ctypes
import logging
import multiprocessing as mp
import os
import signal
import socket
import time

import redis
from rq import Queue, SimpleWorker
from rq.serializers import JSONSerializer

from service.config import Settings

log = logging.getLogger("referee.workers")


def die_with_parent() -> None:
    """Ask Linux to SIGTERM this process when its parent dies, so Ctrl-C or a crash leaves no orphan."""
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def _work(url: str, index: int) -> None:
    die_with_parent()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the supervisor decides when we stop (SIGTERM)
    settings = Settings.from_env()
    conn = redis.Redis.from_url(url)
    queue = Queue(settings.queue, connection=conn, serializer=JSONSerializer)
    worker = SimpleWorker([queue], connection=conn, serializer=JSONSerializer,
                          name=f"referee-{socket.gethostname()}-{os.getpid()}-{index}")
    worker.work(with_scheduler=True, logging_level="WARNING")


def _sweep_forever(url: str, interval: float) -> None:
    """One sweeper per host; a Redis lock makes hosts take turns rather than sweep at once."""
    die_with_parent()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    from service.referee import Referee
    from workers.jobs import sweep

    conn = redis.Redis.from_url(url)
    ref = Referee(conn, Settings.from_env())
    while True:
        try:
            if conn.set(f"ref:sweeper:{ref.settings.queue}", os.getpid(), nx=True, ex=max(int(interval), 1)):
                sweep(ref)
        except redis.RedisError as exc:
            log.warning("sweeper: %s", exc)
        time.sleep(interval)


SWEEP_INTERVAL = 2.0


def _spawn(url: str, index: int, count: int) -> mp.Process:
    """Child ``index``: a worker for 0..count-1, the sweeper for ``count``."""
    ctx = mp.get_context("fork")
    if index < count:
        proc = ctx.Process(target=_work, args=(url, index), name=f"referee-worker-{index}")
    else:
        proc = ctx.Process(target=_sweep_forever, args=(url, SWEEP_INTERVAL), name="referee-sweeper")
    proc.start()
    return proc


def start_workers(url: str, count: int) -> list[mp.Process]:
    """``count`` workers and one sweeper."""
    return [_spawn(url, i, count) for i in range(count + 1)]


def replace_dead(procs: list[mp.Process], url: str, count: int) -> None:
    """Restart any child that died (a crash or a kill); the sweeper re-enqueues what it held."""
    for i, p in enumerate(procs):
        if not p.is_alive():
            log.warning("%s exited (%s); restarting", p.name, p.exitcode)
            procs[i] = _spawn(url, i, count)


def stop_processes(procs: list[mp.Process], timeout: float = 10.0) -> None:
    for p in procs:
        if p.is_alive():
            p.terminate()
    deadline = time.monotonic() + timeout
    for p in procs:
        p.join(max(0.0, deadline - time.monotonic()))
        if p.is_alive():
            p.kill()
            p.join()


def run_workers(url: str, count: int) -> None:
    """Run ``count`` workers and a sweeper until SIGINT/SIGTERM, then stop them all."""
    procs = start_workers(url, count)
    stopping = []

    def _stop(signum, frame):  # noqa: ARG001
        stopping.append(signum)

    signal.signal(signal.SIGINT, _stop)
    signal.signal(signal.SIGTERM, _stop)
    try:
        while not stopping:
            replace_dead(procs, url, count)
            time.sleep(0.5)
    finally:
        stop_processes(procs)
