"""RQ jobs: a bot's turn, the end-of-game scoring, and the sweeper that re-queues lost turns.

Jobs are enqueued by the referee inside the same transaction as the commit that owes them,
with ids from (match, seat, version), so a duplicate collapses into a no-op.
"""

from __future__ import annotations

import logging
import time

import redis
from rq import get_current_job
from rq.job import Job, JobStatus
from rq.serializers import JSONSerializer

from service.config import Settings
from service.problems import Problem
from service.referee import ACTIVE, Referee, match_rng
from workers.bots import BOTS

log = logging.getLogger("referee.workers")
_referees: dict[int, Referee] = {}


def referee_for(connection: redis.Redis) -> Referee:
    """One referee per worker connection, built once (the referee itself is stateless)."""
    ref = _referees.get(id(connection))
    if ref is None:
        ref = _referees[id(connection)] = Referee(connection, Settings.from_env())
    return ref


def _current_referee() -> Referee:
    return referee_for(get_current_job().connection)


def play_bot_turn(match_id: str, seat: int, version: int) -> str:
    """Play one bot move if that seat still owes it at that version; otherwise do nothing."""
    ref = _current_referee()
    seen = ref.bot_view(match_id, seat, version)
    if seen is None:
        return "not owed"
    match, view, moves = seen
    kind = match.meta["seats"][seat]["bot"]
    move = BOTS[match.game][kind](view, moves, seat, match_rng(match.meta["seed"], f"bot:{seat}:{version}"))
    try:
        ref.apply_move(match_id, None, seat, move, at_version=version)
    except Problem as exc:
        if exc.code in ("stale_version", "match_over", "not_your_turn"):
            return "overtaken"  # someone else moved first (e.g. an abort): nothing owed any more
        raise
    return "moved"


def score_match(match_id: str) -> str:
    return "scored" if _current_referee().score(match_id) else "not owed"


def _job_alive(ref: Referee, job_id: str, started_grace: float) -> bool:
    """Whether the job will still run: waiting in the queue, scheduled for a retry, or running."""
    try:
        job = Job.fetch(job_id, connection=ref.redis, serializer=JSONSerializer)
    except Exception:
        return False
    status = job.get_status(refresh=False)
    if status == JobStatus.QUEUED:
        # a worker killed while dequeuing leaves the job "queued" but in no queue
        return ref.queue.get_job_position(job_id) is not None
    if status in (JobStatus.SCHEDULED, JobStatus.DEFERRED):
        return True
    if status == JobStatus.STARTED:
        started = job.started_at.timestamp() if job.started_at else 0
        return time.time() - started < started_grace
    return False


def sweep(ref: Referee, older_than: float | None = None) -> int:
    """Re-enqueue the bot turns and scorings owed by matches whose job was lost (a killed worker).

    Returns how many jobs were re-enqueued.  Safe to run from several hosts at once: job ids
    collapse and a turn played twice is refused by the version check.
    """
    older_than = ref.settings.sweep_after if older_than is None else older_than
    grace = ref.settings.job_timeout + older_than
    cutoff = time.time() - older_than
    requeued = 0
    for raw_id in ref.redis.zrangebyscore(ref.pending, 0, cutoff):
        match_id = raw_id.decode()
        match = ref.store.load(match_id)
        if match is None or match.status not in (ACTIVE, "scoring"):
            ref.redis.zrem(ref.pending, match_id)
            continue
        if match.status == "scoring":
            if not _job_alive(ref, f"score_{match_id}", grace):
                ref.enqueue_scoring(match_id)
                requeued += 1
        else:
            bots = ref.owed_bots(match)
            if not bots:  # a human is to act: nothing owed until a bot is again
                ref.redis.zrem(ref.pending, match_id)
                continue
            for seat in bots:
                if not _job_alive(ref, f"bot_{match_id}_{seat}_{match.version}", grace):
                    ref.enqueue_bot_turn(match_id, seat, match.version)
                    requeued += 1
        ref.redis.zadd(ref.pending, {match_id: time.time()})
    if requeued:
        log.warning("sweeper re-enqueued %d job(s)", requeued)
    return requeued
