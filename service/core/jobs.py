"""What a commit owes and where it goes: bot turns, scorings, turn clocks' timeouts and webhook messages, as
outbox ops written in the commit itself (service/core/outbox.py), and the queues the workers take them from.

Every part that changes a match commits through ``_commit`` (a move: ``Store.write`` with ``owed``), so what
a match owes is decided here alone; the workers' sweeper hands on the same ops outside any commit (``send``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from service.core import clock, outbox
from service.core.base import RefereeBase, player_of, to_act, unknown_match
from service.core.store import Conflict, Match, Status
from service.core.turns import timeout_job_id
from service.infra.problems import Problem
from service.integrations import requestid
from service.integrations.requestid import Queue
from service.integrations.webhooks import due_key
from service.integrations.webhooks import job_timeout as webhook_job_timeout

SEARCH_CAP_S = 10  # longest a search decision may take, whatever its budget says (seconds)


class Jobs(RefereeBase):
    """The jobs a match owes after each commit, the queue each goes to, and the commit that carries them."""

    def _commit(self, match_id: str, decide: Callable[[Match], Any]) -> tuple[Match, Any]:
        """``Store.commit`` of a request's ``decide``, with what the match then owes; its failures as problems."""
        try:
            return self.store.commit(match_id, decide, self._owed_next)
        except LookupError:
            raise unknown_match(match_id) from None
        except Conflict:
            raise Problem("busy", "The match changed too often while this request was applied; retry.") from None

    def _owed_next(self, match: Match) -> dict[str, dict]:
        """What the match a ``decide`` changed owes at the version its commit makes."""
        return self.owed(match, match.version + 1)

    @staticmethod
    def owed_bots(match: Match) -> list[int]:
        """The seats a worker plays (bots, away, out) that owe a decision now (none unless active)."""
        seats = match.meta["seats"]
        return [s for s in to_act(match) if player_of(seats[s])]

    @staticmethod
    def has_people(match: Match) -> bool:
        """Whether someone plays a seat over HTTP now (a person or a connected bot, not away): its bot
        turns are waited for."""
        return any(player_of(s) is None for s in match.meta["seats"])

    @staticmethod
    def plays_on(match: Match) -> bool:
        """Whether a bot-turn job that has just moved in this match may go on with what it owes next
        itself: every seat to act is one a worker plays at once (a bot, away or out, but no search bot,
        whose turns have a queue of their own), or the match is to be scored."""
        if match.status == Status.SCORING:
            return True
        seats, acting = match.meta["seats"], to_act(match)
        return bool(acting) and all(player_of(seats[s]) and seats[s].get("bot") != "search" for s in acting)

    def owed(self, match: Match, version: int, held: bool = False) -> dict[str, dict]:
        """What the match owes at ``version`` (bot turns, its scoring, its turn clocks' deadlines, webhook
        messages, its note for compaction once finished), as outbox ops (core/outbox.py) its commit writes with it.

        ``held``: the bot-turn job making this commit plays the next bot turn (or the scoring) itself
        (``plays_on``), so no job is owed for it; the job noted the match as pending when it began,
        so the sweeper still finds the turn if the job dies.
        """
        ops: dict[str, dict] = {}
        if not held:
            for seat in self.owed_bots(match):
                ops.update([self.bot_turn_op(match, seat, version)])
            if match.status == Status.SCORING:
                ops.update([self.scoring_op(match.id, match)])
        if match.status == Status.ACTIVE:
            for seat, deadline in clock.started(match.meta, version):
                ops.update([self.timeout_op(match.id, seat, version, deadline)])
        for job_id in match.void_jobs:  # cheaper than running a timeout job that would find nothing owed
            ops.update([outbox.void(job_id)])
        if match.meta.get("webhook", False):  # its webhook's messages are sent by a worker, never on this path
            ops.update(self.webhook_ops(match.id, match.seq))
        if match.status in (Status.FINISHED, Status.ABORTED):  # over: the room kept for it is free (store_room)
            ops.update([outbox.note(self.store.reserve, match.id, 0, "release")])
        if match.status == Status.FINISHED and not match.log:
            now = time.time()  # kept for `referee export --finished` as long as the match itself
            ops.update([outbox.note(self.store.finished, match.id, now, "nx", now - self.settings.finished_ttl),
                        outbox.note(self.store.compacting, match.id, now + self.settings.compact_after, "nx")])
        if match.status in (Status.ACTIVE, Status.SCORING) and any(op["kind"] == "job" for op in ops.values()):
            # the sweeper's note: this match owes a job, now or at a deadline (the dispatcher adds it with the job)
            ops.update([outbox.note(self.store.pending, match.id, time.time())])
        return ops

    @property
    def bot_queues(self) -> list[Queue]:
        """The queues a worker takes bot turns and scorings from, in the order it looks at them."""
        return [self.people_queue, self.queue]

    def bot_queue(self, match: Match, seat: int) -> Queue:
        """Search turns take up to their budget: they have a queue (and workers) of their own, so a
        long search never holds up the quick turns of other matches.  The other bot turns of a match
        where someone plays over HTTP go to the people's queue, which workers take first: they never
        wait behind the slices of all-bot matches."""
        if match.meta["seats"][seat].get("bot") == "search":
            return self.search_queue
        return self.people_queue if self.has_people(match) else self.queue

    def _job(self, queue: Queue, func: str, args: tuple, job_id: str, timeout: int | None = None,
             at: float | None = None, reused: bool = False) -> tuple[str, dict]:
        return outbox.job(f"workers.jobs.{func}", list(args), job_id, queue.name, timeout or self.settings.job_timeout,
                          requestid.CURRENT.get(), at, reused)

    def bot_turn_op(self, match: Match, seat: int, version: int) -> tuple[str, dict]:
        """The job that plays the bot turn owed at ``version`` and the bot turns after it (workers.jobs)."""
        budget = match.meta["seats"][seat].get("budget") or {}
        timeout = self.settings.job_timeout + SEARCH_CAP_S * bool(budget)
        return self._job(self.bot_queue(match, seat), "play_bot_turn", (match.id, seat, version),
                         f"bot_{match.id}_{seat}_{version}", timeout)

    def webhook_ops(self, match_id: str, seq: int) -> list[tuple[str, dict]]:
        """Note that the match's webhook has messages up to event ``seq`` to send, and wake its delivery."""
        return [outbox.note(due_key(self.settings.queue), match_id, seq, "gt"),
                self._job(self.queue, "deliver_webhooks", (match_id,), f"hooks_{match_id}",
                          webhook_job_timeout(self.settings), reused=True)]

    def scoring_queue(self, match: Match | None) -> Queue:
        return self.people_queue if match is not None and self.has_people(match) else self.queue

    def scoring_op(self, match_id: str, match: Match | None = None) -> tuple[str, dict]:
        return self._job(self.scoring_queue(match), "score_match", (match_id,), f"score_{match_id}")

    def timeout_op(self, match_id: str, seat: int, version: int, deadline: float | None = None) -> tuple[str, dict]:
        """The timeout of the timer started at ``version``, due at ``deadline`` (now without one): the
        dispatcher keeps it in its due set, polled every ``REFEREE_DISPATCH_INTERVAL``."""
        return self._job(self.people_queue, "clock_timeout", (match_id, seat, version),
                         timeout_job_id(match_id, seat, version), at=deadline)

    def send(self, ops: list[tuple[str, dict]]) -> None:
        """Ops owed outside any commit (the sweeper's repairs), handed to RQ's server at once."""
        self.sender.send_now([op for _, op in ops])

    def enqueue_owed(self, match_id: str) -> None:
        """Enqueue whatever the match owes now (its bot turns, its scoring), outside any commit: what a
        bot-turn job that fails after a held commit (``owed``) hands on, so the turn waits no sweep."""
        match = self.store.load(match_id)
        if match is not None:
            self.send([(k, op) for k, op in self.owed(match, match.version).items() if op["kind"] == "job"])
