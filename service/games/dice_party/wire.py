"""Dice Party on the wire: parties as dice counts, supplies, wallets, the roll and the round results."""

from marshmallow import Schema, fields, validate

from ..wire import Wire, schema_of
from .rules import Dice, Roll, RoundWon

CONDITION = validate.OneOf(["escalation", "millionaire", "wallets"])
SEAT_ROLLS = fields.Dict(keys=fields.String(metadata={"pattern": "^[0-9]+$"}), values=fields.List(fields.Integer()),
                         metadata={"description": "Per seat (as a string key): its start roll."})


DicePartyDice = schema_of(Dice, "dice_party")
DicePartyRoll = schema_of(Roll, "dice_party")
DicePartyRoundWon = schema_of(RoundWon, "dice_party")


class DicePartyGuests(Schema):
    vips = fields.Integer(required=True)
    party_people = fields.Integer(required=True)


class DicePartyRoundStartedData(Schema):
    round = fields.Integer(required=True)
    seats = fields.List(fields.Integer(), required=True)
    starter = fields.Integer(required=True)
    start_rolls = fields.List(SEAT_ROLLS, required=True)


class DicePartyRolledData(Schema):
    seat = fields.Integer(required=True)
    roll = fields.Nested(DicePartyRoll, required=True)


class DicePartyFaceData(Schema):
    seat = fields.Integer(required=True)
    face = fields.Integer(required=True)


class DicePartyEscalatedData(Schema):
    seat = fields.Integer(required=True)
    escalations = fields.Integer(required=True)
    guest_pips = fields.Integer(required=True)
    mob_pips = fields.Integer(required=True)


class DicePartyPlayerOutData(Schema):
    seat = fields.Integer(required=True)
    escalations = fields.Integer(required=True)


class DicePartyStoleData(Schema):
    seat = fields.Integer(required=True)
    count = fields.Integer(required=True)
    wallets = fields.Integer(required=True)


class DicePartyProvokedData(Schema):
    seat = fields.Integer(required=True)
    count = fields.Integer(required=True)
    values = fields.List(fields.Integer(), required=True)


class DicePartyMobsSentData(Schema):
    seat = fields.Integer(required=True)
    opponent = fields.Integer(required=True)
    count = fields.Integer(required=True)
    removed = fields.Nested(DicePartyGuests, required=True)
    taken = fields.Integer(required=True)


class DicePartyGrewData(Schema):
    seat = fields.Integer(required=True)
    option = fields.String(required=True, validate=validate.OneOf(["a", "b"]))
    kind = fields.String(required=True, validate=validate.OneOf(["vips", "party_people"]))
    wanted = fields.Integer(required=True)
    joined = fields.Integer(required=True)
    mobs = fields.Integer(required=True)
    removed = fields.Nested(DicePartyGuests, required=True)
    taken = fields.Integer(required=True)


class DicePartyNoGrowthData(Schema):
    seat = fields.Integer(required=True)
    pips = fields.Nested(DicePartyGuests, required=True)


class DicePartyTurnSkippedData(Schema):
    seat = fields.Integer(required=True)
    reason = fields.String(required=True, validate=validate.OneOf(["empty_party"]))


class DicePartyStalemateData(Schema):
    seats = fields.List(fields.Integer(), required=True)


class DicePartyGameOverData(Schema):
    winners = fields.List(fields.Integer(), required=True)
    how = fields.String(required=True, validate=validate.OneOf(["round", "survivor", "crowned"]))


class DicePartyBreakdown(Schema):
    """A single round (won, condition, escalated, wallets, party) or the full game (conditions, round_wins,
    escalations, out, crowned)."""

    won = fields.Boolean()
    condition = fields.String(allow_none=True, validate=CONDITION)
    escalated = fields.Boolean()
    wallets = fields.Integer()
    party = fields.Nested(DicePartyDice)
    conditions = fields.List(fields.String(validate=CONDITION))
    round_wins = fields.Integer()
    escalations = fields.Integer()
    out = fields.Boolean()
    crowned = fields.Boolean()


WIRE = Wire(
    events={
        "round_started": DicePartyRoundStartedData,
        "rolled": DicePartyRolledData,
        "millionaire": DicePartyFaceData,
        "millionaire_again": DicePartyFaceData,
        "escalated": DicePartyEscalatedData,
        "player_out": DicePartyPlayerOutData,
        "stole": DicePartyStoleData,
        "provoked": DicePartyProvokedData,
        "mobs_sent": DicePartyMobsSentData,
        "grew": DicePartyGrewData,
        "no_growth": DicePartyNoGrowthData,
        "turn_skipped": DicePartyTurnSkippedData,
        "stalemate": DicePartyStalemateData,
        "round_won": DicePartyRoundWon,
        "game_over": DicePartyGameOverData,
    },
    breakdown=DicePartyBreakdown,
    ranges={"steal": ("count",), "provoke": ("count",)},
    score=fields.Float,
)
