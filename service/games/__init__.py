"""The game registry: a new game is a module plus one line here."""

from . import big_shot, dice_party, paparazzo, picture_perfect, super_blatt
from .base import Game, GameError, IllegalMove, InvalidMove, InvalidOptions, Outcome

GAMES: dict[str, Game] = {g.name: g for g in (super_blatt.GAME, big_shot.GAME, paparazzo.GAME, dice_party.GAME,
                                               picture_perfect.GAME)}

__all__ = ["GAMES", "Game", "GameError", "IllegalMove", "InvalidMove", "InvalidOptions", "Outcome"]
