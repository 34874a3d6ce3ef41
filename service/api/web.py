"""The front door: the lobby at ``GET /`` (HTML for a browser, a JSON index otherwise) and the web table.

The pages are static files shipped in the package (``service/static/web``): plain HTML, CSS and
ES modules with no build step, which talk to the same REST API as any other client.  A seat's
token travels in the URL fragment (``/matches/{id}/table#token=...``), which browsers never send
to the server.
"""

from __future__ import annotations

from pathlib import Path

from flask import request, send_from_directory
from flask.views import MethodView
from marshmallow import Schema, fields

from service.api import Blueprint, problems
from service.api.games import GameSchema, describe
from service.games import GAMES

PAGES = Path(__file__).resolve().parent.parent / "static" / "web"

blp = Blueprint("web", __name__, description="The lobby and the web table")

LINKS = {"games": "/games", "matches": "/matches", "openapi": "/openapi.json", "table": "/matches/{id}/table"}


class IndexSchema(Schema):
    name = fields.String(metadata={"example": "Referee"})
    docs = fields.String(metadata={"description": "Swagger UI"})
    redoc = fields.String(metadata={"description": "ReDoc"})
    openapi = fields.String(metadata={"description": "The OpenAPI document"})
    games = fields.List(fields.Nested(GameSchema))
    links = fields.Dict(keys=fields.String(), values=fields.String(),
                        metadata={"description": "Where to go next; `table` is a seat's or a spectator's page."})


def page(name: str):
    response = send_from_directory(PAGES, name, mimetype="text/html", max_age=0)
    response.headers["Content-Security-Policy"] = CSP
    return response


# the pages load only their own files: no inline script, nothing from elsewhere
CSP = ("default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; "
       "base-uri 'none'; frame-ancestors 'none'")


@blp.route("/")
class Index(MethodView):
    @blp.response(200, IndexSchema)
    @blp.alt_response(200, description="For a browser (`Accept: text/html`): the lobby page.",
                      content_type="text/html", success=True)
    @problems(blp)
    def get(self):
        """The lobby in a browser; for any other client a JSON index: the games, the documentation
        (Swagger UI, ReDoc, the OpenAPI document) and where to go next."""
        if request.accept_mimetypes.best_match(["application/json", "text/html"]) == "text/html":
            return page("lobby.html")
        return {"name": "Referee", "docs": "/docs", "redoc": "/redoc", "openapi": "/openapi.json",
                "games": [describe(g) for g in GAMES.values()], "links": LINKS}


@blp.route("/favicon.ico")
class Favicon(MethodView):
    @blp.response(200, description="The pages' icon (SVG), for a browser that asks the conventional place.",
                  content_type="image/svg+xml")
    @blp.doc(operationId="getFavicon")
    @problems(blp)
    def get(self):
        """The icon of the lobby and the table (the pages name it; a browser may still ask here)."""
        return send_from_directory(PAGES, "favicon.svg", mimetype="image/svg+xml", max_age=86400)


@blp.route("/matches/<string:match_id>/table")
class Table(MethodView):
    @blp.response(200, description="The web table page (HTML); the seat's token goes in the URL fragment "
                  "(`#token=...`), without one it shows the spectator view.", content_type="text/html")
    @problems(blp)
    def get(self, match_id: str):
        """A match's table in a browser: the seat's view drawn as a picture, its legal moves as controls."""
        return page("table.html")
