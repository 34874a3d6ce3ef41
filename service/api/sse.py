"""Server-Sent Events: the frames of a seat's event stream, which the front (service/serving/front.py) holds.

A stream sends ``retry:`` first, then every event the viewer may see with ``id:`` (its seq, so
``Last-Event-ID`` resumes), a comment line every heartbeat while nothing happens, and a final
``end`` event once the match is finished or aborted; with ``legal_moves``, the viewer's legal moves
whenever its seat is to act.  A stream that ends without ``end`` (the
server's ``REFEREE_STREAM_MAX_AGE``, a restart, a dropped connection) is resumed by the client.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import orjson

from service.core.base import public_event, visible
from service.core.scripts import decode_page, page_call
from service.core.store import Status
from service.core.views import Stream, page_of, seat_moves

RETRY_MS = 2000
RETRY = f"retry: {RETRY_MS}\n\n".encode()
HEARTBEAT = b": keep-alive\n\n"
PAGE = 500  # events per read
HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}


def frame_id(tag: int | None, seq: int) -> bytes:
    """A frame's ``id:``: the event's seq, prefixed with its follow's index on a stream of several matches."""
    return b"%d" % seq if tag is None else b"%d:%d" % (tag, seq)


def event_frame(event: dict, tag: int | None = None) -> bytes:
    return b"id: %s\nevent: %s\ndata: %s\n\n" % (frame_id(tag, event["seq"]), event["type"].encode(),
                                                  orjson.dumps(event))


def refused_frame(tag: int, problem: dict) -> bytes:
    """A follow of a stream of several matches that could not be opened, and why."""
    return b"id: %s\nevent: refused\ndata: %s\n\n" % (frame_id(tag, 0), orjson.dumps(problem))


async def catch_up_async(read: Callable[..., Awaitable], stream: Stream, after: int,
                         tag: int | None = None) -> tuple[bytes, int, int, bool]:
    """Every event past ``after`` the stream's viewer may see, as frames (with ``end`` once the match is over);
    returns (frames, new after, the match's version, over).  ``read`` runs ``Store.page``'s script on the front's
    event loop without blocking it."""
    out: list[bytes] = []
    while True:
        call = page_call(stream.match_id, after, PAGE, stream.viewer if stream.legal else False)
        found = decode_page(await read(*call))
        page = page_of(stream.match_id, found, stream.viewer, after, PAGE)
        out += [event_frame(e, tag) for e in page["events"]]
        after = page["last_seq"]
        if not page["more"]:
            return finish(out, stream, page, after, tag)


def from_notices(stream: Stream, notices: list | None, after: int,
                 tag: int | None = None) -> tuple[bytes, int, int, bool] | None:
    """``catch_up_async``'s answer from the notices of the commits since the stream last read (service/serving/
    hub.py ``Hub.since``), without reading the match; None when a read must tell: a notice missing, or events not
    following on from ``after``.  A seat to act whose legal moves are asked gets them from the newest notice's
    state."""
    if not notices:
        return None
    last = notices[-1]
    moves: list = []
    status = Status(last.status.decode())
    if stream.legal and stream.viewer is not None and b",%d," % stream.viewer in last.to_act:
        if last.state is None:
            return None
        moves = seat_moves(last.game.decode(), status, orjson.loads(last.state), stream.viewer)
    raw = [orjson.loads(e) for n in notices for e in n.events]
    if raw and any(e["seq"] != after + 1 + i for i, e in enumerate(raw)):
        return None
    page = {"version": last.version, "status": status, "moves": moves}
    out = [event_frame(public_event(e), tag) for e in raw if visible(e, stream.viewer)]
    return finish(out, stream, page, raw[-1]["seq"] if raw else after, tag)


def finish(out: list[bytes], stream: Stream, page: dict, after: int,
           tag: int | None = None) -> tuple[bytes, int, int, bool]:
    """The caught-up stream's last frames: its legal moves (once per version) and ``end`` once over."""
    version, over = page["version"], page["status"].over
    if page.get("moves") and version > stream.legal_seen:
        stream.legal_seen = version
        out.append(b"id: %s\nevent: legal_moves\ndata: %s\n\n" % (
            frame_id(tag, after), orjson.dumps({"version": version, "moves": page["moves"]})))
    if over:
        end = {"status": page["status"], "version": version, "last_seq": after}
        out.append(b"id: %s\nevent: end\ndata: %s\n\n" % (frame_id(tag, after), orjson.dumps(end)))
    return b"".join(out), after, version, over
