"""Log lines: one per request (the front), one per job (the workers), and Python's own logging, all to stderr.

JSON lines (one object a line) unless stderr is a terminal, where they read as plain text; or as
``REFEREE_LOG_FORMAT`` (``json`` or ``text``) says.  A request's line (``event: request``) has ``ts``,
``request_id``, ``method``, ``route`` (the template: ``/matches/{match_id}/moves``), ``path``, ``match_id``
(where there is one), ``status`` and ``duration_ms``; a job's line (``event: job``) has the ``request_id`` of
the request that caused the job, ``job``, ``job_id``, ``queue``, ``match_id``, ``wait_ms``, ``duration_ms``
and ``outcome``.  Other lines (warnings, errors) carry ``level``, ``logger`` and ``message``.
"""

from __future__ import annotations

import collections
import logging
import os
import sys
import threading
import time
from typing import Any

import orjson

from service.integrations import requestid  # (here, not in format: an import there could deadlock a forked child)

_second = (0, "")


def iso(t: float) -> str:
    """UTC, to the millisecond (the second's text is made once a second)."""
    global _second
    whole = int(t)
    if _second[0] != whole:
        _second = (whole, time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(whole)))
    return f"{_second[1]}.{int((t - whole) * 1000):03d}Z"


def text_format() -> bool:
    """Plain text lines (a terminal) or JSON lines (anything else)."""
    chosen = os.environ.get("REFEREE_LOG_FORMAT", "").strip().lower()
    if chosen in ("json", "text"):
        return chosen == "text"
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


TEXT_ORDER = ("method", "route", "status", "duration_ms", "job", "outcome", "wait_ms")


def line(fields: dict[str, Any], text: bool) -> bytes:
    """One log line of ``fields`` (None values left out), ending with a newline."""
    if not text:
        return orjson.dumps({k: v for k, v in fields.items() if v is not None}) + b"\n"
    head = [fields.get("ts", ""), fields.get("level", "info").upper()]
    head += [str(fields[k]) + ("ms" if k.endswith("_ms") else "") for k in TEXT_ORDER if fields.get(k) is not None]
    rest = [f"{k}={v}" for k, v in fields.items()
            if v is not None and k not in TEXT_ORDER and k not in ("ts", "level", "event", "message")]
    if fields.get("message"):
        head.append(str(fields["message"]))
    return (" ".join(head + rest) + "\n").encode("utf-8", "replace")


class Writer:
    """Lines to stderr from a thread of their own: a process never waits on its log.  When stderr is not read
    (a full pipe) the front's event loop and the workers go on; past ``LIMIT`` bytes waiting, lines are dropped
    and a line then says how many."""

    LIMIT = 8 << 20

    def __init__(self) -> None:
        self.pid = 0

    def _start(self) -> None:  # in each process that writes (a forked child starts its own thread)
        self.pid = os.getpid()
        self.chunks: collections.deque[bytes] = collections.deque()
        self.size = self.dropped = 0
        self.ready = threading.Condition()
        self.idle = threading.Event()
        self.idle.set()
        threading.Thread(target=self._run, name="referee-log", daemon=True).start()

    def put(self, data: bytes) -> None:
        if self.pid != os.getpid():
            self._start()
        with self.ready:
            if self.size + len(data) > self.LIMIT:
                self.dropped += data.count(b"\n")
                return
            self.chunks.append(data)
            self.size += len(data)
            self.idle.clear()
            self.ready.notify()

    def drain(self, timeout: float = 0.5) -> None:
        """Wait (at most ``timeout`` seconds) until what was put is written: before a process exits."""
        if self.pid == os.getpid():
            self.idle.wait(timeout)

    def _run(self) -> None:
        while True:
            with self.ready:
                while not self.chunks:
                    self.idle.set()
                    self.ready.wait()
                data, dropped = b"".join(self.chunks), self.dropped
                self.chunks.clear()
                self.size = self.dropped = 0
            if dropped:
                data += line({"ts": iso(time.time()), "level": "warning", "logger": "referee.logs",
                              "message": f"{dropped} log lines dropped: stderr is not read"}, False)
            try:
                while data:
                    data = data[os.write(2, data):]
            except OSError:
                pass


_writer = Writer()


def write(data: bytes) -> None:
    """Write whole lines to stderr (by :class:`Writer`: a full stderr never stalls the caller)."""
    _writer.put(data)


def drain(timeout: float = 0.5) -> None:
    _writer.drain(timeout)


class Formatter(logging.Formatter):
    """Python's logging as the same lines."""

    def __init__(self, text: bool) -> None:
        super().__init__()
        self.text = text

    def format(self, record: logging.LogRecord) -> str:
        fields = {"ts": iso(record.created), "level": record.levelname.lower(), "logger": record.name,
                  "message": record.getMessage(), "request_id": requestid.CURRENT.get(), "pid": record.process}
        if record.exc_info:
            fields["error"] = self.formatException(record.exc_info)
        return line(fields, self.text).decode().rstrip("\n")


class Handler(logging.Handler):
    """Python's logging through the :class:`Writer` (never blocked by a stderr nobody reads)."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            write((self.format(record) + "\n").encode("utf-8", "replace"))
        except Exception:  # noqa: BLE001 - as logging.StreamHandler does
            self.handleError(record)


class Incident:
    """A failure met again and again (the store refusing writes at its bound, or gone): said once as it begins
    and once as it ends, one line each, never once per try; :meth:`failed` gives the back-off before the next
    try (doubling from ``first`` up to ``cap`` seconds)."""

    def __init__(self, logger: logging.Logger, what: str, first: float = 0.5, cap: float = 30.0) -> None:
        self.logger, self.what, self.first, self.cap = logger, what, first, cap
        self.since: float | None = None
        self.tries = 0
        self.kinds: list[str] = []

    def failed(self, exc: BaseException) -> float:
        kind = type(exc).__name__
        if kind not in self.kinds:  # (each kind of failure once in an incident: a refusal, then a lost store)
            self.logger.warning("%s: %s (%s); backing off and trying again until it passes", self.what,
                                describe(exc), kind)
            self.since = self.since or time.monotonic()
            self.kinds.append(kind)
        self.tries += 1
        return min(self.cap, self.first * 2 ** min(self.tries - 1, 16))

    def ok(self) -> None:
        if self.since is not None:
            self.logger.warning("%s: recovered after %.1f s and %d tries (%s)", self.what,
                                time.monotonic() - self.since, self.tries, ", ".join(self.kinds))
            self.since, self.tries, self.kinds = None, 0, []

    @property
    def active(self) -> bool:
        return self.since is not None


def describe(exc: BaseException) -> str:
    """What a refused write or a lost connection means, in words (a full store says it is full)."""
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    if type(exc).__name__ == "OutOfMemoryError" or text.startswith("OOM"):
        return "the store refuses writes at its maxmemory"
    return text


class JsonStderr:
    """``sys.stderr`` when it is not a terminal: what Python code writes there itself (a traceback printed by
    multiprocessing or a library, a warning) becomes lines of JSON too; a traceback one line of its own."""

    encoding = "utf-8"
    errors = "replace"

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.partial = ""
        self.traceback: list[str] = []

    def write(self, text: str) -> int:
        with self.lock:
            self.partial += text
            *lines, self.partial = self.partial.split("\n")
            for one in lines:
                self._line(one)
        return len(text)

    def _line(self, one: str) -> None:
        if one.startswith("Traceback (most recent call last)"):
            self.traceback = [one]
        elif self.traceback and (one.startswith(" ") or not one):
            self.traceback.append(one)
        elif self.traceback:  # the exception's own line ends the traceback
            self.traceback.append(one)
            self._emit("error", one, "\n".join(self.traceback))
            self.traceback = []
        elif one.strip():
            self._emit("warning", one, None)

    def _emit(self, level: str, message: str, error: str | None) -> None:
        write(line({"ts": iso(time.time()), "level": level, "logger": "stderr", "message": message, "error": error,
                    "pid": os.getpid()}, False))

    def flush(self) -> None:
        with self.lock:
            if self.traceback:
                self._emit("error", self.traceback[-1], "\n".join(self.traceback))
                self.traceback = []
            if self.partial.strip():
                self._emit("warning", self.partial, None)
            self.partial = ""
        drain()  # (multiprocessing flushes stderr before a child ends)

    def isatty(self) -> bool:
        return False

    def fileno(self) -> int:
        return 2

    def writable(self) -> bool:
        return True


def _excepthook(kind, value, tb) -> None:
    if issubclass(kind, KeyboardInterrupt):
        return
    logging.getLogger("referee").critical("uncaught %s: %s", kind.__name__, value, exc_info=(kind, value, tb))
    drain()


def _thread_excepthook(args: threading.ExceptHookArgs) -> None:
    if args.exc_type is SystemExit:
        return
    name = args.thread.name if args.thread is not None else "?"
    logging.getLogger("referee").critical("uncaught %s in thread %s: %s", args.exc_type.__name__, name,
                                          args.exc_value, exc_info=(args.exc_type, args.exc_value, args.exc_traceback))


def guarded(target):
    """``target`` as a process's body: an exception it does not catch is one JSON line (not multiprocessing's
    printed traceback), and the process ends with status 1."""

    def run(*args) -> None:
        try:
            target(*args)
        except (SystemExit, KeyboardInterrupt):
            raise
        except BaseException as exc:  # noqa: BLE001 - said as one line, then the process ends
            logging.getLogger("referee").critical("%s ended: %s", getattr(target, "__name__", "process"),
                                                  describe(exc), exc_info=True)
            drain()
            raise SystemExit(1) from None

    run.__name__ = getattr(target, "__name__", "run")
    return run


def setup(level: int = logging.WARNING) -> bool:
    """Send this process's logging to stderr as these lines; True for text.  With JSON lines, an uncaught
    exception (of the process or a thread) is one too, and so is whatever Python code writes to ``sys.stderr``
    itself (a child's children inherit all of it through fork)."""
    text = text_format()
    if not text:
        sys.excepthook = _excepthook
        threading.excepthook = _thread_excepthook
        if not isinstance(sys.stderr, JsonStderr):
            sys.stderr = JsonStderr()
    handler = Handler()
    handler.setFormatter(Formatter(text))
    root = logging.getLogger()
    for old in [h for h in root.handlers if getattr(h, "referee", False)]:
        root.removeHandler(old)
    handler.referee = True
    root.addHandler(handler)
    root.setLevel(level)
    return text
