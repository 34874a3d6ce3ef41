"""Paparazzo greedy bot: weigh a photo's expected final value against its price.

It reads only its view and legal moves.  The expected final number of photos of a celebrity is
the photos face up now plus a share of the cards of that celebrity still in hands (its own hand
and what its right-hand neighbour showed are known; the rest is estimated from the unseen
cards).  A photo is worth that final value, plus the change in the exclusive bonus it makes
likely (its own, or an opponent's it spoils), plus the value of the card it may then place.
It never offers more than its cash (so it cannot be forced into the $5,000 penalty), and sells
to Stunk only when the cash now beats what the photo should bring and the commission of a sale.
"""

from __future__ import annotations

import random

from ..base import concretize, is_span
from ..plugin import Hooks
from .rules import (
    BONUS_PER_PHOTO,
    CELEBRITIES,
    DECK_SIZE,
    GAME,
    PHOTOS_EACH,
    VALUES,
)

K = len(CELEBRITIES)
PLAYED_SHARE = 0.7  # roughly the share of hand cards that reach the market before the end
PRICE_GUESS = 0.6  # what the others are expected to offer, as a share of the photo's expected value
MEDIATOR_KEEP = 0.35  # a mediator buys only if the gain beats this share of the price (lost commission)


def _value(photos: float) -> float:
    """Skandalchronik value for a fractional number of photos (linear between the steps)."""
    photos = max(0.0, min(float(len(VALUES) - 1), photos))
    lo = int(photos)
    if lo == len(VALUES) - 1:
        return float(VALUES[lo])
    return VALUES[lo] + (VALUES[lo + 1] - VALUES[lo]) * (photos - lo)


class Estimate:
    """What the bot believes about the table, computed once per decision."""

    def __init__(self, view: dict, seat: int) -> None:
        n = view["players"]
        self.n = n
        self.seat = seat
        self.markers = [c["photos"] for c in view["celebrities"]]
        self.in_play = [c["in_play"] for c in view["celebrities"]]
        self.stunk = [c["sold_to_stunk"] for c in view["celebrities"]]
        self.owned = [[0] * K for _ in range(n)]
        for s, pile in enumerate(view["owned"]):
            for card in pile:
                self.owned[s][card["id"] // PHOTOS_EACH] += 1
        self.market = [0] * K
        for card in view["market"]:
            if card is not None:
                self.market[card["id"] // PHOTOS_EACH] += 1
        mine = [0] * K
        for card in view["hand"] or []:
            mine[card["id"] // PHOTOS_EACH] += 1
        self.hand = mine
        seen = [0] * K
        seen_cards = view["seen"]["cards"] if view["seen"] else []
        for card in seen_cards:
            seen[card["id"] // PHOTOS_EACH] += 1
        known = set()
        for group in (view["hand"] or [], seen_cards, view["stunk"], view["out"]):
            known |= {c["id"] for c in group}
        known |= {c["id"] for c in view["market"] if c is not None}
        known |= {c["id"] for pile in view["owned"] for c in pile}
        unknown = [0] * K
        for card in range(DECK_SIZE):
            c = card // PHOTOS_EACH
            if self.in_play[c] and card not in known:
                unknown[c] += 1
        total_unknown = sum(unknown)
        hidden_slots = sum(view["hand_sizes"]) - len(view["hand"] or []) - len(seen_cards)
        share = hidden_slots / total_unknown if total_unknown else 0.0
        self.in_hands = [mine[c] + seen[c] + unknown[c] * share for c in range(K)]
        self.final = [self.markers[c] + PLAYED_SHARE * self.in_hands[c] for c in range(K)]
        self.cash = view["cash"][seat] or 0

    def photo_value(self, c: int) -> float:
        return _value(self.final[c])

    def bonus_chance(self, c: int, holder: int, extra: int = 0) -> float:
        """Rough chance that ``holder`` (with ``extra`` more photos) ends with all photos of c."""
        if self.stunk[c]:
            return 0.0
        held = self.owned[holder][c] + extra
        if held == 0 or any(self.owned[s][c] for s in range(self.n) if s != holder):
            return 0.0
        rival = self.market[c] - extra + 0.5 * PLAYED_SHARE * self.in_hands[c]
        return held / (held + max(0.0, rival) + 1.0)

    def worth(self, c: int) -> float:
        """What owning one more photo of c is worth to me at the end."""
        me = self.seat
        value = self.photo_value(c)
        held = self.owned[me][c]
        before = self.bonus_chance(c, me) * BONUS_PER_PHOTO * held
        after = self.bonus_chance(c, me, extra=1) * BONUS_PER_PHOTO * (held + 1)
        value += after - before
        for s in range(self.n):  # spoiling an opponent's exclusive photos helps too
            if s != me and self.owned[s][c]:
                value += self.bonus_chance(c, s) * BONUS_PER_PHOTO * self.owned[s][c] / (self.n - 1)
        return value + self.placing_value()

    def placing_value(self) -> float:
        """After a purchase I place a card: the best marker step for my photos."""
        best = 0.0
        for c in range(K):
            if self.hand[c]:
                best = max(best, self.place_score(c))
        return best

    def place_score(self, c: int) -> float:
        step = _value(self.final[c] + 1) - _value(self.final[c])
        mine = self.owned[self.seat][c]
        others = sum(self.owned[s][c] for s in range(self.n) if s != self.seat)
        score = step * (mine - others / max(1, self.n - 1))
        # A card on the market spoils an exclusive set until it is bought.
        score -= self.bonus_chance(c, self.seat) * BONUS_PER_PHOTO * mine * 0.5
        for s in range(self.n):
            if s != self.seat and self.owned[s][c]:
                score += self.bonus_chance(c, s) * BONUS_PER_PHOTO * self.owned[s][c] * 0.5 / (self.n - 1)
        return score


def greedy(view: dict, moves: list[dict], seat: int, rng: random.Random) -> dict:
    """Score each legal move on the estimate above; ranges are met at their lowest number."""
    kinds = {m["type"] for m in moves}
    if len(moves) == 1:
        return concretize(moves[0], rng)
    est = Estimate(view, seat)
    lot = view["lot"]
    if "show" in kinds:  # 3-player hotbed: show the celebrities I care least about
        return min(moves, key=lambda m: sum(est.hand[i // PHOTOS_EACH] for i in m["cards"]) + rng.random())
    if "place" in kinds:
        return max(moves, key=lambda m: est.place_score(m["card"] // PHOTOS_EACH) + rng.random())
    if "offer" in kinds or kinds == {"pass"}:
        offer = next((m for m in moves if m["type"] == "offer"), None)
        if offer is None:
            return {"type": "pass"}
        need = offer["amount"]["min"]
        c = lot["card"]["id"] // PHOTOS_EACH
        worth = est.worth(c)
        commission = need / 2 / max(1, est.n - 1)
        if need <= est.cash and need + commission < worth:
            return {"type": "offer", "amount": need}
        return {"type": "pass"}
    if "buy" in kinds or "decline" in kinds:
        if "buy" not in kinds:
            return {"type": "decline"}
        price = lot["high"]
        c = lot["card"]["id"] // PHOTOS_EACH
        gain = est.worth(c) - price
        if seat == view["mediator"]:
            return {"type": "buy"} if gain > MEDIATOR_KEEP * price else {"type": "decline"}
        return {"type": "buy"} if gain - price / 2 / max(1, est.n - 1) > 0 else {"type": "decline"}
    # Selection: a market photo (I may buy it first at the others' price, or else earn half of
    # it as commission), or a sale to Stunk when that cash beats both.
    best, best_score = None, float("-inf")
    for m in moves:
        if m["type"] == "select":
            card = view["market"][m["slot"]]
            c = card["id"] // PHOTOS_EACH
            price = max(est.markers[c] * 1_000, PRICE_GUESS * est.photo_value(c))
            score = max(est.worth(c) - price, price / 2)
        else:
            c = CELEBRITIES.index(m["celebrity"])
            now = VALUES[est.markers[c]]
            held = est.owned[seat][c]
            keep = est.photo_value(c) + est.bonus_chance(c, seat) * BONUS_PER_PHOTO * held
            liquidity = 0.5 * now if est.cash < 3_000 else 0.0
            score = now + liquidity - keep
        score += rng.random()
        if score > best_score:
            best, best_score = m, score
    return best if best is not None else concretize(moves[0], rng)


def playout(game, state: dict, seat: int, moves: list[dict], rng: random.Random) -> dict:
    """The greedy bot, shown the view of the seat to act in the determinized state."""
    if len(moves) == 1 and not any(is_span(v) for v in moves[0].values()):
        return moves[0]
    return greedy(GAME.view(state, seat), moves, seat, rng)


SEARCH = Hooks(playout=playout)
