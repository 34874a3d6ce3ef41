"""The HTTP API: the Flask application (``app``), one flask-smorest blueprint per resource (``matches``, ``games``,
``bots``, ``tournaments``, ...), the wire schemas (``contract``), the OpenAPI document (``openapi``), and here the
shared helpers: the Api with RFC 9457 problem answers, the route decorators.

It may import the competition, the core, the integrations, infra and the games; above it only the serving layer
and the command line (clients/cli.py) import it.
"""

from __future__ import annotations

import json as stdjson
import re
from collections import defaultdict
from collections.abc import Callable
from functools import wraps
from typing import Any

import orjson
from apispec import BasePlugin
from flask import Flask, Response, current_app, request
from flask_smorest import Blueprint as _Blueprint
from flask_smorest.utils import resolve_schema_instance, unpack_tuple_response
from marshmallow import Schema, ValidationError, fields, validate
from webargs import core as webargs_core
from webargs.flaskparser import FlaskParser, abort, is_json_request
from werkzeug.exceptions import HTTPException

from service.adapters import smorest
from service.api.contract import ByGame, tagged_property
from service.core.capacity import STORE_FULL_RETRY
from service.core.referee import Referee
from service.infra.problems import CODES, Problem

PROBLEM_JSON = "application/problem+json"
#: the largest integer every JSON client holds exactly; versions, seats and sequence numbers stay below
MAX_INT = 2**53 - 1


class ProblemSchema(Schema):
    """RFC 9457 problem details, plus the stable ``code`` a client switches on."""

    type = fields.String(metadata={"example": "urn:referee:problem:not_your_turn"})
    title = fields.String()
    status = fields.Integer(validate=validate.Range(min=400, max=599))
    detail = fields.String(metadata={"description": "A sentence for people; never reveals hidden information."})
    code = fields.String(metadata={"enum": sorted(CODES)})
    reason = fields.String(metadata={"description": "For illegal_move and invalid_move: the game's own reason."})
    version = fields.Integer(validate=validate.Range(min=0, max=MAX_INT),
                             metadata={"description": "For stale_version: the match's current version."})
    errors = fields.Dict(metadata={"description": "For invalid_body: what was wrong, field by field."})


#: how every JSON answer is encoded (Flask's JSON provider and the hot lanes share it)
JSON_OPTIONS = orjson.OPT_NON_STR_KEYS | orjson.OPT_APPEND_NEWLINE


def problem_answer(problem: Problem) -> tuple[int, list[tuple[str, str]], bytes]:
    """(status, headers, body) of a problem: the one encoding of every error answer."""
    headers = [("Content-Type", PROBLEM_JSON)]
    if problem.retry_after is not None:
        headers.append(("Retry-After", str(problem.retry_after)))
    return problem.status, headers, orjson.dumps(problem.as_dict(), option=JSON_OPTIONS)


def problem_response(problem: Problem, headers: dict | None = None):
    status, more, body = problem_answer(problem)
    resp = current_app.response_class(body, status=status, mimetype=PROBLEM_JSON, headers=headers)
    resp.headers.update(more[1:])
    return resp


def store_unavailable(app, error: Exception) -> Problem:
    """Redis is down or restarting (``referee serve`` restarts its embedded server): a 503 the client
    may retry, never a 500.  The client reconnects by itself on a later request."""
    app.logger.warning("Redis unavailable: %s", error)
    return Problem("redis_unavailable", "The store is unreachable; retry shortly.",
                   retry_after=app.extensions["referee"].settings.retry_after)


def redis_unavailable(error: Exception):
    return problem_response(store_unavailable(current_app, error))


def store_at_bound(app, error: Exception) -> Problem:
    """The store refused a write at its maxmemory (it never evicts): nothing was written; a 503 to retry once
    finished matches have expired, never a 500.  New matches are refused well before (``check_room``)."""
    app.logger.warning("store at its bound: %s", error)
    return Problem("store_full", "The store is full; nothing was changed. Retry later.", retry_after=STORE_FULL_RETRY)


def store_full(error: Exception):
    return problem_response(store_at_bound(current_app, error))


INTERNAL = "The server failed on this request; it was logged."
_HTTP_CODES = {400: "invalid_body", 404: "not_found", 405: "method_not_allowed", 413: "body_too_large",
               415: "unsupported_media_type", 422: "invalid_body"}


def json_safe_integer(self, field: fields.Field, **kwargs: Any) -> dict:
    """apispec attribute function: an integer without a declared range is documented as what every JSON
    client reads exactly (|n| < 2^53), so no schema leaves an integer unbounded."""
    if isinstance(field, fields.Integer) and not any(isinstance(v, validate.Range) for v in field.validators):
        return {"minimum": -MAX_INT, "maximum": MAX_INT}
    return {}


class OperationDefaults(BasePlugin):
    """apispec plugin: every operation gets an operationId (generated clients name their calls by it): the one
    given with ``@blp.doc(operationId=...)``, else the method and the view's name (``getMatchList``); and its
    ``security``: the one given, else ``[]`` (public: no token needed)."""

    def __init__(self, app: Flask) -> None:
        self.app = app

    def operation_helper(self, path: str | None = None, operations: dict | None = None, **kwargs: Any) -> None:
        rule = kwargs.get("rule")  # flask-smorest documents each route with its rule; a path without one is not a route
        if rule is None:
            return
        view = self.app.view_functions[rule.endpoint]
        name = getattr(view, "view_class", view).__name__
        for method, doc in (operations or {}).items():
            doc.setdefault("operationId", f"{method}{name}")
            doc.setdefault("security", [])  # said of every operation: none needs no token


class Api(smorest.Api):
    """flask-smorest's Api answering every error as problem+json with a stable code (the 422 it documents by
    itself too)."""

    ERROR_SCHEMA = ProblemSchema
    ERROR_CONTENT_TYPE = PROBLEM_JSON
    DEFAULT_ERROR_RESPONSE_NAME = None  # every route documents its own errors

    def init_app(self, app: Flask, *, spec_kwargs: dict | None = None) -> None:
        extra = [*(spec_kwargs or {}).get("extra_plugins", ()), OperationDefaults(app)]
        super().init_app(app, spec_kwargs={**(spec_kwargs or {}), "extra_plugins": extra})
        self.ma_plugin.converter.add_attribute_function(tagged_property)
        self.ma_plugin.converter.add_attribute_function(json_safe_integer)

    def handle_http_exception(self, error: HTTPException):
        code = _HTTP_CODES.get(error.code or 500)
        if code is None:
            current_app.logger.error("unexpected HTTP error %s", error)
            return problem_response(Problem("internal", INTERNAL))
        data = getattr(error, "data", None) or {}
        messages = data.get("messages")
        extra = {"errors": messages} if messages else {}
        detail = {
            "invalid_body": (messages or {}).get("json", ["The body is not valid JSON."])[0] if error.code == 400
            else "The request does not have the expected shape.",
            "not_found": "There is no such resource; see /openapi.json.",
            "method_not_allowed": "This method is not allowed here.",
            "body_too_large": "The request body is larger than this server accepts.",
            "unsupported_media_type": NOT_JSON,
        }[code]
        problem = Problem(code, detail, **extra)
        problem.status = error.code  # 400 (malformed JSON) and 422 (wrong shape) share invalid_body
        allow = dict(error.get_headers()).get("Allow")  # a 405 says which methods the resource has
        return problem_response(problem, headers={"Allow": allow} if allow else None)


NOT_JSON = "The request body must be JSON, sent with 'Content-Type: application/json'."

#: nesting a request body may have: a move is three levels deep; orjson writes at most 254
MAX_DEPTH = 32


class _DuplicateKey(ValueError):
    pass


def _unique_object(pairs: list[tuple[str, Any]]) -> dict:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        raise _DuplicateKey(next(f"Duplicate key {k!r}." for k, _ in pairs if k in seen or seen.add(k)))
    return obj


def _number(text: str) -> int | float:
    """A JSON number with a fraction or an exponent: an integer when its value is one (``2.0``, ``1e2``).

    JSON Schema (2020-12, OpenAPI 3.1) counts a number whose fractional part is zero as an integer, so a
    client generated from the document may send ``2.0`` for an ``integer``: every integer field reads it as 2,
    alike in the referee's own bodies and inside a game's move, and a ``number`` field takes it as 2.0."""
    value = float(text)
    return int(value) if value.is_integer() else value


_PAIRS_DECODER = stdjson.JSONDecoder(object_pairs_hook=_unique_object, parse_float=_number)


def _shallow(value: Any, left: int = MAX_DEPTH) -> bool:
    if isinstance(value, dict):
        value = value.values()
    elif not isinstance(value, list):
        return True
    return left > 0 and all(_shallow(v, left - 1) for v in value)


def parse_json(data: bytes) -> Any:
    """A request body as JSON, strictly, or ``json.JSONDecodeError`` saying why not.

    orjson checks RFC 8259 to the letter (UTF-8 without lone surrogates, no NaN or Infinity,
    bounded nesting); the standard decoder then sees every key, where orjson would keep the last
    of two equal keys silently; its integers are exact, for the schemas' bounds to judge.
    """
    try:
        if not _shallow(orjson.loads(data)):
            raise ValueError(f"The body is nested more than {MAX_DEPTH} levels deep.")
        return _PAIRS_DECODER.decode(data.decode())
    except (orjson.JSONDecodeError, ValueError) as exc:
        # the document travels with the error: an empty one is a missing body (``Parser.load_json``)
        raise stdjson.JSONDecodeError(str(exc).split(": line")[0], data.decode("utf-8", "replace"), 0) from None


class Parser(FlaskParser):
    """webargs' parser whose ``load_json`` (its public hook for the JSON location) reads the strict JSON of
    ``parse_json`` and gives the reason in the 400's ``errors``."""

    def load_json(self, req, schema):
        if not is_json_request(req):
            if req.content_length or req.get_data(cache=True):  # a body, but not JSON: never read as none
                raise Problem("unsupported_media_type", NOT_JSON)
            return webargs_core.missing
        try:
            return parse_json(req.get_data(cache=True))
        except stdjson.JSONDecodeError as error:
            if error.doc == "":  # no body: a missing one (then "field required", 422)
                return webargs_core.missing
            abort(400, exc=error, messages={"json": [error.msg]})


def first_difference(sent: Any, dumped: Any, path: str = "") -> str:
    """Where an answer and its dump through the schema first differ (for the test failure)."""
    if isinstance(sent, dict) and isinstance(dumped, dict):
        for key in sent.keys() | dumped.keys():
            if key not in dumped:
                return f"{path}.{key} is not declared"
            if key not in sent or sent[key] != dumped[key]:
                return first_difference(sent.get(key), dumped[key], f"{path}.{key}")
    if isinstance(sent, list) and isinstance(dumped, list) and len(sent) == len(dumped):
        for i, (a, b) in enumerate(zip(sent, dumped)):
            if a != b:
                return first_difference(a, b, f"{path}[{i}]")
    return f"{path}: sent {sent!r}, the schema makes it {dumped!r}"


def check_answer(name: str, dumper: Schema, result: Any) -> None:
    """Under ``app.testing``: the answer as on the wire must come out of its schema's dump unchanged."""
    sent = orjson.loads(orjson.dumps(result, option=JSON_OPTIONS))
    dumped = dumper.dump(sent)
    if dumped != sent:
        raise AssertionError(f"{name} answered outside {type(dumper).__name__}: {first_difference(sent, dumped)}")


class Blueprint(_Blueprint):
    """flask-smorest's Blueprint whose ``@response`` documents the schema and sends the answer as built,
    and whose ``@arguments`` read JSON strictly (``parse_json``).

    The referee builds each answer in its documented shape, so dumping it through marshmallow
    again only cost CPU (a tenth of a move).  Under ``app.testing`` the answer is still dumped and
    must come out unchanged: the schemas are typed down to every view, move and event (marshmallow
    drops undeclared keys), so an answer that strays from its schema anywhere fails the tests.
    A ``ByGame`` schema is documented as a oneOf and dumps each answer through its game's schema.
    """

    ARGUMENTS_PARSER = Parser()

    @staticmethod
    def doc(**kwargs):
        """flask-smorest's ``doc``, documentation only (its wrapper would be one more call per request).  A view
        documented as needing a token (``security=BEARER``) says so in ``needs_token`` (``authenticate_first``)."""
        documenting = _Blueprint.doc(**kwargs)

        def decorate(func):
            if "security" in kwargs:
                func.needs_token = kwargs["security"] == BEARER
            return smorest.documentation_only(func, documenting)

        return decorate

    def response(self, status_code, schema=None, **kwargs):
        by_game = schema if isinstance(schema, ByGame) else None
        documenting = super().response(status_code, by_game.doc() if by_game else schema, **kwargs)
        single = resolve_schema_instance(schema) if schema is not None and by_game is None else None
        dumper = None if schema is None else by_game.dumper if by_game else (lambda result: single)

        def decorator(func):
            @wraps(func)
            def wrapper(*args, **kw):
                result, status, headers = unpack_tuple_response(func(*args, **kw))
                if isinstance(result, Response):
                    return result
                if current_app.testing and dumper is not None:
                    check_answer(func.__qualname__, dumper(result), result)
                resp = current_app.json.response(result)
                resp.status_code = status or status_code
                if headers:
                    resp.headers.update(headers)
                return resp

            wrapper.answer = (status_code, dumper)  # for a hot lane (service/api/lanes.py)
            return smorest.documentation_only(wrapper, documenting)

        return decorator

    def arguments(self, schema, **kwargs):
        """flask-smorest's ``arguments``; the loading schema is kept on the view for a hot lane.  A JSON body
        may be refused as not JSON (415 ``unsupported_media_type``, ``Parser``): documented here, once."""
        decorate = super().arguments(schema, **kwargs)
        body = kwargs.get("location", "json") == "json"

        def decorator(func):
            wrapper = decorate(func)
            wrapper.body_schema = resolve_schema_instance(schema)
            return problem_responses(self, {415: ["unsupported_media_type"]})(wrapper) if body else wrapper

        return decorator


#: what any request may be answered, whatever its route
EVERY_ROUTE = ("malformed_request", "head_too_large", "body_timeout", "internal", "client_limit", "app_timeout")


def problems(blp: Blueprint, *codes: str) -> Callable:
    """Document the error answers a route can give, grouped by HTTP status, codes listed.

    ``invalid_body`` is a 400 (not JSON) or a 422 (not the expected shape); any route may fail
    with ``internal``, which the tests make sure never happens, and with the API process's limits
    (service/serving/front.py): a missing or doubled ``Host`` (``malformed_request``), a head too large, a body that
    does not arrive in time, too many requests from one address, a request Flask holds too long.
    """
    by_status: dict[int, list[str]] = defaultdict(list)
    for code in (*codes, *EVERY_ROUTE):
        by_status[CODES[code][0]].append(code)
    if "invalid_body" in codes:
        by_status[422].insert(0, "invalid_body")
    return problem_responses(blp, by_status)


def problem_responses(blp: Blueprint, by_status: dict[int, list[str]]) -> Callable:
    """Document problem answers: for each HTTP status, the codes it may carry."""

    def decorate(func):
        return smorest.documentation_only(func, *(
            blp.alt_response(
                status, schema=ProblemSchema, content_type=PROBLEM_JSON,
                description="Problem details; `code` is one of: " + ", ".join(f"`{c}`" for c in group),
                example={**Problem(group[0], CODES[group[0]][1]).as_dict(), "status": status},
            )
            for status, group in sorted(by_status.items())))

    return decorate


class JsonBoolean(fields.Boolean):
    """A JSON body's boolean: ``true`` or ``false`` and nothing else (marshmallow's Boolean also takes 0, 1,
    "yes"..., which the document's ``boolean`` does not admit)."""

    def _deserialize(self, value, attr, data, **kwargs):
        if type(value) is not bool:
            raise self.make_error("invalid")
        return value


def flag(**kwargs: Any) -> fields.Boolean:
    """A query string's boolean: ``true`` or ``false``, as the document's ``boolean`` is written in a URL."""
    return fields.Boolean(truthy={"true"}, falsy={"false"}, **kwargs)


def integer(lo: int = 0, hi: int = MAX_INT, **kwargs: Any) -> fields.Integer:
    """An integer field bounded where it is checked and documented: no unbounded number reaches Redis."""
    return fields.Integer(validate=validate.Range(min=lo, max=hi), **kwargs)


def printable(value: str) -> None:
    if not value.isprintable():
        raise ValidationError("Only printable characters (no control characters or lone surrogates).")


def text(max_length: int, **kwargs: Any) -> fields.String:
    """A short human text (a name): 1 to ``max_length`` printable characters."""
    return fields.String(validate=[validate.Length(min=1, max=max_length), printable], **kwargs)


def referee() -> Referee:
    return current_app.extensions["referee"]


#: RFC 6750's b64token; the tokens this server hands out are URL-safe base64
TOKEN = re.compile(r"[A-Za-z0-9._~+/-]+=*")


def bearer() -> str | None:
    """The seat or host token from ``Authorization: Bearer <token>`` (None when absent)."""
    return bearer_token(request.headers.get("Authorization"))


def authenticate_first() -> None:
    """``before_request``: an operation the document says needs a token (``security: bearerAuth``) refuses a
    request without one before its body is read or anything is looked up (``needed``)."""
    view = current_app.view_functions.get(request.endpoint)
    method = getattr(getattr(view, "view_class", None), request.method.lower(), None)
    if getattr(method, "needs_token", False):
        needed(bearer())


def needed(token: str | None) -> str:
    """Authentication comes first: a request without a token is answered 401 ``bad_token`` whatever its path
    or body names (a match, a bot), as the well-known APIs do, so that the answer never depends on, nor tells,
    whether what it names exists."""
    if token is None:
        raise Problem("bad_token", "This needs a token: send 'Authorization: Bearer <token>'.")
    return token


def bearer_token(header: str | None) -> str | None:
    """The token of an Authorization header; a malformed one (another scheme, non-ASCII, spaces) is
    refused, never taken for no token."""
    if header is None:
        return None
    scheme, _, token = header.strip().partition(" ")
    if scheme.lower() != "bearer" or not TOKEN.fullmatch(token.strip()):
        raise Problem("bad_token", "Send the token as 'Authorization: Bearer <token>'.")
    return token.strip()


#: the answer header by which a route asks the front (service/serving/front.py) to hold its request on the event
#: loop: a long-poll with nothing newer yet (``{"poll": {since, wait}}``), an event stream it opened (``{"stream":
#: {...}}``).  service/serving/wsgi.py takes it out of the answer's headers; it never reaches a client.  Holding
#: is the event loop's alone: no thread or Redis connection waits.
HOLD = "Referee-Hold"
#: the answer header by which a route says its answer is the same for every request of its path as long as the
#: process lives (the OpenAPI document, the docs pages, the game catalogue, the table's scripts): the front then
#: keeps it, with its ETag and compressed, and answers the path itself from then on (service/serving/front.py)
FIXED = "Referee-Fixed"
#: WSGI environ keys Flask fills for the front's log line and metrics: the route's template
#: (``/matches/{match_id}/moves``) and the match id of the path, where there is one
ROUTE = "referee.route"
MATCH = "referee.match"

BEARER = [{"bearerAuth": []}]
OPTIONAL_BEARER = [{}, {"bearerAuth": []}]
