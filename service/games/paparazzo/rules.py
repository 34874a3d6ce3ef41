"""Paparazzo (Friedmann Friese, Wolfgang Panning): buy the photos whose scandal grows.

Rules: the book (Paparazzo, English translation); component data and rulings: service/games/paparazzo/rules.md.
Cards are ids 0..63, the celebrity of card ``i`` is ``CELEBRITIES[i // 8]`` (eight photos
each).  Money is in dollars.  Hidden: every hand (except what the right-hand neighbour showed
you), every cash pile but your own (Friese's variant: all cash is open) and the set-aside cards.

Decisions taken here where the book is silent (each a ruling in service/games/paparazzo/rules.md):

- Offers are whole thousands of dollars (the chips are $1,000 and $5,000) and at most
  ``MAX_OFFER`` ($100,000): a range needs an upper bound, and no photo can be worth that much.
  In the standard and Panning's game an offer above one's cash is allowed (the penalty's risk).
- Panning's raise is at least the last difference and never less than $1,000 (an offer equal
  to the minimum leaves a difference of 0).  Friese's raise is at least the minimum offer.
- Phase 3 asks every seat in turn, even one that cannot pay: skipping it would tell the table
  that its cash is short.  Only ``decline`` is legal for it.
- After a $5,000 penalty the same mediator selects again (Phase 1); selling to Stunk instead is
  not allowed then.  The mediator may select the same photo again.
- Phase 4 is resolved automatically when the buyer holds one card (no choice) or none (the slot
  stays empty).  The 3-player hotbed is automatic for a hand of 3 cards or fewer.
- The bank never runs out: it is a ledger that starts at ``BANK_FLOAT`` and can go negative.
  At the reckoning the bank pays photo values and bonuses into cash and takes the penalties, so
  a player's cash after the reckoning is that hand's worth (it may be negative).
- Three-hand game: the removed set (3-4 players) stays out for all three hands; a ruined
  celebrity may be ruined again.  If the cards left cannot fill the hands, they are dealt round
  by round as far as they go, then up to three market photos; a hand whose end condition holds
  right after the deal is scored at once.  The ex-celebrity variant is a one-hand game: it
  cannot be combined with ``three_hands``; its four celebrities lose their four highest ids.
- The winner is the highest worth (three-hand game: total over the hands); a tie shares the win.
  The winner of a hand (who starts the next) is its highest worth; a tie goes to the tied player
  first clockwise from that hand's starter (service/games/paparazzo/rules.md, "Three hands").
- Each hand's worth, cash included, is announced at its reckoning (the book records it); the
  bank's ledger is never shown before the end, as it would give away the sum of the hidden cash.
- Cash piles are hidden (book, Preparation) and no view keeps a per-seat ledger of payments
  (sums paid and received): with the start money known, such a ledger is the cash itself
  (service/games/paparazzo/rules.md, "Payments are public, their sums are not kept").  Counting the public payment
  events is each player's own affair.
- A Stunk sale names a celebrity (its photos are alike); Phase 4 and the 3-player hotbed name
  card ids, because which card leaves a hand decides what the left-hand neighbour still sees.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Mapping
from typing import Annotated, Any, Literal, NotRequired, TypedDict

from marshmallow import Schema, fields, validate

from ..base import BaseOptions, Game, IllegalMove, InvalidOptions, Outcome, Phase, event, safe_default, span
from ..shape import Column, Custom, Hidden, Own, Public, Rows, Shape

CELEBRITIES = ("A", "B", "C", "D", "E", "F", "G", "H")
NAMES = {
    "A": "the T.V. producer",
    "B": "the wife of a football player",
    "C": "the fashion designer",
    "D": "the tennis star",
    "E": "the master cook",
    "F": "the opera diva",
    "G": "the politician",
    "H": "the best selling author",
}
PHOTOS_EACH = 8
DECK_SIZE = len(CELEBRITIES) * PHOTOS_EACH  # 64
# service/games/paparazzo/rules.md, "Skandalchronik value": the value by photos face up (chosen table).
VALUES = (0, 1_000, 3_000, 6_000, 10_000, 15_000, 21_000, 28_000, 36_000)
START_CASH = 15_000
PENALTY = 5_000
BONUS_PER_PHOTO = 5_000
STEP = 1_000  # the minimum offer is photos x $1,000; standard raises are at least $1,000
MAX_OFFER = 100_000  # chosen upper bound of an offer (see the module docstring)
BANK_FLOAT = 1_000_000  # the bank is unlimited; a ledger start so conservation can be checked
MARKET_SLOTS = 3
EX_CELEBRITIES = 4  # one-hand ex-celebrity variant: four celebrities ...
EX_REMOVED = 4  # ... lose four photos each
LONG_GAME_HANDS = 3
SHOWN_WITH_THREE = 3
RAISES = ("standard", "panning", "friese")

#: what each phase allows (book: Phases 1-4; service/games/paparazzo/rules.md, "Hotbed of rumors": 3 players choose)
PHASES = {
    "rumors": Phase({"show": "_show"}, "Choose the 3 cards your left-hand neighbour will see."),
    "selection": Phase({"select": "_select", "sell_to_stunk": "_stunk"},
                       "The mediator selects a market photo or sells an owned photo to Stunk."),
    # service/games/paparazzo/rules.md, "The penalty": the mediator begins again with Phase 1, and no Stunk sale then
    "reselection": Phase({"select": "_select"}, "After a penalty the mediator selects a market photo again."),
    "offers": Phase({"offer": "_offer", "pass": "_pass"}, "Make an offer or pass."),
    "sale": Phase({"buy": "_buy", "decline": "_decline"}, "Buy the photo at the price or decline."),
    "new_photo": Phase({"place": "_place"}, "Place a card from your hand in the empty market slot."),
}


# A card as views and events show it; shared read-only dicts (views are serialized, never edited).
CARD_INFO = tuple({"id": c, "celebrity": CELEBRITIES[c >> 3]} for c in range(DECK_SIZE))


def card_info(card: int) -> dict:
    return CARD_INFO[card]


def cards_info(cards: list[int]) -> list[dict]:
    return [CARD_INFO[c] for c in cards]


def hand_size(players: int) -> int:
    """Book: 5 cards each, 6 with 3 players."""
    return 6 if players == 3 else 5


class Options(BaseOptions):
    raises = fields.String(
        load_default="standard",
        validate=validate.OneOf(RAISES),
        metadata={"description": "Phase 2 raises: 'standard' (+$1,000), 'panning' (at least the last "
                                 "difference) or 'friese' (at least the minimum offer, money open, "
                                 "only affordable offers)."},
    )
    three_hands = fields.Boolean(
        load_default=False,
        metadata={"description": "Play three hands: ruined careers, reshuffle, money reset, the "
                                 "last winner starts, totals over the three hands."},
    )
    ex_celebrity = fields.Boolean(
        load_default=False,
        metadata={"description": "One-hand ex-celebrity variant: four celebrities lose four photos each."},
    )
    ex_celebrities = fields.List(
        fields.String(validate=validate.OneOf(CELEBRITIES)),
        load_default=None,
        allow_none=True,
        validate=validate.Length(equal=EX_CELEBRITIES),
        metadata={"description": "With ex_celebrity: the four ex-celebrities (letters A-H); random "
                                 "from the match seed when omitted."},
    )
    removed_celebrity = fields.String(
        load_default=None,
        allow_none=True,
        validate=validate.OneOf(CELEBRITIES),
        metadata={"description": "3 or 4 players: the celebrity set removed from the game (A-H); "
                                 "random from the match seed when omitted."},
    )


class ShowMove(Schema):
    cards = fields.List(
        fields.Integer(validate=validate.Range(min=0, max=DECK_SIZE - 1)),
        required=True,
        validate=validate.Length(min=1, max=SHOWN_WITH_THREE),
        metadata={"description": "The card ids of your hand to show your left-hand neighbour (3 players)."},
    )


class SelectMove(Schema):
    slot = fields.Integer(required=True, validate=validate.Range(min=0, max=MARKET_SLOTS - 1),
                          metadata={"description": "Market slot (0-2) of the photo put up for sale."})


class StunkMove(Schema):
    celebrity = fields.String(required=True, validate=validate.OneOf(CELEBRITIES),
                              metadata={"description": "Sell one of your photos of this celebrity to Stunk."})


class OfferMove(Schema):
    amount = fields.Integer(required=True, validate=validate.Range(min=STEP, max=MAX_OFFER),
                            metadata={"description": "Offer in dollars (whole thousands)."})


class EmptyMove(Schema):
    """Pass in Phase 2, buy or decline in Phase 3."""


class PlaceMove(Schema):
    card = fields.Integer(required=True, validate=validate.Range(min=0, max=DECK_SIZE - 1),
                          metadata={"description": "Card id from your hand to put on the market."})


def face_up_counts(state: PaparazzoState) -> list[int]:
    """Photos face up per celebrity: market, owned and Stunk (what the markers must show)."""
    counts = [0] * len(CELEBRITIES)
    for card in state["market"]:
        if card is not None:
            counts[card >> 3] += 1
    for pile in state["owned"]:
        for card in pile:
            counts[card >> 3] += 1
    for card in state["stunk"]:
        counts[card >> 3] += 1
    return counts


def reckoning(owned: list[list[int]], markers: list[int], cash: list[int], penalties: list[int]) -> list[dict]:
    """Book: The Reckoning -- photo values, the exclusive bonus, the penalties.

    A celebrity's photos are exclusive when every face-up photo of it (market, owned, Stunk)
    belongs to one player; a market photo or a Stunk photo therefore voids the bonus.
    """
    out = []
    for seat, pile in enumerate(owned):
        counts = [0] * len(CELEBRITIES)
        for card in pile:
            counts[card >> 3] += 1
        photos = {CELEBRITIES[c]: k for c, k in enumerate(counts) if k}
        value = sum(k * VALUES[markers[c]] for c, k in enumerate(counts))
        exclusive = [CELEBRITIES[c] for c, k in enumerate(counts) if k and k == markers[c]]
        bonus = sum(BONUS_PER_PHOTO * counts[CELEBRITIES.index(x)] for x in exclusive)
        worth = cash[seat] + value + bonus - penalties[seat]
        out.append({"cash": cash[seat], "photos": photos, "photo_value": value, "exclusive": exclusive,
                    "bonus": bonus, "penalties": penalties[seat], "worth": worth})
    return out


def ids(cards: list[dict]) -> list[int]:
    """Card ids back from the card dicts of a view."""
    return [c["id"] for c in cards]


Celebrity = Literal["A", "B", "C", "D", "E", "F", "G", "H"]
ONLY_AT_END = "Only once the match is over."


class Card(TypedDict):
    """A photo as views and events show it: its id and its celebrity's letter."""

    id: int
    celebrity: Celebrity


class Seen(TypedDict):
    """The cards your right-hand neighbour showed you."""

    seat: int
    cards: list[Card]


class Offer(TypedDict):
    seat: int
    amount: Annotated[int | None, "null: passed."]


class LotState(TypedDict):
    """The photo up for sale, from its selection (Phase 1) to the new photo in its slot (Phase 4)."""

    slot: int
    card: int
    minimum: int
    high: int | None  # the high offer (None: none yet)
    high_seat: int | None
    prev: int  # the offer the high one raised (Panning's raise)
    turn: int  # the seat to speak in Phases 2 and 3
    offers: list[Offer]
    declined: list[int]  # Phase 3
    buyer: int | None  # Phase 4: the seat that places a new photo


class HandResult(TypedDict):
    """One seat's scoring of one hand (book: The Reckoning)."""

    cash: int
    photos: Annotated[dict[Celebrity, int], "Photos per celebrity (celebrities with none left out)."]
    photo_value: int
    exclusive: list[Celebrity]
    bonus: int
    penalties: int
    worth: int


class Lot(TypedDict):
    """The lot as a view shows it: its card, and the lowest offer now allowed (``present``)."""

    slot: int
    card: Card
    minimum: int
    next_minimum: int | None
    high: int | None
    high_seat: int | None
    prev: int
    turn: int
    offers: list[Offer]
    declined: list[int]
    buyer: int | None


class PaparazzoState(TypedDict):
    """A match: cards are ids 0..63, celebrities indices into ``CELEBRITIES``, money in dollars."""

    players: int
    raises: Literal["standard", "panning", "friese"]
    hand_count: int  # hands to play: 1, or 3
    hand_no: int
    removed: int | None  # the celebrity set out of the game (3 or 4 players)
    ex: list[bool]  # per celebrity: an ex-celebrity (the variant, or a ruined career)
    out: list[int]  # cards out of the game (ex-celebrities' photos)
    deck: list[int]  # the cards left undealt this hand
    hands: list[list[int]]
    shown: list[list[int]]  # per seat, the cards its left-hand neighbour has seen
    choice: list[list[int] | None] | None  # 3 players, the hotbed: each seat's cards to show (None: not yet)
    market: list[int | None]  # the market slots (None: empty)
    owned: list[list[int]]  # per seat, the photos bought, in order
    stunk: list[int]  # the photos sold to Stunk
    markers: list[int]  # per celebrity, its photos face up (market, owned, Stunk)
    cash: list[int]
    bank: int  # the bank's ledger (see BANK_FLOAT)
    penalties: list[int]  # this hand's, per seat
    starter: int
    mediator: int
    phase: Literal["rumors", "selection", "offers", "sale", "new_photo", "over"]
    retry: bool  # the mediator selects again after a penalty
    lot: LotState | None
    hand_results: list[list[HandResult]]  # per hand played, per seat
    totals: list[int]
    over: bool


def _show_lot(lot: LotState | None) -> dict | None:
    return None if lot is None else {**lot, "card": card_info(lot["card"])}


def _read_lot(shown: dict | None) -> dict | None:
    """The lot back from its view (without ``next_minimum``, which ``present`` derives)."""
    if shown is None:
        return None
    lot = {k: v for k, v in shown.items() if k != "next_minimum"}
    lot["card"] = shown["card"]["id"]
    lot["offers"] = [dict(o) for o in lot["offers"]]
    lot["declined"] = list(lot["declined"])
    return lot


def _show_removed(view: dict, state: PaparazzoState, seat: int | None) -> None:
    for c, record in enumerate(view["celebrities"]):
        record["in_play"] = c != state["removed"]


def _show_shown(view: dict, state: PaparazzoState, seat: int | None) -> None:
    """A seat sees what it shows (its hotbed choice while the others still choose) and what its right-hand
    neighbour showed it; everyone sees every seat's at the end."""
    shown, choice = state["shown"], state["choice"]
    if seat is None:
        view["shown"] = view["seen"] = None
    else:
        right = (seat - 1) % state["players"]
        view["shown"] = cards_info((choice[seat] if choice is not None else shown[seat]) or [])
        view["seen"] = {"seat": right, "cards": cards_info(shown[right])}
    if state["over"]:
        view["all_shown"] = [cards_info(h) for h in shown]


def _show_choice(view: dict, state: PaparazzoState, seat: int | None) -> None:
    choice = state["choice"]
    view["rumors_pending"] = None if choice is None else [c is None for c in choice]


def _show_cash(view: dict, state: PaparazzoState, seat: int | None) -> None:
    """Each seat sees its own cash; everyone sees all of it in Friese's variant and at the end."""
    open_money = state["over"] or state["raises"] == "friese"
    view["cash"] = [c if open_money or s == seat else None for s, c in enumerate(state["cash"])]


CELEBRITY_TABLE = Rows("celebrities", tuple({"celebrity": x, "name": NAMES[x]} for x in CELEBRITIES))
CARDS = Public(show=cards_info, read=ids, shown=list[Card])
#: hidden: every hand but the seat's own and what its right-hand neighbour showed it, others' cash (but in
#: Friese's variant), the deck and the bank's ledger; everything is revealed at the end
SHAPE = Shape(
    PaparazzoState,
    players=Public(),
    raises=Public(),
    hand_count=Public(),
    hand_no=Public(),
    removed=Custom(_show_removed,
                   lambda view, seat: next((c for c, x in enumerate(view["celebrities"]) if not x["in_play"]), None),
                   shows={"celebrities[].in_play": bool}),
    ex=Column(CELEBRITY_TABLE, "ex"),
    out=CARDS,
    deck=Hidden(count="deck_size", reveal="deck", show=cards_info, shown=list[Card]),
    hands=Own("hand", show=cards_info, read=ids, count="hand_sizes", reveal="hands", shown=list[Card]),
    shown=Custom(_show_shown, shows={"shown": list[Card] | None, "seen": Seen | None,
                                     "all_shown": NotRequired[Annotated[list[list[Card]], ONLY_AT_END]]}),
    choice=Custom(_show_choice, shows={"rumors_pending": list[bool] | None}),
    market=Public(show=lambda market: [None if c is None else card_info(c) for c in market],
                  read=lambda market: [None if c is None else c["id"] for c in market], shown=list[Card | None]),
    owned=Public(show=lambda piles: [cards_info(p) for p in piles], read=lambda piles: [ids(p) for p in piles],
                 shown=list[list[Card]]),
    stunk=CARDS,
    markers=Column(CELEBRITY_TABLE, "photos"),
    cash=Custom(_show_cash, lambda view, seat: list(view["cash"]), shows={"cash": list[int | None]}),
    bank=Hidden(reveal="bank"),
    penalties=Public(show=list, read=list),
    starter=Public(),
    mediator=Public(),
    phase=Public(),
    retry=Public(),
    lot=Public(show=_show_lot, read=_read_lot, shown=Lot | None),
    hand_results=Public(),
    totals=Public(show=list, read=list),
    over=Public(),
)


class Paparazzo(Game):
    name = "paparazzo"
    title = "Paparazzo"
    min_players = 3
    max_players = 5
    Options = Options
    moves = {
        "show": ShowMove,
        "select": SelectMove,
        "sell_to_stunk": StunkMove,
        "offer": OfferMove,
        "pass": EmptyMove,
        "buy": EmptyMove,
        "decline": EmptyMove,
        "place": PlaceMove,
    }
    variants = tuple(
        {"raises": raises, **mode}
        for mode in ({}, {"three_hands": True}, {"ex_celebrity": True})
        for raises in RAISES
    )
    phases = PHASES
    shape = SHAPE
    presents = {"to_act": list[int], "celebrities[].value": int, "celebrities[].sold_to_stunk": bool}

    def phase(self, state: PaparazzoState) -> str:
        return "reselection" if state["phase"] == "selection" and state["retry"] else state["phase"]

    # -- options and setup ------------------------------------------------------------------
    def load_options(self, players: int, options: Mapping[str, Any] | None) -> dict:
        loaded = super().load_options(players, options)
        removed = loaded["removed_celebrity"]
        if removed is not None and players > 4:
            raise InvalidOptions("removed_celebrity is for 3 or 4 players; with 5 all eight sets are used.")
        if loaded["three_hands"] and loaded["ex_celebrity"]:
            raise InvalidOptions("The ex-celebrity variant is a one-hand game; it cannot be combined with three_hands.")
        exs = loaded["ex_celebrities"]
        if exs is not None:
            if not loaded["ex_celebrity"]:
                raise InvalidOptions("ex_celebrities needs ex_celebrity.")
            if len(set(exs)) != EX_CELEBRITIES:
                raise InvalidOptions("ex_celebrities names four different celebrities.")
            if removed in exs:
                raise InvalidOptions("The removed celebrity cannot also be an ex-celebrity.")
        return loaded

    def setup(self, players: int, options: Mapping[str, Any], rng: random.Random) -> PaparazzoState:
        if not self.min_players <= players <= self.max_players:
            raise InvalidOptions(f"Paparazzo takes 3 to 5 players, not {players}.")
        removed = None
        if players < 5:  # book: Particulars for the 3 or 4 Player Game
            letter = options.get("removed_celebrity")
            removed = CELEBRITIES.index(letter) if letter else rng.randrange(len(CELEBRITIES))
        ex = [False] * len(CELEBRITIES)
        out: list[int] = []
        if options.get("ex_celebrity"):  # book: Variant for the Game In One Round
            names = options.get("ex_celebrities")
            if names:
                chosen = sorted(CELEBRITIES.index(x) for x in names)
            else:
                chosen = sorted(rng.sample([c for c in range(len(CELEBRITIES)) if c != removed], EX_CELEBRITIES))
            for c in chosen:
                ex[c] = True
                out.extend(range(c * PHOTOS_EACH + PHOTOS_EACH - EX_REMOVED, (c + 1) * PHOTOS_EACH))
        first = self.first_seat(players, options, rng)
        state = PaparazzoState(
            players=players,
            raises=options.get("raises") or "standard",
            hand_count=LONG_GAME_HANDS if options.get("three_hands") else 1,
            hand_no=0,
            removed=removed,
            ex=ex,
            out=out,
            deck=[],
            hands=[[] for _ in range(players)],
            shown=[[] for _ in range(players)],
            choice=None,
            market=[None] * MARKET_SLOTS,
            owned=[[] for _ in range(players)],
            stunk=[],
            markers=[0] * len(CELEBRITIES),
            cash=[START_CASH] * players,
            bank=BANK_FLOAT - START_CASH * players,
            penalties=[0] * players,
            starter=first,
            mediator=first,
            phase="selection",
            retry=False,
            lot=None,
            hand_results=[],
            totals=[0] * players,
            over=False,
        )
        self._start_hand(state, first, rng)
        return state

    def _start_hand(self, state: PaparazzoState, starter: int, rng: random.Random) -> list[dict]:
        """Book: Game Preparation -- shuffle, deal the hands, turn three photos, the hotbed."""
        n = state["players"]
        removed = state["removed"]
        out = set(state["out"])
        pool = [c for c in range(DECK_SIZE) if (c >> 3) != removed and c not in out]
        rng.shuffle(pool)
        take = min(len(pool), n * hand_size(n))
        hands = [sorted(pool[s:take:n]) for s in range(n)]
        market: list[int | None] = list(pool[take:take + MARKET_SLOTS])
        market += [None] * (MARKET_SLOTS - len(market))
        state.update({
            "hand_no": state["hand_no"] + 1,
            "deck": pool[take + MARKET_SLOTS:],
            "hands": hands,
            "market": market,
            "owned": [[] for _ in range(n)],
            "stunk": [],
            "starter": starter,
            "mediator": starter,
            "phase": "selection",
            "retry": False,
            "lot": None,
            "choice": None,
        })
        state["markers"] = face_up_counts(state)
        events = [event("hand_started", {
            "hand": state["hand_no"], "starter": starter, "market": [None if c is None else card_info(c)
                                                                      for c in market],
            "hand_sizes": [len(h) for h in hands],
        })]
        events += [event("dealt", {"seat": s, "cards": cards_info(h)}, [s]) for s, h in enumerate(hands)]
        if self._hand_finished(state):
            state["shown"] = [[] for _ in range(n)]
            return events + self._end_hand(state, rng)
        if n == 3:  # book: with 3 players each selects only 3 cards to show
            state["shown"] = [[] for _ in range(n)]
            state["choice"] = [list(h) if len(h) <= SHOWN_WITH_THREE else None for h in hands]
            if any(c is None for c in state["choice"]):
                state["phase"] = "rumors"
                return events
            return events + self._reveal_rumors(state)
        state["shown"] = [list(h) for h in hands]
        return events + self._rumor_events(state)

    def _rumor_events(self, state: PaparazzoState) -> list[dict]:
        n = state["players"]
        return [event("rumors", {"seat": s, "cards": cards_info(state["shown"][s])}, [(s + 1) % n])
                for s in range(n)]

    def _reveal_rumors(self, state: PaparazzoState) -> list[dict]:
        state["shown"] = [sorted(c) for c in state["choice"]]
        state["choice"] = None
        state["phase"] = "selection"
        return self._rumor_events(state)

    # -- whose decision ---------------------------------------------------------------------
    def to_act(self, state: PaparazzoState) -> list[int]:
        if state["over"]:
            return []
        phase = state["phase"]
        if phase == "selection":
            return [state["mediator"]]
        if phase == "rumors":
            return [s for s, c in enumerate(state["choice"]) if c is None]
        if phase == "new_photo":
            return [state["lot"]["buyer"]]
        return [state["lot"]["turn"]]

    def next_minimum(self, state: PaparazzoState) -> int:
        """The lowest offer the seat to speak may make (book: Phase 2 and its two variants)."""
        lot = state["lot"]
        high = lot["high"]
        if high is None:
            return lot["minimum"]
        raises = state["raises"]
        if raises == "panning":
            return high + max(STEP, high - lot["prev"])
        if raises == "friese":
            return high + max(STEP, lot["minimum"])
        return high + STEP

    def offer_cap(self, state: PaparazzoState, seat: int) -> int:
        """Friese: only affordable offers; otherwise the chosen table limit."""
        if state["raises"] == "friese":
            return min(MAX_OFFER, state["cash"][seat])
        return MAX_OFFER

    def legal_moves(self, state: PaparazzoState, seat: int) -> list[dict]:
        if seat not in self.to_act(state):
            return []
        phase = state["phase"]
        if phase == "selection":
            moves: list[dict] = [{"type": "select", "slot": i} for i, c in enumerate(state["market"])
                                 if c is not None]
            if not state["retry"]:
                moves += [{"type": "sell_to_stunk", "celebrity": CELEBRITIES[c]}
                          for c in self._stunk_candidates(state, seat)]
            return moves
        if phase == "offers":
            need = self.next_minimum(state)
            cap = self.offer_cap(state, seat)
            moves = []
            if need <= cap:
                moves.append({"type": "offer", "amount": span(need, need + (cap - need) // STEP * STEP, STEP)})
            moves.append({"type": "pass"})
            return moves
        if phase == "sale":
            if state["cash"][seat] >= state["lot"]["high"]:
                return [{"type": "buy"}, {"type": "decline"}]
            return [{"type": "decline"}]
        if phase == "new_photo":
            return [{"type": "place", "card": c} for c in state["hands"][seat]]
        hand = state["hands"][seat]
        return [{"type": "show", "cards": list(combo)}
                for combo in itertools.combinations(hand, SHOWN_WITH_THREE)]

    def _stunk_candidates(self, state: PaparazzoState, seat: int) -> list[int]:
        """Book: Stunk buys only one photo per celebrity, and only owned photos."""
        sold = {c >> 3 for c in state["stunk"]}
        return sorted({c >> 3 for c in state["owned"][seat]} - sold)

    # -- applying ---------------------------------------------------------------------------
    def _pass(self, state: PaparazzoState, seat: int, move: dict, rng: random.Random) -> list[dict]:
        state["lot"]["offers"].append({"seat": seat, "amount": None})
        return [event("passed", {"seat": seat})] + self._next_offerer(state, rng)

    def _show(self, state: PaparazzoState, seat: int, move: dict, rng: random.Random) -> list[dict]:
        cards = move["cards"]
        hand = state["hands"][seat]
        need = min(SHOWN_WITH_THREE, len(hand))
        if len(cards) != need or len(set(cards)) != need:
            raise IllegalMove(f"Show exactly {need} different cards of your hand.", "bad_choice")
        if any(c not in hand for c in cards):
            raise IllegalMove("You can only show cards from your own hand.", "not_in_hand")
        state["choice"][seat] = sorted(cards)
        events = [event("rumors_chosen", {"seat": seat})]
        if all(c is not None for c in state["choice"]):
            events += self._reveal_rumors(state)
        return events

    def _select(self, state: PaparazzoState, seat: int, move: dict, rng: random.Random) -> list[dict]:
        """Book: Phase 1, The Selection."""
        slot = move["slot"]
        card = state["market"][slot]
        if card is None:
            raise IllegalMove(f"Market slot {slot} is empty.", "empty_slot")
        minimum = state["markers"][card >> 3] * STEP
        n = state["players"]
        state["lot"] = {"slot": slot, "card": card, "minimum": minimum, "high": None, "high_seat": None,
                        "prev": minimum, "turn": (seat + 1) % n, "offers": [], "declined": [], "buyer": None}
        state["phase"] = "offers"
        state["retry"] = False
        return [event("selected", {"seat": seat, "slot": slot, "card": card_info(card), "minimum": minimum})]

    def _offer(self, state: PaparazzoState, seat: int, move: dict, rng: random.Random) -> list[dict]:
        amount = move["amount"]
        """Book: Phase 2 (and Panning's / Friese's raises)."""
        need = self.next_minimum(state)
        if amount < need:
            raise IllegalMove(f"The offer must be at least ${need:,}.", "offer_too_low")
        if amount % STEP:
            raise IllegalMove("Offers are made in whole thousands of dollars.", "bad_amount")
        if amount > MAX_OFFER:
            raise IllegalMove(f"Offers are capped at ${MAX_OFFER:,}.", "offer_too_high")
        if state["raises"] == "friese" and amount > state["cash"][seat]:
            raise IllegalMove("In Friese's variant you may only offer what you can pay.", "cannot_afford")
        lot = state["lot"]
        if lot["high"] is not None:
            lot["prev"] = lot["high"]
        lot["high"] = amount
        lot["high_seat"] = seat
        lot["offers"].append({"seat": seat, "amount": amount})
        return [event("offered", {"seat": seat, "amount": amount})] + self._next_offerer(state, rng)

    def _next_offerer(self, state: PaparazzoState, rng: random.Random) -> list[dict]:
        """Once around, from the mediator's left to the mediator's right."""
        lot = state["lot"]
        mediator = state["mediator"]
        lot["turn"] = (lot["turn"] + 1) % state["players"]
        if lot["turn"] != mediator:
            return []
        if lot["high"] is None:  # book: nobody offers, the mediator takes the photo for free
            card = lot["card"]
            state["owned"][mediator].append(card)
            state["market"][lot["slot"]] = None
            return [event("taken_free", {"seat": mediator, "card": card_info(card)})] + self._after_purchase(
                state, mediator, rng)
        state["phase"] = "sale"
        return [event("price_set", {"price": lot["high"], "seat": lot["high_seat"]})]

    def _buy(self, state: PaparazzoState, seat: int, move: dict, rng: random.Random) -> list[dict]:
        price = state["lot"]["high"]
        if state["cash"][seat] < price:
            raise IllegalMove(f"You need ${price:,} in cash to buy this photo.", "cannot_afford")
        return self._sell_to(state, seat, False, rng)

    def _decline(self, state: PaparazzoState, seat: int, move: dict, rng: random.Random) -> list[dict]:
        """Book: Phase 3 -- mediator first, then clockwise; if all pass, the high offerer must buy."""
        lot = state["lot"]
        lot["declined"].append(seat)
        events = [event("declined", {"seat": seat})]
        lot["turn"] = (lot["turn"] + 1) % state["players"]
        if lot["turn"] != state["mediator"]:
            return events
        bidder = lot["high_seat"]
        if state["cash"][bidder] >= lot["high"]:
            return events + self._sell_to(state, bidder, True, rng)
        state["penalties"][bidder] += PENALTY
        state["lot"] = None
        state["phase"] = "selection"
        state["retry"] = True
        return events + [event("penalty", {"seat": bidder, "amount": PENALTY,
                                           "total": state["penalties"][bidder]})]

    def _sell_to(self, state: PaparazzoState, buyer: int, forced: bool, rng: random.Random) -> list[dict]:
        lot = state["lot"]
        price = lot["high"]
        card = lot["card"]
        state["cash"][buyer] -= price
        state["bank"] += price
        state["owned"][buyer].append(card)
        state["market"][lot["slot"]] = None
        events = [event("bought", {"seat": buyer, "card": card_info(card), "price": price, "forced": forced})]
        mediator = state["mediator"]
        if buyer != mediator:  # book: the commission is half the price
            commission = price // 2
            state["cash"][mediator] += commission
            state["bank"] -= commission
            events.append(event("commission", {"seat": mediator, "amount": commission}))
        return events + self._after_purchase(state, buyer, rng)

    def _after_purchase(self, state: PaparazzoState, buyer: int, rng: random.Random) -> list[dict]:
        """Book: Phase 4 -- the buyer fills the empty slot from the hand, if any card is left."""
        hand = state["hands"][buyer]
        if len(hand) == 1:
            return self._do_place(state, buyer, hand[0], rng)
        if not hand:
            slot = state["lot"]["slot"]
            return [event("slot_left_empty", {"seat": buyer, "slot": slot})] + self._end_turn(state, rng)
        state["lot"]["buyer"] = buyer
        state["phase"] = "new_photo"
        return []

    def _place(self, state: PaparazzoState, seat: int, move: dict, rng: random.Random) -> list[dict]:
        card = move["card"]
        if card not in state["hands"][seat]:
            raise IllegalMove("That card is not in your hand.", "not_in_hand")
        return self._do_place(state, seat, card, rng)

    def _do_place(self, state: PaparazzoState, seat: int, card: int, rng: random.Random) -> list[dict]:
        slot = state["lot"]["slot"]
        state["hands"][seat].remove(card)
        if card in state["shown"][seat]:
            state["shown"][seat].remove(card)
        state["market"][slot] = card
        state["markers"][card >> 3] += 1
        c = card >> 3
        return [event("placed", {"seat": seat, "slot": slot, "card": card_info(card),
                                 "photos": state["markers"][c], "value": VALUES[state["markers"][c]]})
                ] + self._end_turn(state, rng)

    def _stunk(self, state: PaparazzoState, seat: int, move: dict, rng: random.Random) -> list[dict]:
        """Book: Sell a Photo to Stink Magazine -- owned photos only, one per celebrity."""
        letter = move["celebrity"]
        c = CELEBRITIES.index(letter)
        if any((x >> 3) == c for x in state["stunk"]):
            raise IllegalMove(f"Stunk already bought a photo of celebrity {letter}.", "stunk_has_one")
        pile = state["owned"][seat]
        cards = [x for x in pile if (x >> 3) == c]
        if not cards:
            raise IllegalMove(f"You own no photo of celebrity {letter}.", "no_such_photo")
        card = cards[-1]
        value = VALUES[state["markers"][c]]
        pile.remove(card)
        state["stunk"].append(card)
        state["cash"][seat] += value
        state["bank"] -= value
        return [event("sold_to_stunk", {"seat": seat, "card": card_info(card), "value": value})] + self._end_turn(
            state, rng)

    def _hand_finished(self, state: PaparazzoState) -> bool:
        """Book: Game End -- only one player (or none) has cards, or the market is empty."""
        holders = sum(1 for h in state["hands"] if h)
        return holders <= 1 or all(c is None for c in state["market"])

    def _end_turn(self, state: PaparazzoState, rng: random.Random) -> list[dict]:
        state["lot"] = None
        state["phase"] = "selection"
        state["retry"] = False
        if self._hand_finished(state):
            return self._end_hand(state, rng)
        state["mediator"] = (state["mediator"] + 1) % state["players"]
        return []

    def _end_hand(self, state: PaparazzoState, rng: random.Random) -> list[dict]:
        """Book: The Reckoning; over three hands also Ruining Careers, Start Money, Start Player."""
        n = state["players"]
        result = reckoning(state["owned"], state["markers"], state["cash"], state["penalties"])
        for s, r in enumerate(result):
            delta = r["worth"] - state["cash"][s]
            state["cash"][s] += delta
            state["bank"] -= delta
            state["totals"][s] += r["worth"]
        state["hand_results"].append(result)
        state["lot"] = None
        events = [event("hand_scored", {"hand": state["hand_no"], "result": result,
                                        "totals": list(state["totals"])})]
        if state["hand_no"] >= state["hand_count"]:
            state["over"] = True
            state["phase"] = "over"
            # everything is revealed at the end; the hands of an earlier hand are reshuffled unseen
            return events + [event("game_over", {"scores": list(state["totals"]),
                                                 "hands": [cards_info(h) for h in state["hands"]]})]
        markers = state["markers"]
        top = max(markers)
        if top > 0:
            ruined = [c for c, m in enumerate(markers) if m == top]
            gone = [x for x in state["market"] if x is not None and (x >> 3) in ruined]
            gone += [x for pile in state["owned"] for x in pile if (x >> 3) in ruined]
            gone += [x for x in state["stunk"] if (x >> 3) in ruined]
            for c in ruined:
                state["ex"][c] = True
            state["out"].extend(sorted(gone))
            events.append(event("careers_ruined", {"celebrities": [CELEBRITIES[c] for c in ruined],
                                                   "removed": cards_info(sorted(gone))}))
        for s in range(n):  # book: Start Money
            state["bank"] += state["cash"][s] - START_CASH
            state["cash"][s] = START_CASH
        state["penalties"] = [0] * n
        worth = [r["worth"] for r in result]
        best = max(worth)
        winner = next((state["starter"] + k) % n for k in range(n) if worth[(state["starter"] + k) % n] == best)
        return events + self._start_hand(state, winner, rng)

    # -- what a seat sees -------------------------------------------------------------------
    def present(self, view: dict, state: PaparazzoState, seat: int | None) -> None:
        """Whose decision, each celebrity's photo value and Stunk sale, and the lowest offer now allowed."""
        view["to_act"] = self.to_act(state)
        markers = state["markers"]
        stunk_celebs = {c >> 3 for c in state["stunk"]}
        for c, record in enumerate(view["celebrities"]):
            record["value"] = VALUES[markers[c]]
            record["sold_to_stunk"] = c in stunk_celebs
        if view["lot"] is not None:
            view["lot"]["next_minimum"] = self.next_minimum(state) if state["phase"] == "offers" else None

    def is_over(self, state: PaparazzoState) -> bool:
        return state["over"]

    def final_result(self, state: PaparazzoState) -> Outcome:
        n = state["players"]
        breakdown = [{"hands": [h[s] for h in state["hand_results"]], "total": state["totals"][s]} for s in range(n)]
        return Outcome.by_score(list(state["totals"]), breakdown)

    def deal(self, state: PaparazzoState, view: dict, seat: int, rng: random.Random) -> None:
        """Unseen cards re-dealt to the deck and the other hands, the hotbed's unseen choices re-drawn, others'
        hidden cash guessed: the starting capital less half the current value of the photos they own."""
        n = state["players"]
        hands, markers, owned = state["hands"], state["markers"], state["owned"]
        right = (seat - 1) % n
        seen = ids(view["seen"]["cards"]) if view["seen"] else []
        known = set(hands[seat]) | set(seen) | {c for c in state["market"] if c is not None} | set(state["stunk"])
        known |= set(state["out"]) | {c for p in owned for c in p}
        unknown = [c for c in range(DECK_SIZE) if (c >> 3) != state["removed"] and c not in known]
        rng.shuffle(unknown)
        for s in range(n):
            if s != seat:
                base = list(seen) if s == right else []
                k = view["hand_sizes"][s] - len(base)
                hands[s] = sorted(base + unknown[:k])
                del unknown[:k]
        shown: list[list[int]] = []
        for s in range(n):
            if s == seat:
                shown.append(ids(view["shown"] or []) if view["rumors_pending"] is None else [])
            elif s == right:
                shown.append(list(seen))
            elif n > 3:
                shown.append(list(hands[s]))
            else:
                shown.append(sorted(rng.sample(hands[s], min(SHOWN_WITH_THREE, len(hands[s])))))
        choice: list[list[int] | None] | None = None
        if view["rumors_pending"] is not None:
            choice = []
            for s, pending in enumerate(view["rumors_pending"]):
                if pending:
                    choice.append(None)
                elif s == seat:
                    choice.append(ids(view["shown"]))
                else:
                    choice.append(sorted(rng.sample(hands[s], min(SHOWN_WITH_THREE, len(hands[s])))))
            shown = [[] for _ in range(n)]
        cash = state["cash"]
        for s in range(n):
            if cash[s] is None:
                guess = START_CASH - sum(VALUES[markers[c >> 3]] for c in owned[s]) // 2
                cash[s] = max(0, guess // 500 * 500)
        state.update(deck=unknown, shown=shown, choice=choice, bank=BANK_FLOAT - sum(cash))


GAME = Paparazzo()


def default_move(state: PaparazzoState, seat: int) -> dict:
    """On a timeout or for a seat that is out: pass on offers and decline to buy (no money at risk);
    a selection, a new photo or the cards to show, which cannot be refused, take the first legal one."""
    return safe_default(GAME.legal_moves(state, seat), ("pass", "decline"))
