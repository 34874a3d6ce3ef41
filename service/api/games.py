"""GET /games and GET /games/{game}: what can be played, with which options, moves and bots."""

from __future__ import annotations

from flask import send_file
from flask.views import MethodView
from marshmallow import Schema, fields

from service.api import Blueprint, integer, problems, referee
from service.api.contract import Tagged, by_game, camel
from service.games import BOT_KINDS, GAMES, PLUGINS, Game, Plugin
from service.infra.problems import Problem

blp = Blueprint("games", __name__, url_prefix="/games", description="The games this referee knows")


class SchemaNamesSchema(Schema):
    options = fields.String(required=True, metadata={"example": "SuperBlattOptions"})
    move = fields.String(required=True, metadata={"example": "SuperBlattMove"})


class GameSchema(Schema):
    name = fields.String(required=True, metadata={"example": "super_blatt"})
    title = fields.String(required=True, metadata={"example": "Das Super-Blatt"})
    min_players = integer(1, 16, required=True)
    max_players = integer(1, 16, required=True)
    options = fields.Dict(required=True,
                          metadata={"description": "Every option with its default; typed in <Game>Options."})
    move_types = fields.List(fields.String(), required=True, metadata={"description": "Typed in <Game>Move."})
    bots = fields.List(fields.String(), required=True, metadata={"description": "Bot kinds a seat can be given."})
    variants = fields.List(fields.Dict(), required=True,
                           metadata={"description": "Option sets for each variant of the book."})
    schemas = fields.Nested(SchemaNamesSchema, required=True,
                            metadata={"description": "Names of this game's Options and Move component schemas."})
    table = fields.String(required=True, allow_none=True, metadata={
        "description": "The web table's renderer for this game (an ES module); null: the generic table, drawn "
                       "from the view and the legal moves."})
    summary = fields.String(required=True, metadata={"description": "The game in a sentence (may be empty)."})
    help = fields.Dict(keys=fields.String(), values=fields.String(), required=True,
                       metadata={"description": "Rules help per phase, for the table (may be empty)."})
    events = fields.List(fields.String(), required=True,
                         metadata={"description": "The game's own event types (typed in <Game>Event)."})
    words = fields.List(fields.String(), required=True, metadata={
        "description": "The languages the game's package gives the table its words in "
                       "(GET /games/{game}/words/{lang}); empty: the table's own words only."})


GAME = by_game(GameSchema, lambda game, wire: {
    "options": fields.Nested(game.Options, required=True, metadata={"description": "Every option with its default."}),
    "variants": fields.List(fields.Nested(game.Options), required=True,
                            metadata={"description": "Option sets for each variant of the book."})}, key="name")


class GameListSchema(Schema):
    games = fields.List(Tagged("GameInfo", "name", GAME.schemas), required=True)


def table_url(plugin: Plugin) -> str | None:
    """Where the page loads the game's renderer: its own route, served from the game's package."""
    return None if plugin.table_file() is None else f"/games/{plugin.name}/table.js"


def describe(game: Game) -> dict:
    plugin = PLUGINS[game.name]
    return {
        "name": game.name,
        "title": game.title,
        "min_players": game.min_players,
        "max_players": game.max_players,
        "options": game.Options().load({}),
        "move_types": sorted(game.moves),
        "bots": sorted(BOT_KINDS),
        "variants": [dict(v) for v in game.variants],
        "schemas": {"options": f"{camel(game.name)}Options", "move": f"{camel(game.name)}Move"},
        "table": table_url(plugin),
        "summary": plugin.summary,
        "help": dict(plugin.help),
        "events": sorted(plugin.wire.events),
        "words": sorted(plugin.words_files()),
    }


@blp.route("")
class Games(MethodView):
    @blp.response(200, GameListSchema)
    @blp.doc(operationId="listGames")
    @problems(blp)
    def get(self):
        """List the games."""
        return {"games": [describe(g) for g in GAMES.values()]}


@blp.route("/<string:game>")
class GameDetail(MethodView):
    @blp.response(200, GAME)
    @blp.doc(operationId="getGame")
    @problems(blp, "unknown_game")
    def get(self, game: str):
        """One game: player counts, options with defaults, move types and bot kinds."""
        return describe(referee().game(game))


@blp.route("/<string:game>/table.js")
class GameTable(MethodView):
    @blp.response(200, description="The game's renderer for the web table (an ES module).",
                  content_type="text/javascript")
    @blp.doc(operationId="getGameTable")
    @problems(blp, "unknown_game", "not_found")
    def get(self, game: str):
        """The renderer a game's package ships for the web table (a game without one has none: the table then
        draws the generic one)."""
        path = PLUGINS[referee().game(game).name].table_file()
        if path is None:
            raise Problem("not_found", f"{game} has no renderer of its own; the table draws the generic one.")
        return send_file(path, mimetype="text/javascript", max_age=0)


@blp.route("/<string:game>/words/<string:lang>")
class GameWords(MethodView):
    @blp.response(200, description="The game's catalogue for the web table in one language: flat keys, each a "
                  "text with `{blanks}` or an object of plural forms (docs/writing-a-game.md).",
                  content_type="application/json")
    @blp.doc(operationId="getGameWords")
    @problems(blp, "unknown_game", "not_found")
    def get(self, game: str, lang: str):
        """The words a game's package gives the table in one language (its moves, events, view and result)."""
        files = PLUGINS[referee().game(game).name].words_files()
        if lang not in files:
            raise Problem("not_found", f"{game} has no words in {lang!r}; it has them in {sorted(files) or 'none'}.")
        return send_file(files[lang], mimetype="application/json", max_age=0)
