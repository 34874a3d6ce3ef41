"""The HTTP layer: flask-smorest Api with RFC 9457 problem answers, and shared route helpers."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from functools import wraps

from flask import Response, current_app, json, request
from flask_smorest import Api as _Api
from flask_smorest import Blueprint as _Blueprint
from flask_smorest.utils import resolve_schema_instance, unpack_tuple_response
from marshmallow import Schema, fields
from werkzeug.exceptions import HTTPException

from service.problems import CODES, Problem
from service.referee import Referee

PROBLEM_JSON = "application/problem+json"


class ProblemSchema(Schema):
    """RFC 9457 problem details, plus the stable ``code`` a client switches on."""

    type = fields.String(metadata={"example": "urn:referee:problem:not_your_turn"})
    title = fields.String()
    status = fields.Integer()
    detail = fields.String(metadata={"description": "A sentence for people; never reveals hidden information."})
    code = fields.String(metadata={"enum": sorted(CODES)})
    reason = fields.String(metadata={"description": "For illegal_move and invalid_move: the game's own reason."})
    version = fields.Integer(metadata={"description": "For stale_version: the match's current version."})
    errors = fields.Dict(metadata={"description": "For invalid_body: what was wrong, field by field."})


def problem_response(problem: Problem):
    body = json.dumps(problem.as_dict()) + "\n"
    return current_app.response_class(body, status=problem.status, mimetype=PROBLEM_JSON)


_HTTP_CODES = {400: "invalid_body", 404: "not_found", 405: "method_not_allowed", 413: "body_too_large",
               422: "invalid_body"}


class Api(_Api):
    """flask-smorest's Api answering every error as problem+json with a stable code."""

    ERROR_SCHEMA = ProblemSchema
    DEFAULT_ERROR_RESPONSE_NAME = None  # every route documents its own errors

    def handle_http_exception(self, error: HTTPException):
        code = _HTTP_CODES.get(error.code or 500)
        if code is None:
            current_app.logger.error("unexpected HTTP error %s", error)
            body = {"type": "about:blank", "title": error.name, "status": error.code, "detail": error.description,
                    "code": "internal"}
            return current_app.response_class(json.dumps(body), status=error.code, mimetype=PROBLEM_JSON)
        data = getattr(error, "data", None) or {}
        messages = data.get("messages")
        extra = {"errors": messages} if messages else {}
        detail = {
            "invalid_body": "The body is not valid JSON." if error.code == 400
            else "The request does not have the expected shape.",
            "not_found": "There is no such resource; see /openapi.json.",
            "method_not_allowed": "This method is not allowed here.",
            "body_too_large": "The request body is larger than this server accepts.",
        }[code]
        problem = Problem(code, detail, **extra)
        problem.status = error.code  # 400 (malformed JSON) and 422 (wrong shape) share invalid_body
        return problem_response(problem)


def documentation_only(func: Callable, *documenting: Callable) -> Callable:
    """Give ``func`` what flask-smorest's decorators document (their ``_apidoc``) without their
    wrappers, which would otherwise run on every request."""
    documented = func
    for decorate in documenting:
        documented = decorate(documented)
    func._apidoc = documented._apidoc
    return func


class Blueprint(_Blueprint):
    """flask-smorest's Blueprint whose ``@response`` documents the schema and sends the answer as built.

    The referee builds each answer in its documented shape, so dumping it through marshmallow
    again only cost CPU (a tenth of a move).  Under ``app.testing`` the answer is still dumped and
    must come out unchanged, so an answer that strays from its schema fails the tests.
    """

    def response(self, status_code, schema=None, **kwargs):
        documenting = super().response(status_code, schema, **kwargs)
        dumper = resolve_schema_instance(schema) if schema is not None else None

        def decorator(func):
            @wraps(func)
            def wrapper(*args, **kw):
                result, status, headers = unpack_tuple_response(func(*args, **kw))
                if isinstance(result, Response):
                    return result
                if dumper is not None and current_app.testing and dumper.dump(result) != result:
                    raise AssertionError(f"{func.__qualname__} answered outside {type(dumper).__name__}: {result}")
                resp = current_app.json.response(result)
                resp.status_code = status or status_code
                if headers:
                    resp.headers.update(headers)
                return resp

            return documentation_only(wrapper, documenting)

        return decorator


def problems(blp: Blueprint, *codes: str) -> Callable:
    """Document the error answers a route can give, grouped by HTTP status, codes listed."""
    by_status: dict[int, list[str]] = defaultdict(list)
    for code in codes:
        by_status[CODES[code][0]].append(code)

    def decorate(func):
        return documentation_only(func, *(
            blp.alt_response(
                status, schema=ProblemSchema, content_type=PROBLEM_JSON,
                description="Problem details; `code` is one of: " + ", ".join(f"`{c}`" for c in group),
                example=Problem(group[0], CODES[group[0]][1]).as_dict(),
            )
            for status, group in sorted(by_status.items())))

    return decorate


def referee() -> Referee:
    return current_app.extensions["referee"]


def bearer() -> str | None:
    """The seat or host token from ``Authorization: Bearer <token>`` (None when absent)."""
    header = request.headers.get("Authorization")
    if not header:
        return None
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Problem("bad_token", "Send the token as 'Authorization: Bearer <token>'.")
    return token.strip()


BEARER = [{"bearerAuth": []}]
OPTIONAL_BEARER = [{}, {"bearerAuth": []}]
