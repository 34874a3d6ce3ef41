"""Big Shot on the wire: the board of 13 lots, the auction, the broker, cubes, money and debits."""

from marshmallow import Schema, fields, validate

from . import Wire

COLOR = validate.OneOf(["red", "yellow", "white", "black"])
LOT = validate.OneOf(["W9", "W10", "W11", "C16", "C17", "C18", "C19", "C21", "E9", "E10", "E11", "PW", "PE"])


class BigShotAccount(Schema):
    seat = fields.Integer(required=True)
    color = fields.String(required=True, validate=COLOR)
    cash = fields.Integer(required=True, allow_none=True, metadata={"description": "null when money is hidden."})
    debits = fields.Integer(required=True)
    loaned_this_round = fields.Boolean(required=True)


class BigShotAuction(Schema):
    space = fields.Integer(required=True)
    cubes = fields.List(fields.String(validate=COLOR), required=True)
    high_bid = fields.Integer(required=True)
    high_bidder = fields.Integer(required=True, allow_none=True)
    passed = fields.List(fields.Integer(), required=True)


class BigShotCubes(Schema):
    """A count per colour; colours with none may be left out."""

    red = fields.Integer()
    yellow = fields.Integer()
    white = fields.Integer()
    black = fields.Integer()


class BigShotLot(Schema):
    lot = fields.String(required=True, validate=LOT)
    value = fields.Integer(required=True)
    park = fields.String(required=True, allow_none=True, validate=validate.OneOf(["PW", "PE"]))
    cubes = fields.Nested(BigShotCubes, required=True)
    closed = fields.Boolean(required=True)
    owner = fields.String(required=True, allow_none=True, validate=COLOR)


class BigShotSeat(Schema):
    seat = fields.Integer(required=True)
    colors = fields.List(fields.String(validate=COLOR), required=True)


class BigShotView(Schema):
    players = fields.Integer(required=True)
    round = fields.Integer(required=True)
    rounds = fields.Integer(required=True)
    phase = fields.String(required=True, validate=validate.OneOf(["loans", "bidding", "pay", "place", "over"]))
    turn = fields.Integer(required=True, allow_none=True)
    roller = fields.Integer(required=True)
    die = fields.Integer(required=True)
    broker = fields.Integer(required=True)
    spaces = fields.List(fields.List(fields.String(validate=COLOR)), required=True)
    auction = fields.Nested(BigShotAuction, required=True)
    buyer = fields.Integer(required=True, allow_none=True)
    price = fields.Integer(required=True)
    hand = fields.List(fields.String(validate=COLOR), required=True)
    lots = fields.List(fields.Nested(BigShotLot), required=True)
    seats = fields.List(fields.Nested(BigShotSeat), required=True)
    accounts = fields.List(fields.Nested(BigShotAccount), required=True)
    balances = fields.List(fields.Integer(allow_none=True), required=True)
    ghost = fields.String(required=True, allow_none=True, validate=COLOR,
                          metadata={"description": "2 players: the colour nobody owns."})
    hidden_money = fields.Boolean(required=True)
    loan_seats_done = fields.Integer(required=True)
    paid_to_bank = fields.Integer(required=True)
    removed = fields.Integer(required=True)
    you = fields.Integer(required=True, allow_none=True)


class BigShotSeatData(Schema):
    seat = fields.Integer(required=True)


class BigShotRoundStartedData(Schema):
    round = fields.Integer(required=True)
    roller = fields.Integer(required=True)
    die = fields.Integer(required=True)
    from_ = fields.Integer(required=True, data_key="from", attribute="from")
    space = fields.Integer(required=True)
    cubes = fields.List(fields.String(validate=COLOR), required=True)


class BigShotLoanData(Schema):
    seat = fields.Integer(required=True)
    color = fields.String(required=True, validate=COLOR)
    received = fields.Integer(required=True)
    debits = fields.Integer(required=True)


class BigShotBidData(Schema):
    seat = fields.Integer(required=True)
    amount = fields.Integer(required=True)


class BigShotAuctionWonData(Schema):
    seat = fields.Integer(required=True)
    price = fields.Integer(required=True)


class BigShotPaidData(Schema):
    seat = fields.Integer(required=True)
    color = fields.String(required=True, validate=COLOR)
    amount = fields.Integer(required=True)


class BigShotPlacedData(Schema):
    seat = fields.Integer(required=True)
    color = fields.String(required=True, validate=COLOR)
    lot = fields.String(required=True, validate=LOT)


class BigShotCubesRemovedData(Schema):
    cubes = fields.List(fields.String(validate=COLOR), required=True)


class BigShotLotSettledData(Schema):
    """lot_sold names the winning colour and its owner (null for the 2-player ghost); lot_void neither."""

    lot = fields.String(required=True, validate=LOT)
    color = fields.String(required=True, allow_none=True, validate=COLOR)
    seat = fields.Integer(required=True, allow_none=True)
    cubes = fields.Nested(BigShotCubes, required=True)


class BigShotGameOverData(Schema):
    scores = fields.List(fields.Integer(), required=True)
    winners = fields.List(fields.Integer(), required=True)


class BigShotBreakdown(Schema):
    colors = fields.List(fields.String(validate=COLOR), required=True)
    cash = fields.Integer(required=True)
    debt = fields.Integer(required=True)
    balance = fields.Integer(required=True)
    lots = fields.List(fields.String(validate=LOT), required=True)
    lots_per_color = fields.Nested(BigShotCubes, required=True)
    lot_values = fields.Integer(required=True)
    best_lot = fields.Integer(required=True)
    qualified = fields.Boolean(required=True)


WIRE = Wire(
    view=BigShotView,
    events={
        "round_started": BigShotRoundStartedData,
        "loan": BigShotLoanData,
        "loans_done": BigShotSeatData,
        "bid": BigShotBidData,
        "passed": BigShotSeatData,
        "auction_won": BigShotAuctionWonData,
        "paid": BigShotPaidData,
        "placed": BigShotPlacedData,
        "cubes_removed": BigShotCubesRemovedData,
        "lot_sold": BigShotLotSettledData,
        "lot_void": BigShotLotSettledData,
        "game_over": BigShotGameOverData,
    },
    breakdown=BigShotBreakdown,
    ranges={"bid": ("amount",)},
)
