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

import random
from collections.abc import Callable

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


MODULES = {name: plugin.bot_module() for name, plugin in PLUGINS.items()}
GREEDY: dict[str, Bot] = {game: getattr(module, "greedy", first_bot) for game, module in MODULES.items()}
#: what the search uses for each game: playout policy, evaluation, horizon
SEARCH: dict[str, Hooks] = {game: getattr(module, "SEARCH", Hooks()) for game, module in MODULES.items()}
BOTS: dict[str, dict[str, Bot]] = {
    game: {"random": random_bot, "greedy": greedy,
           "search": search_bot(GAMES[game], greedy, DEFAULT_BUDGET, SEARCH[game])}
    for game, greedy in GREEDY.items()
}


def make_bot(game: str, kind: str, budget: Budget | None = None) -> Bot:
    """The bot of that kind; ``search`` with the seat's own budget when it asked for one."""
    if kind == "search" and budget is not None:
        return search_bot(GAMES[game], GREEDY[game], budget, SEARCH[game])
    return BOTS[game][kind]
