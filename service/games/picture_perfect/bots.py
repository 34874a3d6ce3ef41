"""Picture Perfect greedy bot: collect what it has not seen, then pose the guests it knows.

It remembers what its seat has seen (the view's ``known``: every look it was allowed), goes for
envelopes it has not looked into yet (information is the game), gives away and sells
envelopes it already knows, bids up to a small fixed value for an unknown envelope, keeps its
VIP card for the final placement (where nobody else can see it any more) and puts it on the
held guest it scores best; the final placement is a local search over the known guests'
squares, then unknown guests are added only where their expected score over the unseen cards
is positive.
"""

from __future__ import annotations

import math
import random
import threading

from ..base import concretize, is_span
from ..plugin import Hooks
from .data import (
    DECK_SIZE,
    DECORATIONS_PER_POINT,
    GUEST_INDEX,
    GUEST_SQUARES,
    GUESTS,
    POINTS,
    TABLE_COLUMNS,
    row_col,
    square,
)
from .photo import Layout
from .table import vip_count

UNKNOWN_BID = 3  # decorations an unseen envelope is worth to us (2 decorations = 1 point)
PEEK_PRICE = 2
#: photos the greedy bot's local search may weigh per placement decision (a count, not a clock, so that a bot
#: decides the same for a seed on any machine and under any load: about 12 ms here, 20 µs a photo; nine in ten
#: of its searches end sooner, at a photo no single move or swap improves)
PLAN_STEPS = 600
#: steps of the search's placement per guest still to place (12 guests: about 0.2 s; the photo it finds
#: scores about 5 points more than the greedy bot's local search)
ANNEAL_STEPS = 1500
ANNEAL_HEAT = (3.0, 0.05)  # the annealing's temperature at its start and end, in points
ADD_STEPS = 400  # then photos weighed for adding unknown guests (about 8 ms: a decision stays well under 50 ms)
KNOWN_POINTS = 2.0  # what a guest whose envelope a seat has seen brings to its photo, roughly (search)
#: points of lead that make a win about e times as likely, in the search's evaluation: flat, so that the search
#: leaves its lead only for a clear gain (what a seat knows is a rough guide to its photo).  At 4, its value
#: while a deal left the other seats' memories empty, the search won 36 of 60 3-player matches against greedy
#: once they were dealt (45 of the same 60 before); at 16, 42 (docs/bots.md)
EVAL_SCALE = 16.0
CHANCE_SCALE = 6.0  # the same for the analysis's chances to win, fitted to match outcomes (docs/analysis.md)
EASY = {"area", "nobody_in_front", "face_hidden", "not_next_to"}


def _known(view: dict) -> dict[str, dict]:
    return view.get("known", {})


def _keep_value(view: dict, guest: str) -> float:
    """How much we want to hold an envelope: unseen ones most, then ones with VIPs, then easy ones."""
    info = _known(view).get(guest)
    if info is None:
        return 10.0
    easy = sum(1 for c in info["cards"] if c["kind"] in EASY or c.get("guest") == guest)
    return 2.0 * info["vips"] + easy


def _want(view: dict, guest: str) -> float:
    """How much we want to get (or look into) an envelope: only unseen ones teach us anything."""
    return 1.0 if guest not in _known(view) else 0.0


def _best(moves: list[dict], key, rng: random.Random) -> dict:
    return max(moves, key=lambda m: (key(m), rng.random()))


def _of(moves: list[dict], kind: str) -> list[dict]:
    return [m for m in moves if m["type"] == kind]


def greedy(view: dict, moves: list[dict], seat: int, rng: random.Random) -> dict:
    kind = view["pending"]["kind"]
    if kind == "placement":
        return _placement(view, moves, seat, rng)
    if kind == "look":
        return {"type": "ready"}  # the VIP card waits for the final placement
    if kind == "auction":
        return concretize(_auction(view, moves, seat, rng), rng)
    types = {m["type"] for m in moves}
    if "keep" in types:
        return _best(moves, lambda m: _keep_value(view, m["guest"]), rng)
    if types <= {"gift", "deposit", "return"}:
        return _best(moves, lambda m: -_keep_value(view, m["guest"]), rng)
    if types <= {"steal", "take"}:
        return _best(moves, lambda m: _want(view, m["guest"]), rng)
    if "peek" in types:
        peeks = [m for m in _of(moves, "peek") if _want(view, m["guest"])]
        held = {g for gs in view["held"] for g in gs}
        return _best(peeks, lambda m: m["guest"] in held, rng) if peeks else {"type": "pass"}
    return concretize(rng.choice(moves), rng)


# -- auctions ---------------------------------------------------------------------------------
def _auction(view: dict, moves: list[dict], seat: int, rng: random.Random) -> dict:
    p = view["pending"]
    card, step = p["card"], p["step"]
    mine = view["decorations"][seat]
    if step == "deposit":
        return _best(moves, lambda m: -_keep_value(view, m["guest"]), rng)
    if step == "offer":
        if card == "shared":  # we may buy it ourselves: pick one we have not seen
            pick = _best(moves, lambda m: _want(view, m["guest"]), rng)
        else:
            pick = _best(moves, lambda m: -_keep_value(view, m["guest"]), rng)
        if "price" in pick:
            price = pick["price"]
            return {**pick, "price": max(price["min"], min(price["max"], PEEK_PRICE))}
        return pick
    if step == "settle":
        buy = _of(moves, "buy")
        if buy and _want(view, p["guest"]) and p["high"] <= UNKNOWN_BID + 1:
            return buy[0]
        return {"type": "sell"}
    value = UNKNOWN_BID if _want(view, p["guest"]) else 0
    if card == "fixed_price":
        return {"type": "pay"} if value and p["price"] <= PEEK_PRICE else {"type": "pass"}
    bid = _of(moves, "bid")[0]["amount"]
    if card in ("secret", "unfair_secret"):
        target = min(max(bid["min"], value), bid["max"], mine)
        if target > value and bid["min"] > 0:  # a tie round we cannot win cheaply: stay at the floor
            target = bid["min"]
        return {"type": "bid", "amount": target}
    if bid["min"] <= value:
        return {"type": "bid", "amount": bid["min"]}
    return {"type": "pass"}


# -- the final placement ---------------------------------------------------------------------------
class Planner:
    """Local search over squares for the guests whose envelopes we have seen."""

    def __init__(self, view: dict, seat: int, rng: random.Random) -> None:
        self.rng = rng
        known = _known(view)
        self.cards = {GUEST_INDEX[g]: [c["id"] for c in info["cards"]] for g, info in known.items()}
        self.vips = {GUEST_INDEX[g]: info["vips"] for g, info in known.items()}
        if view.get("vip") is not None:
            self.vips[GUEST_INDEX[view["vip"]]] = max(self.vips.get(GUEST_INDEX[view["vip"]], 0), 1)
        self.items = [(g, cs, 1 + self.vips.get(g, 0)) for g, cs in self.cards.items()]
        seen = {c for cs in self.cards.values() for c in cs}
        self.pool = [c for c in range(DECK_SIZE) if c not in seen]
        placement = view["placement"]
        self.pos = [-1] * len(GUESTS)
        for g, (r, c) in placement["guests"].items():
            self.pos[GUEST_INDEX[g]] = square(r, c)
        self.fixed = {g for g, s in enumerate(self.pos) if s >= 0}
        self.placed_before = frozenset(self.fixed)
        self.decor = set(placement["decor"])
        self.spare_decor = view["decorations"][seat] - len(self.decor)
        self.vip_free = view.get("vip") is None
        self.held = [GUEST_INDEX[g] for g in view["held"][seat] if GUEST_INDEX[g] in self.cards]
        self.weighed = 0  # photos valued so far: the searches' budgets count them

    def value(self, lay: Layout) -> float:
        """Exact points of the known guests (unknown ones are weighed only when added)."""
        self.weighed += 1
        total = 0
        pos, ok = lay.pos, lay.card_ok
        for g, cards, factor in self.items:
            if pos[g] >= 0:
                total += POINTS[ok(cards[0], g) + ok(cards[1], g) + ok(cards[2], g)] * factor
        return total

    def with_vip(self, lay: Layout) -> float:
        """``value`` plus what a VIP card still in hand adds: the held guest the photo scores best, once more."""
        total = self.value(lay)
        if self.vip_free:
            total += max([lay.guest_points(g, self.cards[g]) for g in self.held] + [0])
        return total

    def unknown_ev(self, lay: Layout, g: int) -> float:
        """Expected points of a guest with 3 unseen cards, as if each were drawn from the unseen pool."""
        if not self.pool:
            return 0.0
        p = sum(1 for c in self.pool if lay.card_ok(c, g)) / len(self.pool)
        q = 1 - p
        probs = (q * q * q, 3 * p * q * q, 3 * p * p * q, p * p * p)
        return sum(pt * pr for pt, pr in zip(POINTS, probs, strict=True))

    def plan(self, steps: int = PLAN_STEPS) -> Layout:
        """The greedy bot's photo: each known guest to its best square, then moves and swaps while one
        improves it, within ``steps`` photos weighed; then unknown guests (``ADD_STEPS``) and decorations."""
        stop = self.weighed + steps
        lay = Layout(self.pos, self.decor)
        movable = [g for g in self.cards if g not in self.fixed]
        self.rng.shuffle(movable)
        for g in movable:  # greedy construction
            self._best_spot(lay, g)
            if self.weighed >= stop:
                break
        improved = True
        while improved and self.weighed < stop:
            improved = False
            for g in movable:
                if self._best_spot(lay, g, swap_with=movable):
                    improved = True
                if self.weighed >= stop:
                    break
        self._add_unknown(lay, max(stop, self.weighed) + ADD_STEPS)
        self._decorate(lay)
        return lay

    def construct(self) -> Layout:
        """A photo without the local search, for playouts: each known guest to its best square in a random order,
        then unknown guests where they are expected to score, then decorations (``plan`` without its local
        search: cheap)."""
        lay = Layout(self.pos, self.decor)
        movable = [g for g in self.cards if g not in self.fixed]
        self.rng.shuffle(movable)
        for g in movable:
            self._best_spot(lay, g)
        self._add_unknown(lay, math.inf)
        self._decorate(lay)
        return lay

    def anneal(self, steps_per_guest: int) -> Layout:
        """Simulated annealing over the known guests' squares (the search's placement, ``lead``): a step
        puts one guest on a random square, swapping with a movable guest standing there, or off the photo;
        then unknown guests and decorations as in ``plan``."""
        lay = Layout(self.pos, self.decor)
        movable = [g for g in self.cards if g not in self.fixed]
        spots = [-1] + [s for s in GUEST_SQUARES if lay.at[s] < 0]
        if movable:
            rng = self.rng
            hot, cold = ANNEAL_HEAT
            current = best = self.with_vip(lay)
            best_pos = list(lay.pos)
            steps = steps_per_guest * len(movable)
            for i in range(steps):
                g, s = rng.choice(movable), rng.choice(spots)
                old = lay.pos[g]
                if s == old:
                    continue
                h = lay.at[s] if s >= 0 else -1
                self._swap(lay, g, s, h, old)
                v = self.with_vip(lay)
                if v >= current or rng.random() < math.exp((v - current) / (hot * (cold / hot) ** (i / steps))):
                    current = v
                    if v > best:
                        best, best_pos = v, list(lay.pos)
                else:
                    self._swap(lay, g, old, h, s)
            lay = Layout(best_pos, self.decor)
        self._add_unknown(lay, self.weighed + ADD_STEPS)
        self._decorate(lay)
        return lay

    def _swap(self, lay: Layout, g: int, s: int, h: int, old: int) -> None:
        """g to square s (or off), and h, who stood on s (-1: nobody), to g's old square."""
        if h >= 0:
            self._move(lay, h, -1)
        self._move(lay, g, s)
        if h >= 0:
            self._move(lay, h, old)

    def _move(self, lay: Layout, g: int, s: int) -> None:
        old = lay.pos[g]
        if old >= 0:
            lay.at[old] = -1
        lay.pos[g] = s
        if s >= 0:
            lay.at[s] = g

    def _best_spot(self, lay: Layout, g: int, swap_with: list[int] = ()) -> bool:
        """Move g to its best free square (or off the photo, or swap); True if the value rose."""
        start = lay.pos[g]
        base = self.value(lay)
        best, best_v = ("move", start), base
        for s in [-1] + [s for s in GUEST_SQUARES if lay.at[s] < 0]:
            if s == start:
                continue
            self._move(lay, g, s)
            v = self.value(lay)
            if v > best_v + 1e-9:
                best, best_v = ("move", s), v
        self._move(lay, g, start)
        if start >= 0:
            for h in swap_with:
                hs = lay.pos[h]
                if h == g or hs < 0:
                    continue
                self._move(lay, h, -1)
                self._move(lay, g, hs)
                self._move(lay, h, start)
                v = self.value(lay)
                if v > best_v + 1e-9:
                    best, best_v = ("swap", h), v
                self._move(lay, h, -1)
                self._move(lay, g, start)
                self._move(lay, h, hs)
        if best[0] == "move":
            self._move(lay, g, best[1])
        else:
            h = best[1]
            hs = lay.pos[h]
            self._move(lay, h, -1)
            self._move(lay, g, hs)
            self._move(lay, h, start)
        return best_v > base + 1e-9

    def _add_unknown(self, lay: Layout, stop: float) -> None:
        """Unknown guests only where the expected score (theirs and the known guests') rises, until ``stop``
        photos have been weighed."""
        while self.weighed < stop:
            base = self.value(lay)
            best = None
            best_gain = 0.25
            for g in range(len(GUESTS)):
                if lay.pos[g] >= 0 or g in self.cards:
                    continue
                if self.weighed >= stop:
                    break
                for s in GUEST_SQUARES:
                    if lay.at[s] >= 0:
                        continue
                    self._move(lay, g, s)
                    gain = self.value(lay) + self.unknown_ev(lay, g) - base
                    self._move(lay, g, -1)
                    if gain > best_gain:
                        best, best_gain = (g, s), gain
            if best is None:
                return
            self._move(lay, *best)

    def _decorate(self, lay: Layout) -> None:
        for c in TABLE_COLUMNS:
            if c in lay.decor or self.spare_decor <= 0:
                continue
            base = self.value(lay)
            trial = Layout(lay.pos, lay.decor | {c})
            if self.value(trial) > base + 1e-9:
                lay.decor = trial.decor
                self.spare_decor -= 1


def _placement(view: dict, moves: list[dict], seat: int, rng: random.Random) -> dict:
    planner = Planner(view, seat, rng)
    return _pose(planner, planner.plan(), moves, rng)


def _pose(planner: Planner, lay: Layout, moves: list[dict], rng: random.Random) -> dict:
    """The next step towards the photo ``lay``: the VIP card first, then each new guest, decorations, done."""
    vip = _of(moves, "vip")
    if vip:  # the VIP card goes on the held guest our photo scores best
        scores = {}
        for m in vip:
            g = GUEST_INDEX[m["guest"]]
            scores[m["guest"]] = lay.guest_points(g, planner.cards[g], 0) if g in planner.cards else 0
        guest = max(scores, key=lambda g: (scores[g], rng.random()))
        if scores[guest] > 0:
            return {"type": "vip", "guest": guest}
    legal_places = {(m["guest"], m["row"], m["col"]) for m in _of(moves, "place")}
    for g, s in enumerate(lay.pos):
        if s >= 0 and g not in planner.placed_before:
            r, c = row_col(s)
            if (GUESTS[g], r, c) in legal_places:
                return {"type": "place", "guest": GUESTS[g], "row": r, "col": c}
    for m in _of(moves, "decorate"):
        if m["column"] in lay.decor:
            return m
    return {"type": "done"}


def lead(view: dict, moves: list[dict], seat: int, rng: random.Random) -> dict:
    """The move the search must beat: the greedy bot's, but at the final placement the photo that
    annealing finds in the search's time (the photo decides most matches; see ``ANNEAL_STEPS``)."""
    if view["pending"]["kind"] != "placement":
        return greedy(view, moves, seat, rng)
    planner = Planner(view, seat, rng)
    return _pose(planner, planner.anneal(ANNEAL_STEPS), moves, rng)


def playout(game, state: dict, seat: int, moves: list[dict], rng: random.Random) -> dict:
    """The greedy bot's rules, and at the final placement the next step of a photo built without the local
    search (``Planner.construct``): a playout that reaches the end scores real photos (the search evaluates where the
    placement starts; the analysis plays its last moves to the end)."""
    if len(moves) == 1 and not any(is_span(v) for v in moves[0].values()):
        return moves[0]
    if state["phase"] == "placement":
        return _POSING.step(game, state, seat, moves, rng)
    return greedy(game.view(state, seat), moves, seat, rng)


class _Posing(threading.local):
    """The photo a playout's seat is posing: built once (``Planner.construct``) and posed one step per call,
    as a playout asks for one move at a time (built anew at each step, a 3-player playout's photos cost
    ten times as much).  It remembers the last state and seat only, by identity: a playout's state is one
    dict that its moves change in place.  One per thread: a process may search for several seats at once
    (clients/botrun.py plays them in threads), and another thread's playout must not replace the photo."""

    def __init__(self) -> None:
        self.state: dict | None = None
        self.seat = -1
        self.photo: tuple[Planner, Layout] | None = None

    def step(self, game, state: dict, seat: int, moves: list[dict], rng: random.Random) -> dict:
        if self.photo is None or self.state is not state or self.seat != seat:
            planner = Planner(game.view(state, seat), seat, rng)
            self.state, self.seat, self.photo = state, seat, (planner, planner.construct())
        move = _pose(*self.photo, moves, rng)
        if move["type"] == "done":
            self.state, self.photo = None, None
        return move


_POSING = _Posing()


def standing(state: dict) -> list[float] | None:
    """At the final placement: each seat's points by what it knows (``KNOWN_POINTS`` per envelope it has
    seen, once more per VIP card in it, one more envelope's worth for a VIP card still in hand, and its
    decoration points); what is placed is not counted.

    A VIP card counts wherever it is, for every seat that knows its envelope: adding it early only
    risks the envelope going to someone who then scores it twice too."""
    if state["phase"] != "placement":
        return None
    vips = {g: vip_count(state, g) for g in state["vip_at"] if g is not None}
    points = []
    for s in range(state["players"]):
        value = sum(KNOWN_POINTS * (1 + vips.get(g, 0)) for g in state["known"][s])
        if state["vip_at"][s] is None:
            value += KNOWN_POINTS
        if state["auctions"]:
            value += state["decorations"][s] // DECORATIONS_PER_POINT
        points.append(value)
    return points


def softmax(points: list[float], scale: float) -> list[float]:
    """Chances to win from points: ``scale`` points of lead make a win e times as likely."""
    top = max(points)
    weights = [math.exp((p - top) / scale) for p in points]
    total = sum(weights)
    return [w / total for w in weights]


def evaluate(state: dict) -> list[float] | None:
    """The search's evaluation: ``standing`` as chances at ``EVAL_SCALE`` (the order of its moves is what counts)."""
    points = standing(state)
    return None if points is None else softmax(points, EVAL_SCALE)


def chances(state: dict) -> list[float] | None:
    """The analysis's evaluation: ``standing`` as chances at ``CHANCE_SCALE``, fitted to match outcomes."""
    points = standing(state)
    return None if points is None else softmax(points, CHANCE_SCALE)


def at_placement(view: dict) -> bool:
    """The final placement is the anneal's alone: the other seats' photos are hidden, so a sampled deal
    holds them empty (and the playout ends them at once), a finished deal is then a false win, and a search
    there ended its own photo early, ``done`` being the shortest way to it (3 players against greedy: 10 of
    30 matches with that search, 22 of the same 30 without)."""
    return view["pending"]["kind"] == "placement"


SEARCH = Hooks(playout=playout, evaluate=evaluate, horizon=0, lead=lead, lead_stands=at_placement, chances=chances)
