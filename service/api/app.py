"""create_app(): the Flask application, its OpenAPI document and the referee it serves."""

from __future__ import annotations

from pathlib import Path

import orjson
import redis
from flask import Flask, request
from flask.json.provider import DefaultJSONProvider
from flask_cors import CORS

from service.api import (
    FIXED,
    INTERNAL,
    MATCH,
    ROUTE,
    Api,
    Problem,
    authenticate_first,
    problem_answer,
    problem_response,
    redis_unavailable,
    store_full,
)
from service.api import analysis as analysis_api
from service.api import bots as bots_api
from service.api import games as games_api
from service.api import health as health_api
from service.api import ladder as ladder_api
from service.api import lifecycle as lifecycle_api
from service.api import matches as matches_api
from service.api import metrics as metrics_api
from service.api import streams as streams_api
from service.api import tournaments as tournaments_api
from service.api import web as web_api
from service.api import webhooks as webhooks_api
from service.api.contract import camel, move_field
from service.api.lanes import STATUS_LINES, Lanes, sized
from service.api.webhooks import document_webhooks
from service.core.referee import Referee
from service.games import GAMES
from service.infra.config import Settings
from service.infra.connections import connect
from service.integrations import requestid
from service.integrations.metrics import route_template

API_VERSION = "1.0.0"
STATIC = Path(__file__).resolve().parent.parent / "static"


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
    """Flask with hot lanes for the requests of every move (service/api/lanes.py), and without the
    per-call coroutine check: no view here is async, and the check (``inspect.iscoroutinefunction``
    on every view and decorator layer) costs on every request."""

    json_provider_class = OrjsonProvider
    lanes: Lanes | None = None

    def ensure_sync(self, func):
        return func

    def wsgi_app(self, environ, start_response):
        requestid.CURRENT.set(environ.get(requestid.ENVIRON))  # carried into the jobs this request enqueues
        try:
            answer = self.lanes(environ) if self.lanes is not None else None
        except Exception:
            if self.testing:
                raise
            self.logger.exception("Exception on %s [%s]", environ.get("PATH_INFO"), environ.get("REQUEST_METHOD"))
            answer = sized(*problem_answer(Problem("internal", INTERNAL)))
        if answer is None:
            return super().wsgi_app(environ, start_response)
        status, headers, body = answer
        start_response(STATUS_LINES[status], headers)
        return [body]


def create_app(settings: Settings | None = None, client: redis.Redis | None = None) -> Flask:
    """``client``: one server for the matches and the queue (tests); by default the settings' connections."""
    settings = settings or Settings.from_env()
    # API requests: ordinary commands answer in milliseconds, so a short socket timeout turns a hung Redis
    # into an error instead of a hung request (no request blocks on Redis: the front holds the waits)
    client, queue = (client, client) if client is not None else connect(settings, timeout=settings.redis_timeout)
    app = RefereeFlask("referee", static_folder=STATIC, static_url_path="/static")
    app.config.update(
        API_TITLE="Referee",
        API_VERSION=API_VERSION,
        OPENAPI_VERSION="3.1.0",
        OPENAPI_URL_PREFIX="/",
        OPENAPI_JSON_PATH="openapi.json",
        MAX_CONTENT_LENGTH=settings.max_body,
        # Swagger UI and ReDoc from assets shipped in the package (service/static/vendor), never a CDN
        OPENAPI_SWAGGER_UI_PATH="docs",
        OPENAPI_SWAGGER_UI_URL="/static/vendor/swagger-ui/",
        OPENAPI_REDOC_PATH="redoc",
        OPENAPI_REDOC_URL="/static/vendor/redoc/redoc.standalone.js",
        API_SPEC_OPTIONS={
            "info": {"description": "A REST referee for Das Super-Blatt, Paparazzo, Big Shot, Dice Party and "
                                    "Picture Perfect. It deals, rolls, validates every move and shows each seat "
                                    "only what that seat may see. Errors are application/problem+json.",
                     "license": {"name": "MIT", "identifier": "MIT"}},
            "servers": [{"url": "http://127.0.0.1:8000", "description": "`referee serve` with its defaults"}],
            "components": {"securitySchemes": {"bearerAuth": {"type": "http", "scheme": "bearer"}}},
        },
    )
    app.extensions["referee"] = Referee(client, settings, queue)
    api = Api(app)
    document_games(api)  # first, so that every answer refers to these by name
    for blp in (web_api.blp, games_api.blp, matches_api.blp, streams_api.blp, lifecycle_api.blp, analysis_api.blp,
                webhooks_api.blp, ladder_api.blp, health_api.blp, metrics_api.blp, bots_api.blp, tournaments_api.blp):
        api.register_blueprint(blp)
    document_webhooks(api.spec)
    matches_api.document_seat_rules(api.spec)
    app.before_request(note_route)
    app.before_request(authenticate_first)
    if not settings.cors_origins:  # flask-cors's headers depend on the request's Origin
        app.after_request(mark_fixed)
    if settings.cors_origins:
        CORS(app, origins=list(settings.cors_origins), allow_headers=["Authorization", "Content-Type",
             "Idempotency-Key", "Last-Event-ID"], expose_headers=["Retry-After"], max_age=600)
    app.register_error_handler(Problem, problem_response)
    for error in (redis.ConnectionError, redis.TimeoutError):  # BusyLoadingError (restarting) is one
        app.register_error_handler(error, redis_unavailable)
    app.register_error_handler(redis.exceptions.OutOfMemoryError, store_full)
    app.extensions["referee_api"] = api
    if not settings.cors_origins:  # flask-cors adds its headers in Flask's own dispatch
        app.lanes = Lanes(app, matches_api.HOT)
    return app


#: the routes whose answer to a GET without a query string is fixed for the process's life (``FIXED``)
FIXED_ENDPOINTS = frozenset({"api-docs.openapi_json", "api-docs.openapi_redoc", "api-docs.openapi_swagger_ui",
                             "games.Games", "games.GameDetail", "games.GameTable", "static"})


def mark_fixed(response):
    if (request.endpoint in FIXED_ENDPOINTS and response.status_code == 200 and request.method == "GET"
            and not request.query_string):
        response.headers[FIXED] = "1"
    return response


def note_route() -> None:
    """The route's template and the path's match id, for the log line and metrics (read in service/serving/wsgi.py)."""
    rule, environ = request.url_rule, request.environ
    environ[ROUTE] = route_template(rule.rule if rule is not None else None)
    if request.view_args and "match_id" in request.view_args:
        environ[MATCH] = request.view_args["match_id"]


def document_games(api: Api) -> None:
    """Each game's Options and Move (a union of one schema per move type) by name, for GET /games/{game}."""
    converter = api.ma_plugin.converter
    for game in GAMES.values():
        api.spec.components.schema(f"{camel(game.name)}Options", schema=game.Options)
        move_field(game).document(api.spec, converter.resolve_nested_schema)
