"""Liar's Dice: each test names the passage of liars_dice/rules.md it checks."""

from __future__ import annotations

import json
import random

import pytest

liars_dice = pytest.importorskip("liars_dice", reason="pip install -e examples/liars_dice")

from liars_dice import GAME, PLUGIN  # noqa: E402
from liars_dice.bots import SEARCH, expected, greedy  # noqa: E402

from clients import conformance  # noqa: E402
from service.games import GameError, IllegalMove  # noqa: E402
from service.games.base import matches  # noqa: E402
from workers.bots import Budget, make_bot, random_bot  # noqa: E402


def new(players: int = 3, **options) -> dict:
    state, _ = GAME.opening(players, GAME.load_options(players, {"first_seat": 0, **options}), random.Random(1))
    return state


def act(state: dict, seat: int, move: dict) -> list[dict]:
    return GAME.apply(state, seat, GAME.parse_move(move), random.Random(2))


def refuses(state: dict, seat: int, move: dict, reason: str) -> None:
    before = json.dumps(state, sort_keys=True)
    with pytest.raises(IllegalMove) as info:
        act(state, seat, move)
    assert info.value.reason == reason and json.dumps(state, sort_keys=True) == before


def test_a_round_each_rolls_and_sees_only_their_own_cup():
    """rules.md, "A round": everyone rolls under their cup and looks only at their own."""
    state, events = GAME.opening(3, GAME.load_options(3, {}), random.Random(5))
    rolled = [e for e in events if e["type"] == "rolled"]
    assert [e["to"] for e in rolled] == [[0], [1], [2]] and all(len(e["data"]["dice"]) == 5 for e in rolled)
    view = GAME.view(state, 1)
    assert view["cup"] == state["cups"][1] and view["cup_sizes"] == [5, 5, 5] and "cups" not in view
    assert GAME.view(state, None)["cup"] is None


def test_a_bid_raises_the_quantity_or_the_face():
    """rules.md, "A round": more dice of any face, or as many dice of a higher face."""
    state = new()
    refuses(state, 0, {"type": "challenge"}, "no_bid")
    act(state, 0, {"type": "bid", "quantity": 3, "face": 4})
    refuses(state, 1, {"type": "bid", "quantity": 3, "face": 4}, "not_higher")
    refuses(state, 1, {"type": "bid", "quantity": 3, "face": 2}, "not_higher")
    refuses(state, 1, {"type": "bid", "quantity": 16, "face": 2}, "too_many")
    act(state, 1, {"type": "bid", "quantity": 3, "face": 5})
    act(state, 2, {"type": "bid", "quantity": 4, "face": 1})
    assert state["turn"] == 0 and [b["seat"] for b in state["bids"]] == [0, 1, 2]


def test_legal_moves_give_the_quantity_as_a_range_from_the_least_raise():
    """rules.md, "Rulings": a bid names at most the dice on the table; the design's ranges."""
    state = new(2, dice=3)
    act(state, 0, {"type": "bid", "quantity": 2, "face": 3})
    legal = GAME.legal_moves(state, 1)
    by_face = {m["face"]: m["quantity"] for m in legal if m["type"] == "bid"}
    assert by_face[2] == {"min": 3, "max": 6, "step": 1} and by_face[4] == {"min": 2, "max": 6, "step": 1}
    assert {"type": "challenge"} in legal and GAME.legal_moves(state, 0) == []


@pytest.mark.parametrize("wild,loser", [(True, 1), (False, 0)])
def test_a_challenge_counts_wild_ones_and_the_wrong_side_loses_a_die(wild, loser):
    """rules.md, "A challenge": ones count for any other face unless the variant turns that off."""
    state = new(2, ones_wild=wild)
    state["cups"] = [[1, 1, 3, 5, 6], [2, 3, 4, 4, 6]]
    act(state, 0, {"type": "bid", "quantity": 4, "face": 3})  # 3s: two, plus two wild ones
    events = act(state, 1, {"type": "challenge"})
    challenged = events[0]["data"]
    assert challenged["count"] == (4 if wild else 2) and challenged["loser"] == loser
    assert [len(c) for c in state["cups"]] == [5 - (loser == 0), 5 - (loser == 1)]
    assert state["turn"] == loser and state["round"] == 2, "the loser starts the next round"


def test_the_last_with_dice_wins():
    """rules.md, "The end": a player without dice is out; the last with dice wins."""
    state = new(3, dice=1)
    state["cups"] = [[2], [3], [4]]
    act(state, 0, {"type": "bid", "quantity": 3, "face": 6})
    act(state, 1, {"type": "challenge"})
    assert state["out"] == [0] and state["turn"] == 1, "out of dice: the next seat still in starts"
    state["cups"] = [[], [5], [5]]
    act(state, 1, {"type": "bid", "quantity": 2, "face": 5})
    events = act(state, 2, {"type": "challenge"})
    assert [e["type"] for e in events] == ["challenged", "player_out", "game_over"]
    result = GAME.final_result(state)
    assert result.winners == [1] and result.ranking == [[1], [2], [0]]
    assert GAME.to_act(state) == [] and GAME.view(state, 0)["cups"] == [[], [5], []]
    with pytest.raises(GameError):
        act(state, 1, {"type": "bid", "quantity": 1, "face": 2})


def test_a_sample_keeps_what_the_seat_saw_and_rolls_the_rest():
    state = new(4)
    view = GAME.view(state, 2)
    sample = GAME.sample_state(view, 2, random.Random(9))
    assert sample["cups"][2] == state["cups"][2] and [len(c) for c in sample["cups"]] == view["cup_sizes"]
    assert GAME.view(sample, 2) == view


def test_the_bots_play_legal_moves_and_the_greedy_one_doubts_a_wild_claim():
    state = new(3)
    act(state, 0, {"type": "bid", "quantity": 14, "face": 6})
    view, legal = GAME.view(state, 1), GAME.legal_moves(state, 1)
    assert greedy(view, legal, 1, random.Random(0)) == {"type": "challenge"}
    assert expected([1, 6, 6, 2, 3], 10, 6, True) == pytest.approx(3 + 10 / 3)
    for kind in ("random", "greedy", "search"):
        bot = make_bot("liars_dice", kind, Budget(iterations=8) if kind == "search" else None)
        move = bot(view, legal, 1, random.Random(1))
        assert any(matches(move, t) for t in legal), kind
    assert random_bot(view, legal, 1, random.Random(3))["type"] in {"bid", "challenge"}
    assert SEARCH.horizon and SEARCH.evaluate(state) == pytest.approx([1 / 3] * 3)


def test_the_plugin_carries_everything_of_the_game():
    assert PLUGIN.game is GAME and PLUGIN.table is None, "no renderer of its own: the generic table"
    assert PLUGIN.docs_file().is_file() and PLUGIN.help["bidding"] and PLUGIN.summary
    assert PLUGIN.hooks().scrambles and PLUGIN.bot_module().greedy is greedy


@pytest.mark.parametrize("players", [2, 6])
def test_conformance_kit(players):
    for variant in GAME.variants:
        conformance.play(PLUGIN, players, dict(variant), seed=7)
