"""RQ jobs: a bot's turn, a turn clock's timeout, the end-of-game scoring, and the sweeper that
re-queues lost turns and timeouts.

Jobs are enqueued by the referee with the commit that owes them (in its transaction, or right
after it when the queue lives apart from the store), with ids from (match, seat, version), so a
duplicate collapses into a no-op.
"""

from __future__ import annotations

import logging
import time
from datetime import timedelta

import redis
from rq import Queue, get_current_job
from rq.job import Job, JobStatus
from rq.serializers import JSONSerializer

from service import webhooks
from service.config import Settings
from service.connections import store_for_queue
from service.games import DEFAULT_MOVES
from service.problems import Problem
from service.referee import SEARCH_CAP_S, Actor, Referee, match_rng, player_of, timeout_job_id
from service.store import Status
from workers.bots import Budget, make_bot

log = logging.getLogger("referee.workers")
_referees: dict[int, Referee] = {}


def referee_for(connection: redis.Redis) -> Referee:
    """One referee per worker (queue) connection, built once (the referee itself is stateless)."""
    ref = _referees.get(id(connection))
    if ref is None:
        settings = Settings.from_env()
        ref = _referees[id(connection)] = Referee(store_for_queue(settings, connection), settings, connection)
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
    entry = match.meta["seats"][seat]
    kind = player_of(entry)
    if kind == "default":  # a seat that forfeited: the game's default move, at once
        move = DEFAULT_MOVES[match.game](match.state, seat)
    else:
        budget = entry.get("budget") if kind == entry.get("bot") else None
        if budget is not None:
            budget = Budget(budget["iterations"], budget["ms"] or SEARCH_CAP_S * 1000)
        bot = make_bot(match.game, kind, budget)
        move = bot(view, moves, seat, match_rng(match.meta["seed"], f"bot:{seat}:{version}"))
    try:
        ref.apply_move(match_id, Actor.playing(seat, version), move)
    except Problem as exc:
        if exc.code in ("stale_version", "match_over", "not_your_turn"):
            return "overtaken"  # someone else moved first (e.g. an abort): nothing owed any more
        raise
    return "moved"


def clock_timeout(match_id: str, seat: int, version: int) -> str:
    """The timer ``seat`` started at ``version`` is due (RQ's scheduler enqueued this at its deadline)."""
    return _current_referee().timeout(match_id, seat, version)


def score_match(match_id: str) -> str:
    return "scored" if _current_referee().score(match_id) else "not owed"


def _job_alive(ref: Referee, job_id: str, started_grace: float, queue: Queue | None = None,
               overdue: bool = False) -> bool:
    """Whether the job will still run: waiting in the queue, scheduled for a retry, or running.

    ``overdue``: its time has long come, so a job still waiting in RQ's scheduled registry is
    stuck (its scheduler died holding the queue's scheduler lock, which lasts a minute)."""
    try:
        job = Job.fetch(job_id, connection=ref.queue.connection, serializer=JSONSerializer)
    except Exception:
        return False
    status = job.get_status(refresh=False)
    if status == JobStatus.QUEUED:
        # a worker killed while dequeuing leaves the job "queued" but in no queue
        return (queue or ref.queue).get_job_position(job_id) is not None
    if status in (JobStatus.SCHEDULED, JobStatus.DEFERRED):
        return not overdue
    if status == JobStatus.STARTED:
        started = job.started_at.timestamp() if job.started_at else 0
        return time.time() - started < started_grace
    return False


# Drop a match from the pending set unless a commit noted it again since the sweep began (its
# score is then newer than the cutoff): that commit may owe a job the sweeper has not seen.
FORGET = """
local noted = redis.call('ZSCORE', KEYS[1], ARGV[1])
if noted and tonumber(noted) <= tonumber(ARGV[2]) then return redis.call('ZREM', KEYS[1], ARGV[1]) end
return 0
"""


def sweep(ref: Referee, older_than: float | None = None) -> int:
    """Re-enqueue the bot turns and scorings owed by matches whose job was lost (a killed worker).

    Returns how many jobs were re-enqueued.  Safe to run from several hosts at once: job ids
    collapse and a turn played twice is refused by the version check.
    """
    older_than = ref.settings.sweep_after if older_than is None else older_than
    grace = ref.settings.job_timeout + older_than
    cutoff = time.time() - older_than
    requeued = 0
    queue, pending = ref.queue.connection, ref.store.pending
    for raw_id in queue.zrangebyscore(pending, 0, cutoff):
        match_id = raw_id.decode()
        match = ref.store.load(match_id)
        if match is None or match.status not in (Status.ACTIVE, Status.SCORING):
            queue.eval(FORGET, 1, pending, match_id, cutoff)
            continue
        if match.status == Status.SCORING:
            if not _job_alive(ref, f"score_{match_id}", grace):
                ref.enqueue_scoring(match_id)
                requeued += 1
        else:
            bots = ref.owed_bots(match)
            timers = match.meta.get("timers", {})
            if not bots and not timers:  # a human is to act without a clock: nothing owed until a bot is
                queue.eval(FORGET, 1, pending, match_id, cutoff)
                continue
            for seat in bots:
                job_id = f"bot_{match_id}_{seat}_{match.version}"
                if not _job_alive(ref, job_id, grace + SEARCH_CAP_S, ref.bot_queue(match, seat)):
                    ref.enqueue_bot_turn(match, seat, match.version)
                    requeued += 1
            for key, timer in timers.items():  # a timeout due for a while whose job was lost
                job_id = timeout_job_id(match_id, int(key), timer["set_at"])
                if timer["deadline"] < cutoff and not _job_alive(ref, job_id, grace, overdue=True):
                    ref.enqueue_timeout(match_id, int(key), timer["set_at"])
                    requeued += 1
        queue.zadd(pending, {match_id: time.time()})
    if requeued:
        log.warning("sweeper re-enqueued %d job(s)", requeued)
    return requeued



def deliver_webhooks(match_id: str) -> str:
    """Send the match's webhook messages that are due (service/webhooks.py, ``deliver``)."""
    ref = _current_referee()

    def again_in(seconds: float) -> None:
        if seconds <= 0:
            ref.enqueue_webhooks(match_id, 0)
            return
        ref.queue.enqueue_in(timedelta(seconds=seconds), "workers.jobs.deliver_webhooks", match_id,
                             job_id=f"hooks_{match_id}", result_ttl=0, failure_ttl=24 * 3600)

    return webhooks.deliver(ref.store, ref.queue.connection, ref.settings, match_id, again_in)


def sweep_webhooks(ref: Referee) -> int:
    """Re-enqueue the delivery of every match whose webhook has messages due and whose job was lost."""
    requeued = 0
    for raw_id in ref.queue.connection.zrange(webhooks.due_key(ref.settings.queue), 0, -1):
        match_id = raw_id.decode()
        if not _job_alive(ref, f"hooks_{match_id}", ref.settings.job_timeout + ref.settings.webhook_timeout):
            ref.enqueue_webhooks(match_id, 0)
            requeued += 1
    return requeued
