"""Bot accounts (issue 35): register, list, retire; a bot's event stream; challenges to an online bot.

The bot's event stream is held by the front like a seat's (service/competition/bots.py says how); its events are
``challenge``, ``match.started`` (with the seat token), ``turn`` (the seat's view and legal moves of that
version) and ``match.finished``.
"""

from __future__ import annotations

from flask import request
from flask.views import MethodView
from marshmallow import Schema, ValidationError, fields, validate, validates

from service.api import BEARER, MAX_INT, Blueprint, bearer, flag, integer, problems, referee, text
from service.api.matches import LAST_EVENT_ID, ClockSchema, SeatSpecSchema, hold_streams
from service.competition.bots import Bots, inbox_id
from service.games import BOT_KINDS, GAMES
from service.infra.problems import Problem

blp = Blueprint("bots", __name__, url_prefix="/bots",
                description="Bot accounts: an event stream of challenges and turns, from anywhere")

GAME_NAMES = fields.List(fields.String(validate=validate.OneOf(sorted(GAMES))), validate=validate.Length(1, 64))


def bots() -> Bots:
    return Bots(referee())


class RegisterSchema(Schema):
    name = fields.String(required=True, validate=validate.Regexp(r"^[a-z0-9][a-z0-9_-]{1,31}$", error=(
        "2 to 32 characters: a-z, 0-9, '_' and '-', starting with a letter or digit.")),
        metadata={"example": "alpha", "not": {"enum": ["me"]}})

    @validates("name")
    def _not_me(self, value: str, **kwargs) -> None:
        if value == "me":
            raise ValidationError("'me' names the caller in /bots/me.")
    games = GAME_NAMES
    away = fields.String(load_default="random", validate=validate.OneOf(sorted(BOT_KINDS)), metadata={
        "description": "The built-in bot that plays this bot's seats while it is offline at its turn."})


class RegisteredSchema(Schema):
    name = fields.String(required=True)
    games = fields.List(fields.String(), required=True)
    away = fields.String(required=True)
    token = fields.String(required=True, metadata={"description": "The bot's token: shown once, stored hashed."})


class RatingSchema(Schema):
    mu = fields.Float()
    sigma = fields.Float()
    ordinal = fields.Float()
    matches = fields.Integer()


class BotSchema(Schema):
    name = fields.String(required=True)
    games = fields.List(fields.String(), required=True)
    online = fields.Boolean(required=True, metadata={"description": "It holds GET /bots/me/events now."})
    ratings = fields.Dict(keys=fields.String(), values=fields.Nested(RatingSchema), required=True,
                          metadata={"description": "Its ladder rating per game (rated matches only)."})


class BotsSchema(Schema):
    bots = fields.List(fields.Nested(BotSchema), required=True)


class BotsQuerySchema(Schema):
    online = flag(metadata={"description": "Only the bots online (true) or offline (false)."})
    game = fields.String(validate=validate.OneOf(sorted(GAMES)), metadata={"description": "Only bots of this game."})


class RetiredSchema(Schema):
    name = fields.String()
    retired = fields.Boolean()


class BotEventsQuerySchema(Schema):
    after = integer(load_default=0, metadata={"description": "The seq of the last event seen (or Last-Event-ID)."})
    limit = integer(1, 1000, load_default=500)
    wait = fields.Float(validate=validate.Range(min=0, max=86400), metadata={
        "description": "text/event-stream only: seconds to keep the stream open (the server may end it sooner; "
                       "resume with Last-Event-ID)."})


class BotEventSchema(Schema):
    seq = integer(required=True)
    version = integer(required=True, metadata={"description": "Equal to seq on a bot's stream."})
    type = fields.String(required=True, metadata={"enum": ["challenge", "match.started", "turn", "match.finished"]})
    data = fields.Dict(required=True, metadata={"description": (
        "challenge: `{id, game, players, options, seats, seat, clock, expires_at}`; "
        "match.started: `{match_id, game, seat, token, players, seats, tournament?, round?}`; "
        "turn: `{match_id, game, seat, version, view, moves, deadline, since}` (this seat's view and legal moves "
        "only; with a clock, the Unix times the decision is due and has been owed since); "
        "match.finished: `{match_id, game, seat, status, result, forfeited}`.")})


class BotEventsSchema(Schema):
    events = fields.List(fields.Nested(BotEventSchema), required=True)
    last_seq = integer(required=True)


class ChallengeSchema(Schema):
    game = text(40, required=True, metadata={"example": "super_blatt"})
    players = integer(1, 16, strict=True, required=True, metadata={"example": 2})
    options = fields.Dict(load_default=dict)
    seats = fields.List(fields.Nested(SeatSpecSchema), load_default=None, validate=validate.Length(max=16),
                        metadata={"description": "As POST /matches; the challenged bot sits at its "
                                                 "`{\"bot_account\": NAME}` seat, else at the first open one."})
    clock = fields.Nested(ClockSchema, load_default=None)
    seconds = fields.Float(load_default=None, validate=validate.Range(min=0.1, max=3600), metadata={
        "description": "How long the bot has to answer (default REFEREE_CHALLENGE_SECONDS, 30)."})


class ChallengeCreatedSchema(Schema):
    id = fields.String(required=True)
    bot = fields.String(required=True)
    status = fields.String(required=True)
    token = fields.String(required=True, metadata={"description": "The challenger's: reads the challenge, and "
                                                                  "once accepted, the match's tokens."})
    expires_at = fields.Float(required=True)


class ChallengeStatusSchema(Schema):
    id = fields.String(required=True)
    bot = fields.String(required=True)
    status = fields.String(required=True, metadata={
        "enum": ["pending", "accepting", "accepted", "declined", "lapsed", "failed"],
        "description": "accepting: the bot accepted and its match is being made (a moment); accepted: with the match"})
    expires_at = fields.Float(required=True)
    game = fields.String()
    players = fields.Integer()
    options = fields.Dict()
    seats = fields.List(fields.Dict())
    clock = fields.Dict(allow_none=True)
    reason = fields.String()
    match_id = fields.String()
    match = fields.Dict(metadata={"description": "For the challenger, once accepted: POST /matches' answer (host "
                                                 "token, seat tokens; the bot's seat has none)."})


class DeclineSchema(Schema):
    reason = text(200, load_default=None)


class AnsweredSchema(Schema):
    id = fields.String(required=True)
    status = fields.String(required=True)
    match_id = fields.String()
    seat = fields.Integer()


@blp.route("")
class BotList(MethodView):
    @blp.arguments(BotsQuerySchema(), location="query")
    @blp.response(200, BotsSchema)
    @blp.doc(operationId="listBots")
    @problems(blp, "invalid_body", "redis_unavailable")
    def get(self, query):
        """Registered bots, whether each is online, and their ratings."""
        return bots().listing(query.get("online"), query.get("game"))

    @blp.arguments(RegisterSchema())
    @blp.response(201, RegisteredSchema)
    @blp.doc(operationId="registerBot")
    @problems(blp, "invalid_body", "bot_exists", "unknown_game", "unknown_bot", "redis_unavailable")
    def post(self, body):
        """Register a bot; its token is answered once (keep it)."""
        return bots().register(body["name"], body.get("games"), body["away"])


@blp.route("/me/events")
class BotEvents(MethodView):
    @blp.arguments(BotEventsQuerySchema(), location="query")
    @blp.response(200, BotEventsSchema)
    @blp.doc(operationId="getBotEvents", security=BEARER, responses={"200": {
        "description": "The bot's events as JSON, or as a live stream.", "content": {
            "application/json": {"schema": BotEventsSchema}, "text/event-stream": {
            "schema": {"type": "string", "description": "With `Accept: text/event-stream`: Server-Sent Events, as a "
                       "match's stream: `retry:` first, each event with `id:` (its seq; resume with Last-Event-ID), "
                       "`event:` (its type) and `data:` (the event as JSON), a `: keep-alive` comment every "
                       "REFEREE_HEARTBEAT seconds. The bot is online while it holds one."}}}}})
    @problems(blp, "invalid_body", "bad_token", "too_many_streams", "redis_unavailable")
    def get(self, query):
        """The bot's events (bot token): challenges, and for each of its matches its seat token, turns, end."""
        token = bearer()
        if "text/event-stream" not in request.headers.get("Accept", ""):
            name = bots().me(token)
            page = referee().page(inbox_id(name), 0, query["after"], query["limit"])
            return {"events": page["events"], "last_seq": page["last_seq"]}
        after = query["after"]
        last = request.headers.get("Last-Event-ID")
        if last:
            if not LAST_EVENT_ID.fullmatch(last) or int(last) > MAX_INT:
                raise Problem("invalid_body", "Last-Event-ID must be the id (seq) of an event.")
            after = int(last)
        stream = bots().open_stream(token)
        seconds = min(query.get("wait", float("inf")), referee().settings.stream_max_age)
        return hold_streams([(stream, after, None)], seconds)


@blp.route("/<string:name>")
class BotResource(MethodView):
    @blp.response(200, RetiredSchema)
    @blp.doc(operationId="retireBot", security=BEARER)
    @problems(blp, "bad_token", "not_your_bot", "redis_unavailable")
    def delete(self, name: str):
        """Retire a bot (its own token): its name, token and events are gone; its seats in matches still running
        are played to the end by its away bot."""
        return bots().retire(name, bearer())


@blp.route("/<string:name>/challenges")
class Challenges(MethodView):
    @blp.arguments(ChallengeSchema())
    @blp.response(201, ChallengeCreatedSchema)
    @blp.doc(operationId="challengeBot")
    @problems(blp, "invalid_body", "unknown_bot_account", "unknown_game", "game_not_played", "bot_offline",
              "invalid_options", "unknown_bot", "redis_unavailable")
    def post(self, body, name: str):
        """Challenge an online bot to a match; it accepts or declines before the deadline, else it lapses."""
        return bots().challenge(name, body["game"], body["players"], body["options"], body["seats"],
                                body["seconds"], body["clock"])


@blp.route("/<string:name>/challenges/<string:challenge_id>")
class Challenge(MethodView):
    @blp.response(200, ChallengeStatusSchema)
    @blp.doc(operationId="getChallenge", security=BEARER)
    @problems(blp, "unknown_challenge", "bad_token", "redis_unavailable")
    def get(self, name: str, challenge_id: str):
        """A challenge's status (the challenger's token, or the bot's); the match's tokens once accepted."""
        return bots().challenge_status(name, challenge_id, bearer())


@blp.route("/me/challenges/<string:challenge_id>/accept")
class Accept(MethodView):
    @blp.response(201, AnsweredSchema)
    @blp.doc(operationId="acceptChallenge", security=BEARER)
    @problems(blp, "bad_token", "unknown_challenge", "challenge_closed", "store_full", "redis_unavailable")
    def post(self, challenge_id: str):
        """Accept a challenge (bot token): the match is created, and `match.started` follows on the stream."""
        return bots().answer(bearer(), challenge_id, True)


@blp.route("/me/challenges/<string:challenge_id>/decline")
class Decline(MethodView):
    @blp.arguments(DeclineSchema(), required=False)
    @blp.response(200, AnsweredSchema)
    @blp.doc(operationId="declineChallenge", security=BEARER)
    @problems(blp, "invalid_body", "bad_token", "unknown_challenge", "challenge_closed", "redis_unavailable")
    def post(self, body, challenge_id: str):
        """Decline a challenge (bot token)."""
        return bots().answer(bearer(), challenge_id, False, body["reason"])

