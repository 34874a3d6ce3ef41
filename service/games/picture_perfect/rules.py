"""Picture Perfect (Anthony Nouveau): learn the guests' wishes from their envelopes, then pose them.

Rules: shared/rules/picture_perfect_photography_guide.txt; the floor mat, the guests, the
preference deck and the computed photo: RULINGS.md, "Picture Perfect" (data.py, photo.py).

State: ``holder[guest]`` is the seat holding that guest's envelope (-1: the middle); an
envelope's three preference cards never move (book: Envelopes); ``vip_at[seat]`` is the
envelope holding that seat's VIP card.  ``known[seat][guest]`` is the number of VIP cards the
seat saw at its last look into that envelope: a seat's memory, and all it may be shown.

Decisions the books leave open (RULINGS.md settles the rest):

- Round 1's step 1 happens at the deal: ``opening`` returns those first looks as private events,
  and each seat's view (``known``) keeps them, like every later look.
- Step 1 of a round is a simultaneous step for every seat holding an envelope: it looks into
  all of them (a private event) and answers ``ready`` or ``vip`` (adds its VIP card to one of
  them).  Seats whose VIP card is already used are asked too, so nobody learns who used theirs.
- Exchange cards that say "each player" (Dance, Gifts, Rumors, Theft) run once per round;
  only auction cards give every player a turn as the active player (book: Auctions).
- Rumors is optional ("may"): ``pass`` is allowed; which envelope each player looked into is
  public once all have chosen (the contents go only to the looker).  Choose Your Partner takes
  min(2, middle).  Revelations opens min(2, middle) envelopes and shows their VIP cards too.
- The Shared auction's deposits are one more simultaneous choice, revealed together.
- Forced single choices that follow from public facts are made by the referee: keeping the
  only envelope in Dance, giving the only envelope with 2 players, stealing the only envelope,
  taking the only envelopes from the middle, passing in an auction one cannot raise.
- Auctions: bids are whole decorations, never above what the bidder holds; in Single Round,
  Shared and Open auctions a bid must beat the highest bid (at least 1) and a pass is final
  except in the Open auction (RULINGS.md).  A sealed bid of 0 never wins; if all bid 0 the
  envelope stays.  Unfair Secret: every bidder but the winner pays half (rounded down) of their
  last bid, nobody pays after a second tie.  Shared: an envelope nobody bids on stays in the
  middle; an active player who cannot pay the high bid must sell.  Fixed Price: the price is
  1 up to the largest number of decorations another player holds; with nobody able to pay,
  the turn is skipped.  An active player with nothing to offer (or an empty middle in Shared)
  is skipped.  Decoration counts are public (they stand on the table).
- End of round, auction variant: a player with no envelopes and no decorations gets one
  decoration from every other player who has one; with 2 players the supply pays it.
- Final placement: guests go one at a time on empty guest squares and stay there; a
  decoration may go on each of the two table squares (it needs a decoration in hand); the VIP
  card may still be added; ``done`` ends it.  All of it is hidden until every seat is done.
- "Hide someone's face" (the card about itself) needs a guest with a face: the Potted Palm
  cannot be the one hidden.  Placement before the final photo is a memory aid and is not
  modelled: the event log is each seat's memory.
- Ties: most placed guests, then most envelopes held, then a shared win (book + RULINGS.md).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from marshmallow import Schema, fields, validate

from ..base import BaseOptions, Game, IllegalMove, Outcome, Phase, State, event, safe_default, span
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
    row_col,
    square,
)
from .photo import score_photo

MIDDLE = -1
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


def _bad(message: str, reason: str = "illegal_move") -> IllegalMove:
    return IllegalMove(message, reason)


# -- small state helpers ------------------------------------------------------------------------
def held(state: State, seat: int) -> list[str]:
    holder = state["holder"]
    return [g for g in GUESTS if holder[g] == seat]


def middle(state: State) -> list[str]:
    holder = state["holder"]
    return [g for g in GUESTS if holder[g] == MIDDLE]


def openable(state: State, seat: int) -> list[str]:
    """Held envelopes not won in this round's auctions (book: Auctions, IMPORTANT)."""
    fresh = state["fresh"]
    return [g for g in held(state, seat) if g not in fresh]


def vip_count(state: State, guest: str) -> int:
    return sum(1 for a in state["vip_at"] if a == guest)


def contents(state: State, guest: str) -> dict:
    return {"guest": guest, "cards": [CARD_INFO[c] for c in state["cards"][guest]], "vips": vip_count(state, guest)}


def others_from(seat: int, n: int) -> list[int]:
    """The other players clockwise, starting on the seat's left."""
    return [(seat + i) % n for i in range(1, n)]


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


class PicturePerfect(Game):
    name = "picture_perfect"
    title = "Picture Perfect"
    min_players = 2
    max_players = 6
    Options = Options
    moves = MOVES
    variants = ({}, {"auctions": True})
    #: each pending decision (``phase``) and its moves; the book's section for each
    phases = {
        "look": Phase({"ready": "_apply_look", "vip": "_apply_look"},
                      "Step 1: look into your envelopes, then answer 'ready' (or add your VIP card with 'vip')."),
        "dance": Phase({"keep": "_apply_dance"}, "Dance: name the one envelope you keep."),
        "gifts": Phase({"gift": "_apply_gifts"}, "Gifts: give one of your envelopes to a neighbour."),
        "rumors": Phase({"peek": "_apply_rumors", "pass": "_apply_rumors"},
                        "Rumors: look into one envelope in the middle or of another player, or pass."),
        "partner_take": Phase({"take": "_apply_partner"},
                              "Choose Your Partner: take your envelopes from the middle first."),
        "partner_return": Phase({"return": "_apply_partner"},
                                "Choose Your Partner: return as many of your envelopes to the middle."),
        "theft": Phase({"steal": "_apply_theft"}, "Theft: take one envelope from the player on your left."),
        "auction_deposit": Phase({"deposit": "_apply_auction"},
                                 "Shared auction: put one of your envelopes in the middle first."),
        "auction_offer": Phase({"offer": "_apply_offer"}, "You are the active player: choose the envelope to auction."),
        "auction_settle": Phase({"sell": "_apply_auction", "buy": "_apply_auction"},
                                "Shared auction: sell the envelope to the highest bidder or buy it yourself."),
        "auction_fixed_price": Phase({"pay": "_apply_auction", "pass": "_apply_auction"},
                                     "Fixed Price auction: pay the price to look, or pass."),
        "auction_secret": Phase({"bid": "_apply_auction"},
                                "Secret auction: bid any number of your decorations (0 is allowed)."),
        "auction_bid": Phase({"bid": "_apply_auction", "pass": "_apply_auction"},
                             "Auction: bid more than the highest bid, or pass."),
        "placement": Phase({"place": "_apply_placement", "decorate": "_apply_placement", "vip": "_apply_placement",
                            "done": "_apply_placement"},
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
    def _look(self, state: State, seat: int, guests: list[str], reason: str) -> dict:
        """Every look into an envelope is a private event to that seat (RULINGS.md: Looking)."""
        for g in guests:
            state["known"][seat][g] = vip_count(state, g)
        return event("looked", {"reason": reason, "envelopes": [contents(state, g) for g in guests]}, [seat])

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
                events.append(self._look(state, s, h, "step_1"))
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
        begin: Callable[[State, random.Random], list[dict]] = {
            "dance": self._begin_dance, "gifts": self._begin_gifts, "revelations": self._revelations,
            "rumors": self._begin_rumors, "partner": self._begin_partner, "theft": self._begin_theft,
        }.get(card, self._begin_auction)
        return events + begin(state, rng)

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

        RULINGS.md: with 2 players the supply pays it (the opponent only if the supply is empty).
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
            raise _bad("Your VIP card is already in an envelope; it goes in once per game.", "vip_used")
        if guest not in allowed:
            raise _bad(f"You are not looking into the {GUEST_NAME[guest]}'s envelope now.", "not_looking")

    def _add_vip(self, state: State, seat: int, guest: str) -> dict:
        state["vip_at"][seat] = guest
        state["known"][seat][guest] = vip_count(state, guest)
        return event("vip_added", {"guest": guest, "vips": vip_count(state, guest)}, [seat])

    def _apply_look(self, state: State, seat: int, move: dict, rng: random.Random) -> list[dict]:
        kind = move["type"]
        events = []
        if kind == "vip":
            self._check_vip(state, seat, move["guest"], openable(state, seat))
            events.append(self._add_vip(state, seat, move["guest"]))
        pending = state["pending"]
        pending["waiting"].remove(seat)
        events.append(event("ready", {"seat": seat}))
        if not pending["waiting"]:
            events += self._reveal_card(state, rng)
        return events

    @staticmethod
    def _seal(state: State, seat: int, card: str, key: str, choice: str | None) -> tuple[list[dict], bool]:
        """Record a secret choice made by all at once: the table learns that the seat chose, only the
        seat what.  Returns the events and whether every seat has now chosen."""
        pending = state["pending"]
        pending[key][seat] = choice
        pending["waiting"].remove(seat)
        events = [event("chose", {"seat": seat, "card": card}), event("your_choice", {key: choice}, [seat])]
        return events, not pending["waiting"]

    # -- Dance -------------------------------------------------------------------------------------
    def _begin_dance(self, state: State, rng: random.Random) -> list[dict]:
        n = state["players"]
        keep: list[str | None] = [None] * n
        waiting = []
        for s in range(n):
            h = held(state, s)
            if len(h) == 1:
                keep[s] = h[0]
            elif len(h) > 1:
                waiting.append(s)
        state["pending"] = {"kind": "dance", "waiting": waiting, "keep": keep}
        return [] if waiting else self._resolve_dance(state, rng)

    def _apply_dance(self, state: State, seat: int, move: dict, rng: random.Random) -> list[dict]:
        if state["holder"][move["guest"]] != seat:
            raise _bad("You can only keep an envelope you hold.", "not_yours")
        events, all_in = self._seal(state, seat, "dance", "keep", move["guest"])
        return events + self._resolve_dance(state, rng) if all_in else events

    def _resolve_dance(self, state: State, rng: random.Random) -> list[dict]:
        """Book, Dance: all but the kept envelope to the middle, shuffle, deal back as many as put in."""
        n = state["players"]
        keep = state["pending"]["keep"]
        put = [[g for g in held(state, s) if g != keep[s]] for s in range(n)]
        for gs in put:
            for g in gs:
                state["holder"][g] = MIDDLE
        pool = middle(state)
        rng.shuffle(pool)
        dealt: list[list[str]] = []
        for s in range(n):
            got = pool[:len(put[s])]
            del pool[:len(put[s])]
            for g in got:
                state["holder"][g] = s
            dealt.append(sorted(got, key=GUEST_INDEX.get))
        events = [event("danced", {"kept": keep, "put_in": [len(p) for p in put], "dealt": dealt,
                                   "middle": middle(state)})]
        return events + self._end_exchange(state, rng)

    # -- Gifts -------------------------------------------------------------------------------------
    def _gifts_owed(self, state: State, seat: int) -> int:
        h = len(held(state, seat))
        return min(h, 1) if state["players"] == 2 else min(h, 2)

    def _legal_gifts(self, state: State, seat: int) -> list[dict]:
        n = state["players"]
        given = state["pending"]["gifts"][seat]
        if len(given) >= self._gifts_owed(state, seat):
            return []
        h = held(state, seat)
        done_g = {x["guest"] for x in given}
        done_to = {x["to"] for x in given}
        targets = [(seat + 1) % n] if n == 2 else [(seat + 1) % n, (seat - 1) % n]
        return [{"type": "gift", "guest": g, "to": t} for t in targets if t not in done_to
                for g in h if g not in done_g]

    def _begin_gifts(self, state: State, rng: random.Random) -> list[dict]:
        n = state["players"]
        gifts: list[list[dict]] = [[] for _ in range(n)]
        waiting = []
        for s in range(n):
            h = held(state, s)
            if n == 2 and len(h) == 1:  # forced: the only envelope goes to the opponent
                gifts[s].append({"guest": h[0], "to": 1 - s})
            elif h:
                waiting.append(s)
        state["pending"] = {"kind": "gifts", "waiting": waiting, "gifts": gifts}
        return [] if waiting else self._resolve_gifts(state, rng)

    def _apply_gifts(self, state: State, seat: int, move: dict, rng: random.Random) -> list[dict]:
        if not any(m["guest"] == move["guest"] and m["to"] == move["to"] for m in self._legal_gifts(state, seat)):
            if state["holder"][move["guest"]] != seat:
                raise _bad("You can only give an envelope you hold.", "not_yours")
            raise _bad("Give one envelope to each neighbour (with one envelope: to either neighbour; "
                       "with 2 players: one to your opponent), each envelope once.", "bad_gift")
        pending = state["pending"]
        pending["gifts"][seat].append({"guest": move["guest"], "to": move["to"]})
        events = [event("your_choice", {"gift": move["guest"], "to": move["to"]}, [seat])]
        if len(pending["gifts"][seat]) >= self._gifts_owed(state, seat):
            pending["waiting"].remove(seat)
            events.append(event("chose", {"seat": seat, "card": "gifts"}))
        if not pending["waiting"]:
            events += self._resolve_gifts(state, rng)
        return events

    def _resolve_gifts(self, state: State, rng: random.Random) -> list[dict]:
        transfers = []
        for s, gifts in enumerate(state["pending"]["gifts"]):
            for x in gifts:
                transfers.append({"from": s, "to": x["to"], "guest": x["guest"]})
        for t in transfers:
            state["holder"][t["guest"]] = t["to"]
        return [event("gifts_given", {"transfers": transfers})] + self._end_exchange(state, rng)

    # -- Revelations ---------------------------------------------------------------------------------
    def _revelations(self, state: State, rng: random.Random) -> list[dict]:
        """Book, Revelations: shuffle the middle, open 2 at random for everyone."""
        pool = middle(state)
        rng.shuffle(pool)
        shown = sorted(pool[:2], key=GUEST_INDEX.get)
        for g in shown:
            count = vip_count(state, g)
            state["revealed"][g] = count
            for known in state["known"]:
                known[g] = count
        state["pending"] = {"kind": "revelations", "waiting": []}
        events = [event("revealed", {"envelopes": [contents(state, g) for g in shown]})]
        return events + self._end_exchange(state, rng)

    # -- Rumors --------------------------------------------------------------------------------------
    def _begin_rumors(self, state: State, rng: random.Random) -> list[dict]:
        n = state["players"]
        state["pending"] = {"kind": "rumors", "waiting": list(range(n)), "peek": [None] * n}
        return []

    def _legal_rumors(self, state: State, seat: int) -> list[dict]:
        holder = state["holder"]
        return [{"type": "peek", "guest": g} for g in GUESTS if holder[g] != seat] + [{"type": "pass"}]

    def _apply_rumors(self, state: State, seat: int, move: dict, rng: random.Random) -> list[dict]:
        if move["type"] == "peek" and state["holder"][move["guest"]] == seat:
            raise _bad("Rumors: choose an envelope in the middle or of another player.", "own_envelope")
        events, all_in = self._seal(state, seat, "rumors", "peek", move.get("guest"))
        if all_in:
            peeks = state["pending"]["peek"]
            events.append(event("rumors", {"peeks": peeks}))
            for s, g in enumerate(peeks):
                if g is not None:
                    events.append(self._look(state, s, [g], "rumors"))
            events += self._end_exchange(state, rng)
        return events

    # -- Choose Your Partner -------------------------------------------------------------------------
    def _begin_partner(self, state: State, rng: random.Random) -> list[dict]:
        n = state["players"]
        order = [(state["starter"] + i) % n for i in range(n)]
        state["pending"] = {"kind": "partner", "waiting": [], "order": order, "seat": None,
                            "count": 0, "taken": [], "returned": []}
        return self._partner_next(state, rng)

    def _partner_next(self, state: State, rng: random.Random) -> list[dict]:
        """Seat by seat from the starter; a forced take or return is made by the referee."""
        p = state["pending"]
        events: list[dict] = []
        while True:
            seat = p["seat"]
            if seat is not None:
                if len(p["taken"]) < p["count"]:
                    mid = middle(state)
                    if len(mid) == p["count"] - len(p["taken"]):
                        for g in mid:
                            events += self._partner_take(state, seat, g)
                        continue
                    p["waiting"] = [seat]
                    return events
                if len(p["returned"]) < p["count"]:
                    h = held(state, seat)
                    if len(h) == p["count"] - len(p["returned"]):
                        for g in h:
                            events += self._partner_return(state, seat, g)
                        continue
                    p["waiting"] = [seat]
                    return events
            if not p["order"]:
                p["waiting"] = []
                return events + self._end_exchange(state, rng)
            p["seat"] = p["order"].pop(0)
            p["count"] = min(2, len(middle(state)))
            p["taken"], p["returned"] = [], []

    def _partner_take(self, state: State, seat: int, guest: str) -> list[dict]:
        state["holder"][guest] = seat
        state["pending"]["taken"].append(guest)
        return [event("took", {"seat": seat, "guest": guest})]

    def _partner_return(self, state: State, seat: int, guest: str) -> list[dict]:
        state["holder"][guest] = MIDDLE
        state["pending"]["returned"].append(guest)
        return [event("returned", {"seat": seat, "guest": guest})]

    def _legal_partner(self, state: State, seat: int) -> list[dict]:
        p = state["pending"]
        if len(p["taken"]) < p["count"]:
            return [{"type": "take", "guest": g} for g in middle(state)]
        return [{"type": "return", "guest": g} for g in held(state, seat)]

    def _apply_partner(self, state: State, seat: int, move: dict, rng: random.Random) -> list[dict]:
        p = state["pending"]
        guest = move.get("guest")
        if len(p["taken"]) < p["count"]:
            if state["holder"][guest] != MIDDLE:
                raise _bad("That envelope is not in the middle.", "not_in_middle")
            events = self._partner_take(state, seat, guest)
        else:
            if state["holder"][guest] != seat:
                raise _bad("You can only return an envelope you hold.", "not_yours")
            events = self._partner_return(state, seat, guest)
        return events + self._partner_next(state, rng)

    # -- Theft ---------------------------------------------------------------------------------------
    def _begin_theft(self, state: State, rng: random.Random) -> list[dict]:
        n = state["players"]
        steal: list[str | None] = [None] * n
        waiting = []
        for s in range(n):
            victim = held(state, (s + 1) % n)
            if len(victim) == 1:
                steal[s] = victim[0]
            elif victim:
                waiting.append(s)
        state["pending"] = {"kind": "theft", "waiting": waiting, "steal": steal}
        return [] if waiting else self._resolve_theft(state, rng)

    def _apply_theft(self, state: State, seat: int, move: dict, rng: random.Random) -> list[dict]:
        if state["holder"][move["guest"]] != (seat + 1) % state["players"]:
            raise _bad("Theft: take an envelope of the player on your left.", "not_left_neighbour")
        events, all_in = self._seal(state, seat, "theft", "steal", move["guest"])
        return events + self._resolve_theft(state, rng) if all_in else events

    def _resolve_theft(self, state: State, rng: random.Random) -> list[dict]:
        n = state["players"]
        transfers = []
        for s, g in enumerate(state["pending"]["steal"]):
            if g is not None:
                transfers.append({"from": (s + 1) % n, "to": s, "guest": g})
        for t in transfers:
            state["holder"][t["guest"]] = t["to"]
        return [event("stolen", {"transfers": transfers})] + self._end_exchange(state, rng)

    # -- auctions ------------------------------------------------------------------------------------
    def _begin_auction(self, state: State, rng: random.Random) -> list[dict]:
        n = state["players"]
        card = state["card"]
        p: dict[str, Any] = {"kind": "auction", "card": card, "waiting": [],
                             "queue": [(state["starter"] + i) % n for i in range(n)]}
        self._reset_turn(p, None, n)
        state["pending"] = p
        if card == "shared":  # Shared: first everyone puts one envelope in the middle
            deposits: list[str | None] = [None] * n
            waiting = []
            for s in range(n):
                h = openable(state, s)
                if len(h) == 1:
                    deposits[s] = h[0]
                elif h:
                    waiting.append(s)
            p.update(step="deposit", waiting=waiting, deposits=deposits)
            if not waiting:
                return self._resolve_deposits(state, rng)
            return []
        return self._next_active(state, rng)

    @staticmethod
    def _reset_turn(p: dict, active: int | None, n: int) -> None:
        p.update(active=active, step="offer", guest=None, price=None, high=0, high_bidder=None,
                 passed=[], order=[], bids=[None] * n, floor=[0] * n, bidders=[], tie=False,
                 answers=[None] * n, next=None)

    def _resolve_deposits(self, state: State, rng: random.Random) -> list[dict]:
        p = state["pending"]
        for g in p["deposits"]:
            if g is not None:
                state["holder"][g] = MIDDLE
        events = [event("deposited", {"deposits": p["deposits"], "middle": middle(state)})]
        return events + self._next_active(state, rng)

    def _offerable(self, state: State, seat: int) -> list[str]:
        if state["card"] == "shared":
            return middle(state)
        if state["card"] == "fixed_price" and self._max_price(state, seat) < 1:
            return []
        return openable(state, seat)

    def _max_price(self, state: State, seat: int) -> int:
        dec = state["decorations"]
        return max(dec[o] for o in others_from(seat, state["players"]))

    def _next_active(self, state: State, rng: random.Random) -> list[dict]:
        """The next active player runs an auction; one with nothing to offer is skipped."""
        p = state["pending"]
        n = state["players"]
        events = []
        while p["queue"]:
            active = p["queue"].pop(0)
            self._reset_turn(p, active, n)
            if self._offerable(state, active):
                p["waiting"] = [active]
                return events
            events.append(event("auction_skipped", {"active": active, "card": state["card"]}))
        p["waiting"] = []
        return events + self._end_exchange(state, rng)

    def _legal_auction(self, state: State, seat: int) -> list[dict]:
        p = state["pending"]
        dec = state["decorations"]
        card, step = p["card"], p["step"]
        if step == "deposit":
            return [{"type": "deposit", "guest": g} for g in openable(state, seat)]
        if step == "offer":
            if card == "fixed_price":
                top = self._max_price(state, seat)
                return [{"type": "offer", "guest": g, "price": span(1, top)} for g in self._offerable(state, seat)]
            return [{"type": "offer", "guest": g} for g in self._offerable(state, seat)]
        if step == "settle":
            return [{"type": "sell"}] + ([{"type": "buy"}] if dec[seat] >= p["high"] else [])
        if card == "fixed_price":
            return [{"type": "pay"}, {"type": "pass"}]
        if card in ("secret", "unfair_secret"):
            return [{"type": "bid", "amount": span(p["floor"][seat], dec[seat])}]
        return [{"type": "bid", "amount": span(p["high"] + 1, dec[seat])}, {"type": "pass"}]

    def _apply_auction(self, state: State, seat: int, move: dict, rng: random.Random) -> list[dict]:
        p = state["pending"]
        step, kind = p["step"], move["type"]
        if step == "deposit":
            if move["guest"] not in openable(state, seat):
                raise _bad("Put one of your own envelopes (not one won this round) in the middle.", "not_yours")
            p["deposits"][seat] = move["guest"]
            p["waiting"].remove(seat)
            events = [event("chose", {"seat": seat, "card": "shared"}),
                      event("your_choice", {"deposit": move["guest"]}, [seat])]
            if not p["waiting"]:
                events += self._resolve_deposits(state, rng)
            return events
        if step == "settle":
            if kind == "buy" and state["decorations"][seat] < p["high"]:
                raise _bad("You do not have enough decorations to buy it; you must sell.", "cannot_afford")
            return self._settle_shared(state, kind == "buy", rng)
        card = p["card"]
        if card == "fixed_price":
            p["answers"][seat] = kind == "pay"
            p["waiting"].remove(seat)
            events = [event("chose", {"seat": seat, "card": card}),
                      event("your_choice", {"pay": kind == "pay"}, [seat])]
            if not p["waiting"]:
                events += self._resolve_fixed(state, rng)
            return events
        if card in ("secret", "unfair_secret"):
            amount = move["amount"]
            if not p["floor"][seat] <= amount <= state["decorations"][seat]:
                raise _bad(f"Bid between {p['floor'][seat]} and your {state['decorations'][seat]} decorations.",
                           "bad_amount")
            p["bids"][seat] = amount
            p["waiting"].remove(seat)
            events = [event("chose", {"seat": seat, "card": card}),
                      event("your_choice", {"bid": amount}, [seat])]
            if not p["waiting"]:
                events += self._resolve_secret(state, rng)
            return events
        if kind == "bid":
            amount = move["amount"]
            if not p["high"] < amount <= state["decorations"][seat]:
                raise _bad(f"Bid more than {p['high']} and at most your {state['decorations'][seat]} decorations.",
                           "bad_amount")
            p["high"], p["high_bidder"] = amount, seat
            events = [event("bid", {"seat": seat, "amount": amount})]
            if card == "open":
                p["passed"] = []
        else:
            p["passed"].append(seat)
            events = [event("passed", {"seat": seat})]
        if card == "single":
            p["order"].pop(0)
            return events + self._single_next(state, rng)
        if card == "shared":
            p["next"] = (seat + 1) % state["players"]
            return events + self._shared_next(state, rng)
        return events + self._open_next(state, rng)

    def _apply_offer(self, state: State, seat: int, move: dict, rng: random.Random) -> list[dict]:
        p = state["pending"]
        card = p["card"]
        guest = move["guest"]
        if guest not in self._offerable(state, seat):
            where = "in the middle" if card == "shared" else "of yours that you did not win this round"
            raise _bad(f"Offer an envelope {where}.", "not_offerable")
        price = move.get("price")
        if card == "fixed_price":
            top = self._max_price(state, seat)
            if price is None or not 1 <= price <= top:
                raise _bad(f"Name a price from 1 to {top} decorations.", "bad_price")
        elif price is not None:
            raise _bad("Only the Fixed Price auction has a price.", "no_price")
        n = state["players"]
        p["guest"], p["price"] = guest, price
        events = [event("auction_offered", {"active": seat, "card": card, "guest": guest, "price": price})]
        others = others_from(seat, n)
        dec = state["decorations"]
        if card == "single":
            p["step"], p["order"] = "bid", others
            return events + self._single_next(state, rng)
        if card == "shared":
            p["step"], p["next"] = "bid", (seat + 1) % n
            return events + self._shared_next(state, rng)
        if card == "open":
            p["step"] = "bid"
            return events + self._open_next(state, rng)
        if card == "fixed_price":
            p["step"] = "bid"
            p["waiting"] = [o for o in others if dec[o] >= price]
            for o in others:
                p["answers"][o] = None if dec[o] >= price else False
            return events + ([] if p["waiting"] else self._resolve_fixed(state, rng))
        p["step"], p["bidders"] = "bid", others  # secret / unfair secret
        return events + self._sealed_round(state, rng)

    def _sealed_round(self, state: State, rng: random.Random) -> list[dict]:
        """Collect sealed bids; a bidder who can only bid the minimum bids it automatically."""
        p = state["pending"]
        dec = state["decorations"]
        p["waiting"] = []
        for b in p["bidders"]:
            if dec[b] <= p["floor"][b]:
                p["bids"][b] = p["floor"][b]
            else:
                p["bids"][b] = None
                p["waiting"].append(b)
        return [] if p["waiting"] else self._resolve_secret(state, rng)

    def _single_next(self, state: State, rng: random.Random) -> list[dict]:
        """Single Round: each other player once, from the active player's left."""
        p = state["pending"]
        dec = state["decorations"]
        events = []
        while p["order"]:
            o = p["order"][0]
            if dec[o] > p["high"]:
                p["waiting"] = [o]
                return events
            p["order"].pop(0)
            p["passed"].append(o)
            events.append(event("passed", {"seat": o, "forced": True}))
        return events + self._settle(state, rng)

    def _open_next(self, state: State, rng: random.Random) -> list[dict]:
        """Open auction: anyone may raise; it closes when all others passed since the last raise."""
        p = state["pending"]
        dec = state["decorations"]
        p["waiting"] = [o for o in others_from(p["active"], state["players"])
                        if o != p["high_bidder"] and o not in p["passed"] and dec[o] > p["high"]]
        return [] if p["waiting"] else self._settle(state, rng)

    def _shared_next(self, state: State, rng: random.Random) -> list[dict]:
        """Shared: the others bid in player order until all but one have passed."""
        p = state["pending"]
        n = state["players"]
        dec = state["decorations"]
        events = []
        while True:
            alive = [o for o in others_from(p["active"], n) if o not in p["passed"] and o != p["high_bidder"]]
            if not alive:
                break
            s = next((p["next"] + i) % n for i in range(n) if (p["next"] + i) % n in alive)
            if dec[s] <= p["high"]:
                p["passed"].append(s)
                events.append(event("passed", {"seat": s, "forced": True}))
                p["next"] = (s + 1) % n
                continue
            p["next"] = s
            p["waiting"] = [s]
            return events
        if p["high_bidder"] is None:
            events.append(event("auction_unsold", {"active": p["active"], "guest": p["guest"]}))
            return events + self._next_active(state, rng)
        if dec[p["active"]] < p["high"]:
            return events + self._settle_shared(state, False, rng)
        p["step"], p["waiting"] = "settle", [p["active"]]
        return events

    def _transfer(self, state: State, guest: str, buyer: int, seller: int | None, price: int) -> None:
        state["decorations"][buyer] -= price
        if seller is not None:
            state["decorations"][seller] += price
        state["holder"][guest] = buyer
        state["fresh"].append(guest)

    def _settle(self, state: State, rng: random.Random) -> list[dict]:
        p = state["pending"]
        w = p["high_bidder"]
        if w is None:
            events = [event("auction_unsold", {"active": p["active"], "guest": p["guest"]})]
        else:
            self._transfer(state, p["guest"], w, p["active"], p["high"])
            events = [event("auction_won", {"seat": w, "guest": p["guest"], "price": p["high"],
                                            "paid_to": p["active"]})]
        return events + self._next_active(state, rng)

    def _settle_shared(self, state: State, buy: bool, rng: random.Random) -> list[dict]:
        p = state["pending"]
        a, b = p["active"], p["high_bidder"]
        buyer, seller = (a, b) if buy else (b, a)
        self._transfer(state, p["guest"], buyer, seller, p["high"])
        events = [event("auction_won", {"seat": buyer, "guest": p["guest"], "price": p["high"], "paid_to": seller,
                                        "active_bought": buy})]
        return events + self._next_active(state, rng)

    def _resolve_secret(self, state: State, rng: random.Random) -> list[dict]:
        """Book, (Unfair) Secret Auction: highest wins; a tie bids again once; then the envelope stays."""
        p = state["pending"]
        bids = p["bids"]
        events = [event("sealed_bids", {"bids": [bids[b] if b in p["bidders"] else None
                                                 for b in range(state["players"])],
                                        "tie_round": p["tie"]})]
        top = max(bids[b] for b in p["bidders"])
        winners = [b for b in p["bidders"] if bids[b] == top]
        if top > 0 and len(winners) > 1 and not p["tie"]:
            p["tie"] = True
            p["bidders"] = winners
            for w in winners:
                p["floor"][w] = bids[w]
            events.append(event("tie", {"seats": winners, "amount": top}))
            return events + self._sealed_round(state, rng)
        active = p["active"]
        if top > 0 and len(winners) == 1:
            w = winners[0]
            self._transfer(state, p["guest"], w, active, top)
            events.append(event("auction_won", {"seat": w, "guest": p["guest"], "price": top, "paid_to": active}))
            if p["card"] == "unfair_secret":
                paid = [0] * state["players"]
                for o in others_from(active, state["players"]):
                    if o != w and bids[o]:
                        paid[o] = bids[o] // 2
                        state["decorations"][o] -= paid[o]
                        state["decorations"][active] += paid[o]
                events.append(event("losers_paid", {"paid": paid, "to": active}))
        else:
            events.append(event("auction_unsold", {"active": active, "guest": p["guest"],
                                                   "second_tie": len(winners) > 1}))
        return events + self._next_active(state, rng)

    def _resolve_fixed(self, state: State, rng: random.Random) -> list[dict]:
        """Fixed Price: every payer pays the active player and looks at once; the envelope stays."""
        p = state["pending"]
        payers = [s for s, a in enumerate(p["answers"]) if a]
        for s in payers:
            state["decorations"][s] -= p["price"]
            state["decorations"][p["active"]] += p["price"]
        events = [event("paid_to_look", {"active": p["active"], "guest": p["guest"], "price": p["price"],
                                         "payers": payers})]
        events += [self._look(state, s, [p["guest"]], "fixed_price") for s in payers]
        return events + self._next_active(state, rng)

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
                events.append(self._look(state, s, h, "final"))
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

    def _apply_placement(self, state: State, seat: int, move: dict, rng: random.Random) -> list[dict]:
        pl = state["placements"][seat]
        kind = move["type"]
        if kind == "place":
            g, r, c = move["guest"], move["row"], move["col"]
            if g in pl["guests"]:
                raise _bad(f"The {GUEST_NAME[g]} is already placed.", "already_placed")
            if (r, c) in TABLE_SQUARES:
                raise _bad("That square is the table; guests stand on the guest spaces.", "table_square")
            if any(rc == [r, c] for rc in pl["guests"].values()):
                raise _bad("Only one guest may stand on each guest space.", "square_taken")
            pl["guests"][g] = [r, c]
            return [event("your_choice", {"place": g, "row": r, "col": c}, [seat])]
        if kind == "decorate":
            c = move["column"]
            if c in pl["decor"]:
                raise _bad("That table square is already decorated.", "already_decorated")
            if state["decorations"][seat] <= len(pl["decor"]):
                raise _bad("You have no decoration left to put on the table.", "no_decorations")
            pl["decor"].append(c)
            pl["decor"].sort()
            return [event("your_choice", {"decorate": c}, [seat])]
        if kind == "vip":
            self._check_vip(state, seat, move["guest"], held(state, seat))
            return [self._add_vip(state, seat, move["guest"])]
        pl["done"] = True
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

    _LEGAL = {
        "look": "_legal_look", "dance": None, "gifts": "_legal_gifts", "rumors": "_legal_rumors",
        "partner": "_legal_partner", "theft": None, "auction": "_legal_auction", "placement": "_legal_placement",
    }

    def legal_moves(self, state: State, seat: int) -> list[dict]:
        p = state["pending"]
        if seat not in p["waiting"]:
            return []
        kind = p["kind"]
        if kind == "dance":
            return [{"type": "keep", "guest": g} for g in held(state, seat)]
        if kind == "theft":
            return [{"type": "steal", "guest": g} for g in held(state, (seat + 1) % state["players"])]
        return getattr(self, self._LEGAL[kind])(state, seat)

    def phase(self, state: State) -> str:
        """The pending decision; Choose Your Partner and the auctions by their step."""
        p = state["pending"]
        kind = p["kind"]
        if kind == "partner":
            return "partner_take" if len(p["taken"]) < p["count"] else "partner_return"
        if kind != "auction":
            return kind
        if p["step"] != "bid":
            return f"auction_{p['step']}"
        card = p["card"]
        return ("auction_fixed_price" if card == "fixed_price"
                else "auction_secret" if card in ("secret", "unfair_secret") else "auction_bid")

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
        """That seat's final photo as a standalone SVG (svg.py); IllegalMove 'not_over' before the end."""
        from .svg import photo_svg

        return photo_svg(state, seat)

    # -- what a seat sees --------------------------------------------------------------------------
    def _pending_view(self, state: State, seat: int | None) -> dict:
        p = state["pending"]
        kind = p["kind"]
        out: dict[str, Any] = {"kind": kind, "waiting": list(p["waiting"])}
        mine = seat is not None
        if kind == "dance":
            out["keep"] = p["keep"][seat] if mine else None
        elif kind == "gifts":
            out["gifts"] = list(p["gifts"][seat]) if mine else []
        elif kind == "rumors":
            out["peek"] = p["peek"][seat] if mine else None
        elif kind == "theft":
            out["steal"] = p["steal"][seat] if mine else None
        elif kind == "partner":
            out.update({k: p[k] for k in ("order", "seat", "count", "taken", "returned")})
        elif kind == "auction":
            for k in ("card", "queue", "active", "step", "guest", "price", "high", "high_bidder", "passed",
                      "order", "bidders", "tie", "floor", "next"):
                out[k] = p[k]
            out["title"] = EXCHANGE_TITLE[p["card"]]
            n = state["players"]
            sealed = p["card"] in ("secret", "unfair_secret") and p["step"] == "bid"
            out["bids"] = [None if sealed and s in p["bidders"] and s != seat else p["bids"][s] for s in range(n)]
            out["answers"] = [p["answers"][s] if s == seat else None for s in range(n)]
            if "deposits" in p:
                out["deposits"] = [p["deposits"][s] if s == seat else None for s in range(n)]
        return out

    def view(self, state: State, seat: int | None) -> dict:
        n = state["players"]
        over = state["phase"] == "over"
        v: dict[str, Any] = {
            "you": seat,
            "players": n,
            "auctions": state["auctions"],
            "round": state["round"],
            "rounds": ROUNDS,
            "first": state["first"],
            "starter": state["starter"],
            "phase": state["phase"],
            "to_act": self.to_act(state),
            "exchange": state["card"],
            "exchange_title": EXCHANGE_TITLE.get(state["card"]) if state["card"] else None,
            "exchange_cards_left": len(state["deck"]),
            "past_exchanges": list(state["used"]),
            "held": [held(state, s) for s in range(n)],
            "middle": middle(state),
            "fresh": list(state["fresh"]),
            "decorations": list(state["decorations"]),
            "supply": state["supply"],
            "pending": self._pending_view(state, seat),
            "placement_done": [p["done"] for p in state["placements"]],
            "revealed": {g: {"cards": [CARD_INFO[c] for c in state["cards"][g]], "vips": k}
                         for g, k in state["revealed"].items()},
            "guests": GUEST_LIST,
            "mat": MAT,
        }
        if seat is not None:
            v["known"] = {g: {"cards": [CARD_INFO[c] for c in state["cards"][g]], "vips": k}
                          for g, k in sorted(state["known"][seat].items(), key=lambda kv: GUEST_INDEX[kv[0]])}
            v["vip"] = state["vip_at"][seat]
            pl = state["placements"][seat]
            v["placement"] = {"guests": dict(pl["guests"]), "decor": list(pl["decor"]), "done": pl["done"]}
        if over:
            v["envelopes"] = [contents(state, g) for g in GUESTS]
            v["vip_at"] = list(state["vip_at"])
            v["placements"] = [{"guests": dict(p["guests"]), "decor": list(p["decor"])} for p in state["placements"]]
            v["result"] = self.final_result(state).as_dict()
            v["known_by"] = [dict(k) for k in state["known"]]
        return v

    # -- sampling for search bots -----------------------------------------------------------------
    def sample_state(self, view: dict, seat: int, rng: random.Random) -> State:
        """A full state consistent with the seat's view: unseen envelopes refilled from unseen cards,
        other seats' sealed choices and unseen VIP cards re-drawn."""
        n = view["players"]
        over = view["phase"] == "over"
        holder = {g: MIDDLE for g in GUESTS}
        for s, gs in enumerate(view["held"]):
            for g in gs:
                holder[g] = s
        if over:
            cards = {e["guest"]: [c["id"] for c in e["cards"]] for e in view["envelopes"]}
            vip_at = list(view["vip_at"])
            known = [dict(k) for k in view["known_by"]]
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
            vip_at = [None] * n
            vip_at[seat] = view["vip"]
            free = [s for s in range(n) if s != seat]
            rng.shuffle(free)
            for g, info in view["known"].items():
                extra = info["vips"] - (1 if view["vip"] == g else 0)
                while extra > 0 and free:
                    vip_at[free.pop()] = g
                    extra -= 1
            known = [{g: k["vips"] for g, k in view["revealed"].items()} for _ in range(n)]
            known[seat] = {g: info["vips"] for g, info in view["known"].items()}
        card = view["exchange"]
        used = list(view["past_exchanges"])
        spent = used + ([card] if card else [])
        if view["auctions"]:
            normal_left = AUCTION_NORMAL_CARDS - sum(1 for c in spent if c in NORMAL)
            auction_left = AUCTION_AUCTION_CARDS - sum(1 for c in spent if c in AUCTION)
            deck = (rng.sample([c for c in NORMAL if c not in spent], normal_left)
                    + rng.sample([c for c in AUCTION if c not in spent], auction_left))
        else:
            deck = [c for c in NORMAL if c not in spent]
        rng.shuffle(deck)
        placements = [{"guests": {}, "decor": [], "done": done} for done in view["placement_done"]]
        if over:
            for s, p in enumerate(view["placements"]):
                placements[s].update(guests=dict(p["guests"]), decor=list(p["decor"]))
        elif "placement" in view:
            placements[seat] = {"guests": dict(view["placement"]["guests"]), "decor": list(view["placement"]["decor"]),
                                "done": view["placement"]["done"]}
        state: State = {
            "players": n, "auctions": view["auctions"], "round": view["round"], "first": view["first"],
            "starter": view["starter"], "deck": deck, "card": card, "used": used, "cards": cards,
            "holder": holder, "fresh": list(view["fresh"]), "vip_at": vip_at, "known": known,
            "revealed": {g: k["vips"] for g, k in view["revealed"].items()},
            "decorations": list(view["decorations"]), "supply": view["supply"], "phase": view["phase"],
            "pending": {}, "placements": placements,
        }
        state["pending"] = self._sample_pending(state, view["pending"], seat, rng)
        return state

    def _sample_pending(self, state: State, pv: dict, seat: int, rng: random.Random) -> dict:
        """The pending decision with other seats' sealed choices drawn at random among legal ones."""
        n = state["players"]
        kind = pv["kind"]
        p: dict[str, Any] = {"kind": kind, "waiting": list(pv["waiting"])}
        done = [s for s in range(n) if s != seat and s not in pv["waiting"]]
        if kind == "dance":
            p["keep"] = [None] * n
            p["keep"][seat] = pv["keep"]
            for s in done:
                h = held(state, s)
                p["keep"][s] = rng.choice(h) if h else None
        elif kind == "gifts":
            p["gifts"] = [[] for _ in range(n)]
            p["gifts"][seat] = [dict(x) for x in pv["gifts"]]
            state["pending"] = p
            for s in done:
                while True:
                    options = self._legal_gifts(state, s)
                    if not options:
                        break
                    m = rng.choice(options)
                    p["gifts"][s].append({"guest": m["guest"], "to": m["to"]})
        elif kind == "rumors":
            p["peek"] = [None] * n
            p["peek"][seat] = pv["peek"]
            for s in done:
                options = [g for g in GUESTS if state["holder"][g] != s] + [None]
                p["peek"][s] = rng.choice(options)
        elif kind == "theft":
            p["steal"] = [None] * n
            p["steal"][seat] = pv["steal"]
            for s in done:
                h = held(state, (s + 1) % n)
                p["steal"][s] = rng.choice(h) if h else None
        elif kind == "partner":
            p.update({k: pv[k] for k in ("order", "seat", "count", "taken", "returned")})
        elif kind == "auction":
            for k in ("card", "queue", "active", "step", "guest", "price", "high", "high_bidder", "passed",
                      "order", "bidders", "tie", "floor", "next"):
                p[k] = pv[k]
            dec = state["decorations"]
            p["bids"] = list(pv["bids"])
            if p["card"] in ("secret", "unfair_secret") and p["step"] == "bid":
                for s in p["bidders"]:
                    if s != seat and s not in p["waiting"]:
                        p["bids"][s] = rng.randint(p["floor"][s], max(p["floor"][s], dec[s]))
            p["answers"] = list(pv["answers"])
            if p["card"] == "fixed_price" and p["step"] == "bid":
                for s in others_from(p["active"], n):
                    if s != seat and s not in p["waiting"]:
                        p["answers"][s] = dec[s] >= p["price"] and rng.random() < 0.5
            if "deposits" in pv:
                p["deposits"] = list(pv["deposits"])
                if p["step"] == "deposit":
                    for s in done:
                        h = openable(state, s)
                        p["deposits"][s] = rng.choice(h) if h else None
        return p


GAME = PicturePerfect()


def default_move(state: State, seat: int) -> dict:
    """On a timeout or for a seat that is out: be ready, pass (rumors, auctions), be done placing;
    a decision that cannot be refused (keep, steal, gift, take, return, deposit, offer) takes the
    first legal one at its lowest price."""
    return safe_default(GAME.legal_moves(state, seat), ("ready", "pass", "done", "sell"))
