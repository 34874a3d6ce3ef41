"""Matches: create, join, read a seat's view (long-poll), legal moves, moves, events, result, abort."""

from __future__ import annotations

import json

from flask import Response, request, stream_with_context
from flask.views import MethodView
from marshmallow import Schema, ValidationError, fields, validate

from service.api import BEARER, OPTIONAL_BEARER, Blueprint, bearer, problems, referee
from service.games import GAMES
from service.problems import Problem

blp = Blueprint("matches", __name__, url_prefix="/matches",
                description="Matches: seats, views, legal moves, moves and events")

MATCH_ERRORS = ("unknown_match", "bad_token")


# -- schemas ------------------------------------------------------------------------------------
class SeatSpecSchema(Schema):
    name = fields.String(validate=validate.Length(min=1, max=40),
                         metadata={"description": "A human seat that gets its token now."})
    bot = fields.String(metadata={"description": "A bot kind from GET /games/{game}; an RQ worker plays it."})


class Seed(fields.Raw):
    """An integer or a string."""

    def _deserialize(self, value, attr, data, **kwargs):
        if isinstance(value, bool) or not isinstance(value, (int, str)) or len(str(value)) > 100:
            raise ValidationError("A seed is an integer or a string of at most 100 characters.")
        return value


class CreateMatchSchema(Schema):
    game = fields.String(required=True, metadata={"example": "super_blatt"})
    players = fields.Integer(required=True, validate=validate.Range(min=1, max=16), metadata={"example": 2})
    options = fields.Dict(load_default=dict, metadata={"description": "The game's <Game>Options; defaults apply."})
    seed = Seed(metadata={"description": "Integer or string; secret and random when omitted.",
                                "oneOf": [{"type": "integer"}, {"type": "string"}]})
    seats = fields.List(fields.Nested(SeatSpecSchema), load_default=None,
                        metadata={"description": "One entry per seat; {} leaves a seat open. Default: all open."})


class SeatOutSchema(Schema):
    seat = fields.Integer()
    name = fields.String(allow_none=True)
    bot = fields.String(allow_none=True)
    token = fields.String(allow_none=True, metadata={"description": "Only for named human seats, only at creation."})


class CreatedMatchSchema(Schema):
    id = fields.String()
    game = fields.String()
    status = fields.String()
    host_token = fields.String(metadata={"description": "Aborts the match; sees what a spectator sees."})
    seats = fields.List(fields.Nested(SeatOutSchema))


class JoinSchema(Schema):
    name = fields.String(required=True, validate=validate.Length(min=1, max=40))
    seat = fields.Integer(load_default=None, allow_none=True, metadata={"description": "Default: the first open seat."})


class JoinedSchema(Schema):
    id = fields.String()
    seat = fields.Integer()
    name = fields.String()
    token = fields.String()
    status = fields.String()


class SeatSchema(Schema):
    seat = fields.Integer()
    name = fields.String(allow_none=True)
    bot = fields.String(allow_none=True)
    joined = fields.Boolean()


STATUS = fields.String(metadata={"enum": ["waiting", "active", "scoring", "finished", "aborted"]})


class ResultSchema(Schema):
    id = fields.String()
    game = fields.String()
    status = STATUS
    scores = fields.List(fields.Raw(metadata={"type": "number"}))
    ranking = fields.List(fields.List(fields.Integer()), metadata={"description": "Places, best first; ties share."})
    winners = fields.List(fields.Integer())
    breakdown = fields.List(fields.Dict(), metadata={"description": "Per seat: how the score arose."})
    seed = fields.Raw(metadata={"description": "The match seed, revealed at the end."})


class MatchSchema(Schema):
    id = fields.String()
    game = fields.String()
    status = STATUS
    version = fields.Integer()
    seat = fields.Integer(allow_none=True, metadata={"description": "The caller's seat; null for a spectator."})
    to_act = fields.List(fields.Integer())
    seats = fields.List(fields.Nested(SeatSchema))
    options = fields.Dict()
    view = fields.Dict(metadata={"description": "What the caller's seat may see at the table."})
    result = fields.Dict()
    seed = fields.Raw()


class SnapshotQuerySchema(Schema):
    since = fields.Integer(validate=validate.Range(min=0), metadata={"description": "Wait for a version above this."})
    wait = fields.Float(load_default=0, validate=validate.Range(min=0, max=600),
                        metadata={"description": "Seconds to hold the request (capped by the server)."})


class LegalMovesSchema(Schema):
    version = fields.Integer()
    seat = fields.Integer()
    moves = fields.List(fields.Dict(), metadata={
        "description": "Every legal move; a numeric choice appears once as {min, max, step}."})


class MoveRequestSchema(Schema):
    move = fields.Dict(required=True, metadata={"description": "One move of this match's game (<Game>Move)."})
    expected_version = fields.Integer(load_default=None, allow_none=True,
                                      metadata={"description": "Refuse with stale_version unless the match is here."})


class EventSchema(Schema):
    seq = fields.Integer()
    version = fields.Integer()
    type = fields.String()
    data = fields.Dict()


class MoveResultSchema(Schema):
    version = fields.Integer()
    status = STATUS
    to_act = fields.List(fields.Integer())
    events = fields.List(fields.Nested(EventSchema), metadata={"description": "What this move showed your seat."})
    legal_moves = fields.List(fields.Dict(), metadata={
        "description": "Your legal moves at the new version when you still owe a decision (a compound turn), "
                       "else empty."})


class EventsQuerySchema(Schema):
    after = fields.Integer(load_default=0, validate=validate.Range(min=0))
    limit = fields.Integer(load_default=500, validate=validate.Range(min=1, max=1000))
    wait = fields.Float(load_default=300, validate=validate.Range(min=0, max=3600),
                        metadata={"description": "text/event-stream only: seconds to keep the stream open."})


class EventsSchema(Schema):
    events = fields.List(fields.Nested(EventSchema))
    last_seq = fields.Integer(metadata={"description": "Pass as ?after= to resume."})
    version = fields.Integer()
    status = STATUS


class AbortedSchema(Schema):
    id = fields.String()
    status = STATUS
    version = fields.Integer()


# -- routes -------------------------------------------------------------------------------------
@blp.route("")
class Matches(MethodView):
    @blp.arguments(CreateMatchSchema())
    @blp.response(201, CreatedMatchSchema)
    @problems(blp, "invalid_body", "unknown_game", "invalid_options", "unknown_bot", "body_too_large")
    def post(self, body):
        """Create a match; named human seats get their tokens now, open seats are joined later."""
        game = body["game"]
        if game not in GAMES:
            raise Problem("unknown_game", f"There is no game {game!r}; see GET /games.")
        return referee().create_match(game, body["players"], body["options"], body.get("seed"), body["seats"])


@blp.route("/<string:match_id>")
class MatchResource(MethodView):
    @blp.arguments(SnapshotQuerySchema(), location="query")
    @blp.response(200, MatchSchema)
    @blp.doc(security=OPTIONAL_BEARER)
    @problems(blp, "invalid_body", *MATCH_ERRORS)
    def get(self, query, match_id: str):
        """The match as the caller's seat sees it (a spectator without a token); long-polls with since/wait."""
        return referee().snapshot(match_id, bearer(), query.get("since"), query.get("wait", 0))

    @blp.response(200, AbortedSchema)
    @blp.doc(security=BEARER)
    @problems(blp, *MATCH_ERRORS, "not_host", "match_over", "busy")
    def delete(self, match_id: str):
        """Abort the match (host token only)."""
        return referee().abort(match_id, bearer())


@blp.route("/<string:match_id>/join")
class Join(MethodView):
    @blp.arguments(JoinSchema())
    @blp.response(201, JoinedSchema)
    @problems(blp, "invalid_body", "unknown_match", "not_waiting", "seat_taken", "no_open_seat", "body_too_large",
              "busy")
    def post(self, body, match_id: str):
        """Claim an open seat and get its token; the match starts when the last seat is filled."""
        return referee().join(match_id, body["name"], body.get("seat"))


@blp.route("/<string:match_id>/legal-moves")
class LegalMoves(MethodView):
    @blp.response(200, LegalMovesSchema)
    @blp.doc(security=BEARER)
    @problems(blp, *MATCH_ERRORS, "not_a_seat")
    def get(self, match_id: str):
        """Every move the caller's seat may make now (empty when it is not to act)."""
        return referee().legal_moves(match_id, bearer())


IDEMPOTENCY_HEADER = {
    "name": "Idempotency-Key", "in": "header", "required": False,
    "description": "Replaying a key returns the first answer and applies nothing new.",
    "schema": {"type": "string", "maxLength": 128},
}


@blp.route("/<string:match_id>/moves")
class Moves(MethodView):
    @blp.arguments(MoveRequestSchema())
    @blp.response(200, MoveResultSchema)
    @blp.doc(security=BEARER, parameters=[IDEMPOTENCY_HEADER])
    @problems(blp, "invalid_body", *MATCH_ERRORS, "not_a_seat", "match_not_started", "match_over", "not_your_turn",
              "stale_version", "invalid_move", "illegal_move", "body_too_large", "busy")
    def post(self, body, match_id: str):
        """Submit a move; it is validated, applied and committed by compare-and-set on the version."""
        key = request.headers.get("Idempotency-Key")
        if key is not None and not 0 < len(key) <= 128:
            raise Problem("invalid_body", "Idempotency-Key must be 1 to 128 characters.")
        return referee().apply_move(match_id, bearer(), None, body["move"], body["expected_version"], key)


def _sse(events, heartbeat: str = ": keep-alive\n\n"):
    yield heartbeat
    for e in events:
        yield f"id: {e['seq']}\nevent: {e['type']}\ndata: {json.dumps(e, separators=(',', ':'))}\n\n"


@blp.route("/<string:match_id>/events")
class Events(MethodView):
    @blp.arguments(EventsQuerySchema(), location="query")
    @blp.response(200, EventsSchema)
    @blp.alt_response(200, description="With `Accept: text/event-stream`: the same events as Server-Sent Events "
                      "(`id` is the seq; resume with Last-Event-ID).", content_type="text/event-stream",
                      success=True)
    @blp.doc(security=OPTIONAL_BEARER)
    @problems(blp, "invalid_body", *MATCH_ERRORS)
    def get(self, query, match_id: str):
        """The events the caller may see, in order, after a sequence number (resumable)."""
        token = bearer()
        if "text/event-stream" in request.headers.get("Accept", ""):
            after = query["after"]
            last = request.headers.get("Last-Event-ID", "")
            if last.isdigit():
                after = int(last)
            events = referee().stream_events(match_id, token, after, query["wait"])
            return Response(stream_with_context(_sse(events)), mimetype="text/event-stream",
                            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
        return referee().events(match_id, token, query["after"], query["limit"])


@blp.route("/<string:match_id>/result")
class Result(MethodView):
    @blp.response(200, ResultSchema)
    @blp.doc(security=OPTIONAL_BEARER)
    @problems(blp, *MATCH_ERRORS, "result_not_ready")
    def get(self, match_id: str):
        """Final scores, ranking, winners and each seat's breakdown, once the match is finished."""
        return referee().result(match_id, bearer())


@blp.route("/<string:match_id>/photos/<int:seat>")
class Photo(MethodView):
    @blp.response(200, description="The seat's final photo as SVG.", content_type="image/svg+xml")
    @blp.doc(security=OPTIONAL_BEARER)
    @problems(blp, *MATCH_ERRORS, "not_found", "not_over")
    def get(self, match_id: str, seat: int):
        """Picture Perfect: that seat's final photo (the computed photo and each guest's score), as SVG."""
        svg = referee().photo(match_id, bearer(), seat)
        return Response(svg, mimetype="image/svg+xml")
