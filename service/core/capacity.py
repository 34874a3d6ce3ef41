"""Room in the store: its memory against its bound, the room kept for each match admitted until it is over,
the refusal of new matches when full, and the compaction of finished matches that frees room.

Apart because it reads the store as a whole, not one match: the seating part asks it before a match is made,
and the sweeper (workers/run.py) runs its compaction.
"""

from __future__ import annotations

from service.core import compaction, outbox
from service.core.jobs import Jobs
from service.core.store import Match, Status, compaction_log, growth
from service.infra.problems import Problem

STORE_FULL_RETRY = 60  # seconds a refused creator is told to wait (finished matches expire meanwhile)


class Capacity(Jobs):
    """Admission of new matches against the store's bound, and compaction (``REFEREE_COMPACT_AFTER``)."""

    def admitted(self, match: Match) -> dict[str, dict]:
        """What a new match's creation owes: what any commit owes, and the room it may still take, kept for it in
        the reserve until it is over (``store_room``)."""
        ops = self.owed(match, match.version)
        ops.update([outbox.note(self.store.reserve, match.id,
                                growth(match.game, match.meta["players"], bool(match.meta.get("webhook"))),
                                "reserve")])
        return ops

    def store_room(self) -> dict:
        """The store's memory against its bound, the room kept for the admitted matches not yet over, and its
        state: ``room`` (new matches admitted); ``full`` (what is used and kept reaches ``store_full_at`` of the
        bound: new matches are refused, the admitted ones play on into the room kept for them); ``at_bound``
        (the server itself refuses writes: nothing can commit until memory is freed)."""
        used, bound = self.store.memory()
        reserved = self.store.reserved() if bound else 0
        state = "room"
        if bound and used >= bound:
            state = "at_bound"
        elif bound and used + reserved >= self.settings.store_full_at * bound:
            state = "full"
        return {"used_bytes": used, "max_bytes": bound, "reserved_bytes": reserved, "state": state,
                "full": state != "room"}

    def check_room(self) -> None:
        room = self.store_room()
        if room["full"]:
            raise Problem("store_full", f"The store holds {room['used_bytes'] / room['max_bytes']:.0%} of its bound "
                          f"and keeps {room['reserved_bytes'] / room['max_bytes']:.0%} for the matches in play; no "
                          "new match is created until they are over and compacted (their moves still commit).",
                          retry_after=STORE_FULL_RETRY)

    def compact(self, match_id: str) -> str:
        """Keep of a finished match only its log (service/core/compaction.py), if it plays again exactly."""
        match = self.store.load(match_id)
        if match is None or match.status != Status.FINISHED:
            return "not owed"
        if match.log is not None:
            return "compacted already"
        log = compaction.compact(match, self.store.events(match_id, 0, count=1_000_000))
        if log is None:
            return "kept whole (its play does not rebuild it)"
        return "compacted" if self.store.compact(match, compaction_log(log, match.result)) else "changed meanwhile"

    def compact_due(self, now: float, count: int = 200) -> int:
        """Compact the finished matches whose ``REFEREE_COMPACT_AFTER`` has passed (the sweeper's round): a batch
        in one process, not a job each (RQ's bookkeeping of a job would cost as much as the compaction).
        Each is dropped from the set once done, so a sweeper killed midway leaves the rest for the next."""
        due = [m.decode() for m in self.queue.connection.zrangebyscore(self.store.compacting, "-inf", now, start=0,
                                                                        num=count)]
        for match_id in due:
            self.compact(match_id)
            self.queue.connection.zrem(self.store.compacting, match_id)
        return len(due)
