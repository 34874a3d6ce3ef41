"""Picture Perfect on the wire: guests, the mat, envelopes (only those a seat may see), exchanges and photos."""

from marshmallow import Schema, fields, validate

from ..wire import Wire
from .data import AUCTION
from .schemas import (
    EXCHANGE,
    PicturePerfectBreakdown,
    PicturePerfectEnvelope,
    PicturePerfectPlacement,
    guest_id,
)


class PicturePerfectSeatData(Schema):
    seat = fields.Integer(required=True)


class PicturePerfectRoundData(Schema):
    round = fields.Integer(required=True)
    starter = fields.Integer(required=True)


class PicturePerfectLookedData(Schema):
    reason = fields.String(required=True, validate=validate.OneOf(["step_1", "rumors", "fixed_price", "final"]))
    envelopes = fields.List(fields.Nested(PicturePerfectEnvelope), required=True)


class PicturePerfectExchangeRevealedData(Schema):
    round = fields.Integer(required=True)
    card = fields.String(required=True, validate=EXCHANGE)
    title = fields.String(required=True)


class PicturePerfectRescuedData(Schema):
    seat = fields.Integer(required=True)
    from_ = fields.List(fields.Raw(metadata={"oneOf": [{"type": "integer", "minimum": 0, "maximum": 15},
                                                       {"type": "string", "enum": ["supply"]}]}),
                        required=True, data_key="from", attribute="from",
                        metadata={"description": "Seats (or the supply) giving one."})


class PicturePerfectVipAddedData(Schema):
    guest = guest_id(required=True)
    vips = fields.Integer(required=True)


class PicturePerfectChoseData(Schema):
    """A seat made its sealed choice (not what it chose)."""

    seat = fields.Integer(required=True)
    card = fields.String(required=True, validate=EXCHANGE)


class PicturePerfectDancedData(Schema):
    kept = fields.List(guest_id(), required=True)
    put_in = fields.List(fields.Integer(), required=True)
    middle = fields.List(guest_id(), required=True)
    dealt = fields.List(fields.List(guest_id()), required=True)


class PicturePerfectYourChoiceData(Schema):
    """Your own sealed choice, shown to you only; the field says which choice it was."""

    keep = guest_id()
    gift = guest_id()
    to = fields.Integer()
    peek = guest_id(allow_none=True)
    steal = guest_id()
    deposit = guest_id()
    pay = fields.Boolean()
    bid = fields.Integer()
    place = guest_id()
    row = fields.Integer()
    col = fields.Integer()
    decorate = fields.Integer()


class PicturePerfectTransfer(Schema):
    from_ = fields.Integer(required=True, data_key="from", attribute="from")
    to = fields.Integer(required=True)
    guest = guest_id(required=True)


class PicturePerfectTransfersData(Schema):
    transfers = fields.List(fields.Nested(PicturePerfectTransfer), required=True)


class PicturePerfectRevealedData(Schema):
    envelopes = fields.List(fields.Nested(PicturePerfectEnvelope), required=True)


class PicturePerfectRumorsData(Schema):
    peeks = fields.List(guest_id(allow_none=True), required=True)


class PicturePerfectSeatGuestData(Schema):
    seat = fields.Integer(required=True)
    guest = guest_id(required=True)


class PicturePerfectDepositedData(Schema):
    deposits = fields.List(guest_id(allow_none=True), required=True)
    middle = fields.List(guest_id(), required=True)


class PicturePerfectAuctionSkippedData(Schema):
    active = fields.Integer(required=True)
    card = fields.String(required=True, validate=validate.OneOf(AUCTION))


class PicturePerfectAuctionOfferedData(Schema):
    active = fields.Integer(required=True)
    card = fields.String(required=True, validate=validate.OneOf(AUCTION))
    guest = guest_id(required=True)
    price = fields.Integer(required=True, allow_none=True)


class PicturePerfectBidData(Schema):
    seat = fields.Integer(required=True)
    amount = fields.Integer(required=True)


class PicturePerfectPassedData(Schema):
    seat = fields.Integer(required=True)
    forced = fields.Boolean()


class PicturePerfectAuctionUnsoldData(Schema):
    active = fields.Integer(required=True)
    guest = guest_id(required=True)
    second_tie = fields.Boolean()


class PicturePerfectAuctionWonData(Schema):
    seat = fields.Integer(required=True)
    guest = guest_id(required=True)
    price = fields.Integer(required=True)
    paid_to = fields.Integer(required=True)
    active_bought = fields.Boolean()


class PicturePerfectSealedBidsData(Schema):
    bids = fields.List(fields.Integer(allow_none=True), required=True)
    tie_round = fields.Boolean(required=True)


class PicturePerfectTieData(Schema):
    seats = fields.List(fields.Integer(), required=True)
    amount = fields.Integer(required=True)


class PicturePerfectLosersPaidData(Schema):
    paid = fields.List(fields.Integer(), required=True)
    to = fields.Integer(required=True)


class PicturePerfectPaidToLookData(Schema):
    active = fields.Integer(required=True)
    guest = guest_id(required=True)
    price = fields.Integer(required=True)
    payers = fields.List(fields.Integer(), required=True)


class PicturePerfectFinalPlacementData(Schema):
    round = fields.Integer(required=True)


class PicturePerfectPhotosData(Schema):
    placements = fields.List(fields.Nested(PicturePerfectPlacement), required=True)
    envelopes = fields.List(fields.Nested(PicturePerfectEnvelope), required=True)


class PicturePerfectGameOverData(Schema):
    scores = fields.List(fields.Integer(), required=True)
    winners = fields.List(fields.Integer(), required=True)


WIRE = Wire(
    events={
        "round_started": PicturePerfectRoundData,
        "looked": PicturePerfectLookedData,
        "vip_added": PicturePerfectVipAddedData,
        "ready": PicturePerfectSeatData,
        "exchange_revealed": PicturePerfectExchangeRevealedData,
        "chose": PicturePerfectChoseData,
        "your_choice": PicturePerfectYourChoiceData,
        "danced": PicturePerfectDancedData,
        "gifts_given": PicturePerfectTransfersData,
        "revealed": PicturePerfectRevealedData,
        "rumors": PicturePerfectRumorsData,
        "took": PicturePerfectSeatGuestData,
        "returned": PicturePerfectSeatGuestData,
        "stolen": PicturePerfectTransfersData,
        "deposited": PicturePerfectDepositedData,
        "auction_skipped": PicturePerfectAuctionSkippedData,
        "auction_offered": PicturePerfectAuctionOfferedData,
        "bid": PicturePerfectBidData,
        "passed": PicturePerfectPassedData,
        "sealed_bids": PicturePerfectSealedBidsData,
        "tie": PicturePerfectTieData,
        "auction_unsold": PicturePerfectAuctionUnsoldData,
        "auction_won": PicturePerfectAuctionWonData,
        "losers_paid": PicturePerfectLosersPaidData,
        "paid_to_look": PicturePerfectPaidToLookData,
        "round_ended": PicturePerfectRoundData,
        "rescued": PicturePerfectRescuedData,
        "final_placement": PicturePerfectFinalPlacementData,
        "placement_done": PicturePerfectSeatData,
        "photos": PicturePerfectPhotosData,
        "game_over": PicturePerfectGameOverData,
    },
    breakdown=PicturePerfectBreakdown,
    ranges={"bid": ("amount",), "offer": ("price",)},
)
