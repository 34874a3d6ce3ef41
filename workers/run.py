"""Run RQ worker processes (JSON serializer, never pickle) and the sweeper.

``referee worker`` calls ``run_workers``; ``referee serve`` does too, next to the API.
"""

from __future__ import annotations

import itertools
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


#: the refused writes and lost connections this worker process meets (said once per incident)
INCIDENT = logs.Incident(log, "worker")


class Worker(SimpleWorker):
    """RQ's worker, which runs each job for the request that caused it (its ``meta``'s request id:
    service/requestid.py), counts its wait and run time (service/metrics.py) and logs a line for it
    (service/logs.py)."""

    log_text = False
    stopping = False

    def handle_exception(self, job, *exc_info) -> None:
        """A job refused by a full store (or a lost one) is said once per incident, not once per job, and this
        worker backs off before it takes the next; any other failure is logged as RQ does (one JSON line)."""
        if isinstance(exc_info[1], redis.RedisError):
            time.sleep(min(INCIDENT.failed(exc_info[1]), 5.0))
            return
        super().handle_exception(job, *exc_info)

    def request_stop(self, signum=None, frame=None) -> None:
        Worker.stopping = True  # (RQ's warm shutdown: :func:`_work` then does not start it again)
        super().request_stop(signum, frame)

    def perform_job(self, job, queue, execution) -> bool:
        from service import metrics

        started, clock = time.time(), time.perf_counter()
        rid = job.meta.get(requestid.META) if job.meta else None
        token = requestid.CURRENT.set(rid)
        function = (job.func_name or "?").rpartition(".")[2]
        ok = False
        try:
            ok = super().perform_job(job, queue, execution)
            if ok:
                INCIDENT.ok()
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
    # RQ's scheduler (its delayed jobs: a failed job's retry) is run by the dispatcher (workers/dispatch.py)
    for run in itertools.count():
        worker = Worker(queues, connection=conn, serializer=JSONSerializer,
                        name=f"referee-{socket.gethostname()}-{os.getpid()}-{'search-' * search}{index}-{run}")
        try:
            worker.work(with_scheduler=False, logging_level="WARNING")
        except redis.RedisError as exc:  # (its teardown, at a full or lost store)
            INCIDENT.failed(exc)
        if Worker.stopping:
            break
        # RQ's worker quits on an error of its own (its bookkeeping refused by a full store, the store gone):
        # this process backs off and starts it again, rather than die and be restarted in a loop
        time.sleep(INCIDENT.failed(Quit("RQ's worker quit after an error it logged")))
    logs.drain()


class Quit(Exception):
    """RQ's worker quit after an error it logged itself (a refused write, a lost store)."""


def _sweep_forever(interval: float, parent: int) -> None:
    """One sweeper per host; a lock on the queue's server makes hosts take turns rather than sweep at once.
    It also compacts the finished matches that are due, for up to ``interval`` seconds a round, as batch work
    (at the main workers' lower priority)."""
    die_with_parent(parent)
    name_process("referee-sweeper")
    os.nice(ALL_BOT_NICE)
    from service.core.referee import Referee
    from workers.jobs import sweep, sweep_webhooks

    settings = Settings.from_env()
    store, queue = connect(settings)
    ref = Referee(store, settings, queue)
    incident = logs.Incident(log, "sweeper")
    while True:
        wait = interval
        try:
            if queue.set(f"ref:sweeper:{settings.queue}", os.getpid(), nx=True, ex=max(int(interval), 1)):
                sweep(ref)
                sweep_webhooks(ref)
                ref.store.prune_reserve()  # matches that expired before they were over
                used, bound = ref.store.memory()
                if bound and used >= settings.store_full_at * bound:  # the replay caches go first (docs/store.md)
                    ref.store.drop_replay_caches()
                until = time.monotonic() + interval
                while ref.compact_due(time.time()) and time.monotonic() < until:
                    pass
            incident.ok()
        except redis.RedisError as exc:  # a full store, a lost one: said once, tried again after a back-off
            wait = max(interval, incident.failed(exc))
        time.sleep(wait)


SWEEP_INTERVAL = 2.0


def _spawn(index: int, count: int, search: int, nice: int = 0) -> mp.Process:
    """Child ``index``: a worker for 0..count-1, a search worker for the next ``search``, then the
    sweeper and the dispatcher; all read their settings (REDIS_URL, REFEREE_QUEUE_URL, ...) from the
    environment."""
    if index < count + search:
        is_search = index >= count
        return fork(logs.guarded(_work), (index, is_search, os.getpid(), nice),
                    f"referee-{'search-' * is_search}worker-{index}")
    if index == count + search:
        return fork(logs.guarded(_sweep_forever), (SWEEP_INTERVAL, os.getpid()), "referee-sweeper")
    from workers import dispatch

    return fork(logs.guarded(dispatch.main), (os.getpid(),), "referee-dispatcher")


def start_workers(count: int, search: int = 1, nice: int = 0) -> list[mp.Process]:
    """``count`` workers, ``search`` search workers, one sweeper and one dispatcher."""
    return [_spawn(i, count, search, nice) for i in range(count + search + 2)]


#: (started at, restarts in a row) of each child slot: one that dies soon after its start waits longer each time
_restarts: dict[int, tuple[float, int]] = {}
#: seconds a child must live to count as started well (its next death is restarted at once)
STARTED_WELL = 30.0


def replace_dead(procs: list[mp.Process], count: int, search: int = 1, nice: int = 0) -> None:
    """Restart any child that died (a crash or a kill); the sweeper re-enqueues what it held.  A child that
    keeps dying soon after its start is restarted after a back-off doubling up to 30 s, not in a loop."""
    now = time.monotonic()
    for i, p in enumerate(procs):
        if not p.is_alive():
            started, row = _restarts.get(i, (0.0, 0))
            row = row + 1 if now - started < STARTED_WELL else 0
            wait = min(30.0, 0.5 * 2 ** (row - 1)) if row else 0.0
            if now - started < wait:
                continue  # (its time comes at a later look)
            if p.exitcode is not None:  # said once per death, not once per look
                log.warning("%s exited (%s); restarting%s", p.name, p.exitcode,
                            f" (died {row} times in a row soon after starting)" if row else "")
            multiproc.process_dead(p.pid)
            procs[i] = _spawn(i, count, search, nice)
            _restarts[i] = (time.monotonic(), row)


def run_workers(count: int, search: int = 1, metrics_port: int | None = None, metrics_host: str = "127.0.0.1") -> None:
    """Run ``count`` workers, ``search`` search workers and a sweeper until SIGINT/SIGTERM, then stop them all:
    each worker finishes the job it is playing (RQ's warm shutdown), a second signal stops them at once.
    ``metrics_port``: serve the workers' metrics (and the queues' and store's) at ``/metrics`` there."""
    catch_stop_signals()
    procs = start_workers(count, search)
    if metrics_port is not None:
        from service import metrics
        from service.core.referee import Referee

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
