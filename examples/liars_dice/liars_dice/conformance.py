"""Liar's Dice's hooks for the conformance kit (``referee conformance liars_dice``)."""

from __future__ import annotations

import copy
import random

from .rules import FACES, counted, roll


def scrambles(state: dict, observer: int | None, actor: int, rng: random.Random):
    """The cups ``observer`` cannot see rolled anew (as many dice each).  A bid's events must then stay the
    same for it; a challenge lifts every cup, so its events are not compared."""
    other = copy.deepcopy(state)
    while other["cups"] == state["cups"]:  # a seat still in always has some die it cannot see
        for s, cup in enumerate(state["cups"]):
            if s != observer:
                other["cups"][s] = roll(len(cup), rng)
    yield other, lambda events: None if any(e["type"] == "challenged" for e in events) else events


def fuzz(state: dict, seat: int, rng: random.Random) -> list[dict]:
    """Bids that do not raise, or claim more dice than the table holds; a challenge before any bid."""
    bid, total = state["bid"], sum(len(c) for c in state["cups"])
    moves = [{"type": "bid", "face": rng.choice(FACES), "quantity": total + 1}]
    if bid is None:
        moves.append({"type": "challenge"})
    else:
        moves.append({"type": "bid", "face": bid["face"], "quantity": bid["quantity"]})
    return moves


class Invariants:
    """Dice: one lost per challenge, none ever gained; every die a face; the winner recomputed."""

    def __init__(self, state: dict) -> None:
        self.dice = sum(len(c) for c in state["cups"])
        self.start = self.dice

    def step(self, state: dict, events: list[dict]) -> None:
        lost = sum(1 for e in events if e["type"] == "challenged")
        self.dice -= lost
        assert sum(len(c) for c in state["cups"]) == self.dice, "one die lost per challenge"
        assert all(d in FACES for c in state["cups"] for d in c)
        for e in events:
            if e["type"] == "challenged":
                d = e["data"]
                held = counted(d["cups"], d["bid"]["face"], state["ones_wild"]) >= d["bid"]["quantity"]
                assert d["loser"] == (d["seat"] if held else d["bid"]["seat"]), "the wrong side lost a die"

    def end(self, state: dict, result) -> None:
        alive = [s for s, c in enumerate(state["cups"]) if c]
        assert len(alive) == 1 and result.winners == alive, "the last with dice wins alone"
        assert self.start - self.dice == self.start - len(state["cups"][alive[0]])
