"""Helpers the rules tests share: apply a move as the referee would, and check a refusal changes nothing."""

from __future__ import annotations

import json
import random

import pytest

from service.games.base import Game, IllegalMove


def act(game: Game, state: dict, seat: int, move: dict, rng: random.Random | None = None) -> list[dict]:
    """Apply a move as the referee does: shape-checked by parse_move, then the rules."""
    return game.apply(state, seat, game.parse_move(move), rng or random.Random(0))


def rejects(game: Game, state: dict, seat: int, move: dict, reason: str | None = None) -> IllegalMove:
    """The rules refuse the move (with this reason, if given) and the state is byte-identical after."""
    before = json.dumps(state, sort_keys=True)
    with pytest.raises(IllegalMove) as info:
        act(game, state, seat, move)
    assert json.dumps(state, sort_keys=True) == before
    if reason:
        assert info.value.reason == reason, info.value.message
    return info.value


def types(events: list[dict]) -> list[str]:
    return [e["type"] for e in events]
