"""The game registry: every game installed under the ``referee.games`` entry point group (a built-in game joins
with one line in pyproject.toml, a game of another package with one in its own), and all of each game through
its ``Plugin`` (service/games/plugin.py).

``PLUGINS`` and ``GAMES`` are looked up on first use, so that a game's package may import this one (its rules
build on ``service.games.base``) without the registry loading that package while it is half imported."""

from __future__ import annotations

from typing import Any

from .base import Game, GameError, IllegalMove, InvalidMove, InvalidOptions, Move, Outcome, State
from .plugin import Plugin, discover, own

#: the bot kinds a seat can be given; workers.bots implements each of them for every game
BOT_KINDS: tuple[str, ...] = ("random", "greedy", "search")

PLUGINS: dict[str, Plugin]
GAMES: dict[str, Game]
#: the referee's own games, served or not (openapi.yaml documents these)
OWN: list[str]


def __getattr__(name: str) -> Any:
    if name in ("PLUGINS", "GAMES"):
        plugins = discover()
        globals().update(PLUGINS=plugins, GAMES={n: p.game for n, p in plugins.items()})
        return globals()[name]
    if name == "OWN":
        globals()["OWN"] = own()
        return globals()["OWN"]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["BOT_KINDS", "GAMES", "OWN", "PLUGINS", "Game", "GameError", "IllegalMove", "InvalidMove", "InvalidOptions",
           "Move", "Outcome", "Plugin", "State"]
