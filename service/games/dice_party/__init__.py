"""Dice Party for the Referee: one package, found through the ``referee.games`` entry point like any other game.

Everything of the game the referee needs is on ``PLUGIN``: the rules (rules.py), the wire types of its view,
events and result (wire.py), the move a clock makes, its bots and search hooks (bots.py), its conformance hooks
(in its tests, tests/games/test_dice_party.py), its table renderer (table.js), its rules page (rules.md, published as
games/dice_party.md in the docs site) and the table's words in English and German (words/).
The plugin is assembled here, so that the rules never import the wire types (wire.py builds on the rules).
"""

from service.games.plugin import Plugin

from .rules import GAME, default_move
from .wire import WIRE

PLUGIN = Plugin(GAME, WIRE, default_move, bots="service.games.dice_party.bots",
                conformance="tests.games.test_dice_party", seeds=3, every=3, order=4,
                table="table.js", words="words", docs="rules.md",
                store_kib={2: 12.2, 3: 17.9, 4: 21.4, 5: 25.2, 6: 31.9})

__all__ = ["GAME", "PLUGIN"]
