"""GET /games and GET /games/{game}: what can be played, with which options, moves and bots."""

from __future__ import annotations

from flask.views import MethodView
from marshmallow import Schema, fields

from service.api import Blueprint, problems, referee
from service.games import GAMES, Game
from workers.bots import bot_kinds

blp = Blueprint("games", __name__, url_prefix="/games", description="The games this referee knows")


class GameSchema(Schema):
    name = fields.String(metadata={"example": "super_blatt"})
    title = fields.String(metadata={"example": "Das Super-Blatt"})
    min_players = fields.Integer()
    max_players = fields.Integer()
    options = fields.Dict(metadata={"description": "Every option with its default; typed in <Game>Options."})
    move_types = fields.List(fields.String(), metadata={"description": "Typed in <Game>Move."})
    bots = fields.List(fields.String(), metadata={"description": "Bot kinds a seat can be given."})
    variants = fields.List(fields.Dict(), metadata={"description": "Option sets for each variant of the book."})
    schemas = fields.Dict(metadata={"description": "Names of this game's Options and Move component schemas."})


class GameListSchema(Schema):
    games = fields.List(fields.Nested(GameSchema))


def camel(name: str) -> str:
    return "".join(part.title() for part in name.split("_"))


def describe(game: Game) -> dict:
    return {
        "name": game.name,
        "title": game.title,
        "min_players": game.min_players,
        "max_players": game.max_players,
        "options": game.Options().load({}),
        "move_types": sorted(game.moves),
        "bots": bot_kinds(game.name),
        "variants": [dict(v) for v in game.variants],
        "schemas": {"options": f"{camel(game.name)}Options", "move": f"{camel(game.name)}Move"},
    }


@blp.route("")
class Games(MethodView):
    @blp.response(200, GameListSchema)
    def get(self):
        """List the games."""
        return {"games": [describe(g) for g in GAMES.values()]}


@blp.route("/<string:game>")
class GameDetail(MethodView):
    @blp.response(200, GameSchema)
    @problems(blp, "unknown_game")
    def get(self, game: str):
        """One game: player counts, options with defaults, move types and bot kinds."""
        return describe(referee().game(game))
