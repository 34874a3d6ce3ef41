"""What a commit owes after it (a bot turn, a scoring, a clock's deadline), written with the commit.

The store's one compare-and-set (service/core/store.py) writes a match's state, its events and the
operations the commit owes into the match's outbox, all in the match's slot, in one step: a
move and its jobs commit together or not at all.  The dispatcher (workers/dispatch.py) then moves
each operation to RQ and deletes it from the outbox, so a crash between the two leaves the
operation in the outbox to be moved again, never lost.

Keys (the match's own carry its hash tag; the others are global by nature, and say why):

- ``ref:{m:<id>}:outbox:<queue>`` hash, op id -> op (JSON); deleted op by op as they are dispatched
- ``ref:outbox:<queue>``    zset of the matches with an outbox (by time): the dispatcher's index.
  Only on a single server: on a Redis Cluster a key outside the match's slot cannot be written by
  its script, and the dispatcher finds outboxes by scanning the primaries instead
- channel ``ref:outbox:<queue>``: a commit that fills an outbox publishes its match id there, which
  wakes the dispatcher at once (pub/sub reaches every node of a cluster)
- ``ref:due:<queue>`` zset (job id -> when) and ``ref:due:<queue>:jobs`` hash (job id -> op), on
  RQ's server: the operations due later (turn clock timeouts), polled by the dispatcher
  every ``REFEREE_DISPATCH_INTERVAL`` (RQ's own scheduler counts whole seconds)
- ``ref:sent:<job id>`` (RQ's server, only when it lives apart from the store): a job already handed
  to RQ, so a dispatcher that died before emptying the outbox does not hand it over twice

An op is a small dict; its ``kind`` says what sending it does (``SENDERS``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import orjson
from rq import Queue, Retry
from rq.job import Job, JobStatus

#: how long RQ keeps a failed job (seconds): long enough to look at, short enough not to pile up
FAILURE_TTL = 24 * 3600
#: the states of a job that has yet to run (and then reads what was committed before)
WAITING = (JobStatus.QUEUED, JobStatus.SCHEDULED, JobStatus.DEFERRED)
#: how long a ``sent`` mark stays: far longer than a dispatcher takes to restart and finish its round
SENT_TTL = 600


def outbox_key(match_id: str, queue: str) -> str:
    """Named by the deployment's queue too: deployments sharing a cluster scan only their own outboxes."""
    return f"ref:{{m:{match_id}}}:outbox:{queue}"


def index_key(queue: str) -> str:
    return f"ref:outbox:{queue}"


def channel(queue: str) -> str:
    return f"ref:outbox:{queue}"


def due_key(queue: str) -> str:
    return f"ref:due:{queue}"


def due_jobs_key(queue: str) -> str:
    return f"ref:due:{queue}:jobs"


def sent_key(job_id: str) -> str:
    return f"ref:sent:{job_id}"


# -- the operations a commit can owe ------------------------------------------------------------
def job(func: str, args: list, job_id: str, queue: str, timeout: int, rid: str | None = None,
        at: float | None = None, reused: bool = False) -> tuple[str, dict]:
    """An RQ job, now or (``at``) once that time has come; ``rid``: the request that caused it.  ``reused``:
    every commit of a match owes the job under the same id (a match's webhook delivery), so that queued
    ones collapse; while one runs, the next is sent under an id of its own (``Sender.settle_reused``)."""
    op: dict[str, Any] = {"kind": "job", "func": func, "args": list(args), "id": job_id, "queue": queue,
                          "timeout": timeout}
    if rid is not None:
        op["rid"] = rid
    if at is not None:
        op["at"] = at
    if reused:
        op["reused"] = True
    return job_id, op


def void(job_id: str) -> tuple[str, dict]:
    """A job due later that is no longer owed (a turn clock stopped in time)."""
    return f"void:{job_id}", {"kind": "void", "id": job_id}


def note(key: str, member: str, score: float, mode: str = "set", trim_before: float | None = None) -> tuple[str, dict]:
    """A member of a global sorted set (``mode``: set, ``gt`` or ``nx``; ``rem`` takes it out), older members
    trimmed on request; ``reserve`` and ``release``: a member of a set whose member ``TOTAL`` is the sum of the
    others' scores (the store's reserve: service/core/store.py)."""
    op: dict[str, Any] = {"kind": "note", "key": key, "member": member, "score": score, "mode": mode}
    if trim_before is not None:
        op["trim_before"] = trim_before
    return f"note:{key}:{member}", op


def writes(op: dict, due: str, due_jobs: str, now: float | None = None) -> list[tuple[str, str, Any, Any]] | None:
    """What ``op`` writes into the global sets, as commands (command, key, a, b), or None for a job to enqueue
    now: a job due later goes into the due set (``now`` None: whenever it is due), a void takes it out, a note
    is a member of a sorted set.  ``Sender`` runs them on a transaction (``WRITE``); on one server the
    store's compare-and-set runs them itself (its ``CAS`` script knows the same commands)."""
    kind = op["kind"]
    if kind == "job":
        if op.get("at") is None or (now is not None and op["at"] <= now):
            return None
        return [("z", due, op["at"], op["id"]), ("hset", due_jobs, op["id"], orjson.dumps(op))]
    if kind == "void":
        return [("zrem", due, op["id"], ""), ("hdel", due_jobs, op["id"], "")]
    if kind == "note":
        mode = op["mode"]
        if mode == "rem":
            return [("zrem", op["key"], op["member"], "")]
        if mode == "reserve":  # counted in the set's total (``TOTAL``) once, however often the op is written
            return [("radd", op["key"], op["score"], op["member"])]
        if mode == "release":
            return [("rrem", op["key"], op["member"], "")]
        found = [("z" if mode == "set" else f"z{mode}", op["key"], op["score"], op["member"])]
        if op.get("trim_before") is not None:
            found.append(("trim", op["key"], op["trim_before"], ""))
        return found
    raise ValueError(f"unknown op kind {kind!r}")


#: the member of a reserve set that holds the sum of the others' scores
TOTAL = "~total"
# a member added to a reserve set (once: a second add of it changes nothing), and its score to the total
RESERVE_ADD = f"""
if redis.call('ZADD', KEYS[1], 'NX', ARGV[1], ARGV[2]) == 1 then redis.call('ZINCRBY', KEYS[1], ARGV[1], '{TOTAL}') end
"""
# a member taken out of a reserve set, and its score out of the total
RESERVE_REM = f"""
local s = redis.call('ZSCORE', KEYS[1], ARGV[1])
if s then
  redis.call('ZREM', KEYS[1], ARGV[1])
  redis.call('ZINCRBY', KEYS[1], -tonumber(s), '{TOTAL}')
end
"""

#: each command of ``writes`` on a redis-py pipeline
WRITE: dict[str, Callable[[Any, str, Any, Any], Any]] = {
    "z": lambda pipe, key, a, b: pipe.zadd(key, {b: a}),
    "zgt": lambda pipe, key, a, b: pipe.zadd(key, {b: a}, gt=True),
    "znx": lambda pipe, key, a, b: pipe.zadd(key, {b: a}, nx=True),
    "zrem": lambda pipe, key, a, b: pipe.zrem(key, a),
    "trim": lambda pipe, key, a, b: pipe.zremrangebyscore(key, "-inf", a),
    "hset": lambda pipe, key, a, b: pipe.hset(key, a, b),
    "hdel": lambda pipe, key, a, b: pipe.hdel(key, a),
    "radd": lambda pipe, key, a, b: pipe.eval(RESERVE_ADD, 1, key, a, b),
    "rrem": lambda pipe, key, a, b: pipe.eval(RESERVE_REM, 1, key, a),
}


def encode(ops: dict[str, dict]) -> list[bytes]:
    """The outbox fields of a commit: op id, op, ... (for the compare-and-set's arguments)."""
    out: list[bytes] = []
    for op_id, op in ops.items():
        out += [op_id.encode(), orjson.dumps(op)]
    return out


# -- sending operations to RQ's server ----------------------------------------------------------
class Sender:
    """Hands operations to RQ's server on a transaction (redis-py's pipeline, RQ's public ``enqueue_call``
    with ``pipeline=``): one round trip for a whole batch, all of it or nothing."""

    def __init__(self, connection, queue: str, queues: dict[str, Queue], retries: int = 3) -> None:
        self.connection = connection
        self.queues = queues
        self.due = due_key(queue)
        self.due_jobs = due_jobs_key(queue)
        self.retry = Retry(max=retries, interval=[1, 2, 4][:retries])

    def send(self, pipe, op: dict, now: float) -> None:
        """Queue ``op`` on ``pipe`` (a begun transaction on RQ's server)."""
        found = writes(op, self.due, self.due_jobs, now)
        if found is None:
            self.enqueue(pipe, op)
        for command, key, a, b in found or ():
            WRITE[command](pipe, key, a, b)

    def settle_reused(self, ops: list[dict], pipe=None) -> list[dict]:
        """``ops`` as they are to be sent: a ``reused`` job op whose id belongs to a job waiting to run is left
        out (that job starts after the op's commit landed, so it reads it), and one whose id belongs to a job
        running now goes as ``<id>_next`` (left out too while that one waits), or as an id of its own while that
        one runs too.

        RQ would run a job enqueued twice under one id twice, at once on two workers (its id is pushed on the
        queue twice): the first to end deletes the job's key (no result is kept), and the other, its work done,
        fails to finish (``InvalidJobOperation``).  Enqueued under a running job's id, it overwrites that job's
        key, which the running one then deletes.  ``pipe``: a pipeline on RQ's server to WATCH those jobs' keys
        on before they are read (its transaction then fails if one of them changed meanwhile: read again)."""
        reused = [op for op in ops if op.get("reused")]
        if not reused:
            return ops
        keys = [Job.key_for(job_id) for op in reused for job_id in (op["id"], f"{op['id']}_next")]
        if pipe is not None:
            pipe.watch(*keys)
        read = self.connection.pipeline(transaction=False)
        for key in keys:
            read.hget(key, "status")
        statuses = iter([s.decode() if s else None for s in read.execute()])
        found = {id(op): (next(statuses), next(statuses)) for op in reused}
        out = []
        for op in ops:
            if op.get("reused"):
                first, after = found[id(op)]
                if first in WAITING or (first == JobStatus.STARTED and after in WAITING):
                    continue
                if first == JobStatus.STARTED:
                    op = {**op, "id": f"{op['id']}_{time.time_ns()}" if after == JobStatus.STARTED
                          else f"{op['id']}_next"}
            out.append(op)
        return out

    def enqueue(self, pipe, op: dict) -> None:
        """The job itself: short timeout, retries with backoff, no result kept (nobody reads it, and a finished
        job then leaves no key behind); its id collapses duplicates; its meta carries the request id."""
        meta = {"request_id": op["rid"]} if op.get("rid") else None
        self.queues[op["queue"]].enqueue_call(op["func"], args=tuple(op["args"]), job_id=op["id"],
                                              timeout=op["timeout"], result_ttl=0, failure_ttl=FAILURE_TTL,
                                              retry=self.retry, meta=meta, pipeline=pipe)

    def send_now(self, ops: list[dict]) -> None:
        """Operations owed outside any commit (the sweeper's repairs, a failed job's hand-over), at once."""
        if not ops:
            return
        now = time.time()
        with self.connection.pipeline() as pipe:
            pipe.multi()
            for op in ops:
                self.send(pipe, op, now)
            pipe.execute()

    def next_due(self) -> float | None:
        """When the next job is due (None: none is)."""
        first = self.connection.zrange(self.due, 0, 0, withscores=True)
        return first[0][1] if first else None

    def take_due(self, now: float, apply=None, count: int = 500) -> int:
        """Enqueue the jobs whose time has come; returns how many.  ``apply(op)``: run such a job here instead
        when it returns True (a turn clock's timeout is one commit: RQ's bookkeeping of a job would cost more,
        and make it later).  One transaction then moves the others from the due set to their queues and drops
        all of them, so a crash leaves each either due or enqueued (a timeout applied twice finds nothing
        owed the second time: its timer is gone)."""
        ids = self.connection.zrangebyscore(self.due, "-inf", now, start=0, num=count)
        if not ids:
            return 0
        specs = [orjson.loads(spec) for spec in self.connection.hmget(self.due_jobs, ids) if spec is not None]
        rest = [op for op in specs if apply is None or not apply(op)]
        with self.connection.pipeline() as pipe:
            pipe.multi()
            for op in rest:
                self.enqueue(pipe, op)
            pipe.zrem(self.due, *ids)
            pipe.hdel(self.due_jobs, *ids)
            pipe.execute()
        return len(ids)
