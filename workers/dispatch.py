"""The dispatcher: moves what commits owe from the matches' outboxes to RQ, and due jobs to their queues.

A commit writes its jobs into its match's outbox in the same compare-and-set as the move
(service/store.py, service/outbox.py).  The dispatcher wakes on the outbox channel (or every
``REFEREE_DISPATCH_INTERVAL`` seconds), reads the outboxes of the matches named in the index (on a
Redis Cluster: found by scanning the primaries every ``SCAN_EVERY`` seconds, and named on the
channel), hands their ops to RQ's server in one transaction, then deletes the ops it sent.  It also
applies the turn clock timeouts whose deadline has come itself (one compare-and-set each, cheaper and
sooner than an RQ job), and enqueues any other job whose time has come.

One dispatcher works at a time per queue: each host runs one, and a lease on RQ's server (renewed
every round) picks which; a dispatcher killed or stopped loses its lease within ``LEASE_S`` and
another takes over.  What is in flight when it dies:

- on one server, the ops' jobs and the outbox's emptying are one transaction: all or nothing;
- with RQ's server apart, each job sent is marked (``ref:sent:<job id>``) in the transaction that
  enqueues it, so the next dispatcher deletes it from the outbox without sending it again.

It is also RQ's scheduler (the workers run none): every ``SCHEDULE_EVERY`` seconds it enqueues RQ's
delayed jobs whose time has come (a failed job's retry, a tournament's tick), with RQ's own scheduler
class in this process, under RQ's own lock.  Everything delayed therefore lives in the store and is
moved by a process that outlives a restart of the store: a refused or lost connection is said once
(service/logs.py ``Incident``), and the next round after it goes on where the last one was.
"""

from __future__ import annotations

import logging
import os
import secrets
import time

import orjson
import redis
from redis.cluster import RedisCluster

from service import requestid
from service.core.referee import Referee
from service.outbox import SENT_TTL, outbox_key, sent_key

log = logging.getLogger("referee.dispatch")

#: seconds a dispatcher's lease lasts without renewal (another host's dispatcher takes over after it)
LEASE_S = 3.0
#: seconds between two scans of a cluster's primaries for outboxes nobody named on the channel
SCAN_EVERY = 2.0
#: outboxes moved per transaction
BATCH = 200
#: seconds between two looks at RQ's delayed jobs
SCHEDULE_EVERY = 0.25
#: transactions tried with the reused jobs' keys watched (``Sender.settle_reused``) before one without
WATCH_TRIES = 5

RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) and 1 or 0
"""


class Dispatcher:
    def __init__(self, ref: Referee) -> None:
        self.ref = ref
        self.store = ref.store
        self.queue = ref.queue.connection
        self.apart = ref.settings.queue_apart
        self.lease_key = f"ref:dispatcher:{ref.settings.queue}"
        self.token = secrets.token_hex(8)
        self._renew = self.queue.register_script(RENEW)
        self.named: set[str] = set()
        self.scanned_at = 0.0
        self.scan_every = SCAN_EVERY
        self.scheduled_at = 0.0
        self.scheduler = None

    def holds_lease(self) -> bool:
        return bool(self._renew(keys=[self.lease_key], args=[self.token, int(LEASE_S * 1000)]))

    def release(self) -> None:
        if self.queue.get(self.lease_key) == self.token.encode():
            self.queue.delete(self.lease_key)

    def pending_outboxes(self) -> list[str]:
        """The matches whose outbox may hold ops: the index (one server) or a scan (cluster), and the named."""
        ids = set(self.named)
        self.named.clear()
        if self.store.index is not None:
            ids.update(m.decode() for m in self.store.redis.zrange(self.store.index, 0, BATCH * 5 - 1))
        elif time.monotonic() - self.scanned_at >= self.scan_every:
            self.scanned_at = time.monotonic()
            client: RedisCluster = self.store.client
            suffix = f"}}:outbox:{self.store.outbox}"
            for key in client.scan_iter(match=f"ref:{{m:*{suffix}", count=1000, target_nodes=RedisCluster.PRIMARIES):
                ids.add(key.decode()[len("ref:{m:"):-len(suffix)])
        return sorted(ids)

    def move(self, match_ids: list[str]) -> int:
        """Hand the ops of these matches' outboxes to RQ's server; returns how many were sent."""
        sent = 0
        for start in range(0, len(match_ids), BATCH):
            sent += self._move_batch(match_ids[start:start + BATCH])
        return sent

    def _move_batch(self, match_ids: list[str]) -> int:
        read = self.store.redis.pipeline(transaction=False)
        for match_id in match_ids:
            read.hgetall(outbox_key(match_id, self.store.outbox))
        boxes = list(zip(match_ids, read.execute(), strict=True))
        outboxes = [(m, box) for m, box in boxes if box]
        for match_id, box in boxes:
            if not box and self.store.index is not None:  # an index entry whose outbox is empty (or expired)
                self.store.taken(match_id, [b"-"])
        if not outboxes:
            return 0
        marked: set[bytes] = set()
        if self.apart:  # jobs a dead dispatcher already sent: only their outbox entries are left to delete
            jobs = [op_id for _, box in outboxes for op_id in box if not op_id.startswith((b"void:", b"note:"))]
            if jobs:
                marks = self.queue.mget([sent_key(j.decode()) for j in jobs])
                marked = {j for j, mark in zip(jobs, marks, strict=True) if mark is not None}
        now = time.time()
        sender = self.ref.sender
        ops = [(op_id, orjson.loads(raw)) for _, box in outboxes for op_id, raw in box.items() if op_id not in marked]
        with self.queue.pipeline() as pipe:
            for attempt in range(WATCH_TRIES):
                try:  # (the last try watches nothing: a job's key that keeps changing cannot hold the round up)
                    sending = sender.settle_reused([op for _, op in ops], pipe if attempt < WATCH_TRIES - 1 else None)
                    pipe.multi()
                    for op in sending:
                        sender.send(pipe, op, now)
                    if self.apart:  # (under the op's own id, which a successor reads)
                        for op_id, op in ops:
                            if op["kind"] == "job":
                                pipe.set(sent_key(op_id.decode()), 1, ex=SENT_TTL)
                    else:  # one server: the outboxes empty in the same transaction
                        for match_id, box in outboxes:
                            self.store.taken(match_id, list(box), pipe)
                    pipe.execute()
                    break
                except redis.WatchError:
                    pipe.reset()
        count = len(ops)
        if self.apart:
            for match_id, box in outboxes:
                self.store.taken(match_id, list(box))
        return count

    def round(self) -> int:
        """One round: the outboxes, then the jobs whose time has come (ours, and RQ's delayed ones every
        ``SCHEDULE_EVERY``).  Returns how many ops and jobs it moved."""
        moved = self.move(self.pending_outboxes())
        moved += self.ref.sender.take_due(time.time(), self.apply)
        if time.monotonic() >= self.scheduled_at:
            self.scheduled_at = time.monotonic() + SCHEDULE_EVERY
            moved += self.schedule()
        return moved

    def schedule(self) -> int:
        """Enqueue RQ's delayed jobs whose time has come, as RQ's scheduler does (its class, its lock);
        returns how many were due."""
        from rq.registry import ScheduledJobRegistry
        from rq.scheduler import RQScheduler
        from rq.serializers import JSONSerializer

        queues = [self.ref.queue, self.ref.people_queue, self.ref.search_queue]
        read = self.queue.pipeline(transaction=False)
        for q in queues:
            read.zcount(ScheduledJobRegistry(queue=q).key, 0, time.time())
        due = sum(read.execute())
        if not due:
            return 0
        if self.scheduler is None:
            self.scheduler = RQScheduler(queues, connection=self.queue, serializer=JSONSerializer,
                                         logging_level=logging.WARNING)
        self.scheduler.acquire_locks()
        if self.scheduler.acquired_locks:
            try:
                self.scheduler.enqueue_scheduled_jobs()
            finally:
                self.scheduler.release_locks()
        return due

    def apply(self, op: dict) -> bool:
        """A due turn clock's timeout is applied here, at once (one compare-and-set, a no-op unless that very
        timer still runs); any other due job goes to RQ."""
        if op["func"] != "workers.jobs.clock_timeout":
            return False
        token = requestid.CURRENT.set(op.get("rid"))
        try:
            self.ref.timeout(*op["args"])
        except Exception:  # noqa: BLE001 - a timeout that fails here is retried by a worker
            log.exception("timeout %s failed in the dispatcher; handing it to a worker", op["id"])
            return False
        finally:
            requestid.CURRENT.reset(token)
        return True


def until_idle(ref: Referee, worker=None, queues=None) -> int:
    """Dispatch and run the owed jobs in this process until nothing is owed now: what a benchmark or a test
    that drives a referee in-process does instead of running a dispatcher and workers.  Returns how many
    bursts of ``worker`` (an RQ worker class; a class counting its jobs in ``ran`` makes it how many jobs)
    did work."""
    from rq import SimpleWorker
    from rq.serializers import JSONSerializer

    worker = worker or SimpleWorker
    dispatcher, ran = Dispatcher(ref), 0
    dispatcher.scan_every = 0.0  # no channel here: a cluster's outboxes are found by scanning, every round
    while True:
        while dispatcher.round():
            pass
        w = worker(queues or ref.bot_queues, connection=ref.queue.connection, serializer=JSONSerializer)
        if not sum(len(q) for q in w.queues):
            return ran
        w.work(burst=True, logging_level="ERROR")
        ran += getattr(w, "ran", 1)


def run(ref: Referee, stop=lambda: False) -> None:
    """Dispatch until ``stop()``: wake on the outbox channel, at the next job's time, or every
    ``dispatch_interval`` at the latest (a cluster's scan, a lost notification)."""
    from service import logs

    interval = ref.settings.dispatch_interval
    dispatcher = Dispatcher(ref)
    pubsub = None
    incident = logs.Incident(log, "dispatcher")
    try:
        while not stop():
            try:
                if not dispatcher.holds_lease():
                    if pubsub is not None:
                        pubsub.close()
                        pubsub = None
                    time.sleep(LEASE_S / 3)
                    continue
                if pubsub is None:
                    pubsub = ref.store.client.pubsub(ignore_subscribe_messages=True)
                    pubsub.subscribe(ref.store.channel)
                dispatcher.round()
                incident.ok()
                # sleep until the next round: at most the interval, and never past the next job's time
                deadline = time.monotonic() + interval
                due = ref.sender.next_due()
                if due is not None:
                    deadline = min(deadline, time.monotonic() + max(0.0, due - time.time()))
                while (left := deadline - time.monotonic()) > 0:
                    message = pubsub.get_message(timeout=left)
                    if message is not None and message["type"] == "message":
                        dispatcher.named.add(message["data"].decode())
                        break
            except redis.RedisError as exc:  # a full store, a lost one: said once, tried again after a back-off
                wait = incident.failed(exc)
                if pubsub is not None:
                    try:
                        pubsub.close()
                    except redis.RedisError:
                        pass
                    pubsub = None
                time.sleep(max(interval, min(wait, LEASE_S / 3)))
    finally:
        if pubsub is not None:
            pubsub.close()
        dispatcher.release()


def main(parent: int | None = None) -> None:
    """The dispatcher process of a worker host (workers/run.py)."""
    from service.config import Settings
    from service.connections import connect
    from service.processes import catch_stop_signals, die_with_parent, name_process, stop_requested

    if parent is not None:
        die_with_parent(parent)
    name_process("referee-dispatcher")
    catch_stop_signals()
    settings = Settings.from_env()
    store, queue = connect(settings)
    log.info("dispatcher %d started", os.getpid())
    run(Referee(store, settings, queue), stop_requested)
