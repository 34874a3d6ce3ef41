"""The conformance kit without a game's hooks: its generic hidden-information check (the seat's own sample and
the shape's hidden lists shuffled) passes an honest game and catches a leak."""

from __future__ import annotations

import dataclasses

import pytest

liars_dice = pytest.importorskip("liars_dice", reason="pip install -e examples/liars_dice")

from liars_dice import GAME, PLUGIN  # noqa: E402

from clients import conformance  # noqa: E402

PLAIN = dataclasses.replace(PLUGIN, conformance=None)


def test_an_honest_game_passes_the_generic_checks():
    assert PLAIN.hooks() is None
    for variant in GAME.variants:
        conformance.play(PLAIN, 3, dict(variant), seed=2)


def test_the_generic_checks_catch_legal_moves_that_depend_on_a_hidden_cup(monkeypatch):
    honest = type(GAME).legal_moves

    def leaky(self, state, seat):  # no challenge while the next seat's cup holds a six: it tells
        moves = honest(self, state, seat)
        if moves and 6 in state["cups"][(seat + 1) % state["players"]]:
            return [m for m in moves if m["type"] != "challenge"]
        return moves

    monkeypatch.setattr(type(GAME), "legal_moves", leaky)
    with pytest.raises(conformance.Nonconformity, match="cannot see|legal"):
        for seed in range(5):
            conformance.play(PLAIN, 3, {}, seed)
