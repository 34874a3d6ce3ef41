"""Built-in bots, one module per game.

A bot is ``choose(view, moves, seat, rng) -> move``: it sees exactly what its seat sees (the
view and the legal-move list, ranges included) and returns one concrete move.  Bots that
search must build a full state with the game's ``sample_state`` rather than peek.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from service.games.base import concretize

from . import big_shot, dice_party, paparazzo, picture_perfect, super_blatt

Bot = Callable[[dict, list[dict], int, random.Random], dict]


def random_bot(view: dict, moves: list[dict], seat: int, rng: random.Random) -> dict:
    """Uniform over the legal moves; a range becomes a uniform number in it."""
    return concretize(rng.choice(moves), rng)


BOTS: dict[str, dict[str, Bot]] = {
    "super_blatt": {"random": random_bot, "greedy": super_blatt.greedy},
    "big_shot": {"random": random_bot, "greedy": big_shot.greedy},
    "paparazzo": {"random": random_bot, "greedy": paparazzo.greedy},
    "dice_party": {"random": random_bot, "greedy": dice_party.greedy},
    "picture_perfect": {"random": random_bot, "greedy": picture_perfect.greedy},
}


def bot_kinds(game: str) -> list[str]:
    return sorted(BOTS.get(game, {}))
