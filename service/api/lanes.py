"""Hot lanes: the two requests of every move, answered without Flask's per-request machinery.

A move is a ``GET /matches/{id}/legal-moves`` and a ``POST /matches/{id}/moves``.  Through Flask each
request also builds a request and an app context, binds and matches the URL map, runs webargs
through flask-smorest's wrappers and builds a Response object: about half of a move's instructions
(``referee bench api --instructions``), more than the referee's own work.  A lane answers exactly those
requests in their plainest form (the route's path and method, a JSON body within the limit and of the
expected shape) with the same code the route runs: the body is checked by a check compiled from the
route's own ``@blp.arguments`` schema, the answer is the route's, and every error answer is the same
problem+json.  A lane never judges a request it is unsure of: it declines, and Flask answers it
(malformed JSON, a body marshmallow refuses, a query string, another content type, CORS...).  So Flask,
marshmallow and flask-smorest stay the application and the source of the OpenAPI document, and a test
plays the same requests through the lanes and through Flask and compares the answers byte for byte.

The lanes are off when CORS is configured (flask-cors adds its headers in Flask).
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import orjson
import redis
from flask import Flask
from marshmallow import Schema, fields, missing, validate
from werkzeug.http import HTTP_STATUS_CODES

from service.api import (
    JSON_OPTIONS,
    MATCH,
    ROUTE,
    bearer_token,
    check_answer,
    parse_json,
    problem_answer,
    store_at_bound,
    store_unavailable,
)
from service.core.referee import Referee
from service.infra.problems import Problem
from service.integrations.metrics import route_template

Answer = tuple[int, list[tuple[str, str]], bytes]
#: the WSGI status line of each code, as werkzeug writes it
STATUS_LINES = {code: f"{code} {phrase.upper()}" for code, phrase in HTTP_STATUS_CODES.items()}
JSON = "application/json"


@dataclass(frozen=True)
class Call:
    """What a lane hands the route's code: the path's id, the bearer token, the loaded body, the headers."""

    match_id: str
    token: str | None
    body: dict | None
    environ: Mapping[str, Any]

    def header(self, name: str) -> str | None:
        return self.environ.get("HTTP_" + name.upper().replace("-", "_"))


Handler = Callable[[Referee, Call], Any]


def compile_body(schema: Schema) -> Callable[[Any], dict | None]:
    """A check of the plainest valid bodies of ``schema``: the body as ``schema.load`` gives it, or None
    when marshmallow must judge.  Only fields whose whole load is a type and range check compile; any
    other field, a schema hook or a lenient ``unknown`` makes this raise, so no lane is built."""
    if any(type(schema).resolve_hooks().values()) or schema.unknown != "raise":
        raise TypeError(f"{type(schema).__name__} has hooks or keeps unknown keys: no lane")
    checks: dict[str, tuple[Callable[[Any], bool], bool, Any]] = {}
    for name, f in schema.load_fields.items():
        if f.data_key not in (None, name):
            raise TypeError(f"{name}: a data_key does not compile")
        checks[name] = (_field_check(f), f.required, f.load_default)
    names = set(checks)

    def load(body: Any) -> dict | None:
        if type(body) is not dict or not body.keys() <= names:
            return None
        out = {}
        for name, (ok, required, default) in checks.items():
            if name in body:
                if not ok(body[name]):
                    return None
                out[name] = body[name]
            elif required:
                return None
            elif default is not missing:
                out[name] = default() if callable(default) else default
        return out

    return load


def _field_check(f: fields.Field) -> Callable[[Any], bool]:
    """Whether a value loads through ``f`` unchanged (None: ``allow_none``)."""
    none = f.allow_none
    if type(f) is fields.Integer and f.strict:
        bounds = [v for v in f.validators if type(v) is validate.Range]
        if len(bounds) != len(f.validators) or any(b.min_inclusive is False or b.max_inclusive is False
                                                   for b in bounds):
            raise TypeError(f"{f.name}: only inclusive ranges compile")
        lo = max((b.min for b in bounds if b.min is not None), default=None)
        hi = min((b.max for b in bounds if b.max is not None), default=None)
        return lambda v: (v is None and none) or (type(v) is int and (lo is None or v >= lo)
                                                  and (hi is None or v <= hi))
    kind = getattr(f, "json_type", None)
    if kind is not None and not f.validators:
        return lambda v: (v is None and none) or type(v) is kind
    raise TypeError(f"{f.name}: {type(f).__name__} does not compile")


def sized(status: int, headers: list[tuple[str, str]], body: bytes) -> Answer:
    return status, [*headers, ("Content-Length", str(len(body)))], body


@dataclass(frozen=True)
class Lane:
    method: str
    path: re.Pattern
    handle: Handler
    status: int
    dumper: Callable[[Any], Schema] | None
    load: Callable[[Any], dict | None] | None
    name: str
    route: str  # the template, for the front's log line and metrics


def rule_pattern(rule: str) -> re.Pattern:
    """A route's rule as a regular expression: only ``<string:name>`` parts (one path segment) compile."""
    parts = re.split(r"<(?:string:)?(\w+)>", rule)
    if any("<" in p or ">" in p for p in parts[::2]):
        raise TypeError(f"{rule}: only string converters compile")
    out = "".join(re.escape(p) if i % 2 == 0 else f"(?P<{p}>[^/]+)" for i, p in enumerate(parts))
    return re.compile(out + r"\Z")


class Lanes:
    """The lanes of an app, tried before Flask's own dispatch (``RefereeFlask.wsgi_app``)."""

    def __init__(self, app: Flask, hot: Mapping[Callable, Handler]) -> None:
        self.app = app
        self.referee: Referee = app.extensions["referee"]
        self.max_body = self.referee.settings.max_body
        self.lanes: list[Lane] = []
        for rule in app.url_map.iter_rules():
            view_class = getattr(app.view_functions[rule.endpoint], "view_class", None)
            for method in sorted(rule.methods or ()):
                view = getattr(view_class, method.lower(), None)
                if view is None or view not in hot:
                    continue
                schema = getattr(view, "body_schema", None)
                status, dumper = view.answer
                self.lanes.append(Lane(method, rule_pattern(rule.rule), hot[view], status, dumper,
                                       compile_body(schema) if schema is not None else None, view.__qualname__,
                                       route_template(rule.rule)))
        missing = set(hot) - {v for v in hot if any(lane.handle is hot[v] for lane in self.lanes)}
        if missing:
            raise LookupError(f"no route for the hot views {sorted(v.__qualname__ for v in missing)}")

    def __call__(self, environ: dict) -> Answer | None:
        """The answer, or None when Flask must answer."""
        method, path = environ["REQUEST_METHOD"], environ["PATH_INFO"]
        for lane in self.lanes:
            if lane.method == method and (found := lane.path.match(path)):
                environ[ROUTE] = lane.route
                environ[MATCH] = match_id = found.group(1)
                return self._answer(lane, match_id, environ)
        return None

    def _answer(self, lane: Lane, match_id: str, environ: dict) -> Answer | None:
        if environ.get("QUERY_STRING"):
            return None
        body = None
        if lane.load is not None:
            body = self._body(lane, environ)
            if body is None:
                return None
        try:
            result = lane.handle(self.referee, Call(match_id, bearer_token(environ.get("HTTP_AUTHORIZATION")),
                                                    body, environ))
        except Problem as problem:
            return sized(*problem_answer(problem))
        except (redis.ConnectionError, redis.TimeoutError) as exc:
            return sized(*problem_answer(store_unavailable(self.app, exc)))
        except redis.exceptions.OutOfMemoryError as exc:
            return sized(*problem_answer(store_at_bound(self.app, exc)))
        if self.app.testing and lane.dumper is not None:
            check_answer(lane.name, lane.dumper(result), result)
        return sized(lane.status, [("Content-Type", JSON)], orjson.dumps(result, option=JSON_OPTIONS))

    def _body(self, lane: Lane, environ: dict) -> dict | None:
        """The loaded body; None (with the input left readable for Flask) unless it is plainly valid."""
        length = environ.get("CONTENT_LENGTH", "")
        if (environ.get("CONTENT_TYPE") != JSON or "HTTP_TRANSFER_ENCODING" in environ or not length.isdigit()
                or not 0 < int(length) <= self.max_body):
            return None
        raw = environ["wsgi.input"].read(int(length))
        try:
            body = lane.load(parse_json(raw)) if len(raw) == int(length) else None
        except ValueError:
            body = None
        if body is None:
            environ["wsgi.input"] = io.BytesIO(raw)  # all the input had: Flask reads it again
        return body

