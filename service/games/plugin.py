"""What a game's package gives the referee: one ``Plugin`` value, found through the ``referee.games`` entry
point group (the five built-in games join the same way, in pyproject.toml).

A plugin bundles the pure rules (``game``) with what the rest of the referee needs of it: its wire types
(the view's schema is derived from the game's ``Shape``), the move a clock makes for a seat, where its
bots and its conformance hooks live, its table renderer, its docs page and its rules help.  The referee,
the API, the workers, the table and the test suite read these here and nowhere else.

Bots and conformance hooks are named as modules, imported only by the part that plays or tests (the
game's package must not import the workers, and the API must not import the bots).  What a bot module tells
the search (``Hooks``) is defined here for that reason: a game's bots build on this contract, not on the workers.
"""

from __future__ import annotations

import importlib
import os
import random
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from pathlib import Path
from types import ModuleType
from typing import Any

from .base import Game, Move, Seat, State, concretize, safe_default
from .wire import Wire

#: the entry point group a game's package registers its ``Plugin`` under (name = the game's name)
GROUP = "referee.games"
#: optional: a comma-separated list of the installed games to serve (default every installed game)
ONLY = "REFEREE_GAMES"


#: a playout policy of the search: a concrete legal move for the seat to act in a determinized state
Policy = Callable[[Game, dict, int, list[dict], random.Random], dict]


def random_policy(game: Game, state: dict, seat: int, moves: list[dict], rng: random.Random) -> dict:
    return concretize(rng.choice(moves), rng)


@dataclass(frozen=True)
class Hooks:
    """What a game tells the search (``SEARCH`` in its bot module; workers/bots/search.py runs it).

    ``playout(game, state, seat, moves, rng)`` picks a concrete legal move for the seat to act in
    a determinized state (it may read the whole state: a determinization holds nothing true);
    ``evaluate(state)`` gives each seat's reward in [0, 1] for an unfinished state, or None where
    it cannot judge (the playout goes on); it is asked once a playout has made ``horizon`` moves
    (``horizon`` None: play to the end).  ``lead(view, moves, seat, rng)`` is the root's move to
    beat when the game has a deeper planner than its greedy bot for a searching bot's time (None:
    the greedy bot's move); its time counts against the decision's budget.  ``lead_stands(view)``
    says where the lead is played without a search: decisions whose outcome the sampled deals
    cannot judge, where playouts would only add noise or a bias to a sound plan.  ``chances(state)``
    is the evaluation the analysis takes as each seat's chance to win, where ``evaluate`` orders the
    search's moves well but is not calibrated as chances (None: ``evaluate``).
    """

    playout: Policy = random_policy
    evaluate: Callable[[dict], list[float] | None] | None = None
    horizon: int | None = None
    lead: Callable[[dict, list[dict], int, random.Random], dict] | None = None
    lead_stands: Callable[[dict], bool] | None = None
    chances: Callable[[dict], list[float] | None] | None = None


@dataclass(frozen=True)
class Plugin:
    """One game and everything of it the referee needs; its package's ``referee.games`` entry point."""

    game: Game
    wire: Wire = field(default_factory=Wire)
    #: the safe move a seat makes when its clock runs out or it is away (default: the first legal move)
    default_move: Callable[[State, Seat], Move] | None = None
    #: module with ``greedy(view, moves, seat, rng) -> move`` and ``SEARCH`` (``Hooks``);
    #: None: a greedy bot that plays the first legal move, and the search's defaults
    bots: str | None = None
    #: module with the conformance hooks (``scrambles``, ``Invariants``, ``fuzz``; each optional)
    conformance: str | None = None
    #: conformance: seeds per player count and variant, and how often (in moves) the costly checks run
    seeds: int = 2
    every: int = 1
    #: the table's renderer: an ES module file (path relative to ``root``); None: the generic table
    table: str | None = None
    #: the game's docs page (Markdown, relative to ``root``)
    docs: str | None = None
    #: the table's words: a folder (relative to ``root``) of one catalogue per language, ``<lang>.json`` (flat keys:
    #: the game's title, summary, phases, rules help, and for the generic table its moves, events, view fields and
    #: result; docs/writing-a-game.md, "The table's words"); None: the table's own words only
    words: str | None = None
    #: a sentence on the game for the lobby and the table's help (the built-in games' are in the table's catalogues)
    summary: str = ""
    #: rules help for the table: per phase, a sentence or two
    help: Mapping[str, str] = field(default_factory=dict)
    #: the folder ``table`` and ``docs`` are relative to (default: the game's module's folder)
    root: Path | None = None
    #: where the game is listed (GET /games, the lobby, the document's unions): by ``order``, then by name
    order: int = 100
    #: KiB a match of random bots costs the store by the time it finishes (all its keys and RQ's bookkeeping for
    #: it), by player count, as ``referee bench memory`` measures it: the room the store keeps for an admitted
    #: match (docs/store.md); a count not given takes the game's largest, a game without any a default
    store_kib: Mapping[int, float] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.game.name

    def default(self, state: State, seat: Seat) -> Move:
        if self.default_move is not None:
            return self.default_move(state, seat)
        return safe_default(self.game.legal_moves(state, seat))

    def folder(self) -> Path:
        if self.root is not None:
            return self.root
        module = importlib.import_module(type(self.game).__module__)
        return Path(module.__file__).resolve().parent

    def table_file(self) -> Path | None:
        return None if self.table is None else self.folder() / self.table

    def words_files(self) -> dict[str, Path]:
        """The table's catalogues of this game by language (``en``, ``de``, ...)."""
        if self.words is None:
            return {}
        return {path.stem: path for path in sorted((self.folder() / self.words).glob("*.json"))}

    def docs_file(self) -> Path | None:
        return None if self.docs is None else self.folder() / self.docs

    def bot_module(self) -> ModuleType | None:
        return None if self.bots is None else importlib.import_module(self.bots)

    def hooks(self) -> Any:
        """The conformance hooks' module, or None (the kit then uses its generic checks only).

        A module beside the game's top-level package (a source checkout's ``tests``) is found there too, so
        that ``referee conformance`` runs from anywhere."""
        if self.conformance is None:
            return None
        try:
            return importlib.import_module(self.conformance)
        except ModuleNotFoundError as error:
            top = importlib.import_module(type(self.game).__module__.split(".")[0])
            beside = Path(top.__file__).resolve().parent.parent
            if error.name != self.conformance.split(".")[0] or not (beside / error.name).is_dir():
                raise
            sys.path.append(str(beside))
            return importlib.import_module(self.conformance)


def own() -> list[str]:
    """The referee's own games (the entry points of its own distribution): the ones openapi.yaml documents."""
    return sorted(ep.name for ep in entry_points(group=GROUP) if ep.dist is not None and ep.dist.name == "referee")


def discover(only: str | None = None) -> dict[str, Plugin]:
    """Every installed game, listed by its ``order``, then by name.

    ``only`` (default the ``REFEREE_GAMES`` variable) names the games to serve, comma-separated; ``own``: the
    referee's own."""
    plugins: dict[str, Plugin] = {}
    for ep in sorted(entry_points(group=GROUP), key=lambda ep: ep.name):
        plugin = ep.load()
        if isinstance(plugin, Game):  # a bare game: everything else takes its default
            plugin = Plugin(plugin)
        if not isinstance(plugin, Plugin) or plugin.name != ep.name:
            raise TypeError(f"entry point {ep.name} = {ep.value}: not the Plugin of a game named {ep.name!r}")
        if plugin.name in plugins:
            raise TypeError(f"two installed packages register the game {plugin.name!r}")
        plugins[plugin.name] = plugin
    plugins = dict(sorted(plugins.items(), key=lambda item: (item[1].order, item[0])))
    wanted = only if only is not None else os.environ.get(ONLY, "")
    if wanted.strip():
        names = own() if wanted.strip() == "own" else [n.strip() for n in wanted.split(",") if n.strip()]
        unknown = set(names) - plugins.keys()
        if unknown:
            raise LookupError(f"{ONLY} names games not installed: {sorted(unknown)}")
        plugins = {n: p for n, p in plugins.items() if n in names}
    return plugins


__all__ = ["GROUP", "ONLY", "Hooks", "Plugin", "Policy", "discover", "own", "random_policy"]
