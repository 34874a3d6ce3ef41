"""Matches: create, join, name a seat, read a seat's view (long-poll), legal moves, moves, events, result, abort."""

from __future__ import annotations

import re

import orjson
from flask import Response, request
from flask.views import MethodView
from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from service.api import (
    BEARER,
    HOLD,
    MAX_INT,
    OPTIONAL_BEARER,
    Blueprint,
    JsonBoolean,
    bearer,
    flag,
    integer,
    needed,
    problems,
    referee,
    text,
)
from service.api.contract import (
    OUTCOMES,
    VIEWS,
    OutcomeSchema,
    by_game,
    camel,
    event_field,
    legal_move_field,
    outcome_fields,
    ref,
    seed_field,
)
from service.api.webhooks import WebhookCreatedSchema, WebhookSpecSchema
from service.core.base import Actor
from service.core.referee import Referee
from service.core.store import Status
from service.core.views import Stream
from service.games import GAMES
from service.infra.problems import Problem

blp = Blueprint("matches", __name__, url_prefix="/matches",
                description="Matches: seats, views, legal moves, moves and events")

STATUS = fields.String(required=True, metadata={"enum": [s.value for s in Status]})
MATCH_ERRORS = ("unknown_match", "bad_token", "redis_unavailable")


# -- schemas ------------------------------------------------------------------------------------
class SeatSpecSchema(Schema):
    name = text(40, metadata={"description": "A human seat that gets its token now."})
    bot = text(40, metadata={"description": "A bot kind from GET /games/{game}; an RQ worker plays it."})
    budget_ms = integer(10, 10_000, metadata={
        "description": "search bot: milliseconds per decision (default REFEREE_SEARCH_MS, 1000)."})
    iterations = integer(1, 100_000, metadata={
        "description": "search bot: iterations per decision; alone, it makes the bot's play reproducible "
                       "for the match's seed (still stopped at 10 s)."})
    bot_account = text(32, metadata={"description": "A registered bot account (GET /bots) plays this seat: "
                                                    "`match.started` with its token goes to its event stream."})

    @validates_schema
    def _budget_for_search(self, data: dict, **kwargs) -> None:
        if ("budget_ms" in data or "iterations" in data) and data.get("bot") != "search":
            raise ValidationError("budget_ms and iterations are for a search bot seat.", "bot")
        if "bot_account" in data and data.keys() - {"bot_account"}:
            raise ValidationError("A seat is a name, a bot or a bot_account, one of them.", "bot_account")


#: what SeatSpecSchema's ``validates_schema`` checks, said in the document too (JSON Schema 2020-12)
def _present(name: str) -> dict:
    return {"properties": {name: {}}, "required": [name]}


SEAT_SPEC_RULES = {"allOf": [
    {"if": _present("bot_account"), "then": {"maxProperties": 1},
     "description": "A bot_account seat names nothing else."},
    {"if": {"anyOf": [_present("budget_ms"), _present("iterations")]},
     "then": {"properties": {"bot": {"const": "search"}}, "required": ["bot"]},
     "description": "budget_ms and iterations are for a search bot seat."},
]}


def document_seat_rules(spec) -> None:
    """Add SEAT_SPEC_RULES to the SeatSpec component (apispec documents fields, not a schema's own checks)."""
    spec.components.schemas["SeatSpec"].update(SEAT_SPEC_RULES)


SEED_MIN, SEED_MAX = -(2**63), 2**64 - 1  # what the store's JSON keeps exactly


class ClockSchema(Schema):
    move_seconds = fields.Float(metadata={"description": "A deadline per decision, in seconds (0 < S <= 86400).",
                                          "exclusiveMinimum": 0, "maximum": 86400})
    initial_seconds = fields.Float(metadata={"description": "A Fischer clock: each seat's time for the match.",
                                             "exclusiveMinimum": 0, "maximum": 86400})
    increment_seconds = fields.Float(metadata={"description": "Fischer: seconds added after each move of the seat.",
                                               "exclusiveMinimum": 0, "maximum": 86400})
    on_timeout = fields.String(load_default="default", metadata={
        "enum": ["bot", "default", "forfeit"],
        "description": "bot: a bot plays the seat until its owner acts again; default: the game's safe default "
                       "move for that decision; forfeit: the seat is out (default moves from then on, ranks last)."})
    bot = fields.String(metadata={"description": "With on_timeout bot: the bot kind (default random)."})
    on_illegal = fields.String(load_default="refuse", metadata={
        "enum": ["refuse", "forfeit"],
        "description": "refuse: a move the rules refuse is answered 422 and changes nothing; forfeit: a seat that "
                       "sends one at its turn (illegal_move or invalid_move) is out, as on_timeout forfeit "
                       "(a tournament's matches of bot accounts)."})


class Seed(fields.Raw):
    """An integer of at most 64 bits or a printable string."""

    def _deserialize(self, value, attr, data, **kwargs):
        if isinstance(value, bool) or not (
                isinstance(value, int) and SEED_MIN <= value <= SEED_MAX
                or isinstance(value, str) and len(value) <= 100 and value.isprintable()):
            raise ValidationError(f"A seed is an integer from {SEED_MIN} to {SEED_MAX} or a printable string of "
                                  "at most 100 characters.")
        return value


class CreateMatchSchema(Schema):
    game = text(40, required=True, metadata={"example": "super_blatt"})
    players = integer(1, 16, strict=True, required=True, metadata={"example": 2})
    options = fields.Dict(load_default=dict, metadata={"description": "The game's <Game>Options; defaults apply."})
    seed = Seed(metadata={"description": "Integer or string; secret and random when omitted.",
                          "oneOf": [{"type": "integer", "minimum": SEED_MIN, "maximum": SEED_MAX},
                                    {"type": "string", "maxLength": 100}]})
    seats = fields.List(fields.Nested(SeatSpecSchema), load_default=None, validate=validate.Length(max=16),
                        metadata={"description": "One entry per seat; {} leaves a seat open. Default: all open."})
    listed = JsonBoolean(load_default=True, metadata={"description": "false keeps the match out of GET /matches "
                                                                        "(whoever has its id can still join)."})
    clock = fields.Nested(ClockSchema, load_default=None, metadata={
        "description": "A turn clock: move_seconds, or initial_seconds and increment_seconds; and on_timeout."})
    webhook = fields.Nested(WebhookSpecSchema, load_default=None, metadata={
        "description": "Signed deliveries (Standard Webhooks) of the match's events to your backend."})


#: the body as documented: one schema per game, with its own Options (the server loads CreateMatchSchema and
#: then the game's Options, so both say the same)
CREATE_MATCH = by_game(CreateMatchSchema, lambda game, wire: {
    "players": integer(game.min_players, game.max_players, required=True),
    "options": fields.Nested(game.Options, metadata={"description": "Defaults apply to what is left out."})})


class SeatOutSchema(Schema):
    seat = integer(required=True)
    name = fields.String(required=True, allow_none=True)
    bot = fields.String(required=True, allow_none=True)
    token = fields.String(required=True, allow_none=True,
                          metadata={"description": "Only for named human seats, only at creation."})
    bot_account = fields.String(metadata={"description": "The bot account seated here (its token went to it)."})


class CreatedMatchSchema(Schema):
    id = fields.String(required=True)
    game = fields.String(required=True)
    status = STATUS
    host_token = fields.String(required=True, metadata={"description": "Aborts the match; sees what a spectator sees."})
    seats = fields.List(fields.Nested(SeatOutSchema), required=True)
    webhook = fields.Nested(WebhookCreatedSchema, metadata={"description": "When one was asked for."})


class SeatNameSchema(Schema):
    """The name a person plays under: the same for joining a seat and for naming one's own seat."""
    name = text(40, required=True)


class JoinSchema(SeatNameSchema):
    seat = integer(0, 15, strict=True, load_default=None, allow_none=True,
                   metadata={"description": "Default: the first open seat."})


class SeatNamedSchema(Schema):
    id = fields.String(required=True)
    version = integer(required=True, metadata={"description": "The match's version after the name was given."})
    seat = integer(required=True)
    name = fields.String(required=True)


class JoinedSchema(Schema):
    id = fields.String(required=True)
    seat = integer(required=True)
    name = fields.String(required=True)
    token = fields.String(required=True)
    status = STATUS


class SeatSchema(Schema):
    seat = integer(required=True)
    name = fields.String(required=True, allow_none=True)
    bot = fields.String(required=True, allow_none=True)
    joined = fields.Boolean(required=True)
    away = fields.String(required=True, allow_none=True,
                         metadata={"description": "The bot playing this seat while it is away."})
    out = fields.Boolean(required=True, metadata={"description": "The seat forfeited (timed out, on_timeout forfeit)."})


class TimerSchema(Schema):
    seat = integer()
    deadline = fields.Float(allow_none=True, metadata={"description": "Unix time its decision is due; null: none."})
    remaining = fields.Float(allow_none=True, metadata={
        "description": "Seconds left at `now`: to the deadline, or a Fischer clock's stopped bank."})


class ClockViewSchema(Schema):
    now = fields.Float(metadata={"description": "The server's time (Unix seconds) the view was made at."})
    move_seconds = fields.Float(allow_none=True)
    initial_seconds = fields.Float(allow_none=True)
    increment_seconds = fields.Float(allow_none=True)
    on_timeout = fields.String()
    bot = fields.String()
    on_illegal = fields.String()
    seats = fields.List(fields.Nested(TimerSchema))


class RematchViewSchema(Schema):
    id = fields.String()
    seat = integer(metadata={"description": "Only in a former seat's own view: its seat in the rematch."})
    token = fields.String(allow_none=True, metadata={"description": "Only in that seat's own view: its new token."})


class ResultSchema(OutcomeSchema):
    id = fields.String(required=True)
    game = fields.String(required=True)
    status = STATUS


RESULT = by_game(ResultSchema, outcome_fields)


class MatchSchema(Schema):
    id = fields.String(required=True)
    game = fields.String(required=True)
    status = STATUS
    version = integer(required=True)
    seat = integer(required=True, allow_none=True,
                          metadata={"description": "The caller's seat; null for a spectator."})
    to_act = fields.List(integer(), required=True)
    seats = fields.List(fields.Nested(SeatSchema), required=True)
    options = fields.Dict(required=True)
    view = fields.Dict(required=True, metadata={"description": "What the caller's seat may see at the table."})
    result = fields.Dict(metadata={"description": "Once the match is finished."})
    seed = seed_field(metadata={"description": "Once the match is over (scoring or finished)."})
    clock = fields.Nested(ClockViewSchema, metadata={"description": "Matches with a turn clock: deadlines."})
    rematch = fields.Nested(RematchViewSchema, metadata={"description": "Once a rematch is asked for."})
    legal_moves = fields.List(fields.Dict(), metadata={"description": "With ?legal_moves=true."})


class ListQuerySchema(Schema):
    status = fields.String(validate=validate.OneOf([s.value for s in Status]))
    game = fields.String(metadata={"example": "super_blatt"})
    open = flag(metadata={"description": "true: only matches with a seat to join; false: only full ones."})
    limit = fields.Integer(load_default=20, validate=validate.Range(min=1, max=100))
    cursor = fields.String(validate=validate.Length(max=64),
                           metadata={"description": "next_cursor of the previous page."})


class MatchSummarySchema(Schema):
    id = fields.String()
    game = fields.String()
    title = fields.String()
    status = STATUS
    version = fields.Integer()
    players = fields.Integer()
    seats = fields.List(fields.Nested(SeatSchema))
    open_seats = fields.Integer(metadata={"description": "Seats still to join (0 once the match started)."})
    options = fields.Dict()
    created = fields.Float(metadata={"description": "Unix time of creation."})


class MatchListSchema(Schema):
    matches = fields.List(fields.Nested(MatchSummarySchema), metadata={"description": "Newest first."})
    next_cursor = fields.String(allow_none=True, metadata={"description": "Pass as ?cursor= for the next page; "
                                                                          "null at the end."})



MATCH = by_game(MatchSchema, lambda game, wire: {
    "options": fields.Nested(game.Options, required=True),
    "view": fields.Nested(VIEWS[game.name], required=True,
                          metadata={"description": "What the caller's seat may see at the table."}),
    "result": fields.Nested(OUTCOMES[game.name], metadata={"description": "Once the match is finished."}),
    "legal_moves": fields.List(legal_move_field(game, wire), metadata={
        "description": "With ?legal_moves=true: the caller's legal moves at this version, as GET legal-moves "
                       "lists them (empty unless the caller's seat is to act, and for a spectator)."})})


class SnapshotQuerySchema(Schema):
    since = integer(metadata={"description": "Wait for a version above this."})
    wait = fields.Float(load_default=0, validate=validate.Range(min=0, max=3600), metadata={
        "description": "Seconds to hold the request; the server holds it at most REFEREE_MAX_WAIT (default 60)."})
    legal_moves = flag(load_default=False, metadata={
        "description": "Also list the caller's legal moves at the answered version: a seat told that its turn "
                       "has come (a long-poll) learns what it may play in the same answer."})


class LegalMovesSchema(Schema):
    game = fields.String(required=True)
    version = integer(required=True)
    seat = integer(required=True)
    moves = fields.List(fields.Dict(), required=True)


LEGAL_MOVES = by_game(LegalMovesSchema, lambda game, wire: {
    "moves": fields.List(legal_move_field(game, wire), required=True, metadata={
        "description": "Every legal move; a numeric choice appears once as {min, max, step}."})})


class AnyMove(fields.Raw):
    """A JSON object, checked against the match's game by the referee (documented as that game's <Game>Move)."""

    json_type = dict  # all a hot lane checks (service/api/lanes.py)

    def _deserialize(self, value, attr, data, **kwargs):
        if not isinstance(value, dict):
            raise ValidationError("Not a valid mapping type.")
        return value


class MoveRequestSchema(Schema):
    move = AnyMove(required=True, metadata={
        "description": "One move of this match's game: it validates against that game's <Game>Move (named by "
                       "GET /games/{game}); the anyOf lists every game's, whose move types overlap.",
        "anyOf": [{"$ref": ref(f"{camel(name)}Move")} for name in GAMES]})
    expected_version = integer(strict=True, load_default=None, allow_none=True,
                               metadata={"description": "Refuse with stale_version unless the match is here."})


class MoveResultSchema(Schema):
    game = fields.String(required=True)
    version = integer(required=True)
    status = STATUS
    to_act = fields.List(integer(), required=True)
    events = fields.List(fields.Dict(), required=True)
    legal_moves = fields.List(fields.Dict(), required=True)


MOVE_RESULT = by_game(MoveResultSchema, lambda game, wire: {
    "events": fields.List(event_field(game), required=True,
                          metadata={"description": "What this move showed your seat."}),
    "legal_moves": fields.List(legal_move_field(game, wire), required=True, metadata={
        "description": "Your legal moves at the new version when you still owe a decision (a compound turn), "
                       "else empty."})})


class EventsQuerySchema(Schema):
    after = integer(load_default=0)
    limit = integer(1, 1000, load_default=500)
    wait = fields.Float(validate=validate.Range(min=0, max=86400), metadata={
        "description": "text/event-stream only: seconds to keep the stream open (default: until the match ends; "
                       "the server may end a stream sooner, resume it with Last-Event-ID)."})
    legal_moves = flag(load_default=False, metadata={
        "description": "text/event-stream only: whenever the caller's seat is to act, a `legal_moves` frame "
                       "(`{version, moves}`) follows the events of that version."})
    ticket = fields.String(validate=validate.Regexp(r"^[A-Za-z0-9_-]{16,64}$", error="Not a stream ticket."),
                           metadata={"description": "A stream ticket from POST /matches/{id}/stream-ticket, in "
                                                    "place of the bearer token (for EventSource)."})


class StreamTicketSchema(Schema):
    ticket = fields.String(required=True, metadata={"description": "Pass as ?ticket= to GET /matches/{id}/events."})
    expires_in = integer(required=True, metadata={
        "description": "Seconds left to open a stream with it; it may open several (EventSource reconnects) until "
                       "then."})


class EventsSchema(Schema):
    game = fields.String(required=True)
    events = fields.List(fields.Dict(), required=True)
    last_seq = integer(required=True, metadata={"description": "Pass as ?after= to resume."})
    version = integer(required=True)
    status = STATUS


EVENTS = by_game(EventsSchema, lambda game, wire: {"events": fields.List(event_field(game), required=True)})


class AbortedSchema(Schema):
    id = fields.String(required=True)
    status = STATUS
    version = integer(required=True)


# -- routes -------------------------------------------------------------------------------------
@blp.route("")
class Matches(MethodView):
    @blp.arguments(ListQuerySchema(), location="query")
    @blp.response(200, MatchListSchema)
    @problems(blp, "invalid_body", "invalid_cursor", "unknown_game")
    def get(self, query):
        """Listed matches, newest first, filtered by status, game and open seats; no secrets (tokens, seeds).

        The listing is eventually consistent: a match's status is re-checked as the page is built.
        """
        return referee().list_matches(query.get("status"), query.get("game"), query.get("open"), query["limit"],
                                      query.get("cursor"))

    @blp.arguments(CreateMatchSchema())
    @blp.response(201, CreatedMatchSchema)
    @blp.doc(operationId="createMatch", requestBody={"content": {"application/json": {"schema": CREATE_MATCH.doc()}}})
    @problems(blp, "invalid_body", "unknown_game", "invalid_options", "unknown_bot", "invalid_clock",
              "body_too_large", "redis_unavailable", "store_full", "webhook_refused")
    def post(self, body):
        """Create a match; named human seats get their tokens now, open seats are joined later.

        Refused with 503 `store_full` (and `Retry-After`) while the store holds `REFEREE_STORE_FULL_AT` of its
        maxmemory; moves in matches in play still commit."""
        game = body["game"]
        if game not in GAMES:
            raise Problem("unknown_game", f"There is no game {game!r}; see GET /games.")
        if any(s.get("bot_account") for s in body["seats"] or []):  # issue 35: seats for bot accounts
            from service.competition.bots import Bots

            return Bots(referee()).create_match(game, body["players"], body["options"], body.get("seed"),
                                                body["seats"], body["clock"], body["listed"], body["webhook"])
        return referee().create_match(game, body["players"], body["options"], body.get("seed"), body["seats"],
                                      body["clock"], body["listed"], body["webhook"])


@blp.route("/<string:match_id>")
class MatchResource(MethodView):
    @blp.arguments(SnapshotQuerySchema(), location="query")
    @blp.response(200, MATCH)
    @blp.doc(operationId="getMatch", security=OPTIONAL_BEARER)
    @problems(blp, "invalid_body", *MATCH_ERRORS, "redis_unavailable")
    def get(self, query, match_id: str):
        """The match as the caller's seat sees it (a spectator without a token); long-polls with since/wait."""
        snapshot = referee().snapshot(match_id, bearer(), query["legal_moves"])
        since, wait = query.get("since"), min(query["wait"], referee().settings.max_wait)
        if since is not None and wait > 0 and snapshot["version"] <= since:  # nothing newer yet: the front waits
            return snapshot, 200, {HOLD: orjson.dumps({"poll": {"since": since, "wait": wait}}).decode()}
        return snapshot

    @blp.response(200, AbortedSchema)
    @blp.doc(operationId="abortMatch", security=BEARER)
    @problems(blp, *MATCH_ERRORS, "not_host", "match_over", "busy")
    def delete(self, match_id: str):
        """Abort the match (host token only)."""
        return referee().abort(match_id, bearer())


@blp.route("/<string:match_id>/join")
class Join(MethodView):
    @blp.arguments(JoinSchema())
    @blp.response(201, JoinedSchema)
    @blp.doc(operationId="joinMatch")
    @problems(blp, "invalid_body", "unknown_match", "not_waiting", "seat_taken", "no_open_seat", "body_too_large",
              "busy", "redis_unavailable")
    def post(self, body, match_id: str):
        """Claim an open seat and get its token; the match starts when the last seat is filled."""
        return referee().join(match_id, body["name"], body.get("seat"))


@blp.route("/<string:match_id>/seats/<int(max=15):seat>")
class SeatName(MethodView):
    @blp.arguments(SeatNameSchema())
    @blp.response(200, SeatNamedSchema)
    @blp.doc(operationId="nameSeat", security=BEARER)
    @problems(blp, "invalid_body", *MATCH_ERRORS, "not_a_seat", "not_your_seat", "match_over", "body_too_large",
              "busy")
    def patch(self, body, match_id: str, seat: int):
        """Name your own seat (its seat token): an invited seat carries the name its inviter gave it; the
        other seats hear `seat_named`."""
        return referee().rename(match_id, bearer(), seat, body["name"])


@blp.route("/<string:match_id>/legal-moves")
class LegalMoves(MethodView):
    @blp.response(200, LEGAL_MOVES)
    @blp.doc(operationId="getLegalMoves", security=BEARER)
    @problems(blp, *MATCH_ERRORS, "not_a_seat")
    def get(self, match_id: str):
        """Every move the caller's seat may make now (empty when it is not to act)."""
        return referee().legal_moves(match_id, bearer())


IDEMPOTENCY_HEADER = {
    "name": "Idempotency-Key", "in": "header", "required": False,
    "description": "Replaying a key with the same body returns the first answer and applies nothing new; "
                   "with another body it is refused (idempotency_mismatch).",
    "schema": {"type": "string", "minLength": 1, "maxLength": 128, "pattern": "^[ -~]+$"},
}
IDEMPOTENCY_KEY = re.compile(r"[ -~]{1,128}")
LAST_EVENT_ID = re.compile(r"[0-9]{1,16}")


@blp.route("/<string:match_id>/moves")
class Moves(MethodView):
    @blp.arguments(MoveRequestSchema())
    @blp.response(200, MOVE_RESULT)
    @blp.doc(operationId="submitMove", security=BEARER, parameters=[IDEMPOTENCY_HEADER])
    @problems(blp, "invalid_body", *MATCH_ERRORS, "not_a_seat", "match_not_started", "match_over", "not_your_turn",
              "stale_version", "invalid_move", "illegal_move", "idempotency_mismatch", "body_too_large", "busy")
    def post(self, body, match_id: str):
        """Submit a move; it is validated, applied and committed by compare-and-set on the version."""
        return submit_move(referee(), match_id, bearer(), body, request.headers.get("Idempotency-Key"))


def submit_move(ref: Referee, match_id: str, token: str | None, body: dict, key: str | None) -> dict:
    """POST /matches/{id}/moves once its body is loaded (the route and its hot lane)."""
    if key is not None and not IDEMPOTENCY_KEY.fullmatch(key):
        raise Problem("invalid_body", "Idempotency-Key must be 1 to 128 printable ASCII characters.")
    return ref.apply_move(match_id, Actor.of(token), body["move"], body["expected_version"], key)


SSE_DOC = {"responses": {"200": {"description": "The events as JSON (<Game>Events), or as a live stream.", "content": {
    "application/json": {"schema": EVENTS.doc()},
    "text/event-stream": {"schema": {
    "type": "string", "description": "With `Accept: text/event-stream`: Server-Sent Events. `retry:` first; each "
    "event with `id:` (its seq; resume with Last-Event-ID or ?after=), `event:` (its type) and `data:` (the "
    "<Game>Event as JSON); a `: keep-alive` comment every REFEREE_HEARTBEAT seconds; a last `end` event "
    "(`{status, version, last_seq}`) once the match is finished or aborted. With ?legal_moves=true, a `legal_moves` "
    "frame (`{version, moves}`, the <Game>LegalMoves of the caller's seat; its id is the last event's) follows the "
    "events of each version at which the caller's seat is to act."}}}}}}


@blp.route("/<string:match_id>/events")
class Events(MethodView):
    @blp.arguments(EventsQuerySchema(), location="query")
    @blp.response(200, EVENTS)
    @blp.doc(operationId="getEvents", security=OPTIONAL_BEARER, **SSE_DOC)
    @problems(blp, "invalid_body", *MATCH_ERRORS, "bad_ticket", "too_many_streams", "redis_unavailable")
    def get(self, query, match_id: str):
        """The events the caller may see, in order, after a sequence number (resumable); a live stream with
        `Accept: text/event-stream`."""
        token = bearer()
        if "text/event-stream" not in request.headers.get("Accept", ""):
            return referee().events(match_id, token, query["after"], query["limit"], query.get("ticket"))
        after = query["after"]
        last = request.headers.get("Last-Event-ID")
        if last:  # an empty one is none
            if not LAST_EVENT_ID.fullmatch(last) or int(last) > MAX_INT:
                raise Problem("invalid_body", "Last-Event-ID must be the id (seq) of an event.")
            after = int(last)
        stream = referee().open_stream(match_id, token, query.get("ticket"), query["legal_moves"])
        seconds = min(query.get("wait", float("inf")), referee().settings.stream_max_age)
        return hold_streams([(stream, after, None)], seconds)


def hold_streams(streams: list[tuple[Stream, int, int | None]], seconds: float,
                 refused: list[tuple[int, dict]] | None = None) -> Response:
    """Hand the opened streams to the front (service/front.py), which holds them on one connection for ``seconds``.
    Each is (stream, after, tag): a tag (several matches on one connection, GET /events) prefixes its frames' ids;
    ``refused`` are the follows that could not be opened, (tag, problem)."""
    held = [{"match_id": s.match_id, "viewer": s.viewer, "holder": s.holder, "id": s.id, "lease": s.lease,
             "legal": s.legal, "legal_seen": s.legal_seen, "after": after, "tag": tag} for s, after, tag in streams]
    hold = {"streams": held, "seconds": seconds, "refused": refused or []}
    return Response(status=200, headers={HOLD: orjson.dumps({"stream": hold}).decode()})


@blp.route("/<string:match_id>/stream-ticket")
class Ticket(MethodView):
    @blp.response(201, StreamTicketSchema)
    @blp.doc(operationId="createStreamTicket", security=BEARER)
    @problems(blp, *MATCH_ERRORS, "not_a_seat")
    def post(self, match_id: str):
        """A short-lived ticket for this seat's event stream, so that EventSource needs no token in a URL."""
        return referee().stream_ticket(match_id, bearer())


@blp.route("/<string:match_id>/result")
class Result(MethodView):
    @blp.response(200, RESULT)
    @blp.doc(operationId="getResult", security=OPTIONAL_BEARER)
    @problems(blp, *MATCH_ERRORS, "result_not_ready")
    def get(self, match_id: str):
        """Final scores, ranking, winners and each seat's breakdown, once the match is finished."""
        return referee().result(match_id, bearer())


@blp.route("/<string:match_id>/photos/<int(max=15):seat>")
class Photo(MethodView):
    @blp.doc(operationId="getPhoto", security=OPTIONAL_BEARER, responses={"200": {
        "description": "The seat's final photo as SVG.", "content": {"image/svg+xml": {"schema": {"type": "string"}}}}})
    @problems(blp, *MATCH_ERRORS, "not_found", "not_over")
    def get(self, match_id: str, seat: int):
        """Picture Perfect: that seat's final photo (the computed photo and each guest's score), as SVG."""
        svg = referee().photo(match_id, bearer(), seat)
        return Response(svg, mimetype="image/svg+xml")


#: the two requests of every move, answered by hot lanes (service/api/lanes.py) with these routes' own code
HOT = {
    LegalMoves.get: lambda ref, call: ref.legal_moves(call.match_id, needed(call.token)),
    Moves.post: lambda ref, call: submit_move(ref, call.match_id, needed(call.token), call.body,
                                              call.header("Idempotency-Key")),
}
