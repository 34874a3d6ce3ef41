"""GET /ladder: per-game ratings of the arena's participants; POST /ladder: a host rates its match."""

from __future__ import annotations

from flask.views import MethodView
from marshmallow import Schema, fields, validate

from service.api import BEARER, Blueprint, bearer, problems, referee
from service.competition.ladder import report, standings
from service.games import GAMES

blp = Blueprint("ladder", __name__, url_prefix="/ladder",
                description="Ratings (OpenSkill, Plackett-Luce) from rated matches, per game")


class EntrantSchema(Schema):
    name = fields.String(metadata={"example": "search@200"})
    mu = fields.Float(metadata={"description": "Estimated skill."})
    sigma = fields.Float(metadata={"description": "Uncertainty of mu (one standard deviation)."})
    ordinal = fields.Float(metadata={"description": "mu - 3 sigma: the conservative rating the ladder sorts by."})
    matches = fields.Integer()
    wins = fields.Integer(metadata={"description": "Matches won, shared wins included."})
    forfeits = fields.Integer(metadata={"description": "Matches lost by an illegal move or no answer."})


class GameLadderSchema(Schema):
    game = fields.String()
    entrants = fields.List(fields.Nested(EntrantSchema), metadata={"description": "Best first."})


class LadderSchema(Schema):
    games = fields.List(fields.Nested(GameLadderSchema))


class LadderQuerySchema(Schema):
    game = fields.String(validate=validate.OneOf(sorted(GAMES)), metadata={"description": "Only this game."})


class ReportSchema(Schema):
    match_id = fields.String(required=True, validate=validate.Length(min=1, max=64))
    entrants = fields.List(fields.String(validate=validate.Length(min=1, max=1000)), required=True,
                           validate=validate.Length(min=1, max=16),
                           metadata={"description": "Who played each seat, in seat order (the ladder's names; "
                                                    "a `cmd:` bot is named by its command line)."})
    forfeits = fields.List(fields.Integer(validate=validate.Range(min=0, max=15)), load_default=list,
                           metadata={"description": "For an aborted match: the seats that forfeited it."})


class ReportedSchema(Schema):
    match_id = fields.String()
    game = fields.String()
    entrants = fields.List(fields.Nested(EntrantSchema), metadata={"description": "Their ratings after this match."})


@blp.route("")
class Ladder(MethodView):
    @blp.arguments(LadderQuerySchema(), location="query")
    @blp.response(200, LadderSchema)
    @problems(blp, "invalid_body")
    def get(self, query):
        """Every game's ladder (or one game's): ratings with their uncertainty and match counts, best first."""
        names = [query["game"]] if "game" in query else list(GAMES)
        client = referee().store.redis
        return {"games": [{"game": g, "entrants": standings(client, g)} for g in names]}

    @blp.arguments(ReportSchema())
    @blp.response(201, ReportedSchema)
    @blp.doc(security=BEARER)
    @problems(blp, "invalid_body", "unknown_match", "bad_token", "not_host", "not_over", "already_rated",
              "body_too_large")
    def post(self, body):
        """Rate a finished match (or one aborted by forfeits) once, with the host token: `referee arena` does."""
        return report(referee(), body["match_id"], bearer(), body["entrants"], body["forfeits"])
