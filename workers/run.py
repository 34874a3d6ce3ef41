"""Run RQ worker processes (JSON serializer, never pickle) and the sweeper.

``referee worker`` calls ``run_workers``; ``referee serve`` does too, next to the API.
"""

from __future__ import annotations

import logging
import multiprocessing as mp
import os
import socket
import time

import redis
from rq import Queue, SimpleWorker
from rq.serializers import JSONSerializer

from service import logs, multiproc, requestid
from service.config import Settings
from service.connections import connect
from service.processes import catch_stop_signals, die_with_parent, fork, name_process, stop_processes, stop_requested

log = logging.getLogger("referee.workers")


class Worker(SimpleWorker):
    """RQ's worker, which runs each job for the request that caused it (its ``meta``'s request id:
    service/requestid.py), counts its wait and run time (service/metrics.py) and logs a line for it
    (service/logs.py)."""

    log_text = False

    def perform_job(self, job, queue, execution) -> bool:
        from service import metrics

        started, clock = time.time(), time.perf_counter()
        rid = job.meta.get(requestid.META) if job.meta else None
        token = requestid.CURRENT.set(rid)
        function = (job.func_name or "?").rpartition(".")[2]
        ok = False
        try:
            ok = super().perform_job(job, queue, execution)
            return ok
        finally:
            requestid.CURRENT.reset(token)
            run = time.perf_counter() - clock
            enqueued = job.enqueued_at.timestamp() if job.enqueued_at else None
            wait = max(0.0, started - enqueued) if enqueued is not None else None
            try:
                if wait is not None:
                    metrics.JOB_WAIT.labels(function).observe(wait)
                metrics.JOB_RUN.labels(function).observe(run)
                metrics.JOBS.labels(function, "ok" if ok else "failed").inc()
            except Exception:  # noqa: BLE001 - counting never fails a job
                log.exception("job metrics")
            first = job.args[0] if job.args else None
            logs.write(logs.line({
                "ts": logs.iso(time.time()), "level": "info" if ok else "error", "event": "job", "request_id": rid,
                "job": function, "job_id": job.id, "queue": queue.name,
                "match_id": first if isinstance(first, str) else None,
                "wait_ms": None if wait is None else round(wait * 1000, 3), "duration_ms": round(run * 1000, 3),
                "outcome": "ok" if ok else "failed"}, self.log_text))


#: how much lower the main workers run than the search workers: the main workers play the slices of
#: all-bot matches, batch work, while a search worker is free for the turns people wait for
ALL_BOT_NICE = 3


def _work(index: int, search: bool, parent: int, nice: int = 0) -> None:
    """A worker of the people's queue then the main one (bot turns of matches with people first), or a
    search worker: the search queue, then the people's queue when it has no search turn to play (a main
    worker never takes a search turn).  A search worker never takes an all-bot match's slice, so a turn
    a person waits for finds a worker free at once even while all-bot matches keep the others busy."""
    die_with_parent(parent)
    name_process(f"referee-{'search' if search else 'worker'}")
    os.nice(nice + (0 if search else ALL_BOT_NICE))
    Worker.log_text = logs.setup()
    settings = Settings.from_env()
    _, conn = connect(settings)  # RQ's server; the jobs find the store through workers.jobs.referee_for
    names = [settings.search_queue, settings.people_queue] if search else [settings.people_queue, settings.queue]
    queues = [Queue(name, connection=conn, serializer=JSONSerializer) for name in names]
    worker = Worker(queues, connection=conn, serializer=JSONSerializer,
                          name=f"referee-{socket.gethostname()}-{os.getpid()}-{'search-' * search}{index}")
    worker.work(with_scheduler=True, logging_level="WARNING")
    logs.drain()


def _sweep_forever(interval: float, parent: int) -> None:
    """One sweeper per host; a lock on the queue's server makes hosts take turns rather than sweep at once.
    It also compacts the finished matches that are due, for up to ``interval`` seconds a round, as batch work
    (at the main workers' lower priority)."""
    die_with_parent(parent)
    name_process("referee-sweeper")
    os.nice(ALL_BOT_NICE)
    from service.referee import Referee
    from workers.jobs import sweep, sweep_webhooks

    settings = Settings.from_env()
    store, queue = connect(settings)
    ref = Referee(store, settings, queue)
    while True:
        try:
            if queue.set(f"ref:sweeper:{settings.queue}", os.getpid(), nx=True, ex=max(int(interval), 1)):
                sweep(ref)
                sweep_webhooks(ref)
                until = time.monotonic() + interval
                while ref.compact_due(time.time()) and time.monotonic() < until:
                    pass
        except redis.RedisError as exc:
            log.warning("sweeper: %s", exc)
        time.sleep(interval)


SWEEP_INTERVAL = 2.0


def _spawn(index: int, count: int, search: int, nice: int = 0) -> mp.Process:
    """Child ``index``: a worker for 0..count-1, a search worker for the next ``search``, then the
    sweeper and the dispatcher; all read their settings (REDIS_URL, REFEREE_QUEUE_URL, ...) from the
    environment."""
    if index < count + search:
        is_search = index >= count
        return fork(_work, (index, is_search, os.getpid(), nice), f"referee-{'search-' * is_search}worker-{index}")
    if index == count + search:
        return fork(_sweep_forever, (SWEEP_INTERVAL, os.getpid()), "referee-sweeper")
    from workers import dispatch

    return fork(dispatch.main, (os.getpid(),), "referee-dispatcher")


def start_workers(count: int, search: int = 1, nice: int = 0) -> list[mp.Process]:
    """``count`` workers, ``search`` search workers, one sweeper and one dispatcher."""
    return [_spawn(i, count, search, nice) for i in range(count + search + 2)]


def replace_dead(procs: list[mp.Process], count: int, search: int = 1, nice: int = 0) -> None:
    """Restart any child that died (a crash or a kill); the sweeper re-enqueues what it held."""
    for i, p in enumerate(procs):
        if not p.is_alive():
            log.warning("%s exited (%s); restarting", p.name, p.exitcode)
            multiproc.process_dead(p.pid)
            procs[i] = _spawn(i, count, search, nice)


def run_workers(count: int, search: int = 1, metrics_port: int | None = None, metrics_host: str = "127.0.0.1") -> None:
    """Run ``count`` workers, ``search`` search workers and a sweeper until SIGINT/SIGTERM, then stop them all:
    each worker finishes the job it is playing (RQ's warm shutdown), a second signal stops them at once.
    ``metrics_port``: serve the workers' metrics (and the queues' and store's) at ``/metrics`` there."""
    catch_stop_signals()
    procs = start_workers(count, search)
    if metrics_port is not None:
        from service import metrics
        from service.referee import Referee

        settings = Settings.from_env()
        store, queue = connect(settings, timeout=settings.redis_timeout)
        metrics.serve_workers(metrics_host, metrics_port, Referee(store, settings, queue))
    try:
        while not stop_requested():
            replace_dead(procs, count, search)
            time.sleep(0.5)
    finally:
        stop_workers(procs)


def stop_workers(procs: list[mp.Process]) -> None:
    """Stop them (RQ's warm shutdown: each finishes its job), within the job timeout; what is left is killed."""
    stop_processes(procs, Settings.from_env().job_timeout)
