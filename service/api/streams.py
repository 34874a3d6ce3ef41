"""One event stream for several matches: a browser's tabs share one connection (docs/waiting.md).

A browser opens at most six HTTP/1.1 connections to an origin, and each table's own stream holds one: a seventh
tab would never load.  The web table's tabs instead share one stream (a SharedWorker, service/static/web/js/
follow-worker.js), which follows every match they show.  Each followed match is authorised on its own, by its own
stream ticket (a seat) or none (a spectator), and resumes on its own (``after``): a follow that cannot be opened is
refused in the stream (a ``refused`` frame), not the whole stream, so one expired ticket stops one table only.
"""

from __future__ import annotations

import re

from flask import request
from flask.views import MethodView
from marshmallow import Schema, ValidationError, fields, validate

from service.api import MAX_INT, Blueprint, flag, problems, referee
from service.api.matches import hold_streams
from service.infra.problems import Problem

blp = Blueprint("streams", __name__, url_prefix="/events", description="One event stream for several matches.")

#: ``MATCH_ID,AFTER`` or ``MATCH_ID,AFTER,TICKET``
FOLLOW = re.compile(r"(?P<match>[A-Za-z0-9_-]{1,64}),(?P<after>[0-9]{1,16})(?:,(?P<ticket>[A-Za-z0-9_-]{16,64}))?")
#: the same, as the document's pattern (ECMA-262: no named groups)
FOLLOW_PATTERN = r"^[A-Za-z0-9_-]{1,64},[0-9]{1,16}(,[A-Za-z0-9_-]{16,64})?$"
MAX_FOLLOWS = 64


def follow(value: str) -> None:
    found = FOLLOW.fullmatch(value)
    if not found or int(found["after"]) > MAX_INT:
        raise ValidationError("A follow is MATCH_ID,AFTER or MATCH_ID,AFTER,TICKET.")


class FollowQuerySchema(Schema):
    follow = fields.List(fields.String(validate=[validate.Regexp(FOLLOW_PATTERN), follow]), required=True,
                         validate=validate.Length(1, MAX_FOLLOWS),
                         metadata={"description": "Each match to follow, in order (a frame's id starts with its "
                                                  "index): `MATCH_ID,AFTER` (a spectator) or `MATCH_ID,AFTER,TICKET` "
                                                  "(the ticket's seat, from POST /matches/{id}/stream-ticket)."})
    legal_moves = flag(load_default=False, metadata={
        "description": "A `legal_moves` frame whenever a followed seat is to act, as on a match's own stream."})


SHARED_DOC = {"responses": {"200": {"description": "Server-Sent Events of every followed match.", "content": {
    "text/event-stream": {"schema": {
        "type": "string", "description": "As GET /matches/{id}/events with `Accept: text/event-stream`, but each "
        "frame's `id:` is `INDEX:SEQ` (INDEX: the follow's place in `follow`), an `end` frame ends one follow, and "
        "a follow that cannot be opened gets one `refused` frame (`id: INDEX:0`, the problem+json of why: "
        "`unknown_match`, `bad_ticket`, `too_many_streams`...). Resume by following again with each match's "
        "last seq as AFTER."}}}}}}


@blp.route("")
class SharedStream(MethodView):
    @blp.arguments(FollowQuerySchema(), location="query")
    @blp.doc(operationId="followMatches", **SHARED_DOC)
    @problems(blp, "invalid_body", "redis_unavailable")
    def get(self, query):
        """Follow the events of several matches on one event stream (`Accept: text/event-stream`)."""
        if "text/event-stream" not in request.headers.get("Accept", ""):
            raise Problem("invalid_body", "GET /events is an event stream: send Accept: text/event-stream.")
        ref = referee()
        opened, refused = [], []
        for index, value in enumerate(query["follow"]):
            found = FOLLOW.fullmatch(value)
            try:
                stream = ref.open_stream(found["match"], None, found["ticket"], query["legal_moves"])
            except Problem as problem:
                refused.append((index, problem.as_dict()))
                continue
            opened.append((stream, int(found["after"]), index))
        return hold_streams(opened, ref.settings.stream_max_age, refused)
