"""Flask, called as any WSGI server calls it, for a request the front read whole (service/serving/front.py).

The answer comes back as a tuple the front acts on: status, headers, body, and what only the front needs: the
route's ``Referee-Hold`` header parsed (hold a long-poll or an event stream: service/api/__init__.py ``HOLD``),
the template of the route that answered and the match id of its path (the log line and the metrics).
"""

from __future__ import annotations

import io
import logging
import sys

import orjson

from service.api import FIXED as FIXED_HEADER
from service.api import HOLD as HOLD_HEADER
from service.api import INTERNAL
from service.api import MATCH as MATCH_KEY
from service.api import ROUTE as ROUTE_KEY
from service.infra.problems import Problem

log = logging.getLogger("referee.front")

Answer = tuple[int, list, bytes, dict | None, str | None, str | None]  # status, headers, body, hold, route, match


class Request:
    """One request as the front read it: the method, the percent-decoded path (latin-1, as WSGI has it), the raw
    query string, ``headers`` with lower-case names in their order, and the whole body (``cut`` when it went past
    the limit: then only its start, or nothing when its declared length was too long)."""

    __slots__ = ("method", "path", "query", "version", "headers", "body", "client", "server", "cut")

    def __init__(self, method: str, path: str, query: str, version: str, headers: list[tuple[str, str]],
                 body: bytes, client: str, server: str, cut: bool = False) -> None:
        self.method, self.path, self.query, self.version = method, path, query, version
        self.headers, self.body, self.client, self.server, self.cut = headers, body, client, server, cut

    def header(self, name: str) -> str | None:
        """A header's value (lower-case name); a repeated one joined with commas."""
        found = [v for k, v in self.headers if k == name]
        return ",".join(found) if found else None


#: hop-by-hop headers of the connection, not of the request: an ``Upgrade`` (no WebSocket here) is answered as a
#: plain request, so neither reaches Flask (werkzeug would take ``Connection: Upgrade`` for a stream to read)
HOP_BY_HOP = frozenset({"connection", "upgrade", "keep-alive", "te", "proxy-connection"})


def environ(request: Request) -> dict:
    """The WSGI environ of a request (the path is already percent-decoded, as WSGI has it)."""
    host, _, port = request.server.rpartition(":")
    remote, _, remote_port = request.client.rpartition(":")
    env = {
        "REQUEST_METHOD": request.method,
        "SCRIPT_NAME": "",
        "PATH_INFO": request.path,
        "QUERY_STRING": request.query,
        "SERVER_NAME": host or "localhost",
        "SERVER_PORT": port or "80",
        "SERVER_PROTOCOL": f"HTTP/{request.version}",
        "REMOTE_ADDR": remote,
        "REMOTE_PORT": remote_port,
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": "http",
        "wsgi.input": io.BytesIO(request.body),
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": False,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
        "wsgi.input_terminated": True,  # the body is whole (werkzeug reads a chunked one only then)
    }
    for name, value in request.headers:
        if name in HOP_BY_HOP:
            continue
        key = name.upper().replace("-", "_")
        if key not in ("CONTENT_TYPE", "CONTENT_LENGTH"):
            key = "HTTP_" + key
        env[key] = f"{env[key]},{value}" if key in env else value
    if request.cut and "CONTENT_LENGTH" not in env:  # a chunked body past the limit: Flask refuses it by its length
        env.pop("HTTP_TRANSFER_ENCODING", None)
        env["CONTENT_LENGTH"] = str(len(request.body))
    return env


def call_wsgi(app, env: dict) -> tuple[int, list, bytes]:
    started: list = []
    result = app(env, lambda status, headers, exc_info=None: started.extend((status, headers)))
    try:
        body = b"".join(result)
    finally:
        if hasattr(result, "close"):
            result.close()
    status, headers = started[-2:]
    return int(status[:3]), headers, body


def take_hold(headers: list) -> dict | None:
    """The route's ``Referee-Hold`` header, taken out of the answer's headers (it is for the front alone), or
    ``{"fixed": true}`` for its ``Referee-Fixed``."""
    for i, (name, value) in enumerate(headers):
        if name == HOLD_HEADER:
            del headers[i]
            return orjson.loads(value)
        if name == FIXED_HEADER:
            del headers[i]
            return {"fixed": True}
    return None


def answer(app, request: Request) -> Answer:
    env = environ(request)
    try:
        status, headers, out = call_wsgi(app, env)
    except Exception:  # Flask answers its own errors; this is a defect outside it: logged, answered 500
        log.exception("%s %s failed", request.method, request.path)
        body = orjson.dumps(Problem("internal", INTERNAL).as_dict())
        return 500, [("Content-Type", "application/problem+json")], body, None, None, None
    return status, headers, out, take_hold(headers), env.get(ROUTE_KEY), env.get(MATCH_KEY)
