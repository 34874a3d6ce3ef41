"""Picture Perfect on the wire: guests, the mat, envelopes (only those a seat may see), exchanges and photos."""

from marshmallow import Schema, fields, validate

from service.games.picture_perfect.data import AREAS, AUCTION, EXCHANGE_TITLE, GUESTS

from . import Wire

GUEST = validate.OneOf(GUESTS)
EXCHANGE = validate.OneOf(list(EXCHANGE_TITLE))
LATER = {"description": "Only once the match is over."}


def guest_id(**kwargs) -> fields.String:
    return fields.String(validate=GUEST, **kwargs)


def by_guest(values: fields.Field, **kwargs) -> fields.Dict:
    return fields.Dict(keys=fields.String(validate=GUEST), values=values, **kwargs)


class PicturePerfectWishCard(Schema):
    """A wish in an envelope; ``area``, ``guest`` or ``gender`` according to its kind."""

    id = fields.Integer(required=True)
    kind = fields.String(required=True, validate=validate.OneOf(
        ["area", "next_to", "not_next_to", "nobody_in_front", "face_hidden", "hide_face"]))
    text = fields.String(required=True)
    area = fields.String(validate=validate.OneOf(list(AREAS)))
    guest = guest_id()
    gender = fields.String(validate=validate.OneOf(["man", "woman"]))


class PicturePerfectEnvelopeContents(Schema):
    cards = fields.List(fields.Nested(PicturePerfectWishCard), required=True)
    vips = fields.Integer(required=True)


class PicturePerfectEnvelope(PicturePerfectEnvelopeContents):
    guest = guest_id(required=True)


class PicturePerfectGuest(Schema):
    id = guest_id(required=True)
    name = fields.String(required=True)
    height = fields.String(required=True, validate=validate.OneOf(["low", "short", "tall"]))
    gender = fields.String(required=True, allow_none=True, validate=validate.OneOf(["man", "woman"]))
    face = fields.Boolean(required=True)


class PicturePerfectMat(Schema):
    rows = fields.Integer(required=True)
    cols = fields.Integer(required=True)
    guest_squares = fields.List(fields.List(fields.Integer()), required=True)
    table = fields.List(fields.List(fields.Integer()), required=True)
    note = fields.String(required=True)


class PicturePerfectGift(Schema):
    guest = guest_id(required=True)
    to = fields.Integer(required=True)


class PicturePerfectPending(Schema):
    """The exchange or step under way; which fields appear depends on ``kind`` (and sealed answers of other
    seats are null)."""

    kind = fields.String(required=True, validate=validate.OneOf(
        ["look", "none", "dance", "gifts", "revelations", "rumors", "partner", "theft", "auction", "placement",
         "over"]))
    waiting = fields.List(fields.Integer(), required=True)
    keep = guest_id(allow_none=True)
    gifts = fields.List(fields.Nested(PicturePerfectGift))
    peek = guest_id(allow_none=True)
    steal = guest_id(allow_none=True)
    order = fields.List(fields.Integer())
    seat = fields.Integer(allow_none=True)
    count = fields.Integer()
    taken = fields.List(guest_id())
    returned = fields.List(guest_id())
    card = fields.String(validate=validate.OneOf(AUCTION))
    title = fields.String()
    queue = fields.List(fields.Integer())
    active = fields.Integer(allow_none=True)
    step = fields.String(validate=validate.OneOf(["offer", "deposit", "bid", "settle"]))
    guest = guest_id(allow_none=True)
    price = fields.Integer(allow_none=True)
    high = fields.Integer()
    high_bidder = fields.Integer(allow_none=True)
    passed = fields.List(fields.Integer())
    bidders = fields.List(fields.Integer())
    tie = fields.Boolean()
    floor = fields.List(fields.Integer())
    next = fields.Integer(allow_none=True)
    bids = fields.List(fields.Integer(allow_none=True))
    answers = fields.List(fields.Boolean(allow_none=True))
    deposits = fields.List(guest_id(allow_none=True))


class PicturePerfectPlacement(Schema):
    """A photo: each placed guest's [row, col] and the decorated columns."""

    guests = by_guest(fields.List(fields.Integer()), required=True)
    decor = fields.List(fields.Integer(), required=True)


class PicturePerfectOwnPlacement(PicturePerfectPlacement):
    done = fields.Boolean(required=True)


class PicturePerfectGuestScore(Schema):
    row = fields.Integer(required=True)
    col = fields.Integer(required=True)
    vips = fields.Integer(required=True)
    fulfilled = fields.List(fields.Boolean(), required=True)
    face_covered = fields.Boolean(required=True)
    nobody_in_front = fields.Boolean(required=True)
    points = fields.Integer(required=True)


class PicturePerfectBreakdown(Schema):
    placed = fields.Integer(required=True)
    envelopes = fields.Integer(required=True)
    guests = by_guest(fields.Nested(PicturePerfectGuestScore), required=True)
    guest_points = fields.Integer(required=True)
    decor = fields.List(fields.Integer(), required=True)
    decorations = fields.Integer(required=True)
    decoration_points = fields.Integer(required=True)
    total = fields.Integer(required=True)


class PicturePerfectViewResult(Schema):
    scores = fields.List(fields.Integer(), required=True)
    ranking = fields.List(fields.List(fields.Integer()), required=True)
    winners = fields.List(fields.Integer(), required=True)
    breakdown = fields.List(fields.Nested(PicturePerfectBreakdown), required=True)


class PicturePerfectView(Schema):
    you = fields.Integer(required=True, allow_none=True)
    players = fields.Integer(required=True)
    auctions = fields.Boolean(required=True)
    round = fields.Integer(required=True)
    rounds = fields.Integer(required=True)
    first = fields.Integer(required=True)
    starter = fields.Integer(required=True)
    phase = fields.String(required=True, validate=validate.OneOf(["look", "exchange", "placement", "over"]))
    to_act = fields.List(fields.Integer(), required=True)
    guests = fields.List(fields.Nested(PicturePerfectGuest), required=True)
    mat = fields.Nested(PicturePerfectMat, required=True)
    exchange = fields.String(required=True, allow_none=True, validate=EXCHANGE)
    exchange_title = fields.String(required=True, allow_none=True)
    exchange_cards_left = fields.Integer(required=True)
    past_exchanges = fields.List(fields.String(validate=EXCHANGE), required=True)
    pending = fields.Nested(PicturePerfectPending, required=True)
    held = fields.List(fields.List(guest_id()), required=True)
    middle = fields.List(guest_id(), required=True)
    fresh = fields.List(guest_id(), required=True)
    decorations = fields.List(fields.Integer(), required=True)
    supply = fields.Integer(required=True)
    vip = guest_id(allow_none=True)
    known = by_guest(fields.Nested(PicturePerfectEnvelopeContents),
                     metadata={"description": "The envelopes this seat has looked into."})
    revealed = by_guest(fields.Nested(PicturePerfectEnvelopeContents), required=True)
    placement = fields.Nested(PicturePerfectOwnPlacement, metadata={"description": "Your photo while you place."})
    placement_done = fields.List(fields.Boolean(), required=True)
    known_by = fields.List(by_guest(fields.Integer()), metadata=LATER)
    vip_at = fields.List(guest_id(), metadata=LATER)
    envelopes = fields.List(fields.Nested(PicturePerfectEnvelope), metadata=LATER)
    placements = fields.List(fields.Nested(PicturePerfectPlacement), metadata=LATER)
    result = fields.Nested(PicturePerfectViewResult, metadata=LATER)


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
