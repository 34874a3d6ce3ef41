"""Server-Sent Events: the frames of a seat's event stream, shared by the front (service/front.py) and plain WSGI.

A stream sends ``retry:`` first, then every event the viewer may see with ``id:`` (its seq, so
``Last-Event-ID`` resumes), a comment line every heartbeat while nothing happens, and a final
``end`` event once the match is finished or aborted; with ``legal_moves``, the viewer's legal moves
whenever its seat is to act.  A stream that ends without ``end`` (the
server's ``REFEREE_STREAM_MAX_AGE``, a restart, a dropped connection) is resumed by the client.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Iterator

import orjson

from service.referee import Referee, Stream, page_of
from service.store import decode_page, page_call

RETRY_MS = 2000
RETRY = f"retry: {RETRY_MS}\n\n".encode()
HEARTBEAT = b": keep-alive\n\n"
PAGE = 500  # events per read
HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}


def event_frame(event: dict) -> bytes:
    return b"id: %d\nevent: %s\ndata: %s\n\n" % (event["seq"], event["type"].encode(), orjson.dumps(event))


def catch_up(ref: Referee, stream: Stream, after: int) -> tuple[bytes, int, int, bool]:
    """Every event past ``after`` the stream's viewer may see, as frames (with ``end`` once the
    match is over); returns (frames, new after, the match's version, over)."""
    out: list[bytes] = []
    while True:  # one read per page; the viewer's legal moves come with the last one
        page = ref.page(stream.match_id, stream.viewer, after, PAGE, stream.legal)
        after = add_frames(out, page)
        if not page["more"]:
            return finish(out, stream, page, after)


async def catch_up_async(read: Callable[..., Awaitable], stream: Stream, after: int) -> tuple[bytes, int, int, bool]:
    """``catch_up`` on an event loop: ``read`` runs ``Store.page``'s script without blocking the loop."""
    out: list[bytes] = []
    while True:
        found = decode_page(await read(*page_call(stream.match_id, after, PAGE, stream.legal)))
        page = page_of(stream.match_id, found, stream.viewer, after, PAGE)
        after = add_frames(out, page)
        if not page["more"]:
            return finish(out, stream, page, after)


def add_frames(out: list[bytes], page: dict) -> int:
    out += [event_frame(e) for e in page["events"]]
    return page["last_seq"]


def finish(out: list[bytes], stream: Stream, page: dict, after: int) -> tuple[bytes, int, int, bool]:
    """The caught-up stream's last frames: its legal moves (once per version) and ``end`` once over."""
    version, over = page["version"], page["status"].over
    if page.get("moves") and version > stream.legal_seen:
        stream.legal_seen = version
        out.append(b"id: %d\nevent: legal_moves\ndata: %s\n\n" % (
            after, orjson.dumps({"version": version, "moves": page["moves"]})))
    if over:
        end = {"status": page["status"], "version": version, "last_seq": after}
        out.append(b"id: %d\nevent: end\ndata: %s\n\n" % (after, orjson.dumps(end)))
    return b"".join(out), after, version, over


def stream_sync(ref: Referee, stream: Stream, after: int, seconds: float) -> Iterator[bytes]:
    """The stream on a WSGI server without the front: it holds a thread while open."""
    deadline = time.monotonic() + seconds
    heartbeat_ms = int(ref.settings.heartbeat * 1000)
    try:
        yield RETRY
        while True:
            frames, after, _, over = catch_up(ref, stream, after)
            yield frames or HEARTBEAT
            left = deadline - time.monotonic()
            if over or left <= 0:
                return
            stream.renew()
            ref.store.wait_for_events(stream.match_id, after, int(min(left * 1000, heartbeat_ms)))
    finally:
        stream.close()
