"""Picture Perfect for the Referee: one package, found through the ``referee.games`` entry point like any other.

Everything of the game the referee needs is on ``PLUGIN``: the rules (rules.py), the wire types of its view,
events and result (wire.py), the move a clock makes, its bots and search hooks (bots.py), its conformance hooks
(in its tests, tests/games/test_picture_perfect.py), its table renderer (table.js), its rules page (rules.md,
published as games/picture_perfect.md in the docs site) and the table's words in English and German (words/).
Beside the rules: the component data (data.py), the exchange cards (exchanges.py), the state helpers they
share (table.py), the computed photo (photo.py) and its SVG (svg.py), and the schemas its options and wire
types share (schemas.py).  The plugin is assembled here, so that the rules never import the wire types
(wire.py builds on the rules).
"""

from service.games.plugin import Plugin

from .rules import GAME, default_move
from .wire import WIRE

PLUGIN = Plugin(GAME, WIRE, default_move, bots="service.games.picture_perfect.bots",
                conformance="tests.games.test_picture_perfect", seeds=1, every=9, order=5,
                table="table.js", words="words", docs="rules.md",
                store_kib={2: 61.5, 3: 77.7, 4: 90.4, 5: 98.4, 6: 114.8})

__all__ = ["GAME", "PLUGIN"]
