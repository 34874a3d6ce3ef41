"""Super-Blatt greedy bot: win the current trend's categories, steal where it hurts the leader."""

from __future__ import annotations

import copy
import random

from service.games.super_blatt import GAME, TRENDS


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
