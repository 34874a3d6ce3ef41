"""Liar's Dice bots: a greedy bidder that reasons from its own cup and the odds, and what the search uses.

``greedy`` counts on ``own + unseen × p`` dice of a face (p = 1/3 for a face other than one when ones are
wild, else 1/6): it challenges a bid that claims more than that, else makes the cheapest bid it believes.
The search (the referee's information-set MCTS) plays the same rule out on its sampled deals and judges a
deal it stops early by the dice each seat keeps.
"""

from __future__ import annotations

import random

from service.games.plugin import Hooks

from .rules import GAME

#: dice by which a bid may exceed the expected count before the greedy bot calls it a lie
DOUBT = 0.5


def expected(cup: list[int], unseen: int, face: int, ones_wild: bool) -> float:
    """The dice showing ``face`` (wild ones too) one can count on: one's own, and the odds of the rest."""
    mine = sum(1 for d in cup if d == face or (ones_wild and face != 1 and d == 1))
    return mine + unseen * (1 / 3 if ones_wild and face != 1 else 1 / 6)


def choose(cup: list[int], unseen: int, bid: dict | None, ones_wild: bool, moves: list[dict],
           rng: random.Random) -> dict:
    if bid is not None and bid["quantity"] > expected(cup, unseen, bid["face"], ones_wild) + DOUBT:
        return {"type": "challenge"}
    best, margin = None, float("-inf")
    for move in moves:
        if move["type"] != "bid":
            continue
        least = move["quantity"]["min"]
        value = expected(cup, unseen, move["face"], ones_wild) - least + rng.random() * 1e-3
        if value > margin:
            best, margin = {"type": "bid", "face": move["face"], "quantity": least}, value
    if best is None or (margin < -DOUBT and bid is not None):
        return {"type": "challenge"}
    return best


def greedy(view: dict, moves: list[dict], seat: int, rng: random.Random) -> dict:
    unseen = sum(view["cup_sizes"]) - len(view["cup"])
    return choose(view["cup"], unseen, view["bid"], view["ones_wild"], moves, rng)


def playout(game, state: dict, seat: int, moves: list[dict], rng: random.Random) -> dict:
    """The greedy rule on a determinized state: the seat's own cup, the others' unseen."""
    cup = state["cups"][seat]
    unseen = sum(len(c) for c in state["cups"]) - len(cup)
    return choose(cup, unseen, state["bid"], state["ones_wild"], moves, rng)


def evaluate(state: dict) -> list[float]:
    """Each seat's share of the dice still on the table."""
    total = sum(len(c) for c in state["cups"]) or 1
    return [len(c) / total for c in state["cups"]]


SEARCH = Hooks(playout=playout, evaluate=evaluate, horizon=24)

__all__ = ["GAME", "SEARCH", "greedy"]
