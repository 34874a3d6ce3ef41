"""Each game on the wire: the typed shapes of its view, its events' data and its result breakdown.

The rules modules build plain JSON; these marshmallow schemas say what that JSON is, for integrators
(the OpenAPI document types every view, legal move, event and result from them) and for the tests
(under ``app.testing`` every answer is dumped through them and must come out unchanged, so a key a
game adds without declaring it here fails the suite).  A new game adds a module and one line in WIRES.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from marshmallow import Schema, fields


class Span(Schema):
    """A numeric choice in a legal move, given once: every ``min + k*step`` up to ``max``."""

    min = fields.Integer(required=True)
    max = fields.Integer(required=True)
    step = fields.Integer(required=True)


@dataclass(frozen=True)
class Wire:
    """One game's wire types (its ``Options`` and ``moves`` schemas live on the game itself)."""

    view: type[Schema]
    #: event type -> the schema of that event's ``data`` (the referee's own events are typed in service/api)
    events: Mapping[str, type[Schema]]
    #: one seat's entry in the result's ``breakdown``
    breakdown: type[Schema]
    #: move type -> the fields that its legal moves give as a Span instead of a number
    ranges: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    #: how a score is written (Dice Party scores rounds and tie-breaks as fractions)
    score: type[fields.Field] = fields.Integer


from . import big_shot, dice_party, paparazzo, picture_perfect, super_blatt  # noqa: E402

WIRES: dict[str, Wire] = {
    "super_blatt": super_blatt.WIRE,
    "big_shot": big_shot.WIRE,
    "paparazzo": paparazzo.WIRE,
    "dice_party": dice_party.WIRE,
    "picture_perfect": picture_perfect.WIRE,
}

__all__ = ["WIRES", "Span", "Wire"]
