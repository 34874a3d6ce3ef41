"""Paparazzo on the wire: the Skandalchronik, the market, the lot on offer, photos owned and hands."""

from marshmallow import Schema, fields, validate

from . import Wire

CELEBRITY = validate.OneOf(list("ABCDEFGH"))
LATER = {"description": "Only once the match is over."}


class PaparazzoCard(Schema):
    id = fields.Integer(required=True)
    celebrity = fields.String(required=True, validate=CELEBRITY)


class PaparazzoCelebrity(Schema):
    celebrity = fields.String(required=True, validate=CELEBRITY)
    name = fields.String(required=True)
    photos = fields.Integer(required=True)
    value = fields.Integer(required=True)
    ex = fields.Boolean(required=True)
    in_play = fields.Boolean(required=True)
    sold_to_stunk = fields.Boolean(required=True)


class PaparazzoHandResult(Schema):
    """One seat's scoring of one hand."""

    photos = fields.Dict(keys=fields.String(validate=CELEBRITY), values=fields.Integer(), required=True,
                         metadata={"description": "Photos per celebrity (celebrities with none left out)."})
    exclusive = fields.List(fields.String(validate=CELEBRITY), required=True)
    photo_value = fields.Integer(required=True)
    bonus = fields.Integer(required=True)
    penalties = fields.Integer(required=True)
    cash = fields.Integer(required=True)
    worth = fields.Integer(required=True)


class PaparazzoOffer(Schema):
    seat = fields.Integer(required=True)
    amount = fields.Integer(required=True, allow_none=True, metadata={"description": "null: passed."})


class PaparazzoLot(Schema):
    slot = fields.Integer(required=True)
    card = fields.Nested(PaparazzoCard, required=True)
    minimum = fields.Integer(required=True)
    next_minimum = fields.Integer(required=True, allow_none=True)
    high = fields.Integer(required=True, allow_none=True)
    high_seat = fields.Integer(required=True, allow_none=True)
    prev = fields.Integer(required=True)
    turn = fields.Integer(required=True)
    offers = fields.List(fields.Nested(PaparazzoOffer), required=True)
    declined = fields.List(fields.Integer(), required=True)
    buyer = fields.Integer(required=True, allow_none=True)


class PaparazzoSeen(Schema):
    """The cards your right-hand neighbour showed you."""

    seat = fields.Integer(required=True)
    cards = fields.List(fields.Nested(PaparazzoCard), required=True)


class PaparazzoView(Schema):
    you = fields.Integer(required=True, allow_none=True)
    players = fields.Integer(required=True)
    raises = fields.String(required=True, validate=validate.OneOf(["standard", "panning", "friese"]))
    hand_no = fields.Integer(required=True)
    hand_count = fields.Integer(required=True)
    phase = fields.String(required=True,
                          validate=validate.OneOf(["rumors", "selection", "offers", "sale", "new_photo", "over"]))
    to_act = fields.List(fields.Integer(), required=True)
    mediator = fields.Integer(required=True)
    starter = fields.Integer(required=True)
    retry = fields.Boolean(required=True)
    celebrities = fields.List(fields.Nested(PaparazzoCelebrity), required=True)
    market = fields.List(fields.Nested(PaparazzoCard, allow_none=True), required=True)
    owned = fields.List(fields.List(fields.Nested(PaparazzoCard)), required=True)
    stunk = fields.List(fields.Nested(PaparazzoCard), required=True)
    out = fields.List(fields.Nested(PaparazzoCard), required=True)
    hand_sizes = fields.List(fields.Integer(), required=True)
    deck_size = fields.Integer(required=True)
    penalties = fields.List(fields.Integer(), required=True)
    lot = fields.Nested(PaparazzoLot, required=True, allow_none=True)
    rumors_pending = fields.List(fields.Boolean(), required=True, allow_none=True)
    hand_results = fields.List(fields.List(fields.Nested(PaparazzoHandResult)), required=True)
    totals = fields.List(fields.Integer(), required=True)
    cash = fields.List(fields.Integer(allow_none=True), required=True)
    hand = fields.List(fields.Nested(PaparazzoCard), required=True, allow_none=True)
    shown = fields.List(fields.Nested(PaparazzoCard), required=True, allow_none=True)
    seen = fields.Nested(PaparazzoSeen, required=True, allow_none=True)
    over = fields.Boolean(required=True)
    hands = fields.List(fields.List(fields.Nested(PaparazzoCard)), metadata=LATER)
    all_shown = fields.List(fields.List(fields.Nested(PaparazzoCard)), metadata=LATER)
    deck = fields.List(fields.Nested(PaparazzoCard), metadata=LATER)
    bank = fields.Integer(metadata=LATER)


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
    view=PaparazzoView,
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
