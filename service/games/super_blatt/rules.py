"""Das Super-Blatt (Sid Sackson): take scoops from the tableau, win the trend's categories.

Rules: the book (Das Super-Blatt, Ken Tidwell's translation); component data and rulings:
service/games/super_blatt/rules.md.  Cards are ids
0..53 into ``CARDS``; holdings are public (the book keeps the stacks visible), the deck's
order and the unturned trend cards are hidden from everyone.
"""

from __future__ import annotations

import random
from typing import Annotated, Any, Literal, NotRequired, TypedDict

from marshmallow import Schema, fields, validate

from ..base import BaseOptions, Game, IllegalMove, Outcome, Phase, event, safe_default
from ..shape import Custom, Hidden, Public, Shape

CATEGORIES = ("sex", "crime", "sport", "business")
# service/games/super_blatt/rules.md, "Cards and specials": specials per category (chosen) -- EXTRA, 1..4 arrows, plain.
SPECIALS = {
    "sex": {"extra": 2, "arrows": (1, 1, 1, 1), "plain": 9},
    "crime": {"extra": 2, "arrows": (1, 1, 1, 0), "plain": 9},
    "sport": {"extra": 2, "arrows": (1, 1, 1, 0), "plain": 8},
    "business": {"extra": 2, "arrows": (1, 1, 1, 0), "plain": 7},
}
# service/games/super_blatt/rules.md, "Trend cards": first/second place points per category (chosen Latin square).
TRENDS = (
    {"sex": (10, 5), "crime": (8, 4), "sport": (6, 3), "business": (4, 2)},
    {"sex": (8, 4), "crime": (6, 3), "sport": (4, 2), "business": (10, 5)},
    {"sex": (6, 3), "crime": (4, 2), "sport": (10, 5), "business": (8, 4)},
    {"sex": (4, 2), "crime": (10, 5), "sport": (8, 4), "business": (6, 3)},
)
COLUMN_SIZES = (6, 5, 4, 3)
ROUNDS = 3


def _build_cards() -> tuple[dict, ...]:
    cards = []
    for cat in CATEGORIES:
        spec = SPECIALS[cat]
        cards += [{"category": cat, "special": "extra", "arrows": 0}] * spec["extra"]
        for n, count in enumerate(spec["arrows"], start=1):
            cards += [{"category": cat, "special": "arrow", "arrows": n}] * count
        cards += [{"category": cat, "special": None, "arrows": 0}] * spec["plain"]
    return tuple({"id": i, **c} for i, c in enumerate(cards))


CARDS = _build_cards()
CATEGORY_OF = tuple(c["category"] for c in CARDS)
DECK_SIZE = len(CARDS)  # 54
Category = Literal["sex", "crime", "sport", "business"]


class Card(TypedDict):
    """A scoop card: its category and its special (an EXTRA, an arrow card with 1 to 4 arrows, or none)."""

    id: int
    category: Category
    arrows: int
    special: Literal["arrow", "extra"] | None


class Holding(TypedDict):
    """A count per category."""

    business: int
    crime: int
    sex: int
    sport: int


class TrendPoints(TypedDict):
    """Per category, the points by rank of a trend card."""

    business: list[int]
    crime: list[int]
    sex: list[int]
    sport: list[int]


class Trend(TypedDict):
    card: int
    points: TrendPoints


class Pending(TypedDict):
    """What the seat to act still owes this turn: a card after an EXTRA, or the victim of its arrows."""

    kind: Literal["extra", "steal"]
    category: Category
    arrows: NotRequired[Annotated[int, "For steal: how many cards the arrow card takes."]]


class SuperBlattState(TypedDict):
    """A match: cards are ids into ``CARDS``, trend cards indices into ``TRENDS``."""

    players: int
    round: int
    deck: list[int]  # the undealt cards, next to deal first
    trend_deck: list[int]  # the unturned trend cards, next to turn last
    trends: list[int]  # the turned trend cards, this round's last
    columns: list[list[int]]  # the tableau, each column's top card last
    hands: list[list[int]]  # each seat's scoops, in the order taken
    scores: list[int]
    round_points: list[list[Holding]]  # per round, per seat, points per category
    starter: int
    turn: int  # kept when the match ends (the view shows None then)
    pending: Pending | None
    over: bool


def cards(ids: list[int]) -> list[dict]:
    return [CARDS[c] for c in ids]


def stacks(ids: list[list[int]]) -> list[list[dict]]:
    return [[CARDS[c] for c in stack] for stack in ids]


def stack_ids(shown: list[list[dict]]) -> list[list[int]]:
    return [[c["id"] for c in stack] for stack in shown]


def _show_trends(view: dict, state: SuperBlattState, seat: int | None) -> None:
    trends = state["trends"]
    view["trend"] = {"card": trends[-1], "points": TRENDS[trends[-1]]}
    view["past_trends"] = trends[:-1]


def _show_turn(view: dict, state: SuperBlattState, seat: int | None) -> None:
    view["turn"] = None if state["over"] else state["turn"]


#: the holdings are public (the book keeps the stacks visible); the deck's order and the unturned trend
#: cards are hidden from everyone; the match is over exactly when the view's turn is None
SHAPE = Shape(
    SuperBlattState,
    players=Custom(take=lambda view, seat: len(view["hands"])),
    round=Public(),
    deck=Hidden(count="deck_size", reveal="deck", show=cards, shown=list[Card]),
    trend_deck=Hidden(count="unturned_trends", reveal="trend_deck", show=list),
    trends=Custom(_show_trends, lambda view, seat: view["past_trends"] + [view["trend"]["card"]],
                  shows={"trend": Trend, "past_trends": list[int]}),
    columns=Public(show=stacks, read=stack_ids, shown=list[list[Card]]),
    hands=Public(show=stacks, read=stack_ids, shown=list[list[Card]]),
    scores=Public(show=list, read=list),
    round_points=Public(),
    starter=Public(),
    turn=Custom(_show_turn, lambda view, seat: seat if view["turn"] is None else view["turn"],
                shows={"turn": int | None}),
    pending=Public(),
    over=Custom(take=lambda view, seat: view["turn"] is None),
)


class Options(BaseOptions):
    pass


class TakeMove(Schema):
    column = fields.Integer(required=True, validate=validate.Range(min=0, max=3))


class PassMove(Schema):
    """Decline the optional extra card after an EXTRA."""


class StealMove(Schema):
    victim = fields.Integer(required=True, validate=validate.Range(min=0, max=3),
                            metadata={"description": "The opponent the arrows steal from."})


def count(hand: list[int], category: str) -> int:
    return [CATEGORY_OF[c] for c in hand].count(category)


def place_category(counts: list[int], points: tuple[int, int]) -> list[int]:
    """First and second place points for one category, ties thrown out (book: Scoring).

    Only players holding at least one card compete (service/games/super_blatt/rules.md, "Scoring a category");
    a count shared by two or more players is eliminated and the next count moves up.
    """
    awarded = [0] * len(counts)
    unique = [v for v in sorted({c for c in counts if c > 0}, reverse=True) if counts.count(v) == 1]
    for place, value in zip(points, unique):
        awarded[counts.index(value)] = place
    return awarded


class SuperBlatt(Game):
    name = "super_blatt"
    title = "Das Super-Blatt"
    min_players = 2
    max_players = 4
    Options = Options
    moves = {"take": TakeMove, "pass": PassMove, "steal": StealMove}
    shape = SHAPE
    presents = {"holdings": list[Holding]}  # each seat's scoops counted by category
    #: book: take a top card; after an EXTRA, one more of its category or pass; after arrows, name the victim
    phases = {
        "take": Phase({"take": "_take"}, "Take the top card of a column first."),
        "extra": Phase({"take": "_take_extra", "pass": "_decline_extra"},
                       "After an EXTRA take a card of the same category or pass."),
        "steal": Phase({"steal": "_steal"}, "Name the opponent your arrows steal from."),
    }

    def setup(self, players: int, options: dict[str, Any], rng: random.Random) -> SuperBlattState:
        deck = list(range(DECK_SIZE))
        rng.shuffle(deck)
        trends = list(range(len(TRENDS)))
        rng.shuffle(trends)
        first = self.first_seat(players, options, rng)
        state = SuperBlattState(
            players=players,
            round=0,
            deck=deck,
            trend_deck=trends,
            trends=[],
            columns=[[], [], [], []],
            hands=[[] for _ in range(players)],
            scores=[0] * players,
            round_points=[],
            starter=first,
            turn=first,
            pending=None,
            over=False,
        )
        self._start_round(state, first)
        return state

    def _start_round(self, state: SuperBlattState, starter: int) -> list[dict]:
        """Deal 18 cards into columns of 6/5/4/3 and turn the next trend card (book: Preparations)."""
        deck = state["deck"]
        state["columns"] = []
        for size in COLUMN_SIZES:
            state["columns"].append(deck[:size])
            del deck[:size]
        state["trends"].append(state["trend_deck"].pop())
        state["round"] += 1
        state["starter"] = state["turn"] = starter
        state["pending"] = None
        return [event("round_started", {
            "round": state["round"],
            "trend": state["trends"][-1],
            "points": TRENDS[state["trends"][-1]],
            "starter": starter,
            "columns": [[CARDS[c] for c in col] for col in state["columns"]],
        })]

    # -- whose decision --------------------------------------------------------------
    def to_act(self, state: SuperBlattState) -> list[int]:
        return [] if state["over"] else [state["turn"]]

    def legal_moves(self, state: SuperBlattState, seat: int) -> list[dict]:
        if state["over"] or seat != state["turn"]:
            return []
        pending = state["pending"]
        columns = state["columns"]
        if pending is None:
            return [{"type": "take", "column": i} for i, col in enumerate(columns) if col]
        if pending["kind"] == "extra":
            cat = pending["category"]
            return [{"type": "take", "column": i} for i, col in enumerate(columns)
                    if col and CATEGORY_OF[col[-1]] == cat] + [{"type": "pass"}]
        return [{"type": "steal", "victim": v} for v in self._victims(state, seat, pending["category"])]

    def _victims(self, state: SuperBlattState, seat: int, category: str) -> list[int]:
        return [p for p, hand in enumerate(state["hands"]) if p != seat and count(hand, category)]

    # -- applying ----------------------------------------------------------------------
    def phase(self, state: SuperBlattState) -> str:
        pending = state["pending"]
        return "take" if pending is None else pending["kind"]

    def _top(self, state: SuperBlattState, column: int) -> int:
        if not 0 <= column < len(state["columns"]):
            raise IllegalMove("There are four columns, 0 to 3.", "no_such_column")
        col = state["columns"][column]
        if not col:
            raise IllegalMove(f"Column {column} is empty.", "column_empty")
        return col[-1]

    def _take(self, state: SuperBlattState, seat: int, move: dict, rng: random.Random) -> list[dict]:
        column = move["column"]
        card = self._top(state, column)
        state["columns"][column].pop()
        state["hands"][seat].append(card)
        info = CARDS[card]
        events = [event("took", {"seat": seat, "column": column, "card": info})]
        cat = info["category"]
        if info["special"] == "extra":
            # Book: "If an EXTRA Scoop Card is taken last, the player is not allowed to take
            # an additional card but is allowed to play first in the next round."
            if not self._tableau_left(state):
                return events + self._end_round(state, next_starter=seat)
            if any(col and CATEGORY_OF[col[-1]] == cat for col in state["columns"]):
                state["pending"] = {"kind": "extra", "category": cat}
                return events
        elif info["special"] == "arrow":
            victims = self._victims(state, seat, cat)
            if len(victims) > 1:
                state["pending"] = {"kind": "steal", "category": cat, "arrows": info["arrows"]}
                return events
            if victims:  # a single candidate: the choice is forced, make it
                events += self._do_steal(state, seat, victims[0], cat, info["arrows"])
        return events + self._end_turn(state, seat)

    def _decline_extra(self, state: SuperBlattState, seat: int, move: dict, rng: random.Random) -> list[dict]:
        return [event("extra_declined", {"seat": seat})] + self._end_turn(state, seat)

    def _take_extra(self, state: SuperBlattState, seat: int, move: dict, rng: random.Random) -> list[dict]:
        column, category = move["column"], state["pending"]["category"]
        card = self._top(state, column)
        if CATEGORY_OF[card] != category:
            raise IllegalMove(f"The extra card must be {category}, the category of the EXTRA.", "wrong_category")
        state["columns"][column].pop()
        state["hands"][seat].append(card)
        # Book: a special taken as the additional card counts as plain.
        took = event("took_extra", {"seat": seat, "column": column, "card": CARDS[card]})
        return [took] + self._end_turn(state, seat)

    def _steal(self, state: SuperBlattState, seat: int, move: dict, rng: random.Random) -> list[dict]:
        victim, pending = move["victim"], state["pending"]
        if victim == seat or not 0 <= victim < state["players"]:
            raise IllegalMove("Steal from an opponent at this table.", "bad_victim")
        if not count(state["hands"][victim], pending["category"]):
            raise IllegalMove(f"Seat {victim} holds no {pending['category']} cards.", "nothing_to_steal")
        events = self._do_steal(state, seat, victim, pending["category"], pending["arrows"])
        return events + self._end_turn(state, seat)

    def _do_steal(self, state: SuperBlattState, seat: int, victim: int, category: str, arrows: int) -> list[dict]:
        """Book: one card of the category per arrow, all from one player, as many as they have."""
        hand = state["hands"][victim]
        taken = [c for c in reversed(hand) if CATEGORY_OF[c] == category][:arrows]
        for c in taken:
            hand.remove(c)
        state["hands"][seat].extend(taken)
        return [event("stole", {"seat": seat, "victim": victim, "category": category,
                                "cards": [CARDS[c] for c in taken]})]

    def _tableau_left(self, state: SuperBlattState) -> bool:
        return any(state["columns"])

    def _end_turn(self, state: SuperBlattState, seat: int) -> list[dict]:
        state["pending"] = None
        if not self._tableau_left(state):
            # Book: the round's next starter is the player to the left of the last starter.
            return self._end_round(state, next_starter=(state["starter"] + 1) % state["players"])
        state["turn"] = (seat + 1) % state["players"]
        return []

    def _end_round(self, state: SuperBlattState, next_starter: int) -> list[dict]:
        state["pending"] = None
        trend = TRENDS[state["trends"][-1]]
        points = self.round_points(state["hands"], trend)
        totals = [sum(p.values()) for p in points]
        state["round_points"].append(points)
        state["scores"] = [a + b for a, b in zip(state["scores"], totals)]
        events = [event("round_scored", {"round": state["round"], "points": points,
                                         "scores": list(state["scores"])})]
        if state["round"] >= ROUNDS:
            state["over"] = True
            return events + [event("game_over", {"scores": list(state["scores"])})]
        return events + self._start_round(state, next_starter)

    @staticmethod
    def round_points(hands: list[list[int]], trend: dict[str, tuple[int, int]]) -> list[dict[str, int]]:
        """Each player's points per category under one trend card."""
        points: list[dict[str, int]] = [{} for _ in hands]
        for cat in CATEGORIES:
            awarded = place_category([count(h, cat) for h in hands], trend[cat])
            for p, pts in enumerate(awarded):
                points[p][cat] = pts
        return points

    # -- what a seat sees ---------------------------------------------------------------
    def present(self, view: dict, state: SuperBlattState, seat: int | None) -> None:
        view["holdings"] = [{cat: count(h, cat) for cat in CATEGORIES} for h in state["hands"]]

    def is_over(self, state: SuperBlattState) -> bool:
        return state["over"]

    def final_result(self, state: SuperBlattState) -> Outcome:
        breakdown = [{"rounds": [state["round_points"][r][p] for r in range(len(state["round_points"]))],
                      "cards": {cat: count(state["hands"][p], cat) for cat in CATEGORIES}}
                     for p in range(state["players"])]
        return Outcome.by_score(state["scores"], breakdown)

    def deal(self, state: SuperBlattState, view: dict, seat: int, rng: random.Random) -> None:
        """Everything but the deck order and the unturned trends is public: shuffle those."""
        seen = {c for col in state["columns"] for c in col} | {c for h in state["hands"] for c in h}
        deck = [c for c in range(DECK_SIZE) if c not in seen]
        rng.shuffle(deck)
        trend_deck = [t for t in range(len(TRENDS)) if t not in state["trends"]]
        rng.shuffle(trend_deck)
        state["deck"], state["trend_deck"] = deck, trend_deck


GAME = SuperBlatt()


def default_move(state: SuperBlattState, seat: int) -> dict:
    """On a timeout or for a seat that is out: after an EXTRA, pass (the book: "may" take one more);
    else take from the leftmost column that has a card; an arrow steals from the first victim."""
    return safe_default(GAME.legal_moves(state, seat), ("pass",))
