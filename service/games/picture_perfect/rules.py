"""Picture Perfect (Anthony Nouveau): learn the guests' wishes from their envelopes, then pose them.

Rules: the book (Picture Perfect, its Photography Guide); the floor mat, the guests, the
preference deck and the computed photo, and every ruling: service/games/picture_perfect/rules.md (data.py, photo.py).
This module runs the round flow, step 1's look, the auction variant's rescue, the final placement
and scoring; each exchange card is one unit in exchanges.py (its section of the book, its phases,
moves, resolution, view and sampling), and the state helpers every part shares are in table.py.

State: ``holder[guest]`` is the seat holding that guest's envelope (-1: the middle); an
envelope's three preference cards never move (book: Envelopes); ``vip_at[seat]`` is the
envelope holding that seat's VIP card.  ``known[seat][guest]`` is the number of VIP cards the
seat saw at its last look into that envelope: a seat's memory, and all it may be shown.
``card`` is the exchange card under way, ``pending`` the decision it (or the look or the
placement) waits for.  ``PicturePerfectState`` types every key and ``SHAPE`` declares how the seats
see it; ``present`` adds what a view derives for display, ``deal`` redraws in a sample what the seat
cannot see.

Decisions the books leave open (all stated in service/games/picture_perfect/rules.md; each exchange card's own
are in its unit's docstring):

- Round 1's step 1 happens at the deal: ``opening`` returns those first looks as private events,
  and each seat's view (``known``) keeps them, like every later look.
- Step 1 of a round is a simultaneous step for every seat holding an envelope: it looks into
  all of them (a private event) and answers ``ready`` or ``vip`` (adds its VIP card to one of
  them).  Seats whose VIP card is already used are asked too, so nobody learns who used theirs.
- Forced single choices that follow from public facts are made by the referee (keeping the
  only envelope in Dance, passing in an auction one cannot raise, ...).
- End of round, auction variant: a player with no envelopes and no decorations gets one
  decoration from every other player who has one; with 2 players the supply pays it.
- Final placement: guests go one at a time on empty guest squares and stay there; a
  decoration may go on each of the two table squares (it needs a decoration in hand); the VIP
  card may still be added; ``done`` ends it.  All of it is hidden until every seat is done.
  Placement before the final photo is a memory aid and is not modelled: the event log is each
  seat's memory.
- The Potted Palm has no face, and its face always counts as hidden (service/games/picture_perfect/rules.md,
  "The Potted Palm"): a guest in
  front of it and at least as tall hides its face, which fulfils "hide the face of Potted Palm",
  and "hide someone's face" when the Palm is the one behind (photo.py).
- Ties: most placed guests, then most envelopes held, then a shared win (book + service/games/picture_perfect/rules.md,
  "The winner").
"""

from __future__ import annotations

import random
from typing import Annotated, Any, Literal, NotRequired, TypedDict

from marshmallow import Schema, fields, validate

from ..base import BaseOptions, Game, IllegalMove, Outcome, Phase, State, event, safe_default
from ..shape import Custom, Hidden, Public, Shape
from . import schemas as S
from . import svg
from .data import (
    AUCTION,
    AUCTION_AUCTION_CARDS,
    AUCTION_NORMAL_CARDS,
    CARD_INFO,
    CARDS_PER_ENVELOPE,
    COLS,
    DECK_SIZE,
    DECORATIONS_EACH,
    DECORATIONS_PER_POINT,
    ENVELOPES,
    EXCHANGE_TITLE,
    GENDER,
    GUEST_INDEX,
    GUEST_NAME,
    GUEST_SQUARES,
    GUESTS,
    HEIGHT,
    HEIGHT_NAMES,
    NORMAL,
    ROUNDS,
    ROWS,
    SUPPLY_2P_AUCTION,
    TABLE_COLUMNS,
    TABLE_SQUARES,
    ExchangeCard,
    Guest,
    row_col,
    square,
)
from .exchanges import EXCHANGES, Exchange, ExchangePending
from .photo import score_photo
from .table import MIDDLE, contents, held, illegal, look, middle, openable, others_from, vip_count

MAX_AMOUNT = 1000


# -- options and moves ------------------------------------------------------------------------
class Options(BaseOptions):
    auctions = fields.Boolean(
        load_default=False,
        metadata={"description": "Auction variant: 3 normal and 3 auction exchange cards, decorations as money "
                                 "(+1 point per 2 decorations at the end)."},
    )


def _guest_field(what: str = "The guest whose envelope is meant.") -> fields.String:
    return fields.String(required=True, validate=validate.OneOf(GUESTS), metadata={"description": what})


class NoFields(Schema):
    """A move with no other field."""


class ReadyMove(NoFields):
    """Step 1: done looking into your envelopes."""


class DoneMove(NoFields):
    """Final placement: your photo is ready."""


class PassMove(NoFields):
    """Decline: no Rumors peek, no bid (or no raise), not paying a Fixed Price."""


class PayMove(NoFields):
    """Fixed Price auction: pay the price and look into the envelope."""


class SellMove(NoFields):
    """Shared auction, active player: sell the envelope to the highest bidder."""


class BuyMove(NoFields):
    """Shared auction, active player: buy the envelope yourself for the highest bid."""


class GuestMove(Schema):
    guest = _guest_field()


class VipMove(GuestMove):
    """Add your VIP card to an envelope you are looking into (once per game)."""


class KeepMove(GuestMove):
    """Dance: the one envelope you keep."""


class PeekMove(GuestMove):
    """Rumors: the envelope (middle or another player's) you look into."""


class TakeMove(GuestMove):
    """Choose Your Partner: take an envelope from the middle."""


class ReturnMove(GuestMove):
    """Choose Your Partner: return one of your envelopes to the middle."""


class StealMove(GuestMove):
    """Theft: the envelope you take from the player on your left."""


class DepositMove(GuestMove):
    """Shared auction: the envelope you put in the middle."""


class GiftMove(Schema):
    """Gifts: one envelope to one neighbour."""

    guest = _guest_field()
    to = fields.Integer(required=True, validate=validate.Range(min=0, max=5), metadata={"description": "A neighbour."})


class OfferMove(Schema):
    """Auction, active player: the envelope to auction (Fixed Price: and its price)."""

    guest = _guest_field()
    price = fields.Integer(validate=validate.Range(min=0, max=MAX_AMOUNT),
                           metadata={"description": "Fixed Price auction only: decorations to pay for a look."})


class BidMove(Schema):
    """Auction: a bid in decorations (Open auction: a raise)."""

    amount = fields.Integer(required=True, validate=validate.Range(min=0, max=MAX_AMOUNT))


class PlaceMove(Schema):
    """Final placement: stand a guest on an empty guest square."""

    guest = _guest_field("The guest figure to place.")
    row = fields.Integer(required=True, validate=validate.Range(min=1, max=ROWS),
                         metadata={"description": "1 is nearest the camera."})
    col = fields.Integer(required=True, validate=validate.Range(min=1, max=COLS),
                         metadata={"description": "1 is left as the camera sees it."})


class DecorateMove(Schema):
    """Final placement: put decorations on a table square (row 2, column 2 or 3)."""

    column = fields.Integer(required=True, validate=validate.OneOf(TABLE_COLUMNS))


MOVES: dict[str, type[Schema]] = {
    "ready": ReadyMove, "vip": VipMove, "keep": KeepMove, "gift": GiftMove, "peek": PeekMove,
    "pass": PassMove, "take": TakeMove, "return": ReturnMove, "steal": StealMove, "deposit": DepositMove,
    "offer": OfferMove, "bid": BidMove, "pay": PayMove, "sell": SellMove, "buy": BuyMove,
    "place": PlaceMove, "decorate": DecorateMove, "done": DoneMove,
}

GUEST_LIST = tuple({"id": g, "name": GUEST_NAME[g], "gender": GENDER[i], "height": HEIGHT_NAMES[HEIGHT[i]],
                    "face": g != "potted_palm"} for i, g in enumerate(GUESTS))
MAT = {"rows": ROWS, "cols": COLS, "table": [list(t) for t in TABLE_SQUARES],
       "guest_squares": [list(row_col(s)) for s in GUEST_SQUARES],
       "note": "row 1 is nearest the camera; columns 1..4 left to right as the camera sees them"}


#: the place moves, built once and shared read-only (the list is the longest this game returns)
PLACE_MOVES = {g: {s: {"type": "place", "guest": g, "row": row_col(s)[0], "col": row_col(s)[1]}
                   for s in GUEST_SQUARES} for g in GUESTS}


def deal_envelopes(players: int, rng: random.Random) -> tuple[dict[str, list[int]], dict[str, int]]:
    """Setup 1-3: three random cards per envelope; envelopes to players and the middle by the table."""
    deck = list(range(DECK_SIZE))
    rng.shuffle(deck)
    cards = {g: sorted(deck[i * CARDS_PER_ENVELOPE:(i + 1) * CARDS_PER_ENVELOPE]) for i, g in enumerate(GUESTS)}
    order = list(GUESTS)
    rng.shuffle(order)
    each, _ = ENVELOPES[players]
    holder = {g: MIDDLE for g in GUESTS}
    for s in range(players):
        for g in order[s * each:(s + 1) * each]:
            holder[g] = s
    return cards, holder


# -- the state and how the seats see it --------------------------------------------------------------
class Placement(TypedDict):
    guests: dict[Guest, list[int]]  # each guest placed: [row, col]
    decor: list[int]  # the decorated table columns
    done: bool


class StepPending(TypedDict):
    """``pending`` outside the exchange cards: step 1, the final placement, the end (``none``: between
    the end of an exchange and the next step)."""

    kind: Literal["look", "placement", "over", "none"]
    waiting: list[int]


class PicturePerfectState(TypedDict):
    players: int
    auctions: bool  # the auction variant
    round: int
    first: int  # the first round's starting player
    starter: int  # this round's starting player
    deck: list[ExchangeCard]  # the exchange cards to come, the next last
    card: ExchangeCard | None  # the exchange card under way
    used: list[ExchangeCard]  # the exchange cards done, in order
    cards: dict[Guest, list[int]]  # each envelope's preference cards (ids into CARD_INFO), sorted
    holder: dict[Guest, int]  # the seat holding each envelope (MIDDLE: the middle)
    fresh: list[Guest]  # the envelopes won in this round's auctions
    vip_at: list[Guest | None]  # per seat, the envelope holding its VIP card
    known: list[dict[Guest, int]]  # per seat, the VIP cards it saw at its last look into each envelope
    revealed: dict[Guest, int]  # the envelopes opened for all (Revelations), with their VIP cards then
    decorations: list[int]
    supply: int  # the supply's decorations (2 players, auction variant)
    phase: Literal["look", "exchange", "placement", "over"]
    pending: StepPending | ExchangePending  # the decision under way (an exchange card's: its unit's)
    placements: list[Placement]  # per seat, its final placement so far


def _show_envelopes(view: dict, state: PicturePerfectState, seat: int | None) -> None:
    """An envelope's cards show in ``known`` to the seats that looked into it, in ``revealed`` to all, and
    every envelope with its VIP cards at the end."""
    if state["phase"] == "over":
        view["envelopes"] = [contents(state, g) for g in GUESTS]


def _show_held(view: dict, state: PicturePerfectState, seat: int | None) -> None:
    view["held"] = [held(state, s) for s in range(state["players"])]


def _read_holder(view: dict, seat: int) -> dict[str, int]:
    holder = {g: MIDDLE for g in GUESTS}
    for s, gs in enumerate(view["held"]):
        for g in gs:
            holder[g] = s
    return holder


def _show_vip(view: dict, state: PicturePerfectState, seat: int | None) -> None:
    """A seat sees where its own VIP card is; everyone sees every seat's at the end."""
    if seat is not None:
        view["vip"] = state["vip_at"][seat]
    if state["phase"] == "over":
        view["vip_at"] = list(state["vip_at"])


def _read_vip(view: dict, seat: int) -> list[str | None]:
    """The seat's own VIP card (all at the end); ``deal`` places the others'."""
    if "vip_at" in view:
        return list(view["vip_at"])
    vip_at: list[str | None] = [None] * view["players"]
    vip_at[seat] = view["vip"]
    return vip_at


def _show_known(view: dict, state: PicturePerfectState, seat: int | None) -> None:
    """A seat's memory: each envelope it looked into, its cards and the VIP cards it saw; all at the end."""
    if seat is not None:
        cards = state["cards"]
        view["known"] = {g: {"cards": [CARD_INFO[c] for c in cards[g]], "vips": k}
                         for g, k in sorted(state["known"][seat].items(), key=lambda kv: GUEST_INDEX[kv[0]])}
    if state["phase"] == "over":
        view["known_by"] = [dict(k) for k in state["known"]]


def _read_known(view: dict, seat: int) -> list[dict[str, int]]:
    """The seat's memory; the others' are taken as what everyone saw (the revealed envelopes; a sample's
    ``deal`` recalls the rest)."""
    if "known_by" in view:
        return [dict(k) for k in view["known_by"]]
    known = [{g: k["vips"] for g, k in view["revealed"].items()} for _ in range(view["players"])]
    known[seat] = {g: info["vips"] for g, info in view["known"].items()}
    return known


def _show_revealed(view: dict, state: PicturePerfectState, seat: int | None) -> None:
    cards = state["cards"]
    view["revealed"] = {g: {"cards": [CARD_INFO[c] for c in cards[g]], "vips": k} for g, k in state["revealed"].items()}


def _show_pending(view: dict, state: PicturePerfectState, seat: int | None) -> None:
    """Who is to act, and the exchange card's part as the seat may see it (its unit's ``view``)."""
    p = state["pending"]
    out: dict[str, Any] = {"kind": p["kind"], "waiting": list(p["waiting"])}
    card = state["card"]
    if card is not None:
        out.update(GAME.exchanges[card].view(state, seat))
    view["pending"] = out


def _show_placements(view: dict, state: PicturePerfectState, seat: int | None) -> None:
    """Everyone sees who is done placing; a seat its own placement; everyone every photo at the end."""
    placements = state["placements"]
    view["placement_done"] = [p["done"] for p in placements]
    if seat is not None:
        pl = placements[seat]
        view["placement"] = {"guests": dict(pl["guests"]), "decor": list(pl["decor"]), "done": pl["done"]}
    if state["phase"] == "over":
        view["placements"] = [{"guests": dict(p["guests"]), "decor": list(p["decor"])} for p in placements]


def _read_placements(view: dict, seat: int) -> list[Placement]:
    """The seat's placement (all at the end); the others' are taken as nothing placed yet."""
    placements: list[Placement] = [{"guests": {}, "decor": [], "done": done} for done in view["placement_done"]]
    if "placements" in view:
        for s, p in enumerate(view["placements"]):
            placements[s].update(guests=dict(p["guests"]), decor=list(p["decor"]))
    elif "placement" in view:
        pl = view["placement"]
        placements[seat] = {"guests": dict(pl["guests"]), "decor": list(pl["decor"]), "done": pl["done"]}
    return placements


#: hidden: the envelopes' cards a seat has not looked into, the other seats' VIP cards, memories and
#: placements, the exchange cards to come, and others' sealed choices (each card's unit says which); the
#: envelopes' cards show joined with the VIP cards seen (``known``, ``revealed``), hence the Customs
ONLY_AT_END = "Only once the match is over."
SHAPE = Shape(
    PicturePerfectState,
    players=Public(),
    auctions=Public(),
    round=Public(),
    first=Public(),
    starter=Public(),
    deck=Hidden(count="exchange_cards_left"),
    card=Public("exchange"),
    used=Public("past_exchanges", show=list, read=list),
    cards=Custom(_show_envelopes,
                 shows={"envelopes": NotRequired[Annotated[list[S.PicturePerfectEnvelope], ONLY_AT_END]]}),
    holder=Custom(_show_held, _read_holder, shows={"held": list[list[Guest]]}),
    fresh=Public(show=list, read=list),
    vip_at=Custom(_show_vip, _read_vip, shows={"vip": NotRequired[Guest | None],
                                               "vip_at": NotRequired[Annotated[list[Guest], ONLY_AT_END]]}),
    known=Custom(_show_known, _read_known, shows={
        "known": NotRequired[Annotated[dict[Guest, S.PicturePerfectEnvelopeContents],
                                       "The envelopes this seat has looked into."]],
        "known_by": NotRequired[Annotated[list[dict[Guest, int]], ONLY_AT_END]]}),
    revealed=Custom(_show_revealed, lambda view, seat: {g: k["vips"] for g, k in view["revealed"].items()},
                    shows={"revealed": dict[Guest, S.PicturePerfectEnvelopeContents]}),
    decorations=Public(show=list, read=list),
    supply=Public(),
    phase=Public(),
    pending=Custom(_show_pending, shows={"pending": S.PicturePerfectPending}),
    placements=Custom(_show_placements, _read_placements, shows={
        "placement_done": list[bool],
        "placement": NotRequired[Annotated[S.PicturePerfectOwnPlacement, "Your photo while you place."]],
        "placements": NotRequired[Annotated[list[S.PicturePerfectPlacement], ONLY_AT_END]]}),
)


class PicturePerfect(Game):
    name = "picture_perfect"
    title = "Picture Perfect"
    min_players = 2
    max_players = 6
    Options = Options
    moves = MOVES
    variants = ({}, {"auctions": True})
    shape = SHAPE
    presents = {"rounds": int, "to_act": list[int], "exchange_title": str | None, "middle": list[Guest],
                "guests": list[S.PicturePerfectGuest], "mat": S.PicturePerfectMat,
                "result": NotRequired[Annotated[S.PicturePerfectViewResult, ONLY_AT_END]]}

    def __init__(self) -> None:
        #: each exchange card's unit (exchanges.py) by card; a unit hands the round back by ``_end_exchange``
        self.exchanges: dict[str, Exchange] = {unit.card: unit(self._end_exchange) for unit in EXCHANGES}
        #: each phase (named by ``phase``) and its moves: step 1, each exchange card's (from its unit), the placement
        self.phases = {
            "look": Phase({"ready": "_ready", "vip": "_vip_at_look"},
                          "Step 1: look into your envelopes, then answer 'ready' (or add your VIP card with 'vip')."),
            **{name: phase for unit in self.exchanges.values() for name, phase in unit.bound_phases().items()},
            "placement": Phase({"place": "_place", "decorate": "_decorate", "vip": "_vip_at_placement",
                                "done": "_done"},
                               "Final placement: place a guest, decorate the table, add your VIP card, or 'done'."),
        }

    # -- setup -------------------------------------------------------------------------------
    def setup(self, players: int, options: dict[str, Any], rng: random.Random) -> State:
        return self.opening(players, options, rng)[0]

    def opening(self, players: int, options: dict[str, Any], rng: random.Random) -> tuple[State, list[dict]]:
        """The deal, and round 1's step 1: each seat's look into its envelopes (private events)."""
        auctions = bool(options.get("auctions"))
        cards, holder = deal_envelopes(players, rng)
        if auctions:  # Auction setup 5: 3 random normal and 3 random auction cards, shuffled
            deck = rng.sample(NORMAL, AUCTION_NORMAL_CARDS) + rng.sample(AUCTION, AUCTION_AUCTION_CARDS)
        else:
            deck = list(NORMAL)
        rng.shuffle(deck)
        first = self.first_seat(players, options, rng)
        state: State = {
            "players": players,
            "auctions": auctions,
            "round": 0,
            "first": first,
            "starter": first,
            "deck": deck,
            "card": None,
            "used": [],
            "cards": cards,
            "holder": holder,
            "fresh": [],
            "vip_at": [None] * players,
            "known": [{} for _ in range(players)],
            "revealed": {},
            "decorations": [DECORATIONS_EACH] * players,
            "supply": SUPPLY_2P_AUCTION if auctions and players == 2 else 0,
            "phase": "look",
            "pending": {"kind": "look", "waiting": []},
            "placements": [{"guests": {}, "decor": [], "done": False} for _ in range(players)],
        }
        return state, self._start_round(state, rng)

    # -- round flow ----------------------------------------------------------------------------
    def _start_round(self, state: State, rng: random.Random) -> list[dict]:
        """Round flow, step 1: everyone looks into the envelopes they hold."""
        state["round"] += 1
        state["fresh"] = []
        state["phase"] = "look"
        n = state["players"]
        events = [event("round_started", {"round": state["round"], "starter": state["starter"]})]
        waiting = []
        for s in range(n):
            h = held(state, s)
            if h:
                events.append(look(state, s, h, "step_1"))
                waiting.append(s)
        state["pending"] = {"kind": "look", "waiting": waiting}
        if not waiting:
            events += self._reveal_card(state, rng)
        return events

    def _reveal_card(self, state: State, rng: random.Random) -> list[dict]:
        """Round flow, step 2: the starting player reveals the top exchange card."""
        card = state["deck"].pop()
        state["card"] = card
        state["phase"] = "exchange"
        events = [event("exchange_revealed", {"round": state["round"], "card": card, "title": EXCHANGE_TITLE[card]})]
        return events + self.exchanges[card].begin(state, rng)

    def _end_exchange(self, state: State, rng: random.Random) -> list[dict]:
        """Round flow, step 4: discard the card, pass the starting player to the left."""
        n = state["players"]
        state["used"].append(state["card"])
        state["card"] = None
        state["pending"] = {"kind": "none", "waiting": []}
        events: list[dict] = []
        if state["auctions"]:
            events += self._rescue(state)
        events.append(event("round_ended", {"round": state["round"], "starter": state["starter"]}))
        state["starter"] = (state["starter"] + 1) % n
        if state["round"] >= ROUNDS:
            return events + self._start_placement(state)
        return events + self._start_round(state, rng)

    def _rescue(self, state: State) -> list[dict]:
        """Book, Auctions: a player with no envelopes and no decorations gets 1 from every other player.

        service/games/picture_perfect/rules.md, "The rescue": with 2 players the supply pays it (the opponent only
        if the supply is empty).
        """
        n = state["players"]
        dec = state["decorations"]
        events = []
        for s in range(n):
            if held(state, s) or dec[s] > 0:
                continue
            givers: list[Any] = []
            if n == 2 and state["supply"] > 0:
                state["supply"] -= 1
                dec[s] += 1
                givers = ["supply"]
            else:
                for o in others_from(s, n):
                    if dec[o] > 0:
                        dec[o] -= 1
                        dec[s] += 1
                        givers.append(o)
            events.append(event("rescued", {"seat": s, "from": givers}))
        return events

    # -- step 1: look and maybe add the VIP card -------------------------------------------------
    def _legal_look(self, state: State, seat: int) -> list[dict]:
        moves = [{"type": "ready"}]
        if state["vip_at"][seat] is None:
            moves += [{"type": "vip", "guest": g} for g in openable(state, seat)]
        return moves

    def _check_vip(self, state: State, seat: int, guest: str, allowed: list[str]) -> None:
        if state["vip_at"][seat] is not None:
            raise illegal("Your VIP card is already in an envelope; it goes in once per game.", "vip_used")
        if guest not in allowed:
            raise illegal(f"You are not looking into the {GUEST_NAME[guest]}'s envelope now.", "not_looking")

    def _add_vip(self, state: State, seat: int, guest: str) -> dict:
        state["vip_at"][seat] = guest
        state["known"][seat][guest] = vip_count(state, guest)
        return event("vip_added", {"guest": guest, "vips": vip_count(state, guest)}, [seat])

    def _ready(self, state: State, seat: int, move: dict, rng: random.Random) -> list[dict]:
        pending = state["pending"]
        pending["waiting"].remove(seat)
        events = [event("ready", {"seat": seat})]
        if not pending["waiting"]:
            events += self._reveal_card(state, rng)
        return events

    def _vip_at_look(self, state: State, seat: int, move: dict, rng: random.Random) -> list[dict]:
        """Add the VIP card to an envelope the seat is looking into, and be ready."""
        self._check_vip(state, seat, move["guest"], openable(state, seat))
        return [self._add_vip(state, seat, move["guest"])] + self._ready(state, seat, move, rng)

    # -- the final placement and photo ------------------------------------------------------------
    def _start_placement(self, state: State) -> list[dict]:
        """Book, Photos: look into every envelope once more, then place the guests."""
        state["phase"] = "placement"
        state["fresh"] = []
        n = state["players"]
        events = [event("final_placement", {"round": state["round"]})]
        for s in range(n):
            h = held(state, s)
            if h:
                events.append(look(state, s, h, "final"))
        state["pending"] = {"kind": "placement", "waiting": list(range(n))}
        return events

    def _legal_placement(self, state: State, seat: int) -> list[dict]:
        pl = state["placements"][seat]
        placed = pl["guests"]
        taken = {square(r, c) for r, c in placed.values()}
        free = [s for s in GUEST_SQUARES if s not in taken]
        moves = [PLACE_MOVES[g][s] for g in GUESTS if g not in placed for s in free]
        if state["decorations"][seat] > len(pl["decor"]):
            moves += [{"type": "decorate", "column": c} for c in TABLE_COLUMNS if c not in pl["decor"]]
        if state["vip_at"][seat] is None:
            moves += [{"type": "vip", "guest": g} for g in held(state, seat)]
        return moves + [{"type": "done"}]

    def _place(self, state: State, seat: int, move: dict, rng: random.Random) -> list[dict]:
        pl = state["placements"][seat]
        g, r, c = move["guest"], move["row"], move["col"]
        if g in pl["guests"]:
            raise illegal(f"The {GUEST_NAME[g]} is already placed.", "already_placed")
        if (r, c) in TABLE_SQUARES:
            raise illegal("That square is the table; guests stand on the guest spaces.", "table_square")
        if any(rc == [r, c] for rc in pl["guests"].values()):
            raise illegal("Only one guest may stand on each guest space.", "square_taken")
        pl["guests"][g] = [r, c]
        return [event("your_choice", {"place": g, "row": r, "col": c}, [seat])]

    def _decorate(self, state: State, seat: int, move: dict, rng: random.Random) -> list[dict]:
        pl = state["placements"][seat]
        c = move["column"]
        if c in pl["decor"]:
            raise illegal("That table square is already decorated.", "already_decorated")
        if state["decorations"][seat] <= len(pl["decor"]):
            raise illegal("You have no decoration left to put on the table.", "no_decorations")
        pl["decor"].append(c)
        pl["decor"].sort()
        return [event("your_choice", {"decorate": c}, [seat])]

    def _vip_at_placement(self, state: State, seat: int, move: dict, rng: random.Random) -> list[dict]:
        self._check_vip(state, seat, move["guest"], held(state, seat))
        return [self._add_vip(state, seat, move["guest"])]

    def _done(self, state: State, seat: int, move: dict, rng: random.Random) -> list[dict]:
        state["placements"][seat]["done"] = True
        state["pending"]["waiting"].remove(seat)
        events = [event("placement_done", {"seat": seat})]
        if not state["pending"]["waiting"]:
            events += self._take_photos(state)
        return events

    def _take_photos(self, state: State) -> list[dict]:
        state["phase"] = "over"
        state["pending"] = {"kind": "over", "waiting": []}
        result = self.final_result(state)
        return [event("photos", {"placements": [{"guests": p["guests"], "decor": p["decor"]}
                                                for p in state["placements"]],
                                 "envelopes": [contents(state, g) for g in GUESTS]}),
                event("game_over", {"scores": result.scores, "winners": result.winners})]

    # -- the contract ----------------------------------------------------------------------------
    def to_act(self, state: State) -> list[int]:
        return list(state["pending"]["waiting"])

    def _exchange(self, state: State) -> Exchange | None:
        """The unit of the exchange card under way (None: step 1, the placement or the end)."""
        card = state["card"]
        return None if card is None else self.exchanges[card]

    def legal_moves(self, state: State, seat: int) -> list[dict]:
        p = state["pending"]
        if seat not in p["waiting"]:
            return []
        unit = self._exchange(state)
        if unit is not None:
            return unit.legal(state, seat)
        return self._legal_look(state, seat) if p["kind"] == "look" else self._legal_placement(state, seat)

    def phase(self, state: State) -> str:
        """The pending decision: step 1, the placement, or the exchange card's phase (named by its unit)."""
        unit = self._exchange(state)
        return state["pending"]["kind"] if unit is None else unit.phase(state)

    def is_over(self, state: State) -> bool:
        return state["phase"] == "over"

    # -- scoring ---------------------------------------------------------------------------------
    def score_seat(self, state: State, seat: int) -> dict:
        """One seat's photo scored: every placed guest by its envelope, once more per VIP card."""
        vips = {g: vip_count(state, g) for g in GUESTS}
        photo = score_photo(state["placements"][seat], state["cards"], vips)
        dec = state["decorations"][seat]
        deco_points = dec // DECORATIONS_PER_POINT if state["auctions"] else 0
        photo.update(decorations=dec, decoration_points=deco_points, envelopes=len(held(state, seat)),
                     decor=list(state["placements"][seat]["decor"]),
                     total=photo["guest_points"] + deco_points)
        return photo

    def final_result(self, state: State) -> Outcome:
        """Book, Scoring (cont.): most points; ties by most placed guests, then most envelopes."""
        n = state["players"]
        breakdown = [self.score_seat(state, s) for s in range(n)]
        scores = [b["total"] for b in breakdown]
        keys = [(b["total"], b["placed"], b["envelopes"]) for b in breakdown]
        ranking = [[s for s in range(n) if keys[s] == k] for k in sorted(set(keys), reverse=True)]
        return Outcome(scores, ranking, list(ranking[0]), breakdown)

    def photo_svg(self, state: State, seat: int) -> str:
        """That seat's final photo as a standalone SVG (svg.py); only once the match is over (the photo is the
        last act): IllegalMove 'not_over' before the end."""
        if state.get("phase") != "over":
            raise IllegalMove("The photos are taken at the end of the match.", "not_over")
        if not isinstance(seat, int) or not 0 <= seat < state["players"]:
            raise IllegalMove(f"There is no seat {seat} in this match.", "bad_seat")
        return svg.photo_svg(state, seat, self.score_seat(state, seat))

    # -- what a seat sees --------------------------------------------------------------------------
    def present(self, view: dict, state: State, seat: int | None) -> None:
        """Whose decision, the rounds, the exchange card's title, the middle, the guests and the mat, and
        the result at the end."""
        card = state["card"]
        view["rounds"] = ROUNDS
        view["to_act"] = self.to_act(state)
        view["exchange_title"] = EXCHANGE_TITLE.get(card) if card else None
        view["middle"] = middle(state)
        view["guests"] = GUEST_LIST
        view["mat"] = MAT
        if state["phase"] == "over":
            view["result"] = self.final_result(state).as_dict()

    def deal(self, state: State, view: dict, seat: int, rng: random.Random) -> None:
        """Unseen envelopes refilled from the unseen cards, other seats' VIP cards put where the seat saw
        VIP cards it cannot account for, other seats' memories recalled (``_recall``), the exchange cards to
        come drawn, and other seats' sealed choices drawn at random among legal ones (the card's unit)."""
        n = state["players"]
        if state["phase"] == "over":
            state["cards"] = {e["guest"]: [c["id"] for c in e["cards"]] for e in view["envelopes"]}
        else:
            seen = {g: [c["id"] for c in info["cards"]] for g, info in view["known"].items()}
            pool = [c for c in range(DECK_SIZE) if c not in {x for cs in seen.values() for x in cs}]
            rng.shuffle(pool)
            cards = {}
            for g in GUESTS:
                if g in seen:
                    cards[g] = list(seen[g])
                else:
                    cards[g] = sorted(pool[:CARDS_PER_ENVELOPE])
                    del pool[:CARDS_PER_ENVELOPE]
            state["cards"] = cards
            vip_at = state["vip_at"]
            free = [s for s in range(n) if s != seat]
            rng.shuffle(free)
            for g, info in view["known"].items():
                extra = info["vips"] - (1 if view["vip"] == g else 0)
                while extra > 0 and free:
                    vip_at[free.pop()] = g
                    extra -= 1
            self._recall(state, view, seat, rng)
        card = state["card"]
        spent = state["used"] + ([card] if card else [])
        if state["auctions"]:
            normal_left = AUCTION_NORMAL_CARDS - sum(1 for c in spent if c in NORMAL)
            auction_left = AUCTION_AUCTION_CARDS - sum(1 for c in spent if c in AUCTION)
            deck = (rng.sample([c for c in NORMAL if c not in spent], normal_left)
                    + rng.sample([c for c in AUCTION if c not in spent], auction_left))
        else:
            deck = [c for c in NORMAL if c not in spent]
        rng.shuffle(deck)
        state["deck"] = deck
        pv = view["pending"]
        p = state["pending"] = {"kind": pv["kind"], "waiting": list(pv["waiting"])}
        unit = self._exchange(state)
        if unit is not None:
            unit.sample(state, p, pv, seat, rng)
        state["pending"] = p

    @staticmethod
    def _recall(state: State, view: dict, seat: int, rng: random.Random) -> None:
        """Other seats' memories, which no view shows: each looked into the envelopes it holds (step 1 of
        this round, or the final look; not one won in this round's auctions before the final look: Guide,
        AUCTIONS, IMPORTANT), into its VIP card's envelope, into the revealed ones, and into as many other
        envelopes as ``seat`` has looked into beyond its own and the revealed (Rumors, Fixed Price, envelopes
        held in earlier rounds), drawn at random; each holds the VIP cards now in it.  A memory left as only
        the revealed envelopes made every seat look sure to win its own deals (the evaluation counts them)."""
        revealed = set(state["revealed"])
        beyond = len(set(view["known"]) - set(held(state, seat)) - revealed)
        fresh = set(state["fresh"])
        for s in range(state["players"]):
            if s == seat:
                continue
            seen = {g for g in held(state, s) if g not in fresh} | revealed
            vip = state["vip_at"][s]
            looked = [] if vip is None or vip in seen else [vip]
            rest = [g for g in GUESTS if g not in seen and g not in looked]
            looked += rng.sample(rest, max(0, min(beyond - len(looked), len(rest))))
            seen.update(looked)
            state["known"][s] = {g: vip_count(state, g) for g in GUESTS if g in seen}


GAME = PicturePerfect()


def default_move(state: State, seat: int) -> dict:
    """On a timeout or for a seat that is out: be ready, pass (rumors, auctions), be done placing;
    a decision that cannot be refused (keep, steal, gift, take, return, deposit, offer) takes the
    first legal one at its lowest price."""
    return safe_default(GAME.legal_moves(state, seat), ("ready", "pass", "done", "sell"))
