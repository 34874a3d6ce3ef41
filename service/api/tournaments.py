"""Tournaments (issue 35): round robin or Swiss between bot accounts and built-in bots; a live page."""

from __future__ import annotations

from flask.views import MethodView
from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from service.api import Blueprint, integer, problems, referee
from service.api.matches import ClockSchema
from service.api.web import page
from service.competition.tournaments import Tournaments

blp = Blueprint("tournaments", __name__, url_prefix="/tournaments",
                description="Tournaments of bot accounts and built-in bots, paired and started automatically")

PARTICIPANT = fields.String(validate=validate.Regexp(
    r"^([a-z0-9][a-z0-9_-]{1,31}|builtin:[a-z_]{1,32}(@[0-9]{1,6}(ms)?)?(#[a-z0-9_-]{1,8})?)$",
    error="A participant is a bot account's name, or builtin:KIND with an optional @BUDGET and #LABEL."))


class CreateTournamentSchema(Schema):
    game = fields.String(required=True, validate=validate.Length(1, 40), metadata={"example": "super_blatt"})
    players_per_match = integer(1, 16, strict=True, required=True, metadata={"example": 2})
    format = fields.String(required=True, validate=validate.OneOf(["round_robin", "swiss"]))
    rounds = integer(1, 64, strict=True, load_default=None, metadata={
        "description": "Swiss: rounds to play (default ceil(log2(participants))); round robin: as many as it takes."})
    participants = fields.List(PARTICIPANT, required=True, validate=validate.Length(2, 256), metadata={
        "description": "Bot accounts (each once) and built-in bots: `builtin:KIND`, with a budget "
                       "`builtin:search@300ms` (milliseconds per decision) or `builtin:search@200` (iterations), "
                       "and `#LABEL` to name one apart. A built-in bot given again without a label is named `#2`, "
                       "`#3`... in the standings.",
        "example": ["alpha", "beta", "builtin:greedy", "builtin:greedy", "builtin:search@300ms", "builtin:random"]})
    clock = fields.Nested(ClockSchema, load_default=None, metadata={
        "description": "The clock of matches with a bot account (default move_seconds 30, on_timeout forfeit: a "
                       "bot that misses its clock forfeits that match, not the tournament)."})
    options = fields.Dict(load_default=dict, metadata={"description": "The game's options for every match."})

    @validates_schema
    def _rounds_for_swiss(self, data: dict, **kwargs) -> None:
        if data.get("format") == "round_robin" and data.get("rounds") is not None:
            raise ValidationError("A round robin has as many rounds as it takes; 'rounds' is for Swiss.", "rounds")


class StandingSchema(Schema):
    rank = fields.Integer(required=True)
    participant = fields.String(required=True)
    points = fields.Float(required=True)
    buchholz = fields.Float(required=True, metadata={"description": "First tie-break (docs/tournaments.md)."})
    sonneborn_berger = fields.Float(required=True, metadata={"description": "Second tie-break."})
    matches = fields.Integer(required=True)
    wins = fields.Integer(required=True)
    byes = fields.Integer(required=True)
    forfeits = fields.Integer(required=True)


class TournamentSeatSchema(Schema):
    seat = fields.Integer()
    participant = fields.String()


class TournamentMatchSchema(Schema):
    match_id = fields.String(required=True)
    round = fields.Integer(required=True)
    status = fields.String(required=True)
    seats = fields.List(fields.Nested(TournamentSeatSchema), required=True)
    points = fields.List(fields.Float(), allow_none=True, metadata={"description": "Per seat, once it ended."})


class RoundSchema(Schema):
    round = fields.Integer(required=True)
    matches = fields.List(fields.Nested(TournamentMatchSchema), required=True)
    byes = fields.List(fields.String(), required=True)


class TournamentSchema(Schema):
    id = fields.String(required=True)
    game = fields.String(required=True)
    players_per_match = fields.Integer(required=True)
    format = fields.String(required=True)
    status = fields.String(required=True, metadata={"enum": ["running", "finished"]})
    round = fields.Integer(required=True, metadata={"description": "The round under way (or the last one)."})
    rounds_total = fields.Integer(required=True)
    participants = fields.List(fields.String(), required=True)
    clock = fields.Dict(required=True)
    options = fields.Dict(required=True)
    created = fields.Float(required=True)
    finished = fields.Float(allow_none=True)
    rounds = fields.List(fields.Nested(RoundSchema), required=True)
    matches = fields.List(fields.Nested(TournamentMatchSchema), required=True)
    standings = fields.List(fields.Nested(StandingSchema), required=True, metadata={"description": "Best first."})


class TournamentItemSchema(Schema):
    id = fields.String()
    game = fields.String()
    format = fields.String()
    status = fields.String()
    round = fields.Integer()
    rounds_total = fields.Integer()
    participants = fields.List(fields.String())


class TournamentsSchema(Schema):
    tournaments = fields.List(fields.Nested(TournamentItemSchema))


@blp.route("")
class TournamentList(MethodView):
    @blp.response(200, TournamentsSchema)
    @blp.doc(operationId="listTournaments")
    @problems(blp, "redis_unavailable")
    def get(self):
        """The latest tournaments, newest first."""
        return Tournaments(referee()).listing()

    @blp.arguments(CreateTournamentSchema())
    @blp.response(201, TournamentSchema)
    @blp.doc(operationId="createTournament")
    @problems(blp, "invalid_body", "unknown_game", "invalid_tournament", "unknown_bot_account", "unknown_bot",
              "game_not_played", "invalid_options", "invalid_clock", "store_full", "redis_unavailable")
    def post(self, body):
        """Start a tournament: its first round is paired and its matches created now, the next ones as rounds end."""
        return Tournaments(referee()).create(body["game"], body["players_per_match"], body["format"], body["rounds"],
                                             body["participants"], body["clock"], body["options"])


@blp.route("/<string:tid>")
class TournamentResource(MethodView):
    @blp.response(200, TournamentSchema)
    @blp.doc(operationId="getTournament")
    @problems(blp, "unknown_tournament", "redis_unavailable")
    def get(self, tid: str):
        """A tournament: status, rounds, matches and standings (points, Buchholz, Sonneborn-Berger)."""
        return Tournaments(referee()).show(tid)


@blp.route("/<string:tid>/page")
class TournamentPage(MethodView):
    @blp.response(200, description="The tournament's live page (HTML).", content_type="text/html")
    @problems(blp)
    def get(self, tid: str):
        """A tournament in a browser: standings and rounds, kept up to date."""
        return page("tournament.html")
