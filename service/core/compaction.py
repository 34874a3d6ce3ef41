"""A finished match keeps only what cannot be recomputed.

A match replays exactly from its seed, options, seats and moves: the game's own events (the deal,
and what each move reveals) and its state follow from them.  Compacting keeps the events the
referee decided (the match created and started, each ``moved`` with its time, joins, away and
back, timeouts, the scoring, the result, a rematch) and drops the rest; ``rebuild`` plays the game
again from that log and puts the dropped events back where they were, byte for byte.

A match is compacted only when its rebuild is proven identical to what is stored (every event the
game generates again, and the final state), so a game whose play is not a function of its record
is kept whole instead.
"""

from __future__ import annotations

import copy

from service.core.record import match_rng
from service.core.store import Match, dumps
from service.games import GAMES

#: the events after which the game's own events follow: the opening's deal, a move's consequences
ANCHORS = ("match_created", "moved")
#: in the log, the data of an event that carries the match's result (kept once, beside the log)
RESULT = "=result"


def _generated(game, state: dict | None, match: Match, anchor: dict) -> tuple[dict, list[dict]]:
    """The state after ``anchor`` and the game's events it caused, as the referee emitted them."""
    meta = match.meta
    if anchor["type"] == "match_created":
        state, events = game.opening(meta["players"], meta["options"], match_rng(meta["seed"], "setup"))
    else:
        data = anchor["data"]
        move = game.parse_move(copy.deepcopy(data["move"]))
        events = game.apply(state, data["seat"], move, match_rng(meta["seed"], anchor["v"] - 1))
    return state, [{"seq": anchor["seq"] + 1 + i, "v": anchor["v"], **e} for i, e in enumerate(events)]


def rebuild(match: Match) -> tuple[dict, list[dict]]:
    """The state and every event of a compacted match, played again from its log."""
    game = GAMES[match.game]
    state: dict | None = None
    events: list[dict] = []
    for kept in match.log or []:
        if kept["data"] == RESULT:
            kept = {**kept, "data": match.result}
        events.append(kept)
        if kept["type"] in ANCHORS:
            state, generated = _generated(game, state, match, kept)
            events += generated
    return state or {}, events


def compact(match: Match, events: list[dict]) -> list[dict] | None:
    """The log that rebuilds ``events`` and the match's state, or None when it would not."""
    game = GAMES[match.game]
    log: list[dict] = []
    state: dict | None = None
    i = 0
    try:
        while i < len(events):
            kept = events[i]
            log.append({**kept, "data": RESULT} if match.result is not None and kept["data"] == match.result else kept)
            i += 1
            if kept["type"] in ANCHORS:
                state, generated = _generated(game, state, match, kept)
                if dumps(events[i:i + len(generated)]) != dumps(generated):
                    return None
                i += len(generated)
    except Exception:  # noqa: BLE001 - a log that does not play again is not a log to keep
        return None
    # every generated event matched where it stands and the rest is kept as it is: the events rebuild by
    # construction (``rebuild`` is this loop); what is left to prove is the state they end in
    return log if dumps(state or {}) == dumps(match.state) else None
