"""Dice Party on the wire: parties as dice counts, supplies, wallets, the roll and the round results."""

from marshmallow import Schema, fields, validate

from . import Wire

CONDITION = validate.OneOf(["escalation", "millionaire", "wallets"])
SEAT_ROLLS = fields.Dict(keys=fields.String(metadata={"pattern": "^[0-9]+$"}), values=fields.List(fields.Integer()),
                         metadata={"description": "Per seat (as a string key): its start roll."})


class DicePartyDice(Schema):
    """Dice of each type (a party, a supply)."""

    vips = fields.Integer(required=True)
    party_people = fields.Integer(required=True)
    mobs = fields.Integer(required=True)


class DicePartyGuests(Schema):
    vips = fields.Integer(required=True)
    party_people = fields.Integer(required=True)


class DicePartyRoll(Schema):
    """The pips rolled, by die type."""

    vips = fields.List(fields.Integer(), required=True)
    party_people = fields.List(fields.Integer(), required=True)
    mobs = fields.List(fields.Integer(), required=True)


class DicePartyGrowthOption(Schema):
    kind = fields.String(required=True, validate=validate.OneOf(["vips", "party_people"]))
    wanted = fields.Integer(required=True)
    joined = fields.Integer(required=True)
    mobs = fields.Integer(required=True)


class DicePartyGrowth(Schema):
    a = fields.Nested(DicePartyGrowthOption, required=True)
    b = fields.Nested(DicePartyGrowthOption, required=True)


class DicePartyRoundWon(Schema):
    round = fields.Integer(required=True)
    winners = fields.List(fields.Integer(), required=True)
    condition = fields.String(required=True, allow_none=True, validate=CONDITION,
                              metadata={"description": "null when the round ended in a stalemate."})


class DicePartyStanding(Schema):
    conditions = fields.List(fields.String(validate=CONDITION), required=True)
    escalations = fields.Integer(required=True)
    round_wins = fields.Integer(required=True)


class DicePartyView(Schema):
    players = fields.Integer(required=True)
    full_game = fields.Boolean(required=True)
    round = fields.Integer(required=True)
    starter = fields.Integer(required=True)
    start_rolls = fields.List(SEAT_ROLLS, required=True)
    turn = fields.Integer(required=True)
    phase = fields.String(required=True, allow_none=True,
                          validate=validate.OneOf(["steal", "provoke", "send_mobs", "grow"]))
    roll = fields.Nested(DicePartyRoll, required=True)
    growth = fields.Nested(DicePartyGrowth, metadata={"description": "While the seat to act chooses how to grow."})
    mobs_to_send = fields.Integer(required=True)
    received = fields.List(fields.Integer(), required=True)
    parties = fields.List(fields.Nested(DicePartyDice), required=True)
    supplies = fields.List(fields.Nested(DicePartyDice), required=True)
    wallets = fields.List(fields.Integer(), required=True)
    in_round = fields.List(fields.Boolean(), required=True)
    escalated = fields.List(fields.Integer(), required=True)
    escalations = fields.List(fields.Integer(), required=True)
    out = fields.List(fields.Boolean(), required=True)
    results = fields.List(fields.Nested(DicePartyRoundWon), required=True)
    standings = fields.List(fields.Nested(DicePartyStanding), required=True)
    over = fields.Boolean(required=True)
    winners = fields.List(fields.Integer(), required=True)
    to_act = fields.List(fields.Integer(), required=True)
    you = fields.Integer(required=True, allow_none=True)


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
    view=DicePartyView,
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
