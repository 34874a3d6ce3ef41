"""service/games/shape.py: a declaration names every state key once, and the check finds what breaks a state."""

from __future__ import annotations

import random
from typing import Literal, NotRequired, TypedDict

import pytest

from service.games import GAMES
from service.games.shape import Column, Custom, Hidden, Own, Public, Rows, Shape


class Pile(TypedDict):
    colour: Literal["red", "blue"]
    cards: list[int]
    note: NotRequired[str]


class Table(TypedDict):
    players: int
    deck: list[int]
    hands: list[list[int]]
    piles: list[Pile]
    owner: list[int | None]
    turn: int | None
    tally: dict[str, float]


ROWS = Rows("seats", ({"seat": 0}, {"seat": 1}))
SHAPE = Shape(Table, players=Public(), deck=Hidden(count="deck_size", reveal="deck"),
              hands=Own("hand", count="hand_sizes", reveal="hands"), piles=Public(), owner=Column(ROWS, "owner"),
              turn=Public("status.turn"), tally=Custom(take=lambda view, seat: {"read": 1.0}))
STATE = Table(players=2, deck=[5, 6], hands=[[1], [2, 3]], piles=[{"colour": "red", "cards": [4]}], owner=[1, None],
              turn=0, tally={"x": 1})


def test_a_view_and_its_reading_follow_the_declaration():
    view = SHAPE.view(STATE, 1, over=False)
    assert view == {"you": 1, "players": 2, "deck_size": 2, "hand": [2, 3], "hand_sizes": [1, 2],
                    "piles": STATE["piles"], "seats": [{"seat": 0, "owner": 1}, {"seat": 1, "owner": None}],
                    "status": {"turn": 0}}
    assert SHAPE.view(STATE, None, over=True)["hand"] is None
    assert SHAPE.view(STATE, None, over=True)["deck"] == [5, 6]
    assert SHAPE.read(view, 1) == {"players": 2, "piles": STATE["piles"], "turn": 0, "owner": [1, None],
                                   "tally": {"read": 1.0}, "hands": [None, [2, 3]]}


def test_every_key_is_declared_once():
    with pytest.raises(TypeError, match=r"missing \['turn'\], unknown \['turns'\]"):
        Shape(Table, players=Public(), deck=Public(), hands=Public(), piles=Public(), owner=Public(), turns=Public(),
              tally=Public())


@pytest.mark.parametrize("change,problem", [
    ({"deck": [5, "6"]}, r"Table\.deck\[1\]: expected int"),
    ({"deck": (5, 6)}, r"Table\.deck: expected a list"),
    ({"players": True}, r"Table\.players: expected int"),
    ({"turn": 0.5}, r"Table\.turn: expected int \| None"),
    ({"tally": {1: 1}}, r"Table\.tally\[1\]: expected str"),
    ({"piles": [{"colour": "green", "cards": []}]}, r"Table\.piles\[0\]\.colour: expected one of"),
    ({"piles": [{"cards": []}]}, r"Table\.piles\[0\]: keys missing \['colour'\]"),
    ({"seed": 1}, r"Table: keys missing \[\], unknown \['seed'\]"),
])
def test_the_check_names_what_breaks_a_state(change, problem):
    SHAPE.check(STATE)
    SHAPE.check({**STATE, "piles": [{"colour": "blue", "cards": [], "note": "ok"}], "tally": {"x": 0.5}})
    with pytest.raises(ValueError, match=problem):
        SHAPE.check({**STATE, **change})


@pytest.mark.parametrize("name", sorted(GAMES))
def test_each_game_declares_its_state(name):
    """The declaration is the game's: setup builds exactly its keys, of its types."""
    game = GAMES[name]
    players = game.min_players
    game.shape.check(game.setup(players, game.load_options(players, {}), random.Random(0)))
