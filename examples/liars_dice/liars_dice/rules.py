"""Liar's Dice: the rules (rules.md states each ruling).

Every player rolls their dice under a cup and sees only their own.  In turn, each raises the bid -- "there
are at least QUANTITY dice showing FACE on the table" -- or challenges the last bid: every cup is lifted,
and the bidder loses a die if the bid was wrong, the challenger if it held.  Ones are wild (they count for
any other face) unless the variant says otherwise.  A player without dice is out; the last with dice wins.

Pure: plain JSON state, all chance through the referee's ``rng``.
"""

from __future__ import annotations

import random
from typing import Literal, TypedDict

from marshmallow import Schema, fields, validate

from service.games.base import BaseOptions, Game, IllegalMove, Outcome, Phase, copy_json, event, safe_default, span
from service.games.shape import Own, Public, Shape
from service.games.wire import Wire, schema_of

FACES = (1, 2, 3, 4, 5, 6)
Face = Literal[1, 2, 3, 4, 5, 6]
MAX_DICE = 5


class Bid(TypedDict):
    """A claim: at least ``quantity`` dice on the table show ``face`` (ones counted when wild)."""

    seat: int
    quantity: int
    face: Face


class Challenge(TypedDict):
    """A challenged bid with every cup lifted: how many dice counted, and who lost a die."""

    round: int
    seat: int
    bid: Bid
    cups: list[list[int]]
    count: int
    loser: int


class LiarsDiceState(TypedDict):
    players: int
    ones_wild: bool
    round: int
    cups: list[list[int]]  # per seat, its dice (sorted); a seat sees only its own
    turn: int | None  # None once the match is over
    bid: Bid | None  # the standing bid (None: the round's first bid is due)
    bids: list[Bid]  # this round's bids, in order
    last: Challenge | None  # the last round's challenge
    out: list[int]  # the seats out of dice, in order
    over: bool


class Rolled(TypedDict):
    """Your dice of a new round (to you alone)."""

    round: int
    dice: list[int]


class RoundStarted(TypedDict):
    round: int
    starter: int
    dice: list[int]  # each seat's number of dice


class Seat(TypedDict):
    seat: int


class Winner(TypedDict):
    winner: int


class Breakdown(TypedDict):
    dice_left: int
    out: int | None  # 1: the first out, 2: the second... (None: never out)


OPEN = Public(show=copy_json, read=copy_json)
#: hidden: the other seats' cups (each seat sees how many dice every cup holds); every cup at the end
SHAPE = Shape(
    LiarsDiceState,
    players=Public(), ones_wild=Public(), round=Public(),
    cups=Own("cup", show=list, read=list, count="cup_sizes", reveal="cups"),
    turn=Public(), bid=OPEN, bids=OPEN, last=OPEN, out=OPEN, over=Public(),
)


class Options(BaseOptions):
    dice = fields.Integer(load_default=MAX_DICE, validate=validate.Range(min=1, max=MAX_DICE),
                          metadata={"description": "Dice per player at the start."})
    ones_wild = fields.Boolean(load_default=True,
                               metadata={"description": "Ones count for any other face named in a bid."})


class BidMove(Schema):
    quantity = fields.Integer(required=True, validate=validate.Range(min=1, max=6 * MAX_DICE),
                              metadata={"description": "How many dice at least show the face."})
    face = fields.Integer(required=True, validate=validate.Range(min=1, max=6))


class ChallengeMove(Schema):
    """Lift every cup: the last bid held, or its bidder loses a die."""


def counted(cups: list[list[int]], face: int, ones_wild: bool) -> int:
    """The dice that show ``face`` (and the wild ones) on the whole table."""
    return sum(1 for cup in cups for d in cup if d == face or (ones_wild and face != 1 and d == 1))


def roll(n: int, rng: random.Random) -> list[int]:
    return sorted(rng.randint(1, 6) for _ in range(n))


class LiarsDice(Game):
    name = "liars_dice"
    title = "Liar's Dice"
    min_players = 2
    max_players = 6
    Options = Options
    moves = {"bid": BidMove, "challenge": ChallengeMove}
    variants = ({}, {"dice": 3, "ones_wild": False})
    phases = {"bidding": Phase({"bid": "_bid", "challenge": "_challenge"},
                               "raise the bid ('bid') or challenge the last one ('challenge').")}
    shape = SHAPE
    presents = {"to_act": list[int]}

    # -- the contract -------------------------------------------------------------------------------
    def setup(self, players: int, options: dict, rng: random.Random) -> LiarsDiceState:
        return self.opening(players, options, rng)[0]

    def opening(self, players: int, options: dict, rng: random.Random) -> tuple[LiarsDiceState, list[dict]]:
        first = self.first_seat(players, options, rng)
        state: LiarsDiceState = {"players": players, "ones_wild": options["ones_wild"], "round": 0,
                                 "cups": [[0] * options["dice"] for _ in range(players)], "turn": first,
                                 "bid": None, "bids": [], "last": None, "out": [], "over": False}
        return state, self._new_round(state, first, rng)

    def phase(self, state: LiarsDiceState) -> str:
        return "bidding"

    def to_act(self, state: LiarsDiceState) -> list[int]:
        return [] if state["over"] else [state["turn"]]

    def legal_moves(self, state: LiarsDiceState, seat: int) -> list[dict]:
        if state["over"] or seat != state["turn"]:
            return []
        total = sum(len(c) for c in state["cups"])
        bid = state["bid"]
        moves = []
        for face in FACES:
            least = 1 if bid is None else bid["quantity"] + (face <= bid["face"])
            if least <= total:
                moves.append({"type": "bid", "face": face, "quantity": span(least, total)})
        if bid is not None:
            moves.append({"type": "challenge"})
        return moves

    def is_over(self, state: LiarsDiceState) -> bool:
        return state["over"]

    def final_result(self, state: LiarsDiceState) -> Outcome:
        """The last out places last; the last with dice first (rules.md, "The end")."""
        n, out = state["players"], state["out"]
        scores = [len(out) if s not in out else out.index(s) for s in range(n)]
        breakdown = [{"dice_left": len(state["cups"][s]), "out": out.index(s) + 1 if s in out else None}
                     for s in range(n)]
        return Outcome.by_score(scores, breakdown)

    def present(self, view: dict, state: LiarsDiceState, seat: int | None) -> None:
        view["to_act"] = self.to_act(state)

    def deal(self, state: LiarsDiceState, view: dict, seat: int, rng: random.Random) -> None:
        """The other cups rolled anew, as many dice each as the view counts."""
        for s, n in enumerate(view["cup_sizes"]):
            if s != seat:
                state["cups"][s] = roll(n, rng)

    # -- the moves ------------------------------------------------------------------------------------
    def _bid(self, state: LiarsDiceState, seat: int, move: dict, rng: random.Random) -> list[dict]:
        quantity, face = move["quantity"], move["face"]
        bid, total = state["bid"], sum(len(c) for c in state["cups"])
        if bid is not None and (quantity, face) <= (bid["quantity"], bid["face"]):
            raise IllegalMove(f"A bid must raise {bid['quantity']} × {bid['face']}: more dice, or as many of a "
                              "higher face.", "not_higher")
        if quantity > total:
            raise IllegalMove(f"There are only {total} dice on the table.", "too_many")
        state["bid"] = {"seat": seat, "quantity": quantity, "face": face}
        state["bids"].append(dict(state["bid"]))
        state["turn"] = self._next(state, seat)
        return [event("bid", state["bid"])]

    def _challenge(self, state: LiarsDiceState, seat: int, move: dict, rng: random.Random) -> list[dict]:
        bid = state["bid"]
        if bid is None:
            raise IllegalMove("There is no bid to challenge yet: the round's first player bids.", "no_bid")
        count = counted(state["cups"], bid["face"], state["ones_wild"])
        loser = seat if count >= bid["quantity"] else bid["seat"]
        state["last"] = {"round": state["round"], "seat": seat, "bid": dict(bid),
                         "cups": [list(c) for c in state["cups"]], "count": count, "loser": loser}
        events = [event("challenged", state["last"])]
        state["cups"][loser].pop()
        if not state["cups"][loser]:
            state["out"].append(loser)
            events.append(event("player_out", {"seat": loser}))
        left = [s for s in range(state["players"]) if state["cups"][s]]
        if len(left) == 1:
            state.update(over=True, turn=None, bid=None, bids=[])
            return [*events, event("game_over", {"winner": left[0]})]
        starter = loser if state["cups"][loser] else self._next(state, loser)
        return events + self._new_round(state, starter, rng)

    # -- helpers ---------------------------------------------------------------------------------------
    def _new_round(self, state: LiarsDiceState, starter: int, rng: random.Random) -> list[dict]:
        """Everyone still in rolls; the loser of the last challenge (or the next seat in) bids first."""
        state["round"] += 1
        state.update(turn=starter, bid=None, bids=[])
        state["cups"] = [roll(len(c), rng) for c in state["cups"]]
        events = [event("round_started", {"round": state["round"], "starter": starter,
                                          "dice": [len(c) for c in state["cups"]]})]
        return events + [event("rolled", {"round": state["round"], "dice": list(c)}, to=[s])
                         for s, c in enumerate(state["cups"]) if c]

    @staticmethod
    def _next(state: LiarsDiceState, seat: int) -> int:
        n = state["players"]
        return next(s % n for s in range(seat + 1, seat + n + 1) if state["cups"][s % n])


GAME = LiarsDice()


def default_move(state: LiarsDiceState, seat: int) -> dict:
    """A seat out of time challenges (ending the round) or, first to bid, bids one die of the lowest face."""
    return safe_default(GAME.legal_moves(state, seat), prefer=("challenge",))


WIRE = Wire(
    events={"bid": schema_of(Bid, GAME.name), "challenged": schema_of(Challenge, GAME.name),
            "player_out": schema_of(Seat, GAME.name), "round_started": schema_of(RoundStarted, GAME.name),
            "rolled": schema_of(Rolled, GAME.name), "game_over": schema_of(Winner, GAME.name)},
    breakdown=schema_of(Breakdown, GAME.name),
    ranges={"bid": ("quantity",)},
)
