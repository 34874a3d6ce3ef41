"""Match records and their replay through the game modules alone (no Redis, no Flask).

A record (``GET /matches/{id}/record``, ``referee export``) holds what a match needs to be played
again exactly: game, players, options, seed, seats and every move with its version.  A version means one thing
everywhere (answers, events, records, webhooks): the match's version once the change was made, so a move sent
with ``expected_version`` V is recorded at V + 1, as its events and its webhook ``move`` are.  Every random draw
of a move comes from ``match_rng(seed, V)``, the version it was applied at, so ``replay`` reproduces each state
and the result; ``referee replay FILE`` exits 1 when the result differs from the recorded one.  Records of
format 1 (before this one meaning) held the version a move was applied at; they replay still.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from service.games import GAMES, Game

FORMAT_VERSION = 2
#: the formats ``replay`` reads: how far each one's move version is past the version the move was applied at
READS = {1: 0, 2: 1}


def match_rng(seed: Any, step: int | str) -> random.Random:
    """All of a match's randomness: its secret seed and the version the move is applied at."""
    return random.Random(f"{seed}:{step}")


def rank_forfeits(outcome: dict, out: list[int]) -> dict:
    """Seats that forfeited rank last (among themselves by their places) and win nothing."""
    outcome["forfeited"] = sorted(out)
    if not out:
        return outcome
    stay = [[s for s in place if s not in out] for place in outcome["ranking"]]
    gone = [[s for s in place if s in out] for place in outcome["ranking"]]
    outcome["ranking"] = [p for p in stay if p] + [p for p in gone if p]
    outcome["winners"] = [s for s in outcome["winners"] if s not in out]
    if not outcome["winners"] and stay and any(stay):
        outcome["winners"] = list(next(p for p in stay if p))
    return outcome


def applied_at(record: dict, move: dict) -> int:
    """The version a record's move was applied at (its random draws): one below its version."""
    return move["version"] - READS[record["format_version"]]


class ReplayError(Exception):
    """The record does not replay: a move is refused, or the match does not end where it should."""


def start(record: dict) -> tuple[Game, dict]:
    """The record's game and its opening state, dealt from its seed."""
    if record.get("format_version") not in READS:
        raise ReplayError(f"Unknown record format {record.get('format_version')!r}; this reads {sorted(READS)}.")
    game = GAMES.get(record["game"])
    if game is None:
        raise ReplayError(f"Unknown game {record['game']!r}.")
    players = record["players"]
    state, _ = game.opening(players, game.load_options(players, record["options"]), match_rng(record["seed"], "setup"))
    return game, state


def play(record: dict, game: Game, state: dict, index: int) -> list[dict]:
    """Apply the record's move ``index`` to the state (in place) with its own draws; its events."""
    m = record["moves"][index]
    if m["seat"] not in game.to_act(state):
        raise ReplayError(f"Move {index} (version {m['version']}): seat {m['seat']} is not to act.")
    try:
        move = game.parse_move(m["move"])
        return game.apply(state, m["seat"], move, match_rng(record["seed"], applied_at(record, m)))
    except Exception as exc:
        raise ReplayError(f"Move {index} (version {m['version']}) is refused: {exc}") from None


def replay(record: dict, step: Callable[[int, dict, list[dict]], None] | None = None) -> dict:
    """Play a record's moves from its seed; returns the result (as the referee computes it).

    ``step(index, move, events)`` is called after each move, for printing.
    """
    game, state = start(record)
    for i, m in enumerate(record["moves"]):
        events = play(record, game, state, i)
        if step is not None:
            step(i, m, events)
    if not game.is_over(state):
        raise ReplayError(f"The match is not over after its {len(record['moves'])} moves.")
    outcome = game.final_result(state).as_dict()
    outcome["seed"] = record["seed"]
    return rank_forfeits(outcome, [s["seat"] for s in record["seats"] if s.get("forfeited")])
