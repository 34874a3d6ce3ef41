"""Big Shot (Alex Randolph): buy cubes at auction, place them, take lots by majority.

Rules: shared/rules/big_shot.txt; the board (lot table) and rulings: RULINGS.md, "Big Shot".

Model.  Colours are indices into ``COLORS`` and lots indices into ``LOTS``; moves and views use
the names.  Every colour is its own money pile ("account": cash and debit cards); a seat owns one
colour (3 and 4 players) or two (2 players); with 3 players the left-over colour is the Ghost,
which has no money and never bids.  A round is: the referee rolls the die for the roller and
moves the broker (event ``round_started``); an optional loan step; the auction; the buyer
chooses the paying colour (2 players, when both can pay); the buyer places the four cubes one
move at a time.  After round 18 the open lots are settled and the game is over.

Decisions where the book and RULINGS.md are silent (chosen here):

- The broker counts from the space after the one it stands on, skipping emptied spaces, and
  goes round the ring again when fewer spaces than the die still hold cubes.
- Standard game (3-4 players, open money): a loan is taken at one's own turn to bid, before
  bidding or passing in that turn; a player who has passed takes no loan that round.
- Loan step (2 players, and the hidden-money variant): from the roller's left round to the
  roller, each seat takes its loans one move at a time (2 players: at most one per colour) and
  ends with ``decline``; a seat with no loan left to take is skipped.
- 2 players: each colour is a separate pile (the loan's money goes to the colour that asked),
  but the k-th loan counts over both of the player's colours together (RULINGS.md: the second
  loan of the player pays 8 whichever colour took the first); a bid may go up to the larger
  pile, since one colour pays it.
- Hidden money: only the cash is hidden.  The book keeps debit cards displayed and bids are
  spoken aloud, so loans, bids and the price paid (and by which colour) stay public; a seat
  that keeps books can work the cash out, as at the table.  The referee knows every pile, so a
  bid above one's cash is refused (only the bidder learns why) and the book's "repeat the
  auction" remedy never arises.
- A loan that would pay nothing (the 10th and later) may still be taken (RULINGS: never below 0).
- Nobody bids: the roller takes the cubes free; no payment.
- 2 players: the buyer's paying colour is chosen by a ``pay`` move; with open money it is
  made automatically when only one pile can pay, with hidden money it is always asked (an
  automatic payment would tell the opponent the other pile is short).
- The 7th cube cannot fail to close a lot (3/3/1 and 2/2/2/1 always leave one single cube).
  No cube is ever left without an open lot (at most 10 lots can close with 72 cubes), but the
  RULINGS fallback (the cube leaves the game) is kept.
- Ties for the win: "the most valuable lot" is a lot's value as counted in the balance (doubled
  next to an own park).  The ranking puts qualified players (2 lots; 2 players: 2 per colour)
  first, ordered by balance, lots, most valuable lot; then the others by the same key.  Still
  tied: a shared place (RULINGS conventions).  Scores are the balances.
- Scores during the game ("balances" in the view) count closed lots only; hidden cash makes
  another seat's balance hidden too.
"""

from __future__ import annotations

import random
from typing import Any

from marshmallow import Schema, fields, validate

from .base import BaseOptions, Game, IllegalMove, Outcome, Phase, State, event, safe_default, span

COLORS = ("red", "yellow", "white", "black")
COLOR_INDEX = {c: i for i, c in enumerate(COLORS)}
# RULINGS.md, Big Shot: the lots (chosen).  (name, value, the park it touches or None)
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


def tally(state: State) -> list[dict]:
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


class BigShot(Game):
    name = "big_shot"
    title = "Big Shot"
    min_players = 2
    max_players = 4
    Options = Options
    moves = {"bid": BidMove, "pass": PassMove, "loan": LoanMove, "decline": DeclineMove,
             "pay": PayMove, "place": PlaceMove}
    variants = ({}, {"hidden_money": True})
    #: book: An auction, Loans, Placing the cubes; RULINGS.md: the loan step and the paying colour
    phases = {
        "loans": Phase({"loan": "_loan", "decline": "_decline"}, "Take a loan or decline before the bidding starts."),
        "bidding": Phase({"bid": "_bid", "pass": "_pass", "loan": "_loan"}, "Bid or pass."),
        "bidding_after_loans": Phase({"bid": "_bid", "pass": "_pass"},
                                     "Bid or pass; loans are requested before the bidding in this game."),
        "pay": Phase({"pay": "_pay_move"}, "Choose which of your colours pays the price."),
        "place": Phase({"place": "_place"}, "Place the cubes you bought, one at a time."),
    }

    def setup(self, players: int, options: dict[str, Any], rng: random.Random) -> State:
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
        state: State = {
            "players": players,
            "hidden_money": bool(options.get("hidden_money")),
            "owner": owner,
            "spaces": spaces,
            "broker": broker,
            "round": 0,
            "die": None,
            "roller": (first - 1) % players,  # _start_round passes the die on to ``first``
            "phase": "start",
            "turn": first,
            "loan_seats_done": 0,
            "high_bid": 0,
            "high_bidder": None,
            "passed": [False] * players,
            "loaned": [False] * len(COLORS),
            "buyer": None,
            "price": 0,
            "hand": [],
            "lots": [[0] * len(COLORS) for _ in range(NLOTS)],
            "lot_owner": [None] * NLOTS,
            "closed": [False] * NLOTS,
            "removed": 0,
            "cash": [START_CASH if o is not None else 0 for o in owner],
            "debits": [0] * len(COLORS),
            "paid": 0,
            "over": False,
        }
        self._start_round(state, rng)
        return state

    @staticmethod
    def loan_step(state: State) -> bool:
        """2 players and the hidden-money variant ask for loans before the bidding (book)."""
        return state["players"] == 2 or state["hidden_money"]

    # -- the round -------------------------------------------------------------------------
    def _start_round(self, state: State, rng: random.Random) -> list[dict]:
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

    def _loans_open(self, state: State, seat: int) -> list[int]:
        return [c for c in seat_colors(state["owner"], seat) if not state["loaned"][c]]

    def _skip_loanless(self, state: State) -> None:
        """Move the loan step on past seats with nothing left to borrow; then the bidding starts."""
        n = state["players"]
        while state["loan_seats_done"] < n and not self._loans_open(state, state["turn"]):
            state["loan_seats_done"] += 1
            state["turn"] = (state["turn"] + 1) % n
        if state["loan_seats_done"] >= n:
            state["phase"] = "bidding"
            state["turn"] = (state["roller"] + 1) % n

    def _max_bid(self, state: State, seat: int) -> int:
        return max(state["cash"][c] for c in seat_colors(state["owner"], seat))

    # -- whose decision --------------------------------------------------------------------
    def to_act(self, state: State) -> list[int]:
        return [] if state["over"] else [state["turn"]]

    def legal_moves(self, state: State, seat: int) -> list[dict]:
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

    def _payers(self, state: State, seat: int) -> list[int]:
        return [c for c in seat_colors(state["owner"], seat) if state["cash"][c] >= state["price"]]

    # -- applying --------------------------------------------------------------------------
    def phase(self, state: State) -> str:
        """The bidding allows loans only where no loan step comes before it (book: Loans)."""
        phase = state["phase"]
        return "bidding_after_loans" if phase == "bidding" and self.loan_step(state) else phase

    def _decline(self, state: State, seat: int, move: dict, rng: random.Random) -> list[dict]:
        state["loan_seats_done"] += 1
        state["turn"] = (seat + 1) % state["players"]
        self._skip_loanless(state)
        return [event("loans_done", {"seat": seat})]

    def _pay_move(self, state: State, seat: int, move: dict, rng: random.Random) -> list[dict]:
        color = COLOR_INDEX[move["color"]]
        if state["owner"][color] != seat:
            raise IllegalMove(f"{move['color'].capitalize()} is not your colour.", "not_your_color")
        if state["cash"][color] < state["price"]:
            raise IllegalMove(f"{move['color'].capitalize()} cannot pay {state['price']} million.", "cannot_pay")
        return self._pay(state, seat, color)

    def _loan(self, state: State, seat: int, move: dict, rng: random.Random) -> list[dict]:
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

    def _bid(self, state: State, seat: int, move: dict, rng: random.Random) -> list[dict]:
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

    def _pass(self, state: State, seat: int, move: dict, rng: random.Random) -> list[dict]:
        state["passed"][seat] = True
        events = [event("passed", {"seat": seat})]
        left = [s for s in range(state["players"]) if not state["passed"][s]]
        if len(left) == 1:
            return events + self._auction_won(state, left[0])
        self._next_bidder(state, seat)
        return events

    def _next_bidder(self, state: State, seat: int) -> None:
        n = state["players"]
        s = (seat + 1) % n
        while state["passed"][s]:
            s = (s + 1) % n
        state["turn"] = s

    def _auction_won(self, state: State, buyer: int) -> list[dict]:
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

    def _pay(self, state: State, seat: int, color: int) -> list[dict]:
        price = state["price"]
        state["cash"][color] -= price
        state["paid"] += price
        return [event("paid", {"seat": seat, "color": COLORS[color], "amount": price})] + self._pick_up(state)

    def _pick_up(self, state: State) -> list[dict]:
        space = state["broker"]
        state["hand"] = state["spaces"][space]
        state["spaces"][space] = []
        state["phase"] = "place"
        return []

    def _place(self, state: State, seat: int, move: dict, rng: random.Random) -> list[dict]:
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

    def _discard_unplaceable(self, state: State) -> list[dict]:
        """RULINGS: a cube with no open lot leaves the game (cannot happen with 72 cubes; kept as the rule)."""
        if state["hand"] and all(state["closed"]):
            gone = state["hand"]
            state["removed"] += len(gone)
            state["hand"] = []
            return [event("cubes_removed", {"cubes": [COLORS[c] for c in gone]})]
        return []

    def _settle(self, state: State, lot: int) -> list[dict]:
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

    def _end_round(self, state: State, rng: random.Random) -> list[dict]:
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
    def view(self, state: State, seat: int | None) -> dict:
        over = state["over"]
        hide = state["hidden_money"] and not over
        owner = state["owner"]

        def visible(color: int) -> bool:
            return not hide or (seat is not None and owner[color] == seat)

        sheets = tally(state)
        accounts = [{"color": COLORS[c], "seat": owner[c],
                     "cash": state["cash"][c] if visible(c) else None,
                     "debits": state["debits"][c], "loaned_this_round": state["loaned"][c]}
                    for c in range(len(COLORS)) if owner[c] is not None]
        balances = [sh["balance"] if all(visible(COLORS.index(c)) for c in sh["colors"]) else None
                    for sh in sheets]
        ghost = [COLORS[c] for c in range(len(COLORS)) if owner[c] is None]
        return {
            "you": seat,
            "players": state["players"],
            "hidden_money": state["hidden_money"],
            "round": state["round"],
            "rounds": SPACES,
            "phase": state["phase"],
            "turn": None if over else state["turn"],
            "roller": state["roller"],
            "die": state["die"],
            "broker": state["broker"],
            "spaces": [[COLORS[c] for c in s] for s in state["spaces"]],
            "seats": [{"seat": s, "colors": [COLORS[c] for c in seat_colors(owner, s)]}
                      for s in range(state["players"])],
            "ghost": ghost[0] if ghost else None,
            "accounts": accounts,
            "loan_seats_done": state["loan_seats_done"],
            "auction": {"space": state["broker"], "cubes": [COLORS[c] for c in state["spaces"][state["broker"]]],
                        "high_bid": state["high_bid"], "high_bidder": state["high_bidder"],
                        "passed": [s for s in range(state["players"]) if state["passed"][s]]},
            "buyer": state["buyer"],
            "price": state["price"],
            "hand": [COLORS[c] for c in state["hand"]],
            "lots": [{"lot": LOT_NAMES[i], "value": LOT_VALUE[i],
                      "park": None if LOT_PARK[i] is None else LOT_NAMES[LOT_PARK[i]],
                      "cubes": {COLORS[c]: n for c, n in enumerate(state["lots"][i]) if n},
                      "closed": state["closed"][i],
                      "owner": None if state["lot_owner"][i] is None else COLORS[state["lot_owner"][i]]}
                     for i in range(NLOTS)],
            "removed": state["removed"],
            "paid_to_bank": state["paid"],
            "balances": balances,
        }

    def is_over(self, state: State) -> bool:
        return state["over"]

    def final_result(self, state: State) -> Outcome:
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

    def sample_state(self, view: dict, seat: int, rng: random.Random) -> State:
        """Only other seats' cash can be hidden; guess it between what a bid they made needs and
        what they could at most hold (start capital plus their loans)."""
        n = view["players"]
        owner: list[int | None] = [None] * len(COLORS)
        cash = [0] * len(COLORS)
        debits = [0] * len(COLORS)
        loaned = [False] * len(COLORS)
        for acc in view["accounts"]:
            c = COLOR_INDEX[acc["color"]]
            owner[c], debits[c], loaned[c] = acc["seat"], acc["debits"], acc["loaned_this_round"]
        for acc in view["accounts"]:
            c = COLOR_INDEX[acc["color"]]
            if acc["cash"] is not None:
                cash[c] = acc["cash"]
                continue
            s = acc["seat"]
            need = 0
            if view["auction"]["high_bidder"] == s:
                need = view["auction"]["high_bid"]
            if view["phase"] == "pay" and view["buyer"] == s:
                need = view["price"]
            hi = max(need, START_CASH + loans_paid_out(debits[c]))
            # one pile per seat must cover its standing bid or price; with 2 players, either pile (below)
            cash[c] = rng.randint(need if n > 2 else 0, hi)
        if n == 2 and view["phase"] in ("bidding", "pay"):  # a live bid needs one pile that covers it
            for s in range(n):
                mine = seat_colors(owner, s)
                if any(COLOR_INDEX[acc["color"]] in mine and acc["cash"] is not None for acc in view["accounts"]):
                    continue  # shown piles are as they are
                need = view["auction"]["high_bid"] if view["auction"]["high_bidder"] == s else 0
                if view["phase"] == "pay" and view["buyer"] == s:
                    need = view["price"]
                if max(cash[c] for c in mine) < need:
                    cash[rng.choice(mine)] = need
        lots = [[0] * len(COLORS) for _ in range(NLOTS)]
        for i, lot in enumerate(view["lots"]):
            for name, k in lot["cubes"].items():
                lots[i][COLOR_INDEX[name]] = k
        passed = [False] * n
        for s in view["auction"]["passed"]:
            passed[s] = True
        over = view["turn"] is None
        return {
            "players": n,
            "hidden_money": view["hidden_money"],
            "owner": owner,
            "spaces": [[COLOR_INDEX[c] for c in s] for s in view["spaces"]],
            "broker": view["broker"],
            "round": view["round"],
            "die": view["die"],
            "roller": view["roller"],
            "phase": view["phase"],
            "turn": view["turn"],
            "loan_seats_done": view["loan_seats_done"],
            "high_bid": view["auction"]["high_bid"],
            "high_bidder": view["auction"]["high_bidder"],
            "passed": passed,
            "loaned": loaned,
            "buyer": view["buyer"],
            "price": view["price"],
            "hand": [COLOR_INDEX[c] for c in view["hand"]],
            "lots": lots,
            "lot_owner": [None if lot["owner"] is None else COLOR_INDEX[lot["owner"]] for lot in view["lots"]],
            "closed": [lot["closed"] for lot in view["lots"]],
            "removed": view["removed"],
            "cash": cash,
            "debits": debits,
            "paid": view["paid_to_bank"],
            "over": over,
        }


GAME = BigShot()


def default_move(state: State, seat: int) -> dict:
    """On a timeout or for a seat that is out: pass in an auction and decline a loan (nothing
    spent, nothing owed); a placement or a payment, which cannot be refused, takes the first legal one."""
    return safe_default(GAME.legal_moves(state, seat), ("pass", "decline"))
