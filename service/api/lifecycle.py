"""The life of a match around its people: away and back, the record of a finished match, rematch.

Turn clocks are set at creation (``clock`` in ``POST /matches``) and shown in every view.
"""

from __future__ import annotations

from flask.views import MethodView
from marshmallow import Schema, fields, validate

from service.api import BEARER, OPTIONAL_BEARER, Blueprint, bearer, problems, referee
from service.api.analysis import AnalysisSchema
from service.competition.bots import Bots

blp = Blueprint("lifecycle", __name__, url_prefix="/matches",
                description="The life of a match: away and back, records, rematches")

SEAT_ERRORS = ("unknown_match", "bad_token", "not_a_seat")


class AwaySchema(Schema):
    bot = fields.String(load_default=None, allow_none=True,
                        metadata={"description": "The bot kind that plays the seat meanwhile (default random)."})


class AwayStateSchema(Schema):
    id = fields.String()
    version = fields.Integer()
    seat = fields.Integer()
    away = fields.String(allow_none=True, metadata={"description": "The bot now playing the seat; null once back."})


class RecordMoveSchema(Schema):
    version = fields.Integer(metadata={"description": "The match's version once the move was made, as in its events "
                                                      "and its webhook `move` (it was applied at the version before: "
                                                      "its random draws)."})
    seat = fields.Integer()
    move = fields.Dict()
    at = fields.Float(allow_none=True, metadata={"description": "Server time (Unix seconds) of the move."})


class RecordSeatSchema(Schema):
    seat = fields.Integer()
    name = fields.String(allow_none=True)
    bot = fields.String(allow_none=True)
    forfeited = fields.Boolean()


class RecordSchema(Schema):
    format_version = fields.Integer()
    id = fields.String()
    game = fields.String()
    players = fields.Integer()
    options = fields.Dict()
    seed = fields.Raw()
    clock = fields.Dict(allow_none=True)
    seats = fields.List(fields.Nested(RecordSeatSchema))
    moves = fields.List(fields.Nested(RecordMoveSchema))
    result = fields.Dict()
    analysis = fields.Nested(AnalysisSchema, metadata={
        "description": "The match's analysis, once one was asked for and done (POST /matches/{id}/analysis)."})


class RematchSchema(Schema):
    id = fields.String(metadata={"description": "The rematch's id."})
    seat = fields.Integer(metadata={"description": "The caller's seat in the rematch (seats rotate by one)."})
    token = fields.String(metadata={"description": "The caller's token for the rematch."})


@blp.route("/<string:match_id>/away")
class Away(MethodView):
    @blp.arguments(AwaySchema(), required=False)
    @blp.response(200, AwayStateSchema)
    @blp.doc(security=BEARER)
    @problems(blp, "invalid_body", *SEAT_ERRORS, "unknown_bot", "match_not_started", "match_over", "already_away",
              "seat_out", "body_too_large", "busy")
    def post(self, body, match_id: str):
        """Hand your seat to a bot until you come back (POST /back, or any move of yours)."""
        return referee().away(match_id, bearer(), body["bot"])


@blp.route("/<string:match_id>/back")
class Back(MethodView):
    @blp.response(200, AwayStateSchema)
    @blp.doc(security=BEARER)
    @problems(blp, *SEAT_ERRORS, "match_not_started", "match_over", "not_away", "seat_out", "busy")
    def post(self, match_id: str):
        """Take your seat back from the bot (away, or timed out under on_timeout "bot")."""
        return referee().back(match_id, bearer())


@blp.route("/<string:match_id>/record")
class Record(MethodView):
    @blp.response(200, RecordSchema)
    @blp.doc(security=OPTIONAL_BEARER)
    @problems(blp, "unknown_match", "bad_token", "not_over")
    def get(self, match_id: str):
        """Once finished: seed, options, clock, seats and every move; `referee replay` plays it again."""
        return referee().record(match_id, bearer())


class ReplayQuerySchema(Schema):
    step = fields.Integer(load_default=0, validate=validate.Range(min=0, max=1_000_000), metadata={
        "description": "How many of the record's moves are played (0: the opening; above the count: the end)."})


class ReplayEventSchema(Schema):
    type = fields.String(required=True)
    data = fields.Dict(required=True)


class ReplayStepSchema(Schema):
    step = fields.Integer(required=True, metadata={"description": "The moves played, 0 to steps."})
    steps = fields.Integer(required=True, metadata={"description": "The record's number of moves."})
    seat = fields.Integer(required=True, allow_none=True, metadata={"description": "Who made the last move played."})
    move = fields.Dict(required=True, allow_none=True, metadata={"description": "The last move played (None at 0)."})
    version = fields.Integer(required=True, allow_none=True, metadata={
        "description": "The match's version after these moves: the events of the match up to here are those of a "
                       "version up to it (null at the end: every event)."})
    to_act = fields.List(fields.Integer(), required=True)
    view = fields.Dict(required=True, metadata={"description": "The spectator's view after these moves (the game's "
                                                               "view, as in GET /matches/{id} without a token)."})
    events = fields.List(fields.Nested(ReplayEventSchema), required=True,
                         metadata={"description": "The last move's events a spectator saw."})


@blp.route("/<string:match_id>/replay")
class Replay(MethodView):
    @blp.arguments(ReplayQuerySchema(), location="query")
    @blp.response(200, ReplayStepSchema)
    @blp.doc(security=OPTIONAL_BEARER)
    @problems(blp, "invalid_body", "unknown_match", "bad_token", "not_over")
    def get(self, query, match_id: str):
        """Once finished: the match as a spectator saw it after its first `step` moves (its record played
        again), for stepping through it forward and back."""
        return referee().replay_step(match_id, bearer(), query["step"])


@blp.route("/<string:match_id>/rematch")
class Rematch(MethodView):
    @blp.response(201, RematchSchema)
    @blp.doc(security=BEARER)
    @problems(blp, *SEAT_ERRORS, "not_over", "busy", "store_full")
    def post(self, match_id: str):
        """Play again: same game, options, clock and people, seats rotated by one, a new seed, bots kept.

        Asking again (any seat) returns the same rematch; each seat finds its own new seat and token
        here and in its view of this match (`rematch`); a bot account seated here is seated there too and
        learns of it on its event stream (`match.started`)."""
        out = referee().rematch(match_id, bearer())
        Bots(referee()).seat_rematch(match_id)
        return out
