"""Super-Blatt greedy bot: win the current trend's categories, steal where it hurts the leader."""

from __future__ import annotations

import copy
import math
import random

import orjson

from ..plugin import Hooks
from .rules import GAME, TRENDS

#: points of lead that make a win about e (2.7) times as likely as a loss, in the search's evaluation
SCALE = 6.0


def _value(state: dict, seat: int) -> float:
    """Projected totals if the round ended now; my lead over the best opponent."""
    trend = TRENDS[state["trends"][-1]]
    points = GAME.round_points(state["hands"], trend)
    totals = [s + sum(p.values()) for s, p in zip(state["scores"], points)]
    best_other = max(t for p, t in enumerate(totals) if p != seat)
    return totals[seat] - best_other


def greedy(view: dict, moves: list[dict], seat: int, rng: random.Random) -> dict:
    """One-ply lookahead on a state sampled from the view (the deck order stays unknown).

    A steal is scored on the position it leaves, which measures the leader's loss as well as
    my gain; an EXTRA's optional card is always weighed against passing.
    """
    state = GAME.sample_state(view, seat, rng)
    best, best_value = moves[0], float("-inf")
    for move in moves:
        trial = copy.deepcopy(state)
        GAME.apply(trial, seat, move, rng)
        value = _value(trial, seat) if not trial["over"] else trial["scores"][seat] - max(
            s for p, s in enumerate(trial["scores"]) if p != seat)
        value += rng.random() * 1e-3  # break ties at random, not by column order
        if value > best_value:
            best, best_value = move, value
    return best


def playout(game, state: dict, seat: int, moves: list[dict], rng: random.Random) -> dict:
    """The greedy bot's rule on the search's determinized state (no view, no sampling of its own)."""
    if len(moves) == 1:
        return moves[0]
    frozen = orjson.dumps(state)
    best, best_value = moves[0], float("-inf")
    for move in moves:
        trial = orjson.loads(frozen)
        GAME.apply(trial, seat, move, rng)
        scores = trial["scores"] if trial["over"] else _totals(trial)
        value = scores[seat] - max(s for p, s in enumerate(scores) if p != seat) + rng.random() * 1e-3
        if value > best_value:
            best, best_value = move, value
    return best


def _totals(state: dict) -> list[float]:
    trend = TRENDS[state["trends"][-1]]
    points = GAME.round_points(state["hands"], trend)
    return [s + sum(p.values()) for s, p in zip(state["scores"], points)]


def evaluate(state: dict) -> list[float]:
    """Each seat's chance to win, from the totals if the round ended now (a softmax)."""
    totals = _totals(state)
    top = max(totals)
    weights = [math.exp((t - top) / SCALE) for t in totals]
    total = sum(weights)
    return [w / total for w in weights]


SEARCH = Hooks(playout=playout, evaluate=evaluate, horizon=12)
