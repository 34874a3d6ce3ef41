"""Paparazzo for the Referee: one package, found through the ``referee.games`` entry point like any other game.

Everything of the game the referee needs is on ``PLUGIN``: the rules (rules.py), the wire types of its view,
events and result (wire.py), the move a clock makes, its bots and search hooks (bots.py), its conformance hooks
(in its tests, tests/games/test_paparazzo.py), its table renderer (table.js), its rules page (rules.md, published as
games/paparazzo.md in the docs site) and the table's words in English and German (words/).
The plugin is assembled here, so that the rules never import the wire types (wire.py builds on the rules).
"""

from service.games.plugin import Plugin

from .rules import GAME, default_move
from .wire import WIRE

PLUGIN = Plugin(GAME, WIRE, default_move, bots="service.games.paparazzo.bots",
                conformance="tests.games.test_paparazzo", seeds=1, every=29, order=3,
                table="table.js", words="words", docs="rules.md", store_kib={3: 77.0, 4: 193.0, 5: 561.8})

__all__ = ["GAME", "PLUGIN"]
