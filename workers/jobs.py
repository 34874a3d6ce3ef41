"""RQ jobs: a match's bot turns, a turn clock's timeout, the end-of-game scoring, and the sweeper that
re-queues lost turns and timeouts.

Jobs are owed by the commit that causes them (written into the match's outbox with it) and enqueued
by the dispatcher (workers/dispatch.py), with ids from (match, seat, version), so a duplicate
collapses into a no-op.

A bot-turn job plays the turn it was enqueued for and then, in the same job, every bot turn that
follows while only seats a worker plays are to act (``Referee.plays_on``), each move its own
compare-and-set through ``Referee.apply_move``; such a move's commit enqueues no job for the turn the
loop plays next (``Referee.jobs``' ``held``).  The job stops when a person or a connected bot is to
act, when the match is over (after scoring it), or after ``REFEREE_BOT_SLICE_MS``: its last move is
then committed as any other, with the job of the next turn, at the back of the queue.  A job of the
main queue (all-bot matches) also stops early when a turn of a match with people waits in theirs.
"""

from __future__ import annotations

import logging
import time

import redis
from rq import Queue, get_current_job
from rq.job import Job, JobStatus
from rq.serializers import JSONSerializer

from service.competition import bots
from service.core import outbox
from service.core.base import Actor, player_of
from service.core.jobs import SEARCH_CAP_S
from service.core.outbox import due_key, outbox_key
from service.core.record import match_rng
from service.core.referee import Referee
from service.core.store import Match, Status
from service.core.turns import timeout_job_id
from service.games import PLUGINS
from service.infra.config import Settings
from service.infra.connections import store_for_queue
from service.infra.problems import Problem
from service.integrations import requestid, webhooks
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


#: seconds between two looks of an all-bot slice at the people's queue (a turn there ends the slice)
PEEK_S = 0.005


def play_bot_turn(match_id: str, seat: int, version: int) -> str:
    """Play the bot turn ``seat`` owes at ``version``, then the match's next bot turns (see above);
    nothing if that turn is no longer owed."""
    job = get_current_job()
    return play_bot_turns(referee_for(job.connection), match_id, seat, version, job.origin)


def bot_move(match: Match, seat: int) -> dict:
    """The move the worker plays for ``seat`` of the match as read: its bot's, or a forfeited seat's default."""
    _, view, moves = Referee.seat_view(match, seat)
    entry = match.meta["seats"][seat]
    kind = player_of(entry)
    if kind == "default":  # a seat that forfeited: the game's default move, at once
        return PLUGINS[match.game].default(match.state, seat)
    budget = entry.get("budget") if kind == entry.get("bot") else None
    if budget is not None:
        budget = Budget(budget["iterations"], budget["ms"] or SEARCH_CAP_S * 1000)
    bot = make_bot(match.game, kind, budget)
    return bot(view, moves, seat, match_rng(match.meta["seed"], f"bot:{seat}:{match.version}"))


def play_bot_turns(ref: Referee, match_id: str, seat: int, version: int, origin: str | None = None) -> str:
    """The loop of a bot-turn job taken from the queue ``origin`` (None: as the main queue's)."""
    match = ref.store.load(match_id)
    if match is None or match.version != version or seat not in ref.owed_bots(match):
        return "not owed"
    # a running slice is fresh in the pending set: the sweeper leaves it alone, and finds its turn if it dies
    ref.queue.connection.zadd(ref.store.pending, {match_id: time.time()})
    loops = origin != ref.search_queue.name  # a search turn is one per job: each takes its budget
    peek = origin in (None, ref.queue.name)  # an all-bot slice gives way to a turn a person waits for
    people = ref.people_queue.key
    end = time.monotonic() + ref.settings.bot_slice_ms / 1000
    next_peek, moved, held = 0.0, 0, False
    try:
        while True:
            move = bot_move(match, seat)
            now = time.monotonic()
            go_on = loops and now < end
            if go_on and peek and now >= next_peek:
                next_peek = now + PEEK_S
                go_on = not ref.queue.connection.llen(people)
            decided: list[bool] = []

            def hold(after: Match, go_on=go_on, decided=decided) -> bool:
                decided.append(go_on and ref.plays_on(after))
                return decided[-1]

            try:
                ref.apply_move(match_id, Actor.playing(seat, match.version), move, loaded=match, hold=hold)
            except Problem as exc:
                if exc.code in ("stale_version", "match_over", "not_your_turn"):
                    held = False  # someone else moved first (e.g. an abort): what is owed now was enqueued
                    return f"moved {moved}, overtaken" if moved else "overtaken"
                raise
            moved += 1
            held = decided[-1]
            if not held:
                return f"moved {moved}"
            # ``match`` is now the match as committed: play what it owes next on it, without reading it again
            match.new_events, match.meta_changed, match.void_jobs = [], False, []
            if match.status == Status.SCORING:
                ref.score(match_id)
                held = False
                return f"moved {moved}, scored"
            seat = ref.owed_bots(match)[0]
    except Exception:
        if held:  # the turn this job held for itself is owed to the queue again, at once
            ref.enqueue_owed(match_id)
        raise


def clock_timeout(match_id: str, seat: int, version: int) -> str:
    """The timer ``seat`` started at ``version`` is due (RQ's scheduler enqueued this at its deadline)."""
    return _current_referee().timeout(match_id, seat, version)


def score_match(match_id: str) -> str:
    return "scored" if _current_referee().score(match_id) else "not owed"


def _job_alive(ref: Referee, job_id: str, started_grace: float, queues: list[Queue] | None = None,
               match_id: str | None = None) -> bool:
    """Whether the job will still run: still in its match's outbox (the dispatcher sends it), waiting in the
    queue, scheduled for a retry, or running."""
    if match_id is not None and ref.store.redis.hexists(outbox_key(match_id, ref.settings.queue), job_id):
        return True
    try:
        job = Job.fetch(job_id, connection=ref.queue.connection, serializer=JSONSerializer)
    except Exception:
        return False
    status = job.get_status(refresh=False)
    if status == JobStatus.QUEUED:
        # a worker killed while dequeuing leaves the job "queued" but in no queue
        return any(q.get_job_position(job_id) is not None for q in queues or [ref.queue])
    if status in (JobStatus.SCHEDULED, JobStatus.DEFERRED):
        return True
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
            if not _job_alive(ref, f"score_{match_id}", grace, ref.bot_queues, match_id):
                ref.send([ref.scoring_op(match_id, match)])
                requeued += 1
        else:
            bots = ref.owed_bots(match)
            timers = match.meta.get("timers", {})
            if not bots and not timers:  # a human is to act without a clock: nothing owed until a bot is
                queue.eval(FORGET, 1, pending, match_id, cutoff)
                continue
            for seat in bots:
                job_id = f"bot_{match_id}_{seat}_{match.version}"
                queues = [ref.search_queue] if ref.bot_queue(match, seat) is ref.search_queue else ref.bot_queues
                if not _job_alive(ref, job_id, grace + SEARCH_CAP_S, queues, match_id):
                    ref.send([ref.bot_turn_op(match, seat, match.version)])
                    requeued += 1
            due = due_key(ref.settings.queue)
            for key, timer in timers.items():  # a timeout due for a while whose job was lost
                job_id = timeout_job_id(match_id, int(key), timer["set_at"])
                if (timer["deadline"] < cutoff and queue.zscore(due, job_id) is None
                        and not _job_alive(ref, job_id, grace, [ref.people_queue], match_id)):
                    ref.send([ref.timeout_op(match_id, int(key), timer["set_at"])])
                    requeued += 1
        queue.zadd(pending, {match_id: time.time()})
    if requeued:
        log.warning("sweeper re-enqueued %d job(s)", requeued)
    return requeued



def deliver_webhooks(match_id: str, due_at: float | None = None) -> str:
    """Send the match's webhook messages that are due (service/integrations/webhooks.py, ``deliver``), after relaying to
    the bot accounts seated in it what they owe or learn (issue 35, service/competition/bots.py ``relay``).  ``due_at``:
    this job is a retry scheduled for that time."""
    ref = _current_referee()
    bots.relay(ref, match_id)

    def again_in(seconds: float) -> None:
        # an id of its own: this job's id is done with (and its key deleted) as soon as it returns.  A later
        # one waits in the dispatcher's due set (to the millisecond, and it outlives a restart of the store)
        at = time.time() + seconds if seconds > 0 else None
        ref.sender.send_now([outbox.job("workers.jobs.deliver_webhooks", [match_id, at], f"hooks_{match_id}_"
                                        f"{time.time_ns()}", ref.queue.name, webhooks.job_timeout(ref.settings),
                                        requestid.CURRENT.get(), at)[1]])

    return webhooks.deliver(ref.store, ref.queue.connection, ref.settings, match_id, again_in, due_at)


def sweep_webhooks(ref: Referee) -> int:
    """Re-enqueue the delivery of every match whose webhook has messages due and whose job was lost."""
    requeued = 0
    for raw_id in ref.queue.connection.zrange(webhooks.due_key(ref.settings.queue), 0, -1):
        match_id = raw_id.decode()
        retry_at = ref.store.redis.hget(webhooks.hook_key(match_id), "retry_at")
        if retry_at is not None and float(retry_at) > time.time() - ref.settings.sweep_after:
            continue  # a failing target's retry is scheduled (and swept once it is overdue)
        grace = webhooks.job_timeout(ref.settings)
        # (its note is written by the commit, and its job may wait in the outbox, or run as the one after: _next)
        if not any(_job_alive(ref, job_id, grace, match_id=match_id)
                   for job_id in (f"hooks_{match_id}", f"hooks_{match_id}_next")):
            ref.send(ref.webhook_ops(match_id, 0))
            requeued += 1
    return requeued
