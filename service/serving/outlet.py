"""A request's way back to its client: the server's ASGI ``send``, and the watch for the client's hang-up.

Apart from the front (service/serving/front.py) because the hub's streams (service/serving/hub.py) write through
it too, and the hub must not import the front.
"""

from __future__ import annotations

import asyncio
from contextlib import suppress

Headers = list[tuple[str, str]]


class Gone(Exception):
    """The client hung up."""


class Outlet:
    """One request's way back to its client (the server's ASGI ``send``), and the watch for its hang-up.

    The server reads a request's body and then reports ``http.disconnect`` once the client goes; a held or
    waiting request watches for it, so that its wait ends then and its work never starts.  A stream's writes
    wait while the client does not read (the server keeps a few chunks per connection, no more), and a
    heartbeat is skipped while the previous write still waits: a client that stops reading holds one write."""

    __slots__ = ("send", "receive", "gone", "on_gone", "watch", "writing", "started")

    def __init__(self, send, receive) -> None:
        self.send, self.receive = send, receive
        self.gone = False
        self.on_gone: list = []
        self.watch: asyncio.Task | None = None
        self.writing: asyncio.Task | None = None  # the task whose write waits for the client
        self.started = False  # the answer's head went out

    def watch_hang_up(self) -> None:
        if self.watch is None:
            self.watch = asyncio.ensure_future(self._watch())

    async def _watch(self) -> None:
        with suppress(Exception):
            while (await self.receive())["type"] != "http.disconnect":
                pass
        self.hang_up()

    def hang_up(self) -> None:
        if not self.gone:
            self.gone = True
            for callback in self.on_gone:
                callback()
            if self.writing is not None:
                self.writing.cancel()

    def stop_watching(self) -> None:
        if self.watch is not None:
            self.watch.cancel()
            self.watch = None
        self.on_gone.clear()

    async def respond(self, status: int, headers: Headers, body: bytes) -> None:
        """A whole answer."""
        self.started = True
        await self.send({"type": "http.response.start", "status": status,
                         "headers": [(k.encode("latin-1"), v.encode("latin-1")) for k, v in headers]})
        await self.send({"type": "http.response.body", "body": body})

    async def start(self, status: int, headers: Headers) -> None:
        self.started = True
        await self.send({"type": "http.response.start", "status": status,
                         "headers": [(k.encode("latin-1"), v.encode("latin-1")) for k, v in headers]})

    async def write(self, data: bytes) -> None:
        """A part of a streamed answer; raises ``Gone`` once the client hung up.

        granian's ``send`` is done at once while the connection's few chunks have room (no task, no turn of the
        loop); only a write that waits for its client is awaited, and a hang-up meanwhile cancels the task that
        waits (``writing``), which is told ``Gone``."""
        if self.gone:
            raise Gone
        task = asyncio.current_task()
        self.writing = task
        try:
            await self.send({"type": "http.response.body", "body": data, "more_body": True})
        except asyncio.CancelledError:
            if self.gone and task.uncancel() == 0:
                raise Gone from None
            raise
        finally:
            self.writing = None

    async def end(self) -> None:
        if not self.gone:
            with suppress(Exception):
                await self.send({"type": "http.response.body", "body": b""})
