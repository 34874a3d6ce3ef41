"""Das Super-Blatt on the wire: columns of cards, holdings, trends and scores (all public but the decks)."""

from marshmallow import Schema, fields, validate

from . import Wire

CATEGORY = validate.OneOf(["business", "crime", "sex", "sport"])


class SuperBlattCard(Schema):
    id = fields.Integer(required=True)
    category = fields.String(required=True, validate=CATEGORY)
    arrows = fields.Integer(required=True)
    special = fields.String(required=True, allow_none=True, validate=validate.OneOf(["arrow", "extra"]))


class SuperBlattHolding(Schema):
    """A count per category."""

    business = fields.Integer(required=True)
    crime = fields.Integer(required=True)
    sex = fields.Integer(required=True)
    sport = fields.Integer(required=True)


class SuperBlattPending(Schema):
    """A decision the seat to act still owes: an EXTRA's second take, or a victim to steal from."""

    kind = fields.String(required=True, validate=validate.OneOf(["extra", "steal"]))
    category = fields.String(required=True, validate=CATEGORY)
    arrows = fields.Integer(metadata={"description": "For steal: how many cards the arrow card takes."})


class SuperBlattTrendPoints(Schema):
    """Per category, the points by rank of a trend card."""

    business = fields.List(fields.Integer(), required=True)
    crime = fields.List(fields.Integer(), required=True)
    sex = fields.List(fields.Integer(), required=True)
    sport = fields.List(fields.Integer(), required=True)


class SuperBlattTrend(Schema):
    card = fields.Integer(required=True)
    points = fields.Nested(SuperBlattTrendPoints, required=True)


class SuperBlattView(Schema):
    round = fields.Integer(required=True)
    turn = fields.Integer(required=True, allow_none=True)
    starter = fields.Integer(required=True)
    pending = fields.Nested(SuperBlattPending, required=True, allow_none=True)
    trend = fields.Nested(SuperBlattTrend, required=True)
    past_trends = fields.List(fields.Integer(), required=True)
    columns = fields.List(fields.List(fields.Nested(SuperBlattCard)), required=True)
    deck_size = fields.Integer(required=True)
    unturned_trends = fields.Integer(required=True)
    holdings = fields.List(fields.Nested(SuperBlattHolding), required=True)
    hands = fields.List(fields.List(fields.Nested(SuperBlattCard)), required=True)
    scores = fields.List(fields.Integer(), required=True)
    round_points = fields.List(fields.List(fields.Nested(SuperBlattHolding)), required=True)
    you = fields.Integer(required=True, allow_none=True)
    deck = fields.List(fields.Nested(SuperBlattCard), metadata={"description": "Only once the match is over."})
    trend_deck = fields.List(fields.Integer(), metadata={"description": "Only once the match is over."})


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
    view=SuperBlattView,
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
