"""A turn in a loaded match, before it is committed: a parsed move applied by the rules, its events, the
turn clocks brought up to date.

Plain functions of a ``Match``: both a player's move (service/core/play.py) and a clock's default move
(service/core/clocks.py) go through ``play_move``, and every change of whose decision it is through ``tick``,
so neither part imports the other.
"""

from __future__ import annotations

import time

from service.core import clock
from service.core.base import player_of, to_act
from service.core.record import match_rng
from service.core.store import Match, Status
from service.games import Game, GameError
from service.infra.problems import Problem


def timeout_job_id(match_id: str, seat: int, version: int) -> str:
    """The timeout of the timer ``seat`` started at ``version``: fires at most once."""
    return f"timeout_{match_id}_{seat}_{version}"


def tick(match: Match, mover: int | None = None) -> None:
    """Bring a clocked match's timers up to date in the commit that changes whose decision it is."""
    if "clock" not in match.meta:
        return
    seats = match.meta["seats"]
    owing = [s for s in to_act(match) if not player_of(seats[s])]
    stopped = clock.update_timers(match.meta, owing, time.time(), match.version + 1, mover)
    match.void_jobs += [timeout_job_id(match.id, seat, set_at) for seat, set_at in stopped]
    match.meta_changed = True


def play_move(match: Match, game: Game, seat: int, move: dict) -> None:
    """Apply a parsed move of ``seat`` (or raise Problem), emit its events, move the clock."""
    try:
        events = game.apply(match.state, seat, move, match_rng(match.meta["seed"], match.version))
    except GameError as exc:
        raise Problem(exc.code, exc.message, reason=exc.reason) from None
    # the move itself only to its author: many moves are sealed (bids, cards shown, placements);
    # what others may learn of a move, each game says in events of its own.  ``at`` is for the record.
    events.insert(0, {"type": "moved", "data": {"seat": seat, "move": move}, "to": [seat], "at": time.time()})
    if game.is_over(match.state):
        match.status = Status.SCORING
        events.append({"type": "match_scoring", "data": {}, "to": "all"})
    match.emit(events)
    tick(match, mover=seat)
