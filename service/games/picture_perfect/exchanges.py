"""The exchange cards, one unit each: everything about a card in one place.

A unit holds its rulebook section (the class docstring cites the guide's section title and says what
this module settles, as service/games/picture_perfect/rules.md states it under the card's name), its phases
with the move types each allows (as data: the game's
``phases`` table is collected from them), and how the card begins, its legal moves, one method per move
type, how it resolves, the card's part of ``pending`` a seat is shown (``view``) and how a search bot
redraws what that seat does not see (``sample``).  rules.py runs the round flow around them: step 2
calls ``begin``, and a unit hands the round back by calling ``end`` (step 4) once the card is done.

Every card's ``pending`` dict (the stored state) has ``kind`` and ``waiting``, the seats to act, and
the card's own keys described in its unit and typed by the ``...Pending`` TypedDict before it (rules.py
declares the state's shape; its ``pending`` shows through the units' ``view``, a sample deals it through
their ``sample``).  "Each player" cards (Dance, Gifts, Rumors, Theft) run once
per round; only auction cards give every player a turn as the active player (book: Auctions).
Choices made by all at once are sealed: the table learns that a seat chose, only the seat what.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any, ClassVar, Literal, NotRequired, TypedDict

from ..base import Phase, State, event, span
from .data import EXCHANGE_TITLE, GUEST_INDEX, GUESTS, AuctionCard, Guest
from .table import MIDDLE, contents, held, illegal, look, middle, openable, others_from, vip_count

#: round flow step 4 (rules.py): discard the card, end the round
End = Callable[[State, random.Random], list[dict]]


class Exchange:
    """One exchange card.  Subclasses set ``card`` and ``phases`` and implement ``begin``."""

    card: ClassVar[str]
    #: each phase of the card (as ``phase`` names it) and the move types it allows, each with this unit's
    #: method that applies it (``method(state, seat, move, rng) -> events``)
    phases: ClassVar[dict[str, Phase]] = {}
    #: a card whose choice is one sealed value per seat (Dance, Rumors, Theft): its key in ``pending``, where
    #: a seat sees only its own; ``choices`` are the values a seat may choose (``begin`` makes a single one
    #: for it, ``sample`` redraws the others')
    sealed: ClassVar[str | None] = None

    def __init__(self, end: End) -> None:
        self.end = end

    def bound_phases(self) -> dict[str, Phase]:
        """``phases`` with each method name bound to this unit: the entries of the game's table."""
        return {name: Phase({kind: getattr(self, method) for kind, method in phase.moves.items()}, phase.hint)
                for name, phase in self.phases.items()}

    def begin(self, state: State, rng: random.Random) -> list[dict]:
        """Round flow step 3 starts: set ``pending``; choices that are forced are made here.  A ``sealed``
        card: every seat chooses one of its ``choices`` at once; a seat with only one has it made for it."""
        if self.sealed is None:
            raise NotImplementedError
        chosen: list = [None] * state["players"]
        waiting = []
        for s in range(state["players"]):
            options = self.choices(state, s)
            if len(options) == 1:
                chosen[s] = options[0]
            elif options:
                waiting.append(s)
        state["pending"] = {"kind": self.card, "waiting": waiting, self.sealed: chosen}
        return [] if waiting else self.resolve(state, rng)

    def resolve(self, state: State, rng: random.Random) -> list[dict]:
        """Every choice is in: carry the card out, then ``end`` the round."""
        raise NotImplementedError

    def phase(self, state: State) -> str:
        """The phase the card is in (a key of ``phases``)."""
        return self.card

    def legal(self, state: State, seat: int) -> list[dict]:
        """The seat's moves; it is one of ``pending["waiting"]``."""
        return []

    def view(self, state: State, seat: int | None) -> dict:
        """The card's keys of ``pending`` as ``seat`` (None: a spectator) may see them."""
        if self.sealed is None:
            return {}
        return {self.sealed: state["pending"][self.sealed][seat] if seat is not None else None}

    def sample(self, state: State, p: dict, pv: dict, seat: int, rng: random.Random) -> None:
        """Fill the card's keys into ``p`` from the seat's view ``pv``, other seats' sealed choices drawn
        at random among legal ones."""
        if self.sealed is None:
            return
        chosen = p[self.sealed] = [None] * state["players"]
        chosen[seat] = pv[self.sealed]
        for s in self.chosen(state, pv, seat):
            options = self.choices(state, s)
            chosen[s] = rng.choice(options) if options else None

    def choices(self, state: State, seat: int) -> list:
        """The values of ``sealed`` that ``seat`` may have chosen."""
        return []

    def seal(self, state: State, seat: int, key: str, choice: Any, told: str | None = None) -> tuple[list[dict], bool]:
        """Record a sealed choice in ``pending[key]`` (told to the seat as ``told``).  Returns the events and
        whether every seat has now chosen."""
        pending = state["pending"]
        pending[key][seat] = choice
        pending["waiting"].remove(seat)
        events = [event("chose", {"seat": seat, "card": self.card}),
                  event("your_choice", {told or key: choice}, [seat])]
        return events, not pending["waiting"]

    @staticmethod
    def chosen(state: State, pv: dict, seat: int) -> list[int]:
        """The other seats that have made their sealed choice (``sample`` redraws theirs)."""
        return [s for s in range(state["players"]) if s != seat and s not in pv["waiting"]]


# -- the normal exchange cards ------------------------------------------------------------------------
class DancePending(TypedDict):
    kind: Literal["dance"]
    waiting: list[int]
    keep: list[Guest | None]


class Dance(Exchange):
    """Book, EXCHANGES, DANCE: each player puts all of their envelopes but one (of their choice) in the
    middle; the middle is shuffled and each is dealt back as many as they put in.

    Secret and simultaneous; keeping the only envelope is forced.  ``pending["keep"][seat]``: the
    envelope kept (None: none held)."""

    card = "dance"
    sealed = "keep"
    phases = {"dance": Phase({"keep": "keep"}, "Dance: name the one envelope you keep.")}

    def legal(self, state: State, seat: int) -> list[dict]:
        return [{"type": "keep", "guest": g} for g in held(state, seat)]

    def keep(self, state: State, seat: int, move: dict, rng: random.Random) -> list[dict]:
        if state["holder"][move["guest"]] != seat:
            raise illegal("You can only keep an envelope you hold.", "not_yours")
        events, all_in = self.seal(state, seat, "keep", move["guest"])
        return events + self.resolve(state, rng) if all_in else events

    def resolve(self, state: State, rng: random.Random) -> list[dict]:
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
        return events + self.end(state, rng)

    def choices(self, state: State, seat: int) -> list:
        return held(state, seat)


class Gift(TypedDict):
    guest: Guest
    to: int


class GiftsPending(TypedDict):
    kind: Literal["gifts"]
    waiting: list[int]
    gifts: list[list[Gift]]


class Gifts(Exchange):
    """Book, EXCHANGES, GIFTS: each player gives one of their envelopes (of their choice) to each
    neighbour; with only one envelope, to either neighbour.

    With 2 players one envelope goes to the opponent, and giving the only one is forced.  Gifts are
    sealed and change hands together.  ``pending["gifts"][seat]``: that seat's gifts so far, each
    ``{"guest", "to"}``."""

    card = "gifts"
    phases = {"gifts": Phase({"gift": "gift"}, "Gifts: give one of your envelopes to a neighbour.")}

    @staticmethod
    def owed(state: State, seat: int) -> int:
        h = len(held(state, seat))
        return min(h, 1) if state["players"] == 2 else min(h, 2)

    def begin(self, state: State, rng: random.Random) -> list[dict]:
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
        return [] if waiting else self.resolve(state, rng)

    def legal(self, state: State, seat: int) -> list[dict]:
        n = state["players"]
        given = state["pending"]["gifts"][seat]
        if len(given) >= self.owed(state, seat):
            return []
        h = held(state, seat)
        done_g = {x["guest"] for x in given}
        done_to = {x["to"] for x in given}
        targets = [(seat + 1) % n] if n == 2 else [(seat + 1) % n, (seat - 1) % n]
        return [{"type": "gift", "guest": g, "to": t} for t in targets if t not in done_to
                for g in h if g not in done_g]

    def gift(self, state: State, seat: int, move: dict, rng: random.Random) -> list[dict]:
        if not any(m["guest"] == move["guest"] and m["to"] == move["to"] for m in self.legal(state, seat)):
            if state["holder"][move["guest"]] != seat:
                raise illegal("You can only give an envelope you hold.", "not_yours")
            raise illegal("Give one envelope to each neighbour (with one envelope: to either neighbour; "
                          "with 2 players: one to your opponent), each envelope once.", "bad_gift")
        pending = state["pending"]
        pending["gifts"][seat].append({"guest": move["guest"], "to": move["to"]})
        events = [event("your_choice", {"gift": move["guest"], "to": move["to"]}, [seat])]
        if len(pending["gifts"][seat]) >= self.owed(state, seat):
            pending["waiting"].remove(seat)
            events.append(event("chose", {"seat": seat, "card": self.card}))
        if not pending["waiting"]:
            events += self.resolve(state, rng)
        return events

    def resolve(self, state: State, rng: random.Random) -> list[dict]:
        transfers = []
        for s, gifts in enumerate(state["pending"]["gifts"]):
            for x in gifts:
                transfers.append({"from": s, "to": x["to"], "guest": x["guest"]})
        for t in transfers:
            state["holder"][t["guest"]] = t["to"]
        return [event("gifts_given", {"transfers": transfers})] + self.end(state, rng)

    def view(self, state: State, seat: int | None) -> dict:
        return {"gifts": list(state["pending"]["gifts"][seat]) if seat is not None else []}

    def sample(self, state: State, p: dict, pv: dict, seat: int, rng: random.Random) -> None:
        p["gifts"] = [[] for _ in range(state["players"])]
        p["gifts"][seat] = [dict(x) for x in pv["gifts"]]
        state["pending"] = p
        for s in self.chosen(state, pv, seat):
            while True:
                options = self.legal(state, s)
                if not options:
                    break
                m = rng.choice(options)
                p["gifts"][s].append({"guest": m["guest"], "to": m["to"]})


class Revelations(Exchange):
    """Book, EXCHANGES, REVELATIONS: shuffle the envelopes in the middle and open 2 at random for all.

    Fewer than 2 in the middle: all of them; their VIP cards are shown too.  Nobody decides anything."""

    card = "revelations"

    def begin(self, state: State, rng: random.Random) -> list[dict]:
        pool = middle(state)
        rng.shuffle(pool)
        shown = sorted(pool[:2], key=GUEST_INDEX.get)
        for g in shown:
            count = vip_count(state, g)
            state["revealed"][g] = count
            for known in state["known"]:
                known[g] = count
        events = [event("revealed", {"envelopes": [contents(state, g) for g in shown]})]
        return events + self.end(state, rng)


class RumorsPending(TypedDict):
    kind: Literal["rumors"]
    waiting: list[int]
    peek: list[Guest | None]


class Rumors(Exchange):
    """Book, EXCHANGES, RUMORS: each player may look into any one envelope (in the middle or of another
    player) and gives it back; several may choose the same one.

    "May": ``pass`` is allowed.  Sealed; once all have chosen, which envelope each looked into is public,
    its contents go to the looker alone.  ``pending["peek"][seat]``: the envelope (None: a pass)."""

    card = "rumors"
    sealed = "peek"
    phases = {"rumors": Phase({"peek": "peek", "pass": "pass_"},
                              "Rumors: look into one envelope in the middle or of another player, or pass.")}

    def legal(self, state: State, seat: int) -> list[dict]:
        holder = state["holder"]
        return [{"type": "peek", "guest": g} for g in GUESTS if holder[g] != seat] + [{"type": "pass"}]

    def peek(self, state: State, seat: int, move: dict, rng: random.Random) -> list[dict]:
        if state["holder"][move["guest"]] == seat:
            raise illegal("Rumors: choose an envelope in the middle or of another player.", "own_envelope")
        events, all_in = self.seal(state, seat, "peek", move["guest"])
        return events + self.resolve(state, rng) if all_in else events

    def pass_(self, state: State, seat: int, move: dict, rng: random.Random) -> list[dict]:
        events, all_in = self.seal(state, seat, "peek", None)
        return events + self.resolve(state, rng) if all_in else events

    def resolve(self, state: State, rng: random.Random) -> list[dict]:
        peeks = state["pending"]["peek"]
        events = [event("rumors", {"peeks": peeks})]
        events += [look(state, s, [g], "rumors") for s, g in enumerate(peeks) if g is not None]
        return events + self.end(state, rng)

    def choices(self, state: State, seat: int) -> list:
        return [g for g in GUESTS if state["holder"][g] != seat] + [None]


class PartnerPending(TypedDict):
    kind: Literal["partner"]
    waiting: list[int]
    order: list[int]
    seat: int | None
    count: int
    taken: list[Guest]
    returned: list[Guest]


class ChooseYourPartner(Exchange):
    """Book, EXCHANGES, CHOOSE YOUR PARTNER: from the starting player clockwise, each player takes any 2
    envelopes from the middle, then returns any 2 of theirs (those just taken too).

    Each takes min(2, middle) and returns as many, in the open; a forced take or return (no choice
    left) is made by the referee.  ``pending``: ``order`` (seats still to come), ``seat`` (the one at
    it), ``count`` (its number to take and return), ``taken`` and ``returned`` so far."""

    card = "partner"
    phases = {
        "partner_take": Phase({"take": "take"}, "Choose Your Partner: take your envelopes from the middle first."),
        "partner_return": Phase({"return": "return_"},
                                "Choose Your Partner: return as many of your envelopes to the middle."),
    }
    SHOWN = ("order", "seat", "count", "taken", "returned")

    def begin(self, state: State, rng: random.Random) -> list[dict]:
        n = state["players"]
        order = [(state["starter"] + i) % n for i in range(n)]
        state["pending"] = {"kind": "partner", "waiting": [], "order": order, "seat": None,
                            "count": 0, "taken": [], "returned": []}
        return self.advance(state, rng)

    @staticmethod
    def taking(p: dict) -> bool:
        return len(p["taken"]) < p["count"]

    def phase(self, state: State) -> str:
        return "partner_take" if self.taking(state["pending"]) else "partner_return"

    def advance(self, state: State, rng: random.Random) -> list[dict]:
        """Seat by seat from the starter; a forced take or return is made by the referee."""
        p = state["pending"]
        events: list[dict] = []
        while True:
            seat = p["seat"]
            if seat is not None:
                if self.taking(p):
                    mid = middle(state)
                    if len(mid) == p["count"] - len(p["taken"]):
                        for g in mid:
                            events += self.took(state, seat, g)
                        continue
                    p["waiting"] = [seat]
                    return events
                if len(p["returned"]) < p["count"]:
                    h = held(state, seat)
                    if len(h) == p["count"] - len(p["returned"]):
                        for g in h:
                            events += self.returned(state, seat, g)
                        continue
                    p["waiting"] = [seat]
                    return events
            if not p["order"]:
                p["waiting"] = []
                return events + self.end(state, rng)
            p["seat"] = p["order"].pop(0)
            p["count"] = min(2, len(middle(state)))
            p["taken"], p["returned"] = [], []

    @staticmethod
    def took(state: State, seat: int, guest: str) -> list[dict]:
        state["holder"][guest] = seat
        state["pending"]["taken"].append(guest)
        return [event("took", {"seat": seat, "guest": guest})]

    @staticmethod
    def returned(state: State, seat: int, guest: str) -> list[dict]:
        state["holder"][guest] = MIDDLE
        state["pending"]["returned"].append(guest)
        return [event("returned", {"seat": seat, "guest": guest})]

    def legal(self, state: State, seat: int) -> list[dict]:
        if self.taking(state["pending"]):
            return [{"type": "take", "guest": g} for g in middle(state)]
        return [{"type": "return", "guest": g} for g in held(state, seat)]

    def take(self, state: State, seat: int, move: dict, rng: random.Random) -> list[dict]:
        if state["holder"][move["guest"]] != MIDDLE:
            raise illegal("That envelope is not in the middle.", "not_in_middle")
        return self.took(state, seat, move["guest"]) + self.advance(state, rng)

    def return_(self, state: State, seat: int, move: dict, rng: random.Random) -> list[dict]:
        if state["holder"][move["guest"]] != seat:
            raise illegal("You can only return an envelope you hold.", "not_yours")
        return self.returned(state, seat, move["guest"]) + self.advance(state, rng)

    def view(self, state: State, seat: int | None) -> dict:
        p = state["pending"]
        return {k: p[k] for k in self.SHOWN}

    def sample(self, state: State, p: dict, pv: dict, seat: int, rng: random.Random) -> None:
        p.update({k: pv[k] for k in self.SHOWN})


class TheftPending(TypedDict):
    kind: Literal["theft"]
    waiting: list[int]
    steal: list[Guest | None]


class Theft(Exchange):
    """Book, EXCHANGES, THEFT: each player takes one envelope of their choice from the player on their
    left, all at once (so not one the neighbour just took).

    Sealed; stealing the only envelope is forced.  ``pending["steal"][seat]``: the envelope taken
    (None: the left neighbour has none)."""

    card = "theft"
    sealed = "steal"
    phases = {"theft": Phase({"steal": "steal"}, "Theft: take one envelope from the player on your left.")}

    def legal(self, state: State, seat: int) -> list[dict]:
        return [{"type": "steal", "guest": g} for g in held(state, (seat + 1) % state["players"])]

    def steal(self, state: State, seat: int, move: dict, rng: random.Random) -> list[dict]:
        if state["holder"][move["guest"]] != (seat + 1) % state["players"]:
            raise illegal("Theft: take an envelope of the player on your left.", "not_left_neighbour")
        events, all_in = self.seal(state, seat, "steal", move["guest"])
        return events + self.resolve(state, rng) if all_in else events

    def resolve(self, state: State, rng: random.Random) -> list[dict]:
        n = state["players"]
        transfers = []
        for s, g in enumerate(state["pending"]["steal"]):
            if g is not None:
                transfers.append({"from": (s + 1) % n, "to": s, "guest": g})
        for t in transfers:
            state["holder"][t["guest"]] = t["to"]
        return [event("stolen", {"transfers": transfers})] + self.end(state, rng)

    def choices(self, state: State, seat: int) -> list:
        return held(state, (seat + 1) % state["players"])


# -- the auction cards ----------------------------------------------------------------------------------
OFFER = Phase({"offer": "offer"}, "You are the active player: choose the envelope to auction.")
RAISE_OR_PASS = Phase({"bid": "bid", "pass": "pass_"}, "Auction: bid more than the highest bid, or pass.")
SEALED_BID = Phase({"bid": "bid"}, "Secret auction: bid any number of your decorations (0 is allowed).")


class AuctionPending(TypedDict):
    kind: Literal["auction"]
    card: AuctionCard
    waiting: list[int]
    queue: list[int]
    active: int | None
    step: Literal["offer", "bid", "deposit", "settle"]
    guest: Guest | None
    price: int | None
    high: int
    high_bidder: int | None
    passed: list[int]
    order: list[int]
    bids: list[int | None]
    floor: list[int]
    bidders: list[int]
    tie: bool
    answers: list[bool | None]
    next: int | None
    deposits: NotRequired[list[Guest | None]]  # the Shared auction's


class Auction(Exchange):
    """Book, AUCTIONS: what every auction card follows unless it says otherwise.  From the starting player
    clockwise, each player is the active player once and offers one envelope (not one won this round);
    the others bid decorations, a bid must beat the highest bid (at least 1) and a player who does not
    raise passes for good; the highest bidder pays the active player.

    Bids are whole decorations, never above what the bidder holds (decoration counts are public); an
    active player with nothing to offer is skipped; one who cannot raise passes by the referee.
    ``pending``: ``card``, ``queue`` (active players to come), ``active``, ``step`` (``offer``, ``bid``,
    Shared: ``deposit``, ``settle``), ``guest`` and ``price`` offered, ``high``, ``high_bidder``, ``passed``,
    ``order``, ``bidders``, ``tie``, ``floor``, ``next``, and per seat ``bids`` and ``answers`` (Shared:
    ``deposits``); the phase is ``<card>_<step>``."""

    #: the keys of ``pending`` every seat sees as they are
    SHOWN = ("card", "queue", "active", "step", "guest", "price", "high", "high_bidder", "passed",
             "order", "bidders", "tie", "floor", "next")
    #: where the envelope offered comes from, as a refusal says it
    offered_from: ClassVar[str] = "of yours that you did not win this round"
    #: service/games/picture_perfect/rules.md, "Auctions": a pass is final except in the Open auction
    pass_is_final: ClassVar[bool] = True

    def phase(self, state: State) -> str:
        return f"{self.card}_{state['pending']['step']}"

    def begin(self, state: State, rng: random.Random) -> list[dict]:
        state["pending"] = self.start(state)
        return self.next_active(state, rng)

    def start(self, state: State) -> dict:
        n = state["players"]
        p: dict[str, Any] = {"kind": "auction", "card": self.card, "waiting": [],
                             "queue": [(state["starter"] + i) % n for i in range(n)]}
        self.reset_turn(p, None, n)
        return p

    @staticmethod
    def reset_turn(p: dict, active: int | None, n: int) -> None:
        p.update(active=active, step="offer", guest=None, price=None, high=0, high_bidder=None,
                 passed=[], order=[], bids=[None] * n, floor=[0] * n, bidders=[], tie=False,
                 answers=[None] * n, next=None)

    def offerable(self, state: State, seat: int) -> list[str]:
        return openable(state, seat)

    def next_active(self, state: State, rng: random.Random) -> list[dict]:
        """The next active player runs an auction; one with nothing to offer is skipped."""
        p = state["pending"]
        n = state["players"]
        events = []
        while p["queue"]:
            active = p["queue"].pop(0)
            self.reset_turn(p, active, n)
            if self.offerable(state, active):
                p["waiting"] = [active]
                return events
            events.append(event("auction_skipped", {"active": active, "card": self.card}))
        p["waiting"] = []
        return events + self.end(state, rng)

    def legal(self, state: State, seat: int) -> list[dict]:
        if state["pending"]["step"] == "offer":
            return self.legal_offer(state, seat)
        return self.legal_bid(state, seat)

    def legal_offer(self, state: State, seat: int) -> list[dict]:
        return [{"type": "offer", "guest": g} for g in self.offerable(state, seat)]

    def legal_bid(self, state: State, seat: int) -> list[dict]:
        p = state["pending"]
        return [{"type": "bid", "amount": span(p["high"] + 1, state["decorations"][seat])}, {"type": "pass"}]

    def offer(self, state: State, seat: int, move: dict, rng: random.Random) -> list[dict]:
        guest = move["guest"]
        if guest not in self.offerable(state, seat):
            raise illegal(f"Offer an envelope {self.offered_from}.", "not_offerable")
        price = move.get("price")
        self.check_price(state, seat, price)
        p = state["pending"]
        p["guest"], p["price"] = guest, price
        events = [event("auction_offered", {"active": seat, "card": self.card, "guest": guest, "price": price})]
        return events + self.open_bidding(state, seat, rng)

    def check_price(self, state: State, seat: int, price: int | None) -> None:
        if price is not None:
            raise illegal("Only the Fixed Price auction has a price.", "no_price")

    def open_bidding(self, state: State, active: int, rng: random.Random) -> list[dict]:
        """The envelope is offered: the card's bidding starts."""
        raise NotImplementedError

    def bid(self, state: State, seat: int, move: dict, rng: random.Random) -> list[dict]:
        p = state["pending"]
        amount = move["amount"]
        if not p["high"] < amount <= state["decorations"][seat]:
            raise illegal(f"Bid more than {p['high']} and at most your {state['decorations'][seat]} decorations.",
                          "bad_amount")
        p["high"], p["high_bidder"] = amount, seat
        if not self.pass_is_final:
            p["passed"] = []
        return [event("bid", {"seat": seat, "amount": amount})] + self.after_bid(state, seat, rng)

    def pass_(self, state: State, seat: int, move: dict, rng: random.Random) -> list[dict]:
        state["pending"]["passed"].append(seat)
        return [event("passed", {"seat": seat})] + self.after_bid(state, seat, rng)

    def after_bid(self, state: State, seat: int, rng: random.Random) -> list[dict]:
        """The bidding goes on after ``seat`` bid or passed."""
        raise NotImplementedError

    @staticmethod
    def transfer(state: State, guest: str, buyer: int, seller: int, price: int) -> None:
        """The buyer pays the seller; an envelope won is not opened nor offered again this round."""
        state["decorations"][buyer] -= price
        state["decorations"][seller] += price
        state["holder"][guest] = buyer
        state["fresh"].append(guest)

    def settle(self, state: State, rng: random.Random) -> list[dict]:
        """The highest bidder buys the envelope from the active player (nobody bid: it stays)."""
        p = state["pending"]
        w = p["high_bidder"]
        if w is None:
            events = [event("auction_unsold", {"active": p["active"], "guest": p["guest"]})]
        else:
            self.transfer(state, p["guest"], w, p["active"], p["high"])
            events = [event("auction_won", {"seat": w, "guest": p["guest"], "price": p["high"],
                                            "paid_to": p["active"]})]
        return events + self.next_active(state, rng)

    def view(self, state: State, seat: int | None) -> dict:
        p = state["pending"]
        out = {k: p[k] for k in self.SHOWN}
        out["title"] = EXCHANGE_TITLE[self.card]
        out["bids"] = list(p["bids"])
        out["answers"] = [a if s == seat else None for s, a in enumerate(p["answers"])]
        return out

    def sample(self, state: State, p: dict, pv: dict, seat: int, rng: random.Random) -> None:
        p.update({k: pv[k] for k in self.SHOWN})
        p["bids"] = list(pv["bids"])
        p["answers"] = list(pv["answers"])


class SingleRoundAuction(Auction):
    """Book, AUCTION CARDS, SINGLE ROUND AUCTION: from the active player's left, each other player may bid
    once; the highest bidder buys.  ``pending["order"]``: the bidders still to come."""

    card = "single"
    phases = {"single_offer": OFFER, "single_bid": RAISE_OR_PASS}

    def open_bidding(self, state: State, active: int, rng: random.Random) -> list[dict]:
        p = state["pending"]
        p["step"], p["order"] = "bid", others_from(active, state["players"])
        return self.ask(state, rng)

    def after_bid(self, state: State, seat: int, rng: random.Random) -> list[dict]:
        state["pending"]["order"].pop(0)
        return self.ask(state, rng)

    def ask(self, state: State, rng: random.Random) -> list[dict]:
        """The next bidder in order who can raise; the others pass by the referee."""
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
        return events + self.settle(state, rng)


class SecretAuction(Auction):
    """Book, AUCTION CARDS, (UNFAIR) SECRET AUCTION: the other players bid secretly and at once, any number
    of decorations (0 too); the highest bidder buys.  The tied bid once more, at least their last bid;
    a second tie and the active player keeps the envelope.

    A bid of 0 never wins (all 0: the envelope stays); a bidder who can only bid its minimum bids it by
    the referee.  ``pending``: ``bidders``, ``bids``, ``floor`` (each bidder's minimum), ``tie`` (the
    second round)."""

    card = "secret"
    phases = {"secret_offer": OFFER, "secret_bid": SEALED_BID}

    def open_bidding(self, state: State, active: int, rng: random.Random) -> list[dict]:
        p = state["pending"]
        p["step"], p["bidders"] = "bid", others_from(active, state["players"])
        return self.sealed_round(state, rng)

    def sealed_round(self, state: State, rng: random.Random) -> list[dict]:
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
        return [] if p["waiting"] else self.resolve(state, rng)

    def legal_bid(self, state: State, seat: int) -> list[dict]:
        return [{"type": "bid", "amount": span(state["pending"]["floor"][seat], state["decorations"][seat])}]

    def bid(self, state: State, seat: int, move: dict, rng: random.Random) -> list[dict]:
        p = state["pending"]
        amount = move["amount"]
        if not p["floor"][seat] <= amount <= state["decorations"][seat]:
            raise illegal(f"Bid between {p['floor'][seat]} and your {state['decorations'][seat]} decorations.",
                          "bad_amount")
        events, all_in = self.seal(state, seat, "bids", amount, "bid")
        return events + self.resolve(state, rng) if all_in else events

    def resolve(self, state: State, rng: random.Random) -> list[dict]:
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
            return events + self.sealed_round(state, rng)
        active = p["active"]
        if top > 0 and len(winners) == 1:
            w = winners[0]
            self.transfer(state, p["guest"], w, active, top)
            events.append(event("auction_won", {"seat": w, "guest": p["guest"], "price": top, "paid_to": active}))
            events += self.losers_pay(state, w)
        else:
            events.append(event("auction_unsold", {"active": active, "guest": p["guest"],
                                                   "second_tie": len(winners) > 1}))
        return events + self.next_active(state, rng)

    def losers_pay(self, state: State, winner: int) -> list[dict]:
        """What the bidders who lost pay once the envelope is sold: nothing."""
        return []

    def view(self, state: State, seat: int | None) -> dict:
        out = super().view(state, seat)
        p = state["pending"]
        if p["step"] == "bid":  # other bidders' bids are sealed
            out["bids"] = [None if s in p["bidders"] and s != seat else b for s, b in enumerate(p["bids"])]
        return out

    def sample(self, state: State, p: dict, pv: dict, seat: int, rng: random.Random) -> None:
        super().sample(state, p, pv, seat, rng)
        if p["step"] == "bid":
            dec = state["decorations"]
            for s in p["bidders"]:
                if s != seat and s not in p["waiting"]:
                    p["bids"][s] = rng.randint(p["floor"][s], max(p["floor"][s], dec[s]))


class UnfairSecretAuction(SecretAuction):
    """Book, AUCTION CARDS, (UNFAIR) SECRET AUCTION, Unfair rules: as the Secret Auction, but every losing
    bidder pays half of their bid (rounded down) to the active player; after a second tie nobody pays.

    A loser pays half of its last bid."""

    card = "unfair_secret"
    phases = {"unfair_secret_offer": OFFER, "unfair_secret_bid": SEALED_BID}

    def losers_pay(self, state: State, winner: int) -> list[dict]:
        p = state["pending"]
        active, bids = p["active"], p["bids"]
        paid = [0] * state["players"]
        for o in others_from(active, state["players"]):
            if o != winner and bids[o]:
                paid[o] = bids[o] // 2
                state["decorations"][o] -= paid[o]
                state["decorations"][active] += paid[o]
        return [event("losers_paid", {"paid": paid, "to": active})]


class SharedAuction(Auction):
    """Book, AUCTION CARDS, SHARED AUCTION: first each player puts one of their envelopes in the middle;
    then each active player chooses one from the middle, the others bid in player order until all but one
    have passed, and the active player sells it to the highest bidder or buys it for the high bid.

    The deposits are sealed and revealed together (depositing the only envelope is forced); an envelope
    nobody bids on stays in the middle; an active player who cannot pay the high bid must sell, by the
    referee; with an empty middle the turn is skipped.  ``pending``: ``deposits`` (per seat, sealed),
    ``next`` (the bidder whose turn it is)."""

    card = "shared"
    phases = {
        "shared_deposit": Phase({"deposit": "deposit"},
                                "Shared auction: put one of your envelopes in the middle first."),
        "shared_offer": OFFER,
        "shared_bid": RAISE_OR_PASS,
        "shared_settle": Phase({"sell": "sell", "buy": "buy"},
                               "Shared auction: sell the envelope to the highest bidder or buy it yourself."),
    }
    offered_from = "in the middle"

    def begin(self, state: State, rng: random.Random) -> list[dict]:
        p = state["pending"] = self.start(state)
        n = state["players"]
        deposits: list[str | None] = [None] * n
        waiting = []
        for s in range(n):
            h = openable(state, s)
            if len(h) == 1:
                deposits[s] = h[0]
            elif h:
                waiting.append(s)
        p.update(step="deposit", waiting=waiting, deposits=deposits)
        return [] if waiting else self.resolve_deposits(state, rng)

    def legal(self, state: State, seat: int) -> list[dict]:
        p = state["pending"]
        if p["step"] == "deposit":
            return [{"type": "deposit", "guest": g} for g in openable(state, seat)]
        if p["step"] == "settle":
            return [{"type": "sell"}] + ([{"type": "buy"}] if state["decorations"][seat] >= p["high"] else [])
        return super().legal(state, seat)

    def deposit(self, state: State, seat: int, move: dict, rng: random.Random) -> list[dict]:
        if move["guest"] not in openable(state, seat):
            raise illegal("Put one of your own envelopes (not one won this round) in the middle.", "not_yours")
        events, all_in = self.seal(state, seat, "deposits", move["guest"], "deposit")
        return events + self.resolve_deposits(state, rng) if all_in else events

    def resolve_deposits(self, state: State, rng: random.Random) -> list[dict]:
        p = state["pending"]
        for g in p["deposits"]:
            if g is not None:
                state["holder"][g] = MIDDLE
        events = [event("deposited", {"deposits": p["deposits"], "middle": middle(state)})]
        return events + self.next_active(state, rng)

    def offerable(self, state: State, seat: int) -> list[str]:
        return middle(state)

    def open_bidding(self, state: State, active: int, rng: random.Random) -> list[dict]:
        p = state["pending"]
        p["step"], p["next"] = "bid", (active + 1) % state["players"]
        return self.ask(state, rng)

    def after_bid(self, state: State, seat: int, rng: random.Random) -> list[dict]:
        state["pending"]["next"] = (seat + 1) % state["players"]
        return self.ask(state, rng)

    def ask(self, state: State, rng: random.Random) -> list[dict]:
        """The others bid in player order until all but one have passed; then the active player settles."""
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
            return events + self.next_active(state, rng)
        if dec[p["active"]] < p["high"]:
            return events + self.sold(state, False, rng)
        p["step"], p["waiting"] = "settle", [p["active"]]
        return events

    def sell(self, state: State, seat: int, move: dict, rng: random.Random) -> list[dict]:
        return self.sold(state, False, rng)

    def buy(self, state: State, seat: int, move: dict, rng: random.Random) -> list[dict]:
        if state["decorations"][seat] < state["pending"]["high"]:
            raise illegal("You do not have enough decorations to buy it; you must sell.", "cannot_afford")
        return self.sold(state, True, rng)

    def sold(self, state: State, active_bought: bool, rng: random.Random) -> list[dict]:
        p = state["pending"]
        a, b = p["active"], p["high_bidder"]
        buyer, seller = (a, b) if active_bought else (b, a)
        self.transfer(state, p["guest"], buyer, seller, p["high"])
        events = [event("auction_won", {"seat": buyer, "guest": p["guest"], "price": p["high"], "paid_to": seller,
                                        "active_bought": active_bought})]
        return events + self.next_active(state, rng)

    def view(self, state: State, seat: int | None) -> dict:
        out = super().view(state, seat)
        out["deposits"] = [d if s == seat else None for s, d in enumerate(state["pending"]["deposits"])]
        return out

    def sample(self, state: State, p: dict, pv: dict, seat: int, rng: random.Random) -> None:
        super().sample(state, p, pv, seat, rng)
        p["deposits"] = list(pv["deposits"])
        if p["step"] == "deposit":
            for s in self.chosen(state, pv, seat):
                h = openable(state, s)
                p["deposits"][s] = rng.choice(h) if h else None


class FixedPriceAuction(Auction):
    """Book, AUCTION CARDS, FIXED PRICE AUCTION: the active player names one of their envelopes and a
    price; any player who pays it to the active player looks into the envelope at once; it stays with
    the active player.

    The price is 1 up to the most decorations another player holds (nobody can pay: the turn is
    skipped); the others answer ``pay`` or ``pass`` sealed and at once (one who cannot pay passes by the
    referee).  ``pending``: ``price``, ``answers`` (per seat: pays, sealed)."""

    card = "fixed_price"
    phases = {"fixed_price_offer": OFFER,
              "fixed_price_bid": Phase({"pay": "pay", "pass": "pass_"},
                                       "Fixed Price auction: pay the price to look, or pass.")}

    @staticmethod
    def max_price(state: State, seat: int) -> int:
        dec = state["decorations"]
        return max(dec[o] for o in others_from(seat, state["players"]))

    def offerable(self, state: State, seat: int) -> list[str]:
        return [] if self.max_price(state, seat) < 1 else openable(state, seat)

    def legal_offer(self, state: State, seat: int) -> list[dict]:
        top = self.max_price(state, seat)
        return [{"type": "offer", "guest": g, "price": span(1, top)} for g in self.offerable(state, seat)]

    def check_price(self, state: State, seat: int, price: int | None) -> None:
        top = self.max_price(state, seat)
        if price is None or not 1 <= price <= top:
            raise illegal(f"Name a price from 1 to {top} decorations.", "bad_price")

    def open_bidding(self, state: State, active: int, rng: random.Random) -> list[dict]:
        p = state["pending"]
        dec = state["decorations"]
        others = others_from(active, state["players"])
        p["step"] = "bid"
        p["waiting"] = [o for o in others if dec[o] >= p["price"]]
        for o in others:
            p["answers"][o] = None if dec[o] >= p["price"] else False
        return [] if p["waiting"] else self.resolve(state, rng)

    def legal_bid(self, state: State, seat: int) -> list[dict]:
        return [{"type": "pay"}, {"type": "pass"}]

    def pay(self, state: State, seat: int, move: dict, rng: random.Random) -> list[dict]:
        events, all_in = self.seal(state, seat, "answers", True, "pay")
        return events + self.resolve(state, rng) if all_in else events

    def pass_(self, state: State, seat: int, move: dict, rng: random.Random) -> list[dict]:
        events, all_in = self.seal(state, seat, "answers", False, "pay")
        return events + self.resolve(state, rng) if all_in else events

    def resolve(self, state: State, rng: random.Random) -> list[dict]:
        """Every payer pays the active player and looks at once; the envelope stays."""
        p = state["pending"]
        payers = [s for s, a in enumerate(p["answers"]) if a]
        for s in payers:
            state["decorations"][s] -= p["price"]
            state["decorations"][p["active"]] += p["price"]
        events = [event("paid_to_look", {"active": p["active"], "guest": p["guest"], "price": p["price"],
                                         "payers": payers})]
        events += [look(state, s, [p["guest"]], "fixed_price") for s in payers]
        return events + self.next_active(state, rng)

    def sample(self, state: State, p: dict, pv: dict, seat: int, rng: random.Random) -> None:
        super().sample(state, p, pv, seat, rng)
        if p["step"] == "bid":
            dec = state["decorations"]
            for s in others_from(p["active"], state["players"]):
                if s != seat and s not in p["waiting"]:
                    p["answers"][s] = dec[s] >= p["price"] and rng.random() < 0.5


class OpenAuction(Auction):
    """Book, AUCTION CARDS, OPEN AUCTION: the other players bid freely, in no order; when nobody goes
    higher the highest bidder buys.

    Everyone who can raise is asked at once; a pass stands until someone raises; the auction closes
    when all others have passed since the last raise."""

    card = "open"
    phases = {"open_offer": OFFER, "open_bid": RAISE_OR_PASS}
    pass_is_final = False

    def open_bidding(self, state: State, active: int, rng: random.Random) -> list[dict]:
        state["pending"]["step"] = "bid"
        return self.ask(state, rng)

    def after_bid(self, state: State, seat: int, rng: random.Random) -> list[dict]:
        return self.ask(state, rng)

    def ask(self, state: State, rng: random.Random) -> list[dict]:
        p = state["pending"]
        dec = state["decorations"]
        p["waiting"] = [o for o in others_from(p["active"], state["players"])
                        if o != p["high_bidder"] and o not in p["passed"] and dec[o] > p["high"]]
        return [] if p["waiting"] else self.settle(state, rng)


#: ``pending`` while an exchange card is under way (Revelations waits for nobody)
ExchangePending = DancePending | GiftsPending | RumorsPending | PartnerPending | TheftPending | AuctionPending

#: every exchange card's unit, normal cards then auction cards (data.py: NORMAL, AUCTION)
EXCHANGES: tuple[type[Exchange], ...] = (
    Dance, Gifts, Revelations, Rumors, ChooseYourPartner, Theft,
    SingleRoundAuction, SecretAuction, UnfairSecretAuction, SharedAuction, FixedPriceAuction, OpenAuction,
)
