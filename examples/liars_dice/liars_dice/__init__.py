"""Liar's Dice for the Referee: a game in a package of its own, found through the ``referee.games`` entry point.

Everything of the game the referee needs is on ``PLUGIN``: the rules (rules.py), the wire types of its
events, the move a clock makes, its bots (bots.py), its conformance hooks (conformance.py), its rules
page (rules.md) and the table's words in English and German (words/).  It has no table renderer: the
browser draws it with the generic table, in those words.
"""

from service.games import Plugin

from .rules import GAME, WIRE, default_move

PLUGIN = Plugin(GAME, WIRE, default_move, bots="liars_dice.bots", conformance="liars_dice.conformance",
                seeds=3, every=2, docs="rules.md", words="words",
                store_kib={2: 12.2, 3: 21.8, 4: 31.8, 5: 42.4, 6: 52.9},
                summary="Bid on the dice under everyone's cups, or call the last bid a lie. Ones are wild; the "
                        "last player with dice wins.",
                help={"bidding": "Raise the bid (more dice, or as many of a higher face) or challenge the last "
                                 "one: then every cup is lifted, and whoever was wrong loses a die."})

__all__ = ["GAME", "PLUGIN"]
