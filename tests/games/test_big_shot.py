"""Big Shot rules, invariants, hidden information and bots.

Passages cited are from the rulebook ("book": Big Shot, Ravensburger's English rules; section titles as
printed) and the rulings of service/games/big_shot/rules.md (by their titles).
"""

from __future__ import annotations

import copy
import json
import random
from functools import partial

import pytest

from service.games.base import IllegalMove, InvalidOptions, concretize
from service.games.big_shot.bots import Board, allocate, greedy
from service.games.big_shot.rules import COLORS, GAME, LOT_NAMES, loan_payout
from tests.games.helpers import act as _act
from tests.games.helpers import rejects as _rejects
from tests.games.helpers import types
from workers.bots import random_bot

R, Y, W, B = range(4)  # colour indices: red, yellow, white, black
LOT = {name: i for i, name in enumerate(LOT_NAMES)}
# The board as the test reads service/games/big_shot/rules.md, "The board", independently of the module's table.
TEST_VALUES = {"PW": 0, "PE": 0, "W9": 9, "W10": 10, "W11": 11, "E9": 9, "E10": 10, "E11": 11,
               "C16": 16, "C17": 17, "C18": 18, "C19": 19, "C21": 21}
TEST_PARK = {"W9": "PW", "W10": "PW", "W11": "PW", "E9": "PE", "E10": "PE", "E11": "PE"}


class Dice(random.Random):
    """An rng whose die rolls are scripted (the referee's die, made predictable)."""

    def __init__(self, *rolls: int) -> None:
        super().__init__(0)
        self.rolls = list(rolls)

    def randint(self, a: int, b: int) -> int:
        return self.rolls.pop(0)


def new(players: int = 4, seed: int = 1, **options) -> dict:
    return GAME.setup(players, GAME.load_options(players, options), random.Random(seed))


def colors_to_seats(state: dict, mapping: dict[int, int | None]) -> None:
    """Deal the calling cards by hand: colour index -> seat (None: the Ghost)."""
    state["owner"] = [mapping[c] for c in range(4)]
    state["cash"] = [10 if mapping[c] is not None else 0 for c in range(4)]


def placing(state: dict, buyer: int, hand: list[int]) -> dict:
    """Put the state into the placement step of the current round."""
    state.update(phase="place", turn=buyer, buyer=buyer, hand=list(hand))
    return state


def bidding(state: dict, roller: int) -> dict:
    n = state["players"]
    state.update(phase="bidding", roller=roller, turn=(roller + 1) % n, high_bid=0, high_bidder=None,
                 passed=[False] * n, loaned=[False] * 4, loan_seats_done=0)
    return state


act = partial(_act, GAME)
rejects = partial(_rejects, GAME)


def cube_total(state: dict) -> int:
    return (sum(len(s) for s in state["spaces"]) + sum(map(sum, state["lots"])) + len(state["hand"])
            + state["removed"])


# -- preparations ------------------------------------------------------------------------------
@pytest.mark.parametrize("players", [2, 3, 4])
def test_preparations(players):
    """book, Preparations: 72 cubes at random on the 18 spaces, 4 of at least 2 colours
    each; 10 million per player (2 players: per colour); calling cards dealt (service/games/big_shot/rules.md,
    "Cubes and colours")."""
    for seed in range(30):
        s = new(players, seed)
        assert len(s["spaces"]) == 18 and all(len(sp) == 4 and len(set(sp)) >= 2 for sp in s["spaces"])
        assert cube_total(s) == 72
        everything = [c for sp in s["spaces"] for c in sp]
        assert all(everything.count(c) == 18 for c in range(4))
        owners = s["owner"]
        if players == 4:
            assert sorted(owners) == [0, 1, 2, 3]
        elif players == 3:
            assert sorted(o for o in owners if o is not None) == [0, 1, 2] and owners.count(None) == 1
        else:
            assert sorted(owners) == [0, 0, 1, 1]
        assert all(s["cash"][c] == (10 if owners[c] is not None else 0) for c in range(4))
        assert s["round"] == 1 and s["debits"] == [0] * 4


def test_colours_dealt_at_random():
    """book, Preparations: the banker shuffles the calling cards and deals one to each player."""
    deals = {tuple(new(4, seed)["owner"]) for seed in range(40)}
    assert len(deals) > 5


def test_options_and_player_counts():
    """service/games/big_shot/rules.md, "Options": 2 to 4 players; the hidden-money variant is an option."""
    for players in (1, 5):
        with pytest.raises(InvalidOptions):
            GAME.load_options(players, {})
    with pytest.raises(InvalidOptions):
        GAME.load_options(3, {"hidden_money": "maybe"})
    assert GAME.load_options(2, {})["hidden_money"] is False
    assert {"hidden_money": True} in GAME.variants


# -- moving the broker ----------------------------------------------------------------------------
def test_broker_counts_only_spaces_with_cubes():
    """book, How to play, 1) Moving the Broker; service/games/big_shot/rules.md, "Moving the broker": moving counts only
    spaces that still hold cubes; the die is the referee's, rolled for the roller."""
    s = new(4, 2)
    for i in (3, 4, 6):
        s["spaces"][i] = []
    s["broker"] = 2
    s["round"] = 1
    colors_to_seats(s, {R: 0, Y: 1, W: 2, B: 3})
    placing(s, 1, [R, Y, W, B])
    s["roller"] = 0
    for cube, lot in zip(["red", "yellow", "white"], ["C16", "C17", "C18"], strict=True):
        act(s, 1, {"type": "place", "color": cube, "lot": lot})
    events = act(s, 1, {"type": "place", "color": "black", "lot": "C19"}, Dice(3))
    started = [e for e in events if e["type"] == "round_started"][0]["data"]
    # from 2: skips 3 and 4 (empty) -> 5, skips 6 -> 7, then 8
    assert started["die"] == 3 and started["space"] == 8 and s["broker"] == 8
    assert started["roller"] == 1 and s["roller"] == 1  # the die passed to the left
    assert s["turn"] == 2 and s["phase"] == "bidding"


def test_broker_goes_round_when_few_spaces_remain():
    """service/games/big_shot/rules.md, "Moving the broker": the 18 spaces form a ring; emptied spaces are skipped
    (book: 1) Moving the Broker)."""
    from service.games.big_shot.rules import advance_broker

    spaces = [[] for _ in range(18)]
    spaces[5] = [R, Y, W, B]
    spaces[10] = [R, Y, W, B]
    assert advance_broker(spaces, 10, 1) == 5
    assert advance_broker(spaces, 10, 2) == 10
    assert advance_broker(spaces, 10, 5) == 5


# -- the auction ------------------------------------------------------------------------------
def test_bidding_order_and_winner_pays():
    """book, 2) Auction: bids in turn clockwise from the roller's left, each higher than the
    last; a pass is final; the highest bidder pays the bank and picks up the 4 cubes."""
    s = bidding(new(4, 3), roller=1)
    assert GAME.to_act(s) == [2]
    assert GAME.legal_moves(s, 1) == []
    rejects(s, 1, {"type": "bid", "amount": 1}, "not_your_turn")
    act(s, 2, {"type": "bid", "amount": 2})
    assert GAME.to_act(s) == [3]
    rejects(s, 3, {"type": "bid", "amount": 2}, "bid_too_low")
    act(s, 3, {"type": "pass"})
    act(s, 0, {"type": "bid", "amount": 4})
    act(s, 1, {"type": "pass"})  # the roller bids too
    assert GAME.to_act(s) == [2]  # seat 3 has passed and is skipped
    color2 = s["owner"].index(2)
    cubes = list(s["spaces"][s["broker"]])
    events = act(s, 2, {"type": "pass"})
    assert types(events) == ["passed", "auction_won", "paid"]
    assert events[1]["data"] == {"seat": 0, "price": 4}
    assert s["phase"] == "place" and s["turn"] == 0 and sorted(s["hand"]) == sorted(cubes)
    assert s["spaces"][s["broker"]] == [] and s["cash"][s["owner"].index(0)] == 6
    assert s["cash"][color2] == 10 and s["paid"] == 4
    with pytest.raises(IllegalMove):
        act(copy.deepcopy(s), 0, {"type": "bid", "amount": 5})


def test_bid_above_cash_refused():
    """service/games/big_shot/rules.md, "Bidding": bids above one's cash are refused (book, 2) Auction: a player short
    of cash must pass or request a loan)."""
    s = bidding(new(4, 4), roller=3)
    s["cash"][s["owner"].index(0)] = 5
    err = rejects(s, 0, {"type": "bid", "amount": 6}, "bid_above_cash")
    assert "5" in err.message
    bid = [m for m in GAME.legal_moves(s, 0) if m["type"] == "bid"][0]
    assert bid["amount"] == {"min": 1, "max": 5, "step": 1}
    s["cash"][s["owner"].index(0)] = 0
    assert {m["type"] for m in GAME.legal_moves(s, 0)} == {"loan", "pass"}


def test_nobody_bids_roller_places_free():
    """book, 2) Auction, Note: if nobody makes a bid, the roller distributes the cubes at no cost."""
    s = bidding(new(3, 5), roller=0)
    act(s, 1, {"type": "pass"})
    events = act(s, 2, {"type": "pass"})
    assert types(events) == ["passed", "auction_won"]
    assert events[-1]["data"] == {"seat": 0, "price": 0}
    assert s["phase"] == "place" and s["turn"] == 0 and s["paid"] == 0
    assert all(s["cash"][c] == 10 for c in range(4) if s["owner"][c] is not None)


# -- loans ----------------------------------------------------------------------------------
def test_loans_pay_9_8_7_and_a_debit_each_once_per_round():
    """book, Loans: once each round a 10 million loan; the first pays 9, the second 8, the
    third 7...; each adds a debit card of 10 million.  service/games/big_shot/rules.md, "Loans": at the player's turn
    to bid."""
    assert [loan_payout(k) for k in (1, 2, 3, 9, 10, 11)] == [9, 8, 7, 1, 0, 0]
    s = bidding(new(4, 6), roller=3)
    red = s["owner"].index(0)
    received = []
    for _ in range(3):
        bidding(s, roller=3)
        events = act(s, 0, {"type": "loan"})  # colour may be omitted with one colour
        received.append(events[0]["data"]["received"])
        assert GAME.to_act(s) == [0] and s["phase"] == "bidding"  # still to bid or pass
        rejects(s, 0, {"type": "loan", "color": COLORS[red]}, "loan_taken")
        assert not [m for m in GAME.legal_moves(s, 0) if m["type"] == "loan"]
    assert received == [9, 8, 7]
    assert s["cash"][red] == 10 + 24 and s["debits"][red] == 3
    other = s["owner"].index(1)
    rejects(s, 0, {"type": "loan", "color": COLORS[other]}, "not_your_color")


def test_loan_step_before_bidding_in_hidden_money_variant():
    """book, A challenging variant: loans are requested at the beginning of a round, before
    the auction; service/games/big_shot/rules.md, "Loans": a loan step before the first bid."""
    s = new(3, 7, hidden_money=True)
    assert s["phase"] == "loans"
    roller = s["roller"]
    order = [(roller + i) % 3 for i in (1, 2, 3)]
    assert GAME.to_act(s) == [order[0]]
    act(s, order[0], {"type": "loan"})  # one loan: the seat is done
    assert GAME.to_act(s) == [order[1]]
    act(s, order[1], {"type": "decline"})
    act(s, order[2], {"type": "decline"})
    assert s["phase"] == "bidding" and GAME.to_act(s) == [order[0]]
    assert {m["type"] for m in GAME.legal_moves(s, order[0])} == {"bid", "pass"}
    rejects(s, order[0], {"type": "loan"}, "not_now")


# -- placing cubes and acquiring lots ---------------------------------------------------------------
def test_buyer_places_four_cubes_one_at_a_time_on_open_lots():
    """book, 2) Auction: the buyer distributes the 4 cubes on any lots; Acquiring Lots: at most
    seven cubes on a lot; service/games/big_shot/rules.md, "Placing cubes": one at a time on open lots."""
    s = placing(new(4, 8), 2, [R, R, Y, B])
    moves = GAME.legal_moves(s, 2)
    assert len(moves) == 3 * 13 and all(m["type"] == "place" for m in moves)
    rejects(s, 2, {"type": "place", "color": "white", "lot": "C16"}, "cube_not_in_hand")
    rejects(s, 1, {"type": "place", "color": "red", "lot": "C16"}, "not_your_turn")
    rejects(s, 2, {"type": "bid", "amount": 3}, "not_now")
    s["closed"][LOT["C21"]] = True
    s["lot_owner"][LOT["C21"]] = W
    s["lots"][LOT["C21"]] = [0, 0, 1, 0]
    rejects(s, 2, {"type": "place", "color": "red", "lot": "C21"}, "lot_closed")
    act(s, 2, {"type": "place", "color": "red", "lot": "C16"})
    assert s["hand"] == [R, Y, B] and s["lots"][LOT["C16"]][R] == 1 and GAME.to_act(s) == [2]


def _lot_state(counts: list[int], hand: list[int], buyer: int = 0) -> dict:
    s = new(4, 9)
    colors_to_seats(s, {R: 0, Y: 1, W: 2, B: 3})
    s["lots"][LOT["C19"]] = list(counts)
    return placing(s, buyer, hand)


@pytest.mark.parametrize("buyer, cubes, winner", [
    (0, ["red", "red", "black"], R),       # 3/2/1/1
    (1, ["yellow", "red", "black"], Y),    # 3/2/1/1
    (2, ["red", "red", "yellow"], W),      # 3/3/1: white, best of all
])
def test_book_example_three_can_take_the_lot(buyer, cubes, winner):
    """book, Tactical hints, Example: 2 yellow, 1 red, 1 white on a lot, the broker on 2 red,
    1 yellow, 1 black; red, yellow and white can each take it (white with 2 red and 1 yellow)."""
    s = _lot_state([1, 2, 1, 0], [R, R, Y, B], buyer)
    events = []
    for c in cubes:
        events += act(s, buyer, {"type": "place", "color": c, "lot": "C19"})
    sold = [e for e in events if e["type"] == "lot_sold"]
    assert len(sold) == 1 and sold[0]["data"]["color"] == COLORS[winner] and sold[0]["data"]["seat"] == buyer
    assert s["closed"][LOT["C19"]] and s["lot_owner"][LOT["C19"]] == winner
    assert s["lots"][LOT["C19"]] == [1 if c == winner else 0 for c in range(4)]  # SOLD under one cube
    rejects(s, buyer, {"type": "place", "color": COLORS[s["hand"][0]], "lot": "C19"}, "lot_closed")


def test_greedy_finds_the_white_play_of_the_example():
    """book, Tactical hints, Example: White does best by entering 2 red and 1 yellow (3/3/1)."""
    s = _lot_state([1, 2, 1, 0], [R, R, Y, B], buyer=2)
    _, plan = allocate(Board(s, 2), s["hand"])
    on_lot = sorted(c for c, lot in plan if lot == LOT["C19"])
    assert on_lot == [R, R, Y]


@pytest.mark.parametrize("counts, last, winner", [
    ([3, 2, 1, 0], R, R),          # undisputed majority 4/2/1
    ([3, 2, 1, 0], Y, W),          # 3/3/1 -> the single cube
    ([2, 2, 1, 1], W, B),          # 2/2/2/1 -> the single cube
    ([6, 0, 0, 0], Y, R),          # 6/1
])
def test_seventh_cube_closes_the_lot(counts, last, winner):
    """book, Acquiring Lots: undisputed majority; equal majorities (3/3/1, 2/2/2/1) cancel and
    the single cube takes it; the seventh cube makes it final at once, the other six leave."""
    s = _lot_state(counts, [last, R, R, R])
    events = act(s, 0, {"type": "place", "color": COLORS[last], "lot": "C19"})
    assert types(events) == ["placed", "lot_sold"]
    assert events[1]["data"]["color"] == COLORS[winner]
    assert s["lot_owner"][LOT["C19"]] == winner and sum(s["lots"][LOT["C19"]]) == 1


def _last_round(counts_by_lot: dict[str, list[int]], players: int = 4) -> dict:
    s = new(players, 10)
    colors_to_seats(s, {R: 0, Y: 1, W: 2, B: 3} if players == 4 else
                    {R: 0, Y: 1, W: 2, B: None} if players == 3 else {R: 0, Y: 0, W: 1, B: 1})
    s["spaces"] = [[] for _ in range(18)]
    s["round"] = 18
    s["lots"] = [[0] * 4 for _ in LOT_NAMES]
    for name, counts in counts_by_lot.items():
        s["lots"][LOT[name]] = list(counts)
    placing(s, 0, [R])
    s["removed"] = 72 - cube_total(s)
    return s


def test_end_of_game_settles_open_lots():
    """book, End of the game: open lots go to an undisputed majority (2/1, 1/0); equal
    majorities (2/2/1) to the single cube; a tie (2/2, 1/1/1) gives the lot to nobody, all cubes leave."""
    s = _last_round({"C16": [2, 1, 0, 0], "C17": [0, 1, 0, 0], "C18": [2, 2, 1, 0],
                     "C19": [2, 2, 0, 0], "C21": [1, 1, 1, 0], "E10": [2, 2, 1, 1]})
    events = act(s, 0, {"type": "place", "color": "red", "lot": "PE"})  # the last cube of round 18
    assert GAME.is_over(s) and GAME.to_act(s) == [] and GAME.legal_moves(s, 0) == []
    owners = {LOT_NAMES[i]: s["lot_owner"][i] for i in range(13)}
    assert owners["C16"] == R and owners["C17"] == Y and owners["C18"] == W and owners["PE"] == R
    assert owners["C19"] is None and owners["C21"] is None and owners["E10"] is None
    assert all(s["closed"]) and cube_total(s) == 72
    void = {e["data"]["lot"] for e in events if e["type"] == "lot_void"}
    assert {"C19", "C21", "E10"} <= void
    assert types(events)[-1] == "game_over"
    rejects(s, 0, {"type": "pass"}, "match_over")


def test_red_38_against_white_11():
    """book, Reminder regarding values, Example: Red has an x2 lot and the adjacent 9 and 10,
    White the adjacent 11: Red's lots are worth 38, White's 11."""
    s = _last_round({"PW": [1, 0, 0, 0], "W9": [1, 0, 0, 0], "W10": [1, 0, 0, 0], "W11": [0, 0, 1, 0]})
    act(s, 0, {"type": "place", "color": "red", "lot": "C21"})
    sheets = GAME.final_result(s).breakdown
    assert sheets[0]["lot_values"] == 9 * 2 + 10 * 2 + 21 and sheets[2]["lot_values"] == 11
    # without C21: the book's 38 and 11
    from service.games.big_shot.rules import lot_worth
    owners = [None] * 13
    owners[LOT["PW"]] = owners[LOT["W9"]] = owners[LOT["W10"]] = R
    owners[LOT["W11"]] = W
    worth = lot_worth(owners)
    assert sum(worth[LOT[n]] for n in ("PW", "W9", "W10")) == 38 and worth[LOT["W11"]] == 11


def test_balance_winner_needs_two_lots_and_tie_breaks():
    """book, End of the game: balance = lots + cash - 10 per debit card; the best balance
    wins provided he acquired at least two lots; ties: most lots, then the most valuable lot."""
    s = _last_round({"C21": [1, 0, 0, 0], "C16": [0, 1, 0, 0], "W9": [0, 1, 0, 0], "E9": [0, 0, 1, 0],
                     "E10": [0, 0, 1, 0]})
    s["cash"] = [40, 10, 10, 10]
    s["debits"] = [0, 0, 0, 2]
    act(s, 0, {"type": "place", "color": "red", "lot": "C17"})
    res = GAME.final_result(s)
    # red: 21 + 17 + 40 = 78; yellow 25 + 10 = 35; white 19 + 10 = 29; black 10 - 20 = -10
    assert res.scores == [78, 35, 29, -10]
    assert res.winners == [0]
    # red alone with one lot would not qualify: the best qualified balance wins instead
    s2 = _last_round({"C21": [1, 0, 0, 0], "C16": [0, 1, 0, 0], "W9": [0, 1, 0, 0]})
    s2["cash"] = [90, 10, 10, 10]
    act(s2, 0, {"type": "place", "color": "red", "lot": "C21"})
    res2 = GAME.final_result(s2)
    assert res2.scores[0] > res2.scores[1] and res2.winners == [1]
    assert res2.ranking[0] == [1] and 0 in res2.ranking[1]
    # tie on balance: most lots wins
    s3 = _last_round({"C21": [1, 0, 0, 0], "C16": [1, 0, 0, 0], "W9": [0, 1, 0, 0], "E9": [0, 1, 0, 0],
                      "W10": [0, 1, 0, 0]})
    s3["cash"] = [9, 18, 10, 10]  # red 37 + 9 = 46 with 2 lots; yellow 28 + 18 = 46 with 3
    act(s3, 0, {"type": "place", "color": "red", "lot": "C21"})
    res3 = GAME.final_result(s3)
    assert res3.scores[0] == res3.scores[1] == 46 and res3.winners == [1]
    # tie on balance and lots: the most valuable lot
    s4 = _last_round({"C21": [1, 0, 0, 0], "W9": [1, 0, 0, 0], "C19": [0, 1, 0, 0], "E11": [0, 1, 0, 0]})
    s4["cash"] = [10, 10, 10, 10]
    act(s4, 0, {"type": "place", "color": "red", "lot": "C21"})
    res4 = GAME.final_result(s4)
    assert res4.scores[0] == res4.scores[1] == 40 and res4.winners == [0]


def test_nobody_qualifies_no_winner():
    """service/games/big_shot/rules.md, "The winner": nobody with at least 2 lots: no winner."""
    s = _last_round({"C21": [1, 0, 0, 0], "C16": [0, 1, 0, 0]})
    act(s, 0, {"type": "place", "color": "red", "lot": "C21"})
    assert GAME.final_result(s).winners == []


# -- three players ----------------------------------------------------------------------------
def test_three_players_ghost():
    """book, The game for three players: the fourth colour is a Ghost with no money, out of the
    bidding; anyone may place its cubes and make it acquire lots, which count for nobody."""
    s = _last_round({"C21": [0, 0, 0, 3], "C16": [1, 0, 0, 0], "C17": [1, 0, 0, 0]}, players=3)
    s["hand"] = [B]
    assert {m["color"] for m in GAME.legal_moves(s, 0)} == {"black"}
    act(s, 0, {"type": "place", "color": "black", "lot": "C18"})
    res = GAME.final_result(s)
    assert s["lot_owner"][LOT["C21"]] == B and s["lot_owner"][LOT["C18"]] == B
    assert len(res.scores) == 3 and res.scores == [33 + 10, 10, 10] and res.winners == [0]
    assert all("black" not in sh["colors"] for sh in res.breakdown)
    view = GAME.view(new(3, 11), 0)
    assert view["ghost"] is not None and len(view["accounts"]) == 3


# -- two players ---------------------------------------------------------------------------
def test_two_players_kth_loan_counts_both_colours_together():
    """service/games/big_shot/rules.md, "Loans with two players": with 2 players a player's k-th loan pays 10-k counting
    both colours together ("for the first loan he will receive only 9 million"); the money goes to the colour that
    asked, so the player's second loan pays 8 whichever colour took the first."""
    s = new(2, 12)
    seat = GAME.to_act(s)[0]
    first, second = [c for c in range(4) if s["owner"][c] == seat]
    s["debits"][first] = 2  # two loans on one colour in earlier rounds
    cash = s["cash"][second]
    events = act(s, seat, {"type": "loan", "color": COLORS[second]})
    assert s["cash"][second] == cash + 7 and s["debits"][second] == 1  # the player's 3rd loan pays 7
    assert events[0]["data"] == {"seat": seat, "color": COLORS[second], "received": 7, "debits": 1}


def test_two_players_loans_per_colour_before_bidding():
    """book, The game for two players: two colours each, 10 million per colour; loans before
    the bidding, one per colour each round."""
    s = new(2, 12)
    seat = GAME.to_act(s)[0]
    mine = [c for c in range(4) if s["owner"][c] == seat]
    assert s["phase"] == "loans"
    assert sorted(m.get("color") for m in GAME.legal_moves(s, seat) if m["type"] == "loan") == sorted(
        COLORS[c] for c in mine)
    rejects(s, seat, {"type": "loan"}, "color_required")
    act(s, seat, {"type": "loan", "color": COLORS[mine[0]]})
    assert GAME.to_act(s) == [seat]
    rejects(s, seat, {"type": "loan", "color": COLORS[mine[0]]}, "loan_taken")
    act(s, seat, {"type": "loan", "color": COLORS[mine[1]]})  # both borrowed: the seat is done
    assert (s["cash"][mine[0]], s["cash"][mine[1]]) == (19, 18)  # the player's first and second loan
    other = 1 - seat
    assert GAME.to_act(s) == [other]
    act(s, other, {"type": "decline"})
    assert s["phase"] == "bidding" and GAME.to_act(s) == [seat]


def test_two_players_buyer_chooses_paying_colour():
    """book, The game for two players: after the auction the highest bidder decides which of
    his two colours pays; service/games/big_shot/rules.md, "Bidding": a bid may not exceed cash (one pile pays)."""
    s = bidding(new(2, 13), roller=1)
    colors_to_seats(s, {R: 0, Y: 0, W: 1, B: 1})
    s["cash"] = [12, 5, 10, 10]
    assert [m for m in GAME.legal_moves(s, 0) if m["type"] == "bid"][0]["amount"]["max"] == 12
    rejects(s, 0, {"type": "bid", "amount": 13}, "bid_above_cash")
    act(s, 0, {"type": "bid", "amount": 4})
    events = act(s, 1, {"type": "pass"})
    assert s["phase"] == "pay" and GAME.to_act(s) == [0] and types(events) == ["passed", "auction_won"]
    assert GAME.legal_moves(s, 0) == [{"type": "pay", "color": "red"}, {"type": "pay", "color": "yellow"}]
    rejects(s, 0, {"type": "pay", "color": "white"}, "not_your_color")
    act(s, 0, {"type": "pay", "color": "yellow"})
    assert s["cash"] == [12, 1, 10, 10] and s["phase"] == "place"
    # only one pile can pay: it pays at once (open money)
    s = bidding(new(2, 13), roller=1)
    colors_to_seats(s, {R: 0, Y: 0, W: 1, B: 1})
    s["cash"] = [12, 5, 10, 10]
    act(s, 0, {"type": "bid", "amount": 7})
    events = act(s, 1, {"type": "pass"})
    assert types(events) == ["passed", "auction_won", "paid"] and s["cash"][R] == 5


def test_two_players_doubling_and_qualifying_per_colour():
    """book, The game for two players: x2 doubles only lots of the same colour; each player
    must acquire at least two lots with each colour; both colours' balances are summed."""
    s = _last_round({"PW": [1, 0, 0, 0], "W9": [0, 1, 0, 0], "W10": [1, 0, 0, 0], "C16": [0, 1, 0, 0],
                     "C21": [0, 0, 1, 0], "C19": [0, 0, 1, 0], "C18": [0, 0, 0, 1], "C17": [0, 0, 0, 1]},
                    players=2)
    act(s, 0, {"type": "place", "color": "red", "lot": "PW"})
    res = GAME.final_result(s)
    a, b = res.breakdown
    assert a["lot_values"] == 20 + 9 + 16  # W10 doubled by red's park, W9 (yellow) not
    assert a["balance"] == 45 + 20 and b["balance"] == 40 + 35 + 20
    assert a["qualified"] and b["qualified"] and res.winners == [1]
    s = _last_round({"PW": [1, 0, 0, 0], "W10": [1, 0, 0, 0], "C16": [0, 1, 0, 0], "C21": [0, 0, 1, 0],
                     "C19": [0, 0, 1, 0], "C18": [0, 0, 0, 1]}, players=2)
    act(s, 0, {"type": "place", "color": "red", "lot": "PW"})
    res = GAME.final_result(s)
    assert res.breakdown[0]["lots_per_color"] == {"red": 2, "yellow": 1}
    assert not res.breakdown[0]["qualified"] and not res.breakdown[1]["qualified"] and res.winners == []


# -- hidden money -------------------------------------------------------------------------
def _advance(state: dict, rng: random.Random, steps: int) -> dict:
    for _ in range(steps):
        if GAME.is_over(state):
            break
        seat = GAME.to_act(state)[0]
        act(state, seat, concretize(rng.choice(GAME.legal_moves(state, seat)), rng), rng)
    return state



def test_hidden_money_two_players_always_choose_payer():
    """book, A challenging variant + The game for two players: an automatic payment would show
    the opponent that the other pile is short, so the buyer always chooses the paying colour."""
    s = bidding(new(2, 14, hidden_money=True), roller=1)
    colors_to_seats(s, {R: 0, Y: 0, W: 1, B: 1})
    s["cash"] = [12, 5, 10, 10]
    act(s, 0, {"type": "bid", "amount": 7})
    act(s, 1, {"type": "pass"})
    assert s["phase"] == "pay" and GAME.legal_moves(s, 0) == [{"type": "pay", "color": "red"}]


def test_money_is_displayed_unless_hidden():
    """book, Preparations: players display their money, so every seat and a spectator see every
    colour's cash; A challenging variant: the money is kept hidden, a seat sees its own colours' cash
    only, and everyone sees all of it once the game is over."""
    rng = random.Random(15)
    for players in (2, 3, 4):
        for opts in GAME.variants:
            s = _advance(new(players, 15, **opts), rng, rng.randrange(1, 200))
            for seat in (None, *range(players)):
                for account in GAME.view(s, seat)["accounts"]:
                    c = COLORS.index(account["color"])
                    shown = not opts or GAME.is_over(s) or s["owner"][c] == seat
                    assert account["cash"] == (s["cash"][c] if shown else None)


# -- random play with invariants ------------------------------------------------------------------
def independent_scores(state: dict) -> tuple[list[int], list[int]]:
    """Balances and winners recomputed from the book, not from the module's helpers."""
    n = state["players"]
    owner_of_lot = {LOT_NAMES[i]: state["lot_owner"][i] for i in range(13)}
    balances, keys = [], []
    for seat in range(n):
        colors = [c for c in range(4) if state["owner"][c] == seat]
        total, count, best, per_color = 0, 0, 0, []
        for c in colors:
            mine = [name for name, o in owner_of_lot.items() if o == c]
            per_color.append(len(mine))
            for name in mine:
                v = TEST_VALUES[name] * (2 if TEST_PARK.get(name) in mine else 1)
                total += v
                best = max(best, v)
            count += len(mine)
            total += state["cash"][c] - 10 * state["debits"][c]
        balances.append(total)
        keys.append((min(per_color) >= 2, total, count, best))
    top = max(keys)
    winners = [s for s in range(n) if keys[s] == top] if top[0] else []
    return balances, winners


# -- hooks of the conformance suite (tests/games/test_conformance.py) -----------------------------
def scrambles(state: dict, observer: int | None, actor: int, rng: random.Random):
    """book, A challenging variant: only the cash is hidden; raise the cash of every colour
    that is neither the observer's nor the actor's (the actor's own move must stay legal).  The end
    of the game counts the balances openly."""
    if not state["hidden_money"]:
        return
    other = copy.deepcopy(state)
    for c in range(4):
        if other["owner"][c] not in (None, observer, actor):
            other["cash"][c] += rng.randint(1, 30)
    yield other, lambda events: None if any(e["type"] == "game_over" for e in events) else events


class Invariants:
    """service/games/big_shot/rules.md, "Cubes and colours", "Taking a lot": 72 cubes conserved, at most 7 per lot;
    money and debit cards agree with
    the public loans and payments; balances and the winner recomputed independently at the end."""

    def __init__(self, state: dict) -> None:
        self.lent = self.paid = 0
        self.debits = [0] * 4

    def step(self, state: dict, events: list[dict]) -> None:
        for e in events:
            assert e["to"] == "all"
            if e["type"] == "loan":
                self.lent += e["data"]["received"]
                self.debits[COLORS.index(e["data"]["color"])] += 1
            elif e["type"] == "paid":
                self.paid += e["data"]["amount"]
        assert cube_total(state) == 72  # 72 cubes: spaces, lots, hand, removed
        on_board = [sum(lot[c] for lot in state["lots"]) + sum(sp.count(c) for sp in state["spaces"])
                    + state["hand"].count(c) for c in range(4)]
        assert all(n <= 18 for n in on_board)
        for i in range(13):
            assert sum(state["lots"][i]) <= (1 if state["closed"][i] else 6)
            if state["closed"][i] and state["lot_owner"][i] is not None:
                assert state["lots"][i][state["lot_owner"][i]] == 1
        accounts = [c for c in range(4) if state["owner"][c] is not None]
        assert sum(state["cash"][c] for c in accounts) == 10 * len(accounts) + self.lent - self.paid
        assert state["paid"] == self.paid
        assert all(state["cash"][c] >= 0 for c in range(4))
        assert state["debits"] == self.debits
        assert all(state["cash"][c] == state["debits"][c] == 0 for c in range(4) if c not in accounts)  # the Ghost
        if GAME.is_over(state):
            assert all(state["closed"]) and not any(state["spaces"])
        else:
            assert len(GAME.to_act(state)) == 1

    def end(self, state: dict, result) -> None:
        assert state["round"] == 18
        balances, winners = independent_scores(state)
        assert result.scores == balances and sorted(result.winners) == winners


def test_views_are_json_and_show_the_table():
    """docs/architecture.md, "The game contract": a view holds what a UI needs (whose turn, the pending decision,
    scores)."""
    s = new(4, 16)
    v = GAME.view(s, 1)
    json.dumps(v)
    assert v["you"] == 1 and v["turn"] == GAME.to_act(s)[0] and v["phase"] == "bidding"
    assert len(v["lots"]) == 13 and len(v["spaces"]) == 18 and v["balances"] == [10, 10, 10, 10]
    assert v["spaces"][v["broker"]] and v["auction"]["cubes"] == v["spaces"][v["broker"]]  # up for auction


# -- bots ---------------------------------------------------------------------------------
def test_greedy_beats_random():
    """workers/bots: the greedy bot sees only its view and legal moves; it clearly beats random (its moves
    are legal: the conformance suite)."""
    wins = games = 0
    for players, count in ((2, 6), (3, 6)):
        for m in range(count):
            rng = random.Random(m)
            options = GAME.variants[m % 2]
            state = GAME.setup(players, GAME.load_options(players, options), rng)
            me = m % players
            while not GAME.is_over(state):
                seat = GAME.to_act(state)[0]
                view, moves = GAME.view(state, seat), GAME.legal_moves(state, seat)
                move = (greedy if seat == me else random_bot)(view, moves, seat, rng)
                GAME.apply(state, seat, GAME.parse_move(move), rng)
            wins += me in GAME.final_result(state).winners
            games += 1
    assert wins >= 0.75 * games
