"""The game registry: a new game is a module plus one line here (and its default move)."""

from collections.abc import Callable

from . import big_shot, dice_party, paparazzo, picture_perfect, super_blatt
from .base import Game, GameError, IllegalMove, InvalidMove, InvalidOptions, Move, Outcome, State

#: the bot kinds a seat can be given; every game's bots (workers/bots) implement each of them
BOT_KINDS: tuple[str, ...] = ("random", "greedy", "search")

GAMES: dict[str, Game] = {g.name: g for g in (super_blatt.GAME, big_shot.GAME, paparazzo.GAME, dice_party.GAME,
                                               picture_perfect.GAME)}

#: each game's safe default move for a seat's decision (a timeout, a seat that is out)
DEFAULT_MOVES: dict[str, Callable[[State, int], Move]] = {
    "super_blatt": super_blatt.default_move, "big_shot": big_shot.default_move,
    "paparazzo": paparazzo.default_move, "dice_party": dice_party.default_move,
    "picture_perfect": picture_perfect.rules.default_move,
}

__all__ = ["BOT_KINDS", "DEFAULT_MOVES", "GAMES", "Game", "GameError", "IllegalMove", "InvalidMove", "InvalidOptions",
           "Outcome"]
