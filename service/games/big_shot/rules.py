"""Big Shot (Alex Randolph): buy cubes at auction, place them, take lots by majority.

Rules: the book (Big Shot, Ravensburger); the board (lot table) and every ruling: service/games/big_shot/rules.md.

Model.  Colours are indices into ``COLORS`` and lots indices into ``LOTS``; moves and views use
the names.  Every colour is its own money pile ("account": cash and debit cards); a seat owns one
colour (3 and 4 players) or two (2 players); with 3 players the left-over colour is the Ghost,
which has no money and never bids.  A round is: the referee rolls the die for the roller and
moves the broker (event ``round_started``); an optional loan step; the auction; the buyer
chooses the paying colour (2 players, when both can pay); the buyer places the four cubes one
move at a time.  After round 18 the open lots are settled and the game is over.

Decisions where the book is silent (chosen here; each is a ruling in service/games/big_shot/rules.md):

- The broker counts from the space after the one it stands on, skipping emptied spaces, and
  goes round the ring again when fewer spaces than the die still hold cubes.
- Standard game (3-4 players, open money): a loan is taken at one's own turn to bid, before
  bidding or passing in that turn; a player who has passed takes no loan that round.
- Loan step (2 players, and the hidden-money variant): from the roller's left round to the
  roller, each seat takes its loans one move at a time (2 players: at most one per colour) and
  ends with ``decline``; a seat with no loan left to take is skipped.
- 2 players: each colour is a separate pile (the loan's money goes to the colour that asked),
  but the k-th loan counts over both of the player's colours together (service/games/big_shot/rules.md,
  "Loans with two players": the second loan of the player pays 8 whichever colour took the first);
  a bid may go up to the larger pile, since one colour pays it.
- Hidden money: only the cash is hidden.  The book keeps debit cards displayed and bids are
  spoken aloud, so loans, bids and the price paid (and by which colour) stay public; a seat
  that keeps books can work the cash out, as at the table.  The referee knows every pile, so a
  bid above one's cash is refused (only the bidder learns why) and the book's "repeat the
  auction" remedy never arises.
- A loan that would pay nothing (the 10th and later) may still be taken (service/games/big_shot/rules.md, "Loans").
- Nobody bids: the roller takes the cubes free; no payment.
- 2 players: the buyer's paying colour is chosen by a ``pay`` move; with open money it is
  made automatically when only one pile can pay, with hidden money it is always asked (an
  automatic payment would tell the opponent the other pile is short).
- The 7th cube cannot fail to close a lot (3/3/1 and 2/2/2/1 always leave one single cube).
  No cube is ever left without an open lot (at most 10 lots can close with 72 cubes), but the
  fallback (the cube leaves the game; service/games/big_shot/rules.md, "Placing cubes") is kept.
- Ties for the win: "the most valuable lot" is a lot's value as counted in the balance (doubled
  next to an own park).  The ranking puts qualified players (2 lots; 2 players: 2 per colour)
  first, ordered by balance, lots, most valuable lot; then the others by the same key.  Still
  tied: a shared place (docs/games/index.md, "Shared wins").  Scores are the balances.
- Scores during the game ("balances" in the view) count closed lots only; hidden cash makes
  another seat's balance hidden too.
"""

from __future__ import annotations

import random
from typing import Annotated, Any, Literal, TypedDict

from marshmallow import Schema, fields, validate

from ..base import BaseOptions, Game, IllegalMove, Outcome, Phase, event, safe_default, span
from ..shape import Column, Custom, Public, Rows, Shape

COLORS = ("red", "yellow", "white", "black")
COLOR_INDEX = {c: i for i, c in enumerate(COLORS)}
# service/games/big_shot/rules.md, "The board": the lots (chosen).  (name, value, the park it touches or None)
LOTS = (
    ("PW", 0, None), ("PE", 0, None),
    ("W9", 9, "PW"), ("W10", 10, "PW"), ("W11", 11, "PW"),
    ("E9", 9, "PE"), ("E10", 10, "PE"), ("E11", 11, "PE"),
    ("C16", 16, None), ("C17", 17, None), ("C18", 18, None), ("C19", 19, None), ("C21", 21, None),
)
LOT_NAMES = tuple(name for name, _, _ in LOTS)
LOT_INDEX = {name: i for i, name in enumerate(LOT_NAMES)}
LOT_VALUE = tuple(value for _, value, _ in LOTS)
LOT_PARK = tuple(None if park is None else LOT_INDEX[park] for _, _, park in LOTS)
PARKS = tuple(i for i, (_, value, park) in enumerate(LOTS) if park is None and value == 0)
NLOTS = len(LOTS)

SPACES = 18  # auction spaces = rounds
CUBES_PER_SPACE = 4
CUBES_PER_COLOR = 18
TOTAL_CUBES = CUBES_PER_COLOR * len(COLORS)  # 72
MAX_ON_LOT = 7
START_CASH = 10  # millions, per colour
DEBIT = 10  # what each debit card costs at the end
MIN_LOTS = 2  # lots needed to win (2 players: per colour)


Color = Literal["red", "yellow", "white", "black"]


class Cubes(TypedDict, total=False):
    """A count per colour; colours with none may be left out."""

    red: int
    yellow: int
    white: int
    black: int


class Seat(TypedDict):
    seat: int
    colors: list[Color]




class BigShotState(TypedDict):
    """A match: colours are indices into ``COLORS``, lots into ``LOTS``; per-colour lists are its money piles."""

    players: int
    hidden_money: bool
    owner: list[int | None]  # per colour, its seat (None: the Ghost, 3 players)
    spaces: list[list[int]]  # each auction space's cubes, sorted; emptied once bought
    broker: int  # the space the broker stands on
    round: int
    die: int | None  # this round's roll (None only while setting up)
    roller: int
    phase: Literal["start", "loans", "bidding", "pay", "place", "over"]
    turn: int | None  # None once the match is over
    loan_seats_done: int  # seats through with the loan step this round
    high_bid: int
    high_bidder: int | None
    passed: list[bool]  # per seat, this auction
    loaned: list[bool]  # per colour, this round
    buyer: int | None
    price: int
    hand: list[int]  # the bought cubes still to place
    lots: list[list[int]]  # per lot, cubes per colour
    lot_owner: list[int | None]  # per lot, the colour that took it
    closed: list[bool]  # per lot
    removed: int  # cubes out of the game
    cash: list[int]  # per colour, millions
    debits: list[int]  # per colour, debit cards
    paid: int  # millions paid to the bank
    over: bool


class Options(BaseOptions):
    hidden_money = fields.Boolean(
        load_default=False,
        metadata={"description": "The challenging variant: cash is hidden from the other seats and loans "
                                 "are requested in a loan step before the auction."},
    )


class BidMove(Schema):
    amount = fields.Integer(required=True, validate=validate.Range(min=1, max=100_000),
                            metadata={"description": "Millions; higher than the last bid, at most your cash."})


class PassMove(Schema):
    """Leave the auction for this round (final)."""


class LoanMove(Schema):
    color = fields.String(validate=validate.OneOf(COLORS),
                          metadata={"description": "The colour (money pile) that borrows; may be omitted "
                                                   "when the seat has one colour."})


class DeclineMove(Schema):
    """No (further) loan this round: ends the seat's part of the loan step."""


class PayMove(Schema):
    color = fields.String(required=True, validate=validate.OneOf(COLORS),
                          metadata={"description": "2 players: which of the buyer's colours pays the price."})


class PlaceMove(Schema):
    color = fields.String(required=True, validate=validate.OneOf(COLORS),
                          metadata={"description": "Colour of one of the bought cubes still in hand."})
    lot = fields.String(required=True, validate=validate.OneOf(LOT_NAMES),
                        metadata={"description": "An open lot (fewer than 7 cubes, not yet acquired)."})


# -- pure rules helpers (also used by the bot and the tests) ---------------------------------
def lot_winner(counts: list[int]) -> int | None:
    """Who takes a lot (book: Acquiring Lots; End of the game): undisputed majority, else the
    single colour with exactly one cube when the top is tied (3/3/1, 2/2/2/1, 2/2/1), else nobody."""
    top = max(counts)
    if top == 0:
        return None
    tops = [c for c, n in enumerate(counts) if n == top]
    if len(tops) == 1:
        return tops[0]
    ones = [c for c, n in enumerate(counts) if n == 1]
    return ones[0] if len(ones) == 1 else None


def lot_worth(owners: list[int | None]) -> list[int]:
    """Each lot's value to its owner: doubled next to a park the same colour owns (book: Reminder)."""
    out = []
    for i, owner in enumerate(owners):
        park = LOT_PARK[i]
        value = LOT_VALUE[i]
        if owner is not None and park is not None and owners[park] == owner:
            value *= 2
        out.append(0 if owner is None else value)
    return out


def loan_payout(k: int) -> int:
    """The k-th loan pays 10 - k millions, never below 0 (book: Loans)."""
    return max(0, DEBIT - k)


def loans_paid_out(debits: int) -> int:
    return sum(loan_payout(k) for k in range(1, debits + 1))


def seat_colors(owner: list[int | None], seat: int) -> list[int]:
    return [c for c, s in enumerate(owner) if s == seat]


def tally(state: BigShotState) -> list[dict]:
    """Each seat's balance sheet from the lots owned so far, cash and debit cards."""
    worth = lot_worth(state["lot_owner"])
    sheets = []
    for seat in range(state["players"]):
        colors = seat_colors(state["owner"], seat)
        lots = [i for i in range(NLOTS) if state["lot_owner"][i] in colors]
        values = sum(worth[i] for i in lots)
        cash = sum(state["cash"][c] for c in colors)
        debt = DEBIT * sum(state["debits"][c] for c in colors)
        per_color = {COLORS[c]: sum(1 for i in lots if state["lot_owner"][i] == c) for c in colors}
        sheets.append({
            "colors": [COLORS[c] for c in colors],
            "lots": [LOT_NAMES[i] for i in lots],
            "lots_per_color": per_color,
            "lot_values": values,
            "cash": cash,
            "debt": debt,
            "balance": values + cash - debt,
            "best_lot": max((worth[i] for i in lots), default=0),
            "qualified": all(n >= MIN_LOTS for n in per_color.values()),
        })
    return sheets


def advance_broker(spaces: list[list[int]], pos: int, die: int) -> int:
    """Move clockwise ``die`` steps counting only spaces that still hold cubes (book: Moving the Broker)."""
    for _ in range(die):
        pos = (pos + 1) % SPACES
        while not spaces[pos]:
            pos = (pos + 1) % SPACES
    return pos


def deal_cubes(rng: random.Random) -> list[list[int]]:
    """72 cubes at random, 4 per space, at least 2 colours on every space (book: Preparations).

    Rejection sampling keeps every such layout equally likely."""
    cubes = [c for c in range(len(COLORS)) for _ in range(CUBES_PER_COLOR)]
    while True:
        rng.shuffle(cubes)
        spaces = [sorted(cubes[i:i + CUBES_PER_SPACE]) for i in range(0, TOTAL_CUBES, CUBES_PER_SPACE)]
        if all(s[0] != s[-1] for s in spaces):
            return spaces


def cash_seen(state: BigShotState, seat: int | None) -> list[bool]:
    """Per colour, whether ``seat`` sees its cash: open money, the end of the match, or its own pile
    (book: the challenging variant)."""
    if not state["hidden_money"] or state["over"]:
        return [True] * len(COLORS)
    return [seat is not None and owner == seat for owner in state["owner"]]


def _names(colors: list[int]) -> list[str]:
    return [COLORS[c] for c in colors]


def _indices(names: list[str]) -> list[int]:
    return [COLOR_INDEX[c] for c in names]


def _show_cubes(lots: list[list[int]]) -> list[dict[str, int]]:
    return [{COLORS[c]: n for c, n in enumerate(counts) if n} for counts in lots]


def _read_cubes(shown: list[dict[str, int]]) -> list[list[int]]:
    lots = [[0] * len(COLORS) for _ in shown]
    for counts, cubes in zip(lots, shown):
        for name, k in cubes.items():
            counts[COLOR_INDEX[name]] = k
    return lots


def _show_cash(view: dict, state: BigShotState, seat: int | None) -> None:
    seen = cash_seen(state, seat)
    for account in view["accounts"]:
        c = COLOR_INDEX[account["color"]]
        account["cash"] = state["cash"][c] if seen[c] else None


def _read_cash(view: dict, seat: int) -> list[int | None]:
    """Shown piles as they are, hidden ones None (for ``deal``), the Ghost's 0."""
    cash: list[int | None] = [0] * len(COLORS)
    for account in view["accounts"]:
        cash[COLOR_INDEX[account["color"]]] = account["cash"]
    return cash


def _show_passed(view: dict, state: BigShotState, seat: int | None) -> None:
    view["auction"]["passed"] = [s for s, p in enumerate(state["passed"]) if p]


def _read_passed(view: dict, seat: int) -> list[bool]:
    passed = [False] * view["players"]
    for s in view["auction"]["passed"]:
        passed[s] = True
    return passed


#: one record per colour in play (the Ghost has none) and one per lot
ACCOUNTS = Rows("accounts", tuple({"color": c} for c in COLORS),
                select=lambda state: [c for c, seat in enumerate(state["owner"]) if seat is not None],
                index=lambda account: COLOR_INDEX[account["color"]])
LOT_TABLE = Rows("lots", tuple({"lot": LOT_NAMES[i], "value": LOT_VALUE[i],
                                "park": None if LOT_PARK[i] is None else LOT_NAMES[LOT_PARK[i]]} for i in range(NLOTS)))
#: all is open but the cash of other seats in the hidden-money variant (and that only until the end)
SHAPE = Shape(
    BigShotState,
    players=Public(),
    hidden_money=Public(),
    owner=Column(ACCOUNTS, "seat", shown=int),  # the Ghost (None) has no account
    spaces=Public(show=lambda spaces: [[COLORS[c] for c in s] for s in spaces],
                  read=lambda spaces: [[COLOR_INDEX[c] for c in s] for s in spaces], shown=list[list[Color]]),
    broker=Public(),
    round=Public(),
    die=Public(),
    roller=Public(),
    phase=Public(),
    turn=Public(),
    loan_seats_done=Public(),
    high_bid=Public("auction.high_bid"),
    high_bidder=Public("auction.high_bidder"),
    passed=Custom(_show_passed, _read_passed, shows={"auction.passed": list[int]}),
    loaned=Column(ACCOUNTS, "loaned_this_round", absent=False),
    buyer=Public(),
    price=Public(),
    hand=Public(show=_names, read=_indices, shown=list[Color]),
    lots=Column(LOT_TABLE, "cubes", show=_show_cubes, read=_read_cubes, shown=Cubes),
    lot_owner=Column(LOT_TABLE, "owner", show=lambda owners: [None if c is None else COLORS[c] for c in owners],
                     read=lambda names: [None if name is None else COLOR_INDEX[name] for name in names],
                     shown=Color | None),
    closed=Column(LOT_TABLE, "closed"),
    removed=Public(),
    cash=Custom(_show_cash, _read_cash,
                shows={"accounts[].cash": Annotated[int | None, "null when money is hidden."]}),
    debits=Column(ACCOUNTS, "debits", absent=0),
    paid=Public("paid_to_bank"),
    over=Custom(take=lambda view, seat: view["turn"] is None),
)


class BigShot(Game):
    name = "big_shot"
    title = "Big Shot"
    min_players = 2
    max_players = 4
    Options = Options
    moves = {"bid": BidMove, "pass": PassMove, "loan": LoanMove, "decline": DeclineMove,
             "pay": PayMove, "place": PlaceMove}
    variants = ({}, {"hidden_money": True})
    shape = SHAPE
    presents = {"rounds": int, "seats": list[Seat],
                "ghost": Annotated[Color | None, "2 players: the colour nobody owns."],
                "auction.space": int, "auction.cubes": list[Color], "balances": list[int | None]}
    #: book: 2) Auction, Loans, Acquiring Lots; the loan step and the paying colour: service/games/big_shot/rules.md,
    #: "Loans" and "Paying"
    phases = {
        "loans": Phase({"loan": "_loan", "decline": "_decline"}, "Take a loan or decline before the bidding starts."),
        "bidding": Phase({"bid": "_bid", "pass": "_pass", "loan": "_loan"}, "Bid or pass."),
        "bidding_after_loans": Phase({"bid": "_bid", "pass": "_pass"},
                                     "Bid or pass; loans are requested before the bidding in this game."),
        "pay": Phase({"pay": "_pay_move"}, "Choose which of your colours pays the price."),
        "place": Phase({"place": "_place"}, "Place the cubes you bought, one at a time."),
    }

    def setup(self, players: int, options: dict[str, Any], rng: random.Random) -> BigShotState:
        colors = list(range(len(COLORS)))
        rng.shuffle(colors)  # the calling cards are shuffled and dealt
        owner: list[int | None] = [None] * len(COLORS)
        for i, c in enumerate(colors):
            if players == 2:
                owner[c] = i // 2
            elif i < players:
                owner[c] = i  # 3 players: the left-over colour stays None, the Ghost
        spaces = deal_cubes(rng)
        broker = rng.randrange(SPACES)
        first = self.first_seat(players, options, rng)
        state = BigShotState(
            players=players,
            hidden_money=bool(options.get("hidden_money")),
            owner=owner,
            spaces=spaces,
            broker=broker,
            round=0,
            die=None,
            roller=(first - 1) % players,  # _start_round passes the die on to ``first``
            phase="start",
            turn=first,
            loan_seats_done=0,
            high_bid=0,
            high_bidder=None,
            passed=[False] * players,
            loaned=[False] * len(COLORS),
            buyer=None,
            price=0,
            hand=[],
            lots=[[0] * len(COLORS) for _ in range(NLOTS)],
            lot_owner=[None] * NLOTS,
            closed=[False] * NLOTS,
            removed=0,
            cash=[START_CASH if o is not None else 0 for o in owner],
            debits=[0] * len(COLORS),
            paid=0,
            over=False,
        )
        self._start_round(state, rng)
        return state

    @staticmethod
    def loan_step(state: BigShotState) -> bool:
        """2 players and the hidden-money variant ask for loans before the bidding (book)."""
        return state["players"] == 2 or state["hidden_money"]

    # -- the round -------------------------------------------------------------------------
    def _start_round(self, state: BigShotState, rng: random.Random) -> list[dict]:
        n = state["players"]
        state["round"] += 1
        state["roller"] = roller = (state["roller"] + 1) % n
        die = rng.randint(1, 6)
        start = state["broker"]
        state["broker"] = pos = advance_broker(state["spaces"], start, die)
        state["die"] = die
        state["high_bid"] = 0
        state["high_bidder"] = None
        state["passed"] = [False] * n
        state["loaned"] = [False] * len(COLORS)
        state["buyer"] = None
        state["price"] = 0
        state["loan_seats_done"] = 0
        state["turn"] = (roller + 1) % n
        events = [event("round_started", {
            "round": state["round"], "roller": roller, "die": die, "from": start, "space": pos,
            "cubes": [COLORS[c] for c in state["spaces"][pos]],
        })]
        if self.loan_step(state):
            state["phase"] = "loans"
            self._skip_loanless(state)
        else:
            state["phase"] = "bidding"
        return events

    def _loans_open(self, state: BigShotState, seat: int) -> list[int]:
        return [c for c in seat_colors(state["owner"], seat) if not state["loaned"][c]]

    def _skip_loanless(self, state: BigShotState) -> None:
        """Move the loan step on past seats with nothing left to borrow; then the bidding starts."""
        n = state["players"]
        while state["loan_seats_done"] < n and not self._loans_open(state, state["turn"]):
            state["loan_seats_done"] += 1
            state["turn"] = (state["turn"] + 1) % n
        if state["loan_seats_done"] >= n:
            state["phase"] = "bidding"
            state["turn"] = (state["roller"] + 1) % n

    def _max_bid(self, state: BigShotState, seat: int) -> int:
        return max(state["cash"][c] for c in seat_colors(state["owner"], seat))

    # -- whose decision --------------------------------------------------------------------
    def to_act(self, state: BigShotState) -> list[int]:
        return [] if state["over"] else [state["turn"]]

    def legal_moves(self, state: BigShotState, seat: int) -> list[dict]:
        if state["over"] or seat != state["turn"]:
            return []
        phase = state["phase"]
        if phase == "place":
            open_lots = [LOT_NAMES[i] for i in range(NLOTS) if not state["closed"][i]]
            return [{"type": "place", "color": COLORS[c], "lot": lot}
                    for c in sorted(set(state["hand"])) for lot in open_lots]
        if phase == "bidding":
            moves = []
            lo, hi = state["high_bid"] + 1, self._max_bid(state, seat)
            if lo <= hi:
                moves.append({"type": "bid", "amount": span(lo, hi)})
            if not self.loan_step(state):
                moves += [{"type": "loan", "color": COLORS[c]} for c in self._loans_open(state, seat)]
            moves.append({"type": "pass"})
            return moves
        if phase == "loans":
            return [{"type": "loan", "color": COLORS[c]} for c in self._loans_open(state, seat)] + [
                {"type": "decline"}]
        # phase == "pay"
        return [{"type": "pay", "color": COLORS[c]} for c in self._payers(state, seat)]

    def _payers(self, state: BigShotState, seat: int) -> list[int]:
        return [c for c in seat_colors(state["owner"], seat) if state["cash"][c] >= state["price"]]

    # -- applying --------------------------------------------------------------------------
    def phase(self, state: BigShotState) -> str:
        """The bidding allows loans only where no loan step comes before it (book: Loans)."""
        phase = state["phase"]
        return "bidding_after_loans" if phase == "bidding" and self.loan_step(state) else phase

    def _decline(self, state: BigShotState, seat: int, move: dict, rng: random.Random) -> list[dict]:
        state["loan_seats_done"] += 1
        state["turn"] = (seat + 1) % state["players"]
        self._skip_loanless(state)
        return [event("loans_done", {"seat": seat})]

    def _pay_move(self, state: BigShotState, seat: int, move: dict, rng: random.Random) -> list[dict]:
        color = COLOR_INDEX[move["color"]]
        if state["owner"][color] != seat:
            raise IllegalMove(f"{move['color'].capitalize()} is not your colour.", "not_your_color")
        if state["cash"][color] < state["price"]:
            raise IllegalMove(f"{move['color'].capitalize()} cannot pay {state['price']} million.", "cannot_pay")
        return self._pay(state, seat, color)

    def _loan(self, state: BigShotState, seat: int, move: dict, rng: random.Random) -> list[dict]:
        mine = seat_colors(state["owner"], seat)
        name = move.get("color")
        if name is None:
            if len(mine) != 1:
                raise IllegalMove("Name the colour that takes the loan.", "color_required")
            color = mine[0]
        else:
            color = COLOR_INDEX[name]
            if color not in mine:
                raise IllegalMove(f"{name.capitalize()} is not your colour.", "not_your_color")
        if state["loaned"][color]:
            raise IllegalMove("Only one loan per round (2 players: per colour).", "loan_taken")
        state["loaned"][color] = True
        state["debits"][color] += 1
        received = loan_payout(sum(state["debits"][c] for c in mine))
        state["cash"][color] += received
        events = [event("loan", {"seat": seat, "color": COLORS[color], "received": received,
                                 "debits": state["debits"][color]})]
        if state["phase"] == "loans" and not self._loans_open(state, seat):
            state["loan_seats_done"] += 1
            state["turn"] = (seat + 1) % state["players"]
            self._skip_loanless(state)
        return events

    def _bid(self, state: BigShotState, seat: int, move: dict, rng: random.Random) -> list[dict]:
        amount = move["amount"]
        if amount <= state["high_bid"]:
            raise IllegalMove(f"A bid must be higher than {state['high_bid']} million.", "bid_too_low")
        cash = self._max_bid(state, seat)
        if amount > cash:
            raise IllegalMove(f"You have only {cash} million; you cannot bid {amount}.", "bid_above_cash")
        state["high_bid"] = amount
        state["high_bidder"] = seat
        self._next_bidder(state, seat)
        return [event("bid", {"seat": seat, "amount": amount})]

    def _pass(self, state: BigShotState, seat: int, move: dict, rng: random.Random) -> list[dict]:
        state["passed"][seat] = True
        events = [event("passed", {"seat": seat})]
        left = [s for s in range(state["players"]) if not state["passed"][s]]
        if len(left) == 1:
            return events + self._auction_won(state, left[0])
        self._next_bidder(state, seat)
        return events

    def _next_bidder(self, state: BigShotState, seat: int) -> None:
        n = state["players"]
        s = (seat + 1) % n
        while state["passed"][s]:
            s = (s + 1) % n
        state["turn"] = s

    def _auction_won(self, state: BigShotState, buyer: int) -> list[dict]:
        """All but one passed: the high bidder buys; with no bid the roller takes them free (book Note)."""
        price = state["high_bid"] if state["high_bidder"] is not None else 0
        state["buyer"] = state["turn"] = buyer
        state["price"] = price
        events = [event("auction_won", {"seat": buyer, "price": price})]
        if price == 0:
            return events + self._pick_up(state)
        payers = self._payers(state, buyer)
        # With hidden money the buyer always chooses, so nobody learns that only one pile could pay.
        if len(payers) == 1 and (len(seat_colors(state["owner"], buyer)) == 1 or not state["hidden_money"]):
            return events + self._pay(state, buyer, payers[0])
        state["phase"] = "pay"
        return events

    def _pay(self, state: BigShotState, seat: int, color: int) -> list[dict]:
        price = state["price"]
        state["cash"][color] -= price
        state["paid"] += price
        return [event("paid", {"seat": seat, "color": COLORS[color], "amount": price})] + self._pick_up(state)

    def _pick_up(self, state: BigShotState) -> list[dict]:
        space = state["broker"]
        state["hand"] = state["spaces"][space]
        state["spaces"][space] = []
        state["phase"] = "place"
        return []

    def _place(self, state: BigShotState, seat: int, move: dict, rng: random.Random) -> list[dict]:
        color, lot = COLOR_INDEX[move["color"]], LOT_INDEX[move["lot"]]
        if color not in state["hand"]:
            raise IllegalMove(f"You hold no {move['color']} cube to place.", "cube_not_in_hand")
        if state["closed"][lot]:
            raise IllegalMove(f"Lot {move['lot']} is already sold.", "lot_closed")
        state["hand"].remove(color)
        counts = state["lots"][lot]
        counts[color] += 1
        events = [event("placed", {"seat": seat, "color": move["color"], "lot": move["lot"]})]
        if sum(counts) == MAX_ON_LOT:  # the seventh cube closes the lot at once (book: Acquiring Lots)
            events += self._settle(state, lot)
        events += self._discard_unplaceable(state)
        if not state["hand"]:
            events += self._end_round(state, rng)
        return events

    def _discard_unplaceable(self, state: BigShotState) -> list[dict]:
        """service/games/big_shot/rules.md, "Placing cubes": a cube with no open lot leaves the game (cannot happen
        with 72 cubes; kept as the rule)."""
        if state["hand"] and all(state["closed"]):
            gone = state["hand"]
            state["removed"] += len(gone)
            state["hand"] = []
            return [event("cubes_removed", {"cubes": [COLORS[c] for c in gone]})]
        return []

    def _settle(self, state: BigShotState, lot: int) -> list[dict]:
        """A lot is decided: the winner keeps one cube (the SOLD card under it), the rest leave."""
        counts = state["lots"][lot]
        winner = lot_winner(counts)
        state["closed"][lot] = True
        state["lot_owner"][lot] = winner
        total = sum(counts)
        cubes = {COLORS[c]: n for c, n in enumerate(counts) if n}
        state["removed"] += total - (1 if winner is not None else 0)
        state["lots"][lot] = [1 if c == winner else 0 for c in range(len(COLORS))]
        owner = None if winner is None else state["owner"][winner]
        return [event("lot_sold" if winner is not None else "lot_void", {
            "lot": LOT_NAMES[lot], "color": None if winner is None else COLORS[winner], "seat": owner,
            "cubes": cubes})]

    def _end_round(self, state: BigShotState, rng: random.Random) -> list[dict]:
        if state["round"] < SPACES:
            return self._start_round(state, rng)
        events = []
        for lot in range(NLOTS):  # book: End of the game -- every open lot is settled
            if not state["closed"][lot]:
                events += self._settle(state, lot)
        state["over"] = True
        state["phase"] = "over"
        state["turn"] = None
        result = self.final_result(state)
        return events + [event("game_over", {"scores": result.scores, "winners": result.winners})]

    # -- what a seat sees ------------------------------------------------------------------
    def present(self, view: dict, state: BigShotState, seat: int | None) -> None:
        """The rounds, who holds which colours, the lot up for auction and the balances the seat can work out."""
        owner = state["owner"]
        ghost = [COLORS[c] for c, s in enumerate(owner) if s is None]
        view["rounds"] = SPACES
        view["seats"] = [{"seat": s, "colors": _names(seat_colors(owner, s))} for s in range(state["players"])]
        view["ghost"] = ghost[0] if ghost else None
        view["auction"]["space"] = state["broker"]
        view["auction"]["cubes"] = _names(state["spaces"][state["broker"]])
        seen = cash_seen(state, seat)
        view["balances"] = [sh["balance"] if all(seen[COLOR_INDEX[c]] for c in sh["colors"]) else None
                            for sh in tally(state)]

    def is_over(self, state: BigShotState) -> bool:
        return state["over"]

    def final_result(self, state: BigShotState) -> Outcome:
        """Book: best balance among players with at least two lots; ties by lots, then the best lot."""
        sheets = tally(state)

        def key(s: int) -> tuple:
            sh = sheets[s]
            return (sh["qualified"], sh["balance"], len(sh["lots"]), sh["best_lot"])

        order = sorted(range(state["players"]), key=key, reverse=True)
        ranking: list[list[int]] = []
        for s in order:
            if ranking and key(ranking[-1][0]) == key(s):
                ranking[-1].append(s)
            else:
                ranking.append([s])
        winners = list(ranking[0]) if sheets[ranking[0][0]]["qualified"] else []
        return Outcome([sh["balance"] for sh in sheets], ranking, winners, sheets)

    def deal(self, state: BigShotState, view: dict, seat: int, rng: random.Random) -> None:
        """Only other seats' cash can be hidden; guess it between what a bid they made needs and
        what they could at most hold (start capital plus their loans)."""
        n, cash = state["players"], state["cash"]
        hidden = [c for c in range(len(COLORS)) if cash[c] is None]
        for c in hidden:
            need = self._owes(state, state["owner"][c])
            hi = max(need, START_CASH + loans_paid_out(state["debits"][c]))
            # one pile per seat must cover its standing bid or price; with 2 players, either pile (below)
            cash[c] = rng.randint(need if n > 2 else 0, hi)
        if n == 2 and state["phase"] in ("bidding", "pay"):  # a live bid needs one pile that covers it
            for s in range(n):
                mine = seat_colors(state["owner"], s)
                if any(c not in hidden for c in mine):
                    continue  # shown piles are as they are
                need = self._owes(state, s)
                if max(cash[c] for c in mine) < need:
                    cash[rng.choice(mine)] = need

    @staticmethod
    def _owes(state: BigShotState, seat: int) -> int:
        """What a seat must be able to pay: its standing bid, or the price it has to pay now."""
        if state["phase"] == "pay" and state["buyer"] == seat:
            return state["price"]
        return state["high_bid"] if state["high_bidder"] == seat else 0


GAME = BigShot()


def default_move(state: BigShotState, seat: int) -> dict:
    """On a timeout or for a seat that is out: pass in an auction and decline a loan (nothing
    spent, nothing owed); a placement or a payment, which cannot be refused, takes the first legal one."""
    return safe_default(GAME.legal_moves(state, seat), ("pass", "decline"))
