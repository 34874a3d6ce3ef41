"""Big Shot on the wire: the board of 13 lots, the auction, the broker, cubes, money and debits."""

from marshmallow import Schema, fields, validate

from ..wire import Wire, schema_of
from .rules import Cubes

COLOR = validate.OneOf(["red", "yellow", "white", "black"])
LOT = validate.OneOf(["W9", "W10", "W11", "C16", "C17", "C18", "C19", "C21", "E9", "E10", "E11", "PW", "PE"])


BigShotCubes = schema_of(Cubes, "big_shot")


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
