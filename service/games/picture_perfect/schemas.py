"""Picture Perfect's records on the wire that no TypedDict of the state describes: the guests, the mat, the
wish cards, an exchange's pending part, photos and their scores.  The view (derived from the Shape, see
rules.py) and the events (wire.py) both use them."""

from marshmallow import Schema, fields, validate

from .data import AREAS, AUCTION, EXCHANGE_TITLE, GUESTS

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
