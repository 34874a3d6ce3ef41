"""create_app(): the Flask application, its OpenAPI document and the referee it serves."""

from __future__ import annotations

import orjson
import redis
from flask import Flask
from flask.json.provider import DefaultJSONProvider
from marshmallow import fields, validate

from service.api import Api, Problem, problem_response
from service.api import games as games_api
from service.api import health as health_api
from service.api import matches as matches_api
from service.config import Settings
from service.games import GAMES
from service.referee import Referee

API_VERSION = "1.0.0"


class OrjsonProvider(DefaultJSONProvider):
    """Flask's JSON through orjson: views, legal moves and events are encoded on every request."""

    OPTIONS = orjson.OPT_NON_STR_KEYS

    def dumps(self, obj, **kwargs) -> str:
        return orjson.dumps(obj, default=self.default, option=self.OPTIONS).decode()

    def loads(self, s, **kwargs):
        return orjson.loads(s)

    def response(self, *args, **kwargs):
        obj = self._prepare_response_obj(args, kwargs)
        body = orjson.dumps(obj, default=self.default, option=self.OPTIONS | orjson.OPT_APPEND_NEWLINE)
        return self._app.response_class(body, mimetype=self.mimetype)


class RefereeFlask(Flask):
    """Flask without the per-call coroutine check: no view here is async, and the check
    (``inspect.iscoroutinefunction`` on every view and decorator layer) costs on every request."""

    json_provider_class = OrjsonProvider

    def ensure_sync(self, func):
        return func


def create_app(settings: Settings | None = None, client: redis.Redis | None = None) -> Flask:
    settings = settings or Settings.from_env()
    if client is None:
        if not settings.redis_url:
            raise RuntimeError("Set REDIS_URL (or run `referee serve`, which starts an embedded server).")
        client = redis.Redis.from_url(settings.redis_url)
    app = RefereeFlask("referee")
    app.config.update(
        API_TITLE="Referee",
        API_VERSION=API_VERSION,
        OPENAPI_VERSION="3.1.0",
        OPENAPI_URL_PREFIX="/",
        OPENAPI_JSON_PATH="openapi.json",
        MAX_CONTENT_LENGTH=settings.max_body,
        API_SPEC_OPTIONS={
            "info": {"description": "A REST referee for Das Super-Blatt, Paparazzo, Big Shot, Dice Party and "
                                    "Picture Perfect. It deals, rolls, validates every move and shows each seat "
                                    "only what that seat may see. Errors are application/problem+json."},
            "components": {"securitySchemes": {"bearerAuth": {"type": "http", "scheme": "bearer"}}},
        },
    )
    app.extensions["referee"] = Referee(client, settings)
    api = Api(app)
    for blp in (games_api.blp, matches_api.blp, health_api.blp):
        api.register_blueprint(blp)
    app.register_error_handler(Problem, problem_response)
    document_games(api)
    app.extensions["referee_api"] = api
    return app


def document_games(api: Api) -> None:
    """Each game's Options and one schema per move type, gathered in a discriminated <Game>Move."""
    refs = []
    for game in GAMES.values():
        camel = games_api.camel(game.name)
        api.spec.components.schema(f"{camel}Options", schema=game.Options)
        mapping = {}
        for kind, schema in sorted(game.moves.items()):
            name = f"{camel}{games_api.camel(kind)}Move"
            typed = type(name, (schema,), {"type": fields.String(required=True, validate=validate.OneOf([kind]))})
            api.spec.components.schema(name, schema=typed)
            mapping[kind] = f"#/components/schemas/{name}"
        api.spec.components.schema(f"{camel}Move", component={
            "oneOf": [{"$ref": r} for r in mapping.values()],
            "discriminator": {"propertyName": "type", "mapping": mapping},
            "description": f"A move of {game.title}.",
        })
        refs.append({"$ref": f"#/components/schemas/{camel}Move"})
    move_request = api.spec.components.schemas["MoveRequest"]
    move_request["properties"]["move"] = {"oneOf": refs, "description": "One move of this match's game."}

