"""Paparazzo on the wire: the Skandalchronik, the market, the lot on offer, photos owned and hands."""

from marshmallow import Schema, fields, validate

from ..wire import Wire, schema_of
from .rules import Card, HandResult

CELEBRITY = validate.OneOf(list("ABCDEFGH"))
LATER = {"description": "Only once the match is over."}


PaparazzoCard = schema_of(Card, "paparazzo")
PaparazzoHandResult = schema_of(HandResult, "paparazzo")


class PaparazzoSeatData(Schema):
    seat = fields.Integer(required=True)


class PaparazzoAmountData(Schema):
    seat = fields.Integer(required=True)
    amount = fields.Integer(required=True)


class PaparazzoCardsData(Schema):
    seat = fields.Integer(required=True)
    cards = fields.List(fields.Nested(PaparazzoCard), required=True)


class PaparazzoCardData(Schema):
    seat = fields.Integer(required=True)
    card = fields.Nested(PaparazzoCard, required=True)


class PaparazzoHandStartedData(Schema):
    hand = fields.Integer(required=True)
    starter = fields.Integer(required=True)
    hand_sizes = fields.List(fields.Integer(), required=True)
    market = fields.List(fields.Nested(PaparazzoCard), required=True)


class PaparazzoSelectedData(Schema):
    seat = fields.Integer(required=True)
    slot = fields.Integer(required=True)
    card = fields.Nested(PaparazzoCard, required=True)
    minimum = fields.Integer(required=True)


class PaparazzoPriceSetData(Schema):
    seat = fields.Integer(required=True)
    price = fields.Integer(required=True)


class PaparazzoPenaltyData(Schema):
    seat = fields.Integer(required=True)
    amount = fields.Integer(required=True)
    total = fields.Integer(required=True)


class PaparazzoBoughtData(Schema):
    seat = fields.Integer(required=True)
    card = fields.Nested(PaparazzoCard, required=True)
    price = fields.Integer(required=True)
    forced = fields.Boolean(required=True)


class PaparazzoSlotData(Schema):
    seat = fields.Integer(required=True)
    slot = fields.Integer(required=True)


class PaparazzoPlacedData(Schema):
    seat = fields.Integer(required=True)
    slot = fields.Integer(required=True)
    card = fields.Nested(PaparazzoCard, required=True)
    photos = fields.Integer(required=True)
    value = fields.Integer(required=True)


class PaparazzoSoldToStunkData(Schema):
    seat = fields.Integer(required=True)
    card = fields.Nested(PaparazzoCard, required=True)
    value = fields.Integer(required=True)


class PaparazzoHandScoredData(Schema):
    hand = fields.Integer(required=True)
    result = fields.List(fields.Nested(PaparazzoHandResult), required=True)
    totals = fields.List(fields.Integer(), required=True)


class PaparazzoCareersRuinedData(Schema):
    celebrities = fields.List(fields.String(validate=CELEBRITY), required=True)
    removed = fields.List(fields.Nested(PaparazzoCard), required=True)


class PaparazzoGameOverData(Schema):
    scores = fields.List(fields.Integer(), required=True)
    hands = fields.List(fields.List(fields.Nested(PaparazzoCard)), required=True)


class PaparazzoBreakdown(Schema):
    hands = fields.List(fields.Nested(PaparazzoHandResult), required=True)
    total = fields.Integer(required=True)


WIRE = Wire(
    events={
        "hand_started": PaparazzoHandStartedData,
        "dealt": PaparazzoCardsData,
        "rumors": PaparazzoCardsData,
        "rumors_chosen": PaparazzoSeatData,
        "selected": PaparazzoSelectedData,
        "offered": PaparazzoAmountData,
        "passed": PaparazzoSeatData,
        "taken_free": PaparazzoCardData,
        "price_set": PaparazzoPriceSetData,
        "declined": PaparazzoSeatData,
        "penalty": PaparazzoPenaltyData,
        "bought": PaparazzoBoughtData,
        "commission": PaparazzoAmountData,
        "slot_left_empty": PaparazzoSlotData,
        "placed": PaparazzoPlacedData,
        "sold_to_stunk": PaparazzoSoldToStunkData,
        "hand_scored": PaparazzoHandScoredData,
        "careers_ruined": PaparazzoCareersRuinedData,
        "game_over": PaparazzoGameOverData,
    },
    breakdown=PaparazzoBreakdown,
    ranges={"offer": ("amount",)},
)
