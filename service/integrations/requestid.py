"""Request ids: ``X-Request-Id`` accepted from the client or made by the front, and carried into RQ jobs.

The front (service/front.py) gives every request an id (the client's when it is printable and at most
``MAX_LENGTH`` characters, else a new uuid4 hex), hands it to the app process in the request's
``X-Request-Id`` header and echoes it on the answer.  The app process sets :data:`CURRENT` for the request;
every job enqueued meanwhile (a bot's turn, a turn clock's timeout, a scoring) gets it in its ``meta``
(:class:`Queue`), and a worker sets :data:`CURRENT` from the job it runs, so the jobs a bot's move causes in
turn carry the id of the request that started the chain, and every log line along it says so.
"""

from __future__ import annotations

import os
import random
from contextvars import ContextVar

from rq import Queue as _Queue

MAX_LENGTH = 128
HEADER = "x-request-id"
ENVIRON = "HTTP_X_REQUEST_ID"
META = "request_id"
#: the id of the request (or of the job) this process is working for, if any
CURRENT: ContextVar[str | None] = ContextVar("request_id", default=None)


_rng = random.Random()  # seeded from os.urandom, and again in every forked child
os.register_at_fork(after_in_child=_rng.seed)
_CLEAR, _SET = ~((0xF000 << 64) | (0xC000 << 48)), (0x4000 << 64) | (0x8000 << 48)


def make() -> str:
    """A random (version 4) UUID in hex: as ``uuid.uuid4().hex`` writes it, at a tenth of its cost (no system call
    and no UUID object per request); an id needs to be unique, not unguessable."""
    return "%032x" % (_rng.getrandbits(128) & _CLEAR | _SET)


def valid(value: str | None) -> bool:
    return value is not None and 0 < len(value) <= MAX_LENGTH and value.isprintable() and value.isascii()


def accept(value: str | None) -> str:
    """The client's id when it is usable, else a new one."""
    return value if valid(value) else make()


class Queue(_Queue):
    """RQ's queue putting the current request id in the ``meta`` of every job it makes."""

    def create_job(self, *args, meta: dict | None = None, **kwargs):
        request_id = CURRENT.get()
        if request_id is not None:
            meta = {**(meta or {}), META: request_id}
        return super().create_job(*args, meta=meta, **kwargs)
