"""What a match's clock settings do to a seat: a turn timer that ran out (``on_timeout``: a default move,
a bot, or out) and a move the rules refused (``on_illegal`` forfeit: out).

Apart from the move's path because both commit on their own, from a timeout job or after a refusal, and
change who plays a seat rather than the game's state (the default move goes through ``turns.play_move``).
"""

from __future__ import annotations

import time

from service.core import clock
from service.core.base import Actor, to_act
from service.core.jobs import Jobs
from service.core.store import Match, Status
from service.core.turns import play_move, tick
from service.games import GAMES, PLUGINS
from service.integrations.metrics import clock_fired


class Clocks(Jobs):
    """Timeouts and forfeits: each one compare-and-set that a move landing at the same instant may win."""

    def timeout(self, match_id: str, seat: int, version: int) -> str:
        """The timer ``seat`` started at ``version`` ran out: apply the match's ``on_timeout``.

        A no-op unless that very timer still runs (the seat has not moved since): the commit's
        compare-and-set decides between the timeout and a move landing at the same instant."""
        def decide(match: Match) -> str:
            timer = match.meta.get("timers", {}).get(str(seat))
            if match.status != Status.ACTIVE or timer is None or timer["set_at"] != version:
                return "not owed"
            if time.time() < timer["deadline"]:
                return "early"
            settings, entry = match.meta["clock"], match.meta["seats"][seat]
            action = settings["on_timeout"]
            clock.expire(match.meta, seat)
            match.meta_changed = True
            match.emit([{"type": "timeout", "data": {"seat": seat, "action": action, "deadline": timer["deadline"],
                                                     "at": time.time()}, "to": "all"}])
            game = GAMES[match.game]
            if action == "default":
                play_move(match, game, seat, game.parse_move(PLUGINS[match.game].default(match.state, seat)))
                return action
            if action == "bot":
                entry["away"] = settings["bot"]
                match.emit([{"type": "away", "data": {"seat": seat, "bot": settings["bot"]}, "to": "all"}])
            else:
                entry["out"] = True
            tick(match)
            return action

        try:
            match, done = self.store.commit(match_id, decide, self._owed_next)
        except LookupError:
            return "not owed"
        clock_fired(match.new_events)
        return done

    @staticmethod
    def _forfeits(match: Match, seat: int, actor: Actor) -> bool:
        """Whether a move the rules refused costs its seat the match: the clock says so (on_illegal forfeit),
        a player sent it at its turn, and the seat is still in."""
        return (match.meta.get("clock", {}).get("on_illegal") == "forfeit" and actor.player
                and seat in to_act(match) and not match.meta["seats"][seat].get("out"))

    def forfeit(self, match_id: str, seat: int, version: int, why: str) -> bool:
        """``seat`` sent a move the rules refuse at ``version`` (``why``: the refusal's code): it is out, as
        after on_timeout forfeit (default moves from then on, ranked last).  A no-op once the match moved on."""
        def decide(match: Match) -> bool:
            entry = match.meta["seats"][seat]
            if match.status != Status.ACTIVE or match.version != version or entry.get("out"):
                return False
            entry.pop("away", None)
            entry["out"] = True
            match.meta_changed = True
            match.emit([{"type": "forfeit", "data": {"seat": seat, "reason": why, "at": time.time()}, "to": "all"}])
            tick(match)
            return True

        return self.store.commit(match_id, decide, self._owed_next)[1]
