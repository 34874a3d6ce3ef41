"""Big Shot greedy bot: value an auction by the best majority swing its four cubes allow.

The board value is a sum over lots: a lot counts for the colour that would take it now, times a
confidence that grows with its margin and as the cubes still to come run out; parks are worth
the lots they would double; lots a colour still needs to qualify (2 to win) carry a bonus.  My
colours count plus, opponents' minus, the Ghost's nothing.  Placing the bought cubes is an exact
allocation over lots (a small knapsack over the sub-multisets of the hand), so two cubes for a
take-over and the book's 3/3/1 trick are found.  An auction is worth the difference between my
best allocation and the worst an opponent could make; the bot bids up to a share of that, and
borrows only when the interest is small against the gain.
"""

from __future__ import annotations

import functools
import itertools
import math
import random

from ..plugin import Hooks
from .rules import (
    COLORS,
    DEBIT,
    GAME,
    LOT_NAMES,
    LOT_PARK,
    LOT_VALUE,
    MAX_ON_LOT,
    MIN_LOTS,
    NLOTS,
    PARKS,
    TOTAL_CUBES,
    lot_winner,
    seat_colors,
)

BID_SHARE = 0.7  # bid up to this share of the auction's swing
QUALIFY_BONUS = 12.0  # millions a lot is worth beyond its value while its colour has fewer than 2
# the search's evaluation: log-odds per million of money, per million of projected lots and per lot
# lacking to qualify, at the end and (``_EARLY``) added in proportion to the cubes still to come
W_MONEY, W_MONEY_EARLY = 0.0226, 0.240
W_LOTS, W_LOTS_EARLY = 0.0230, -0.0542
W_SHORT, W_SHORT_EARLY = 0.364, -1.880
HORIZON = 6  # moves a search playout makes before it looks for the next round's start to evaluate
MAX_INTEREST = 3  # never take the 4th and later loans (they cost 4+ millions each)
PARK_PAIRS = {p: [i for i in range(NLOTS) if LOT_PARK[i] == p] for p in PARKS}


class Board:
    """The parts of the state the evaluation needs, with per-colour weights for one seat."""

    def __init__(self, state: dict, seat: int) -> None:
        owner = state["owner"]
        n = state["players"]
        mine = set(seat_colors(owner, seat))
        self.weights = [1.0 if c in mine else 0.0 if o is None else -1.0 / max(1, n - 2) ** 0.5
                        for c, o in enumerate(owner)]
        self.lots = state["lots"]
        self.closed = state["closed"]
        self.lot_owner = state["lot_owner"]
        left = sum(len(s) for s in state["spaces"]) + len(state["hand"])
        self.future = left / TOTAL_CUBES  # how much can still change
        self._worth: dict[int, float] = {}
        # current projection, to value parks and the qualification bonus
        self.proj = [self._project(i, self.lots[i]) for i in range(NLOTS)]
        held = [0.0] * len(COLORS)
        for w, conf in self.proj:
            if w is not None:
                held[w] += conf
        self.needs = [held[c] < MIN_LOTS for c in range(len(COLORS))]

    def _project(self, i: int, counts: list[int]) -> tuple[int | None, float]:
        if self.closed[i]:
            return self.lot_owner[i], 1.0
        w = lot_winner(counts)
        if w is None:
            return None, 0.0
        total = sum(counts)
        if total >= MAX_ON_LOT:
            return w, 1.0
        top = counts[w]
        second = max(n for c, n in enumerate(counts) if c != w)
        margin = top - second if top > second else 0.5
        return w, 1.0 - self.future * 0.9 / (1.0 + margin + 0.15 * total)

    def worth(self, i: int, color: int) -> float:
        """What lot i is worth to a colour, parks by the lots they would double (cached per board)."""
        key = i * 4 + color
        if key not in self._worth:
            self._worth[key] = self._compute_worth(i, color)
        return self._worth[key]

    def _compute_worth(self, i: int, color: int) -> float:
        if LOT_VALUE[i] == 0:
            v = sum(LOT_VALUE[j] * conf for j in PARK_PAIRS[i] for w, conf in [self.proj[j]] if w == color)
            v *= 0.8
        else:
            v = LOT_VALUE[i]
            park = LOT_PARK[i]
            if park is not None and self.proj[park][0] == color:
                v *= 1.0 + self.proj[park][1]
        if self.needs[color]:
            v += QUALIFY_BONUS
        return v

    def lot_value(self, i: int, counts: list[int]) -> float:
        w, conf = self._project(i, counts)
        if w is None:
            return 0.0
        return self.weights[w] * conf * self.worth(i, w)


@functools.lru_cache(maxsize=64)
def _tables(have: tuple[int, ...]) -> tuple[list[tuple[int, ...]], int, int, list[list[int]]]:
    """Sub-multisets of a hand, the full and empty ones, and ``minus[r][s]`` = index of r - s (or -1)."""
    subs = list(itertools.product(*(range(h + 1) for h in have)))
    index = {sub: k for k, sub in enumerate(subs)}
    minus = [[index.get(tuple(a - b for a, b in zip(r, sub, strict=True)), -1) for sub in subs] for r in subs]
    return subs, index[have], index[(0,) * len(have)], minus


def _gains(board: Board, subs: list[tuple[int, ...]]) -> list[tuple[int, list[tuple[int, float]]]]:
    """Per open lot, the change in my value for every non-empty part of the hand that fits on it."""
    out = []
    for i in range(NLOTS):
        if board.closed[i]:
            continue
        counts = board.lots[i]
        room = MAX_ON_LOT - sum(counts)
        base = board.lot_value(i, counts)
        row = []
        for k, sub in enumerate(subs):
            if 0 < sum(sub) <= room:
                row.append((k, board.lot_value(i, [a + b for a, b in zip(counts, sub, strict=True)]) - base))
        out.append((i, row))
    return out


def allocate(board: Board, hand: list[int], sign: float = 1.0,
             gains: list | None = None) -> tuple[float, list[tuple[int, int]]]:
    """Best split of the hand over the open lots for ``sign`` * my value: (gain, [(colour, lot), ...]).

    A knapsack over lots whose capacity is the hand's sub-multisets (at most 16 of them)."""
    have = tuple(hand.count(c) for c in range(len(COLORS)))
    subs, full, zero, minus = _tables(have)
    if gains is None:
        gains = _gains(board, subs)
    neg = float("-inf")
    dp = [neg] * len(subs)
    dp[full] = 0.0
    back = []
    for i, row in gains:
        new = dp[:]  # nothing on this lot
        choice: list[tuple[int, int] | None] = [None] * len(subs)
        for r, value in enumerate(dp):
            if value == neg:
                continue
            rest_of = minus[r]
            for k, g in row:
                rest = rest_of[k]
                if rest >= 0 and value + sign * g > new[rest]:
                    new[rest] = value + sign * g
                    choice[rest] = (r, k)
        back.append((i, choice))
        dp = new
    if dp[zero] == neg:  # cannot happen (an open lot always has room)
        return 0.0, []
    plan, at = [], zero
    for i, choice in reversed(back):
        if choice[at] is not None:
            at, k = choice[at]
            plan += [(c, i) for c in range(len(COLORS)) for _ in range(subs[k][c])]
    return dp[zero], plan


def swing(board: Board, hand: list[int]) -> float:
    """What buying these cubes is worth to me: my best allocation against an opponent's worst for me."""
    subs = _tables(tuple(hand.count(c) for c in range(len(COLORS))))[0]
    gains = _gains(board, subs)
    best, _ = allocate(board, hand, 1.0, gains)
    worst, _ = allocate(board, hand, -1.0, gains)
    return best + worst


_SWINGS: dict[tuple, float] = {}


def auction_swing(state: dict, seat: int) -> float:
    """``swing`` of the cubes up for auction, for one seat; cached, since a round's loan step and
    bidding ask it again and again on the same board (a bidding war goes up a million at a time)."""
    key = (seat, state["round"], tuple(state["owner"]), tuple(state["spaces"][state["broker"]]),
           tuple(n for counts in state["lots"] for n in counts), tuple(state["closed"]))
    value = _SWINGS.get(key)
    if value is None:
        if len(_SWINGS) > 4096:
            _SWINGS.clear()
        value = _SWINGS[key] = swing(Board(state, seat), state["spaces"][state["broker"]])
    return value


def _cash(state: dict, seat: int) -> int:
    return max(state["cash"][c] for c in seat_colors(state["owner"], seat))


def greedy(view: dict, moves: list[dict], seat: int, rng: random.Random) -> dict:
    return decide(GAME.sample_state(view, seat, rng), moves, seat, rng)


def decide(state: dict, moves: list[dict], seat: int, rng: random.Random) -> dict:
    """The greedy bot's choice on a full state (one sampled from its view, or the search's deal)."""
    kinds = {m["type"] for m in moves}
    if "place" in kinds:
        _, plan = allocate(Board(state, seat), state["hand"])
        if plan:
            color, lot = plan[0]
            move = {"type": "place", "color": COLORS[color], "lot": LOT_NAMES[lot]}
            if move in moves:
                return move
        return rng.choice(moves)
    if "pay" in kinds:  # pay from the poorer pile that can: the richer one keeps bidding power
        payers = [m for m in moves if m["type"] == "pay"]
        return min(payers, key=lambda m: state["cash"][COLORS.index(m["color"])])
    value = BID_SHARE * auction_swing(state, seat)
    want = int(value)
    need = state["high_bid"] + 1
    loans = [m for m in moves if m["type"] == "loan"]
    if loans and want >= need:
        colors = seat_colors(state["owner"], seat)
        short = _cash(state, seat) < min(want, need + 2)
        pick = min(loans, key=lambda m: state["debits"][COLORS.index(m["color"])])
        interest = state["debits"][COLORS.index(pick["color"])] + 1
        if short and interest <= MAX_INTEREST and value - need > 2 * interest and len(colors) >= 1:
            return pick
    for m in moves:
        if m["type"] == "bid" and need <= want:
            return {"type": "bid", "amount": min(need, m["amount"]["max"])}
    if "decline" in kinds:
        return {"type": "decline"}
    return {"type": "pass"}


def playout(game, state: dict, seat: int, moves: list[dict], rng: random.Random) -> dict:
    if len(moves) == 1 and "amount" not in moves[0]:
        return moves[0]
    return decide(state, moves, seat, rng)


def evaluate(state: dict) -> list[float] | None:
    """At the start of a round: each seat's chance to win, a softmax of a linear score per seat.

    Per colour: its money (cash less debts), the lots it would take now (each by the board's
    confidence, squared) and the lots it still lacks to qualify, each weighted as it was fitted
    (logistic regression) to the outcomes of 3000 two-player greedy-vs-greedy matches; a weight
    varies with the share of cubes still to come, since early money buys the lots to come."""
    if state["phase"] not in ("loans", "bidding") or state["high_bidder"] is not None or any(state["passed"]):
        return None
    board = Board(state, 0)
    held = [0.0] * len(COLORS)
    lots = [0.0] * len(COLORS)
    for i, (w, conf) in enumerate(board.proj):
        if w is not None:
            held[w] += conf
            lots[w] += conf * conf * (board.worth(i, w) - (QUALIFY_BONUS if board.needs[w] else 0.0))
    f = board.future
    score = [(W_MONEY + W_MONEY_EARLY * f) * (state["cash"][c] - DEBIT * state["debits"][c])
             + (W_LOTS + W_LOTS_EARLY * f) * lots[c]
             + (W_SHORT + W_SHORT_EARLY * f) * max(0.0, MIN_LOTS - held[c]) for c in range(len(COLORS))]
    seats = [sum(score[c] for c in seat_colors(state["owner"], s)) for s in range(state["players"])]
    top = max(seats)
    weights = [math.exp(v - top) for v in seats]
    total = sum(weights)
    return [w / total for w in weights]


SEARCH = Hooks(playout=playout, evaluate=evaluate, horizon=HORIZON)
