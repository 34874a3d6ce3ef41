"""Das Super-Blatt on the wire: columns of cards, holdings, trends and scores (all public but the decks)."""

from marshmallow import Schema, fields, validate

from ..wire import Wire, schema_of
from .rules import Card, Holding, TrendPoints

CATEGORY = validate.OneOf(["business", "crime", "sex", "sport"])


SuperBlattCard = schema_of(Card, "super_blatt")
SuperBlattHolding = schema_of(Holding, "super_blatt")
SuperBlattTrendPoints = schema_of(TrendPoints, "super_blatt")


class SuperBlattSeatData(Schema):
    seat = fields.Integer(required=True)


class SuperBlattScoresData(Schema):
    scores = fields.List(fields.Integer(), required=True)


class SuperBlattRoundScoredData(Schema):
    round = fields.Integer(required=True)
    points = fields.List(fields.Nested(SuperBlattHolding), required=True)
    scores = fields.List(fields.Integer(), required=True)


class SuperBlattRoundStartedData(Schema):
    round = fields.Integer(required=True)
    starter = fields.Integer(required=True)
    trend = fields.Integer(required=True)
    points = fields.Nested(SuperBlattTrendPoints, required=True)
    columns = fields.List(fields.List(fields.Nested(SuperBlattCard)), required=True)


class SuperBlattStoleData(Schema):
    seat = fields.Integer(required=True)
    victim = fields.Integer(required=True)
    category = fields.String(required=True, validate=CATEGORY)
    cards = fields.List(fields.Nested(SuperBlattCard), required=True)


class SuperBlattTookData(Schema):
    seat = fields.Integer(required=True)
    column = fields.Integer(required=True)
    card = fields.Nested(SuperBlattCard, required=True)


class SuperBlattBreakdown(Schema):
    rounds = fields.List(fields.Nested(SuperBlattHolding), required=True)
    cards = fields.Nested(SuperBlattHolding, required=True)


WIRE = Wire(
    events={
        "round_started": SuperBlattRoundStartedData,
        "took": SuperBlattTookData,
        "took_extra": SuperBlattTookData,
        "extra_declined": SuperBlattSeatData,
        "stole": SuperBlattStoleData,
        "round_scored": SuperBlattRoundScoredData,
        "game_over": SuperBlattScoresData,
    },
    breakdown=SuperBlattBreakdown,
)
