"""Built-in bots, one module per game.

A bot is ``choose(view, moves, seat, rng) -> move``: it sees exactly what its seat sees (the
view and the legal-move list, ranges included) and returns one concrete move.  Bots that
search must build a full state with the game's ``sample_state`` rather than peek.  ``search``
(``search.py``) is the same information-set MCTS for every game, with a budget per decision;
each game's module names what the search should use for it (``SEARCH``, a ``search.Hooks``: its
playout policy, its evaluation of an unfinished deal and the horizon of a playout).  A game's bot module
is the one its Plugin names (``bots``); a game without one gets a greedy bot that plays its first legal
move and the search's default hooks.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable
from typing import Any

from service.games import GAMES, PLUGINS
from service.games.base import concretize, is_span

from .search import DEFAULT_BUDGET, Budget, Hooks
from .search import bot as search_bot

Bot = Callable[[dict, list[dict], int, random.Random], dict]


def random_bot(view: dict, moves: list[dict], seat: int, rng: random.Random) -> dict:
    """Uniform over the legal moves; a range becomes a uniform number in it."""
    return concretize(rng.choice(moves), rng)


def first_bot(view: dict, moves: list[dict], seat: int, rng: random.Random) -> dict:
    """The greedy bot of a game that has none: its first legal move (a range at its lowest)."""
    return {k: v["min"] if is_span(v) else v for k, v in moves[0].items()}


#: each game's greedy bot, what the search uses for it (playout policy, evaluation, horizon), and its bots by
#: kind: read on first use, so that a game's bot module may import this package (its search hooks)
GREEDY: dict[str, Bot]
SEARCH: dict[str, Hooks]
BOTS: dict[str, dict[str, Bot]]


@functools.cache
def _tables() -> dict[str, dict]:
    modules = {game: plugin.bot_module() for game, plugin in PLUGINS.items()}
    greedy = {game: first_bot if module is None else module.greedy for game, module in modules.items()}
    search = {game: Hooks() if module is None else module.SEARCH for game, module in modules.items()}
    bots = {game: {"random": random_bot, "greedy": greedy[game],
                   "search": search_bot(GAMES[game], greedy[game], DEFAULT_BUDGET, search[game])} for game in greedy}
    return {"GREEDY": greedy, "SEARCH": search, "BOTS": bots}


def __getattr__(name: str) -> Any:
    if name in ("GREEDY", "SEARCH", "BOTS"):
        return _tables()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def make_bot(game: str, kind: str, budget: Budget | None = None) -> Bot:
    """The bot of that kind; ``search`` with the seat's own budget when it asked for one."""
    tables = _tables()
    if kind == "search" and budget is not None:
        return search_bot(GAMES[game], tables["GREEDY"][game], budget, tables["SEARCH"][game])
    return tables["BOTS"][game][kind]
