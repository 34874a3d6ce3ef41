"""The API's processes: granian's server, its worker processes, and the supervisor's hold on them.

``referee serve`` and ``referee api`` fork one process, ``referee-api``, which runs granian's server
(:func:`main`): it binds the port, spawns ``--processes`` workers (``referee-app``), respawns one that dies and
stops them gracefully at SIGTERM.  Each worker accepts connections on the shared socket and answers them itself
(service/serving/front.py): no request crosses a process boundary other than the store's.

The supervisor (:class:`ApiProcesses`) restarts ``referee-api`` if it dies.  Its workers die with it: each lives
in its process group and asks Linux for SIGTERM at its parent's death; the supervisor also kills what is left of
that group before starting another, so the port is free for it.
"""

from __future__ import annotations

import logging
import os
import signal
import time
from pathlib import Path

from service.infra.config import Settings
from service.infra.processes import die_with_parent, fork, name_process, stop_processes
from service.integrations import logs, multiproc
from service.serving import shared

log = logging.getLogger("referee.processes")

WIRE_BACKLOG = 4096
WIRE_MIN_BUFFER = 8192  # hyper's least read buffer
#: granian's own log lines go to the root logger (our JSON lines), and only its errors
LOG_CONFIG = {"loggers": {"_granian": {"level": "ERROR", "propagate": True, "handlers": []},
                          "granian.access": {"level": "ERROR", "propagate": True, "handlers": []}}}


def wire_server(target: str, host: str, port: int, settings: Settings, processes: int, factory: bool = True):
    """granian's server for ``target`` (``module:name`` of an ASGI application, or of a function that makes one),
    with ``processes`` workers.  Its limits are the settings': the head's size (a backstop a little above
    ``REFEREE_MAX_HEAD``, which each worker applies exactly) and deadline (which also closes a keep-alive
    connection left silent), the connections each worker holds at once; one request under way per connection
    (pipelined ones wait, unread), and a streamed answer's writes wait while its client does not read."""

    from granian.constants import HTTPModes, Interfaces, Loops, SSLProtocols
    from granian.http import HTTP1Settings, HTTP2Settings
    from granian.server import Server

    # plain: HTTP/1.1 alone (its head deadline then runs from the connection's first instant; granian's
    # detection of HTTP/2 by the first bytes has no deadline of its own).  TLS: ALPN picks HTTP/2 or HTTP/1.1.
    tls = {"ssl_cert": Path(settings.tls_cert), "ssl_key": Path(settings.tls_key),
           "ssl_protocol_min": SSLProtocols.tls12} if settings.tls_cert else {}
    buffer = max(settings.max_head + 4096, WIRE_MIN_BUFFER)
    return Server(
        target, address=host, port=port, interface=Interfaces.ASGI, workers=processes, factory=factory,
        loop=Loops.uvloop,
        websockets=False, http=HTTPModes.auto if tls else HTTPModes.http1, backlog=WIRE_BACKLOG,
        backpressure=settings.max_connections,
        http1_settings=HTTP1Settings(header_read_timeout=int(settings.head_timeout * 1000), keep_alive=True,
                                     max_buffer_size=buffer),
        http2_settings=HTTP2Settings(max_headers_size=buffer),
        respawn_failed_workers=True, respawn_interval=0.5,
        workers_kill_timeout=max(1, int(settings.drain + 1)),
        log_level="error", log_dictconfig=LOG_CONFIG, **tls)


def main(host: str, port: int, processes: int, parent: int) -> None:
    """``referee-api``: granian's server and its workers, as ``referee serve`` and ``referee api`` fork it."""
    die_with_parent(parent)
    name_process("referee-api")
    settings = Settings.from_env()
    logs.setup()
    counts = shared.make(processes)  # before granian forks its workers: they inherit it
    shared.watch(counts, settings.app_timeout)
    server = wire_server("service.serving.front:make", host, port, settings, processes)
    logs.setup()  # granian configured logging as it was made: our lines again, its own through them
    # granian stops at SIGTERM (from the supervisor) as at SIGINT: its workers drain, then it exits
    server.serve()
    logs.drain()


API_TRIES = 3
API_QUICK = 5.0  # seconds: a server that dies sooner after its start counts as one that cannot start


class ApiProcesses:
    """``referee-api`` as ``referee serve`` and ``referee api`` run it: forked from the caller, restarted when it
    dies (``replace_dead``, called from the caller's loop)."""

    def __init__(self, host: str, port: int, processes: int) -> None:
        self.host, self.port, self.count = host, port, processes
        self.parent = os.getpid()
        self.server = self._spawn()
        self.started, self.failures = time.monotonic(), 0

    def _spawn(self):
        return fork(main, (self.host, self.port, self.count, self.parent), "referee-api")

    @property
    def processes(self) -> list:
        return [self.server]

    def replace_dead(self) -> None:
        """Restart it when it died; raise RuntimeError when it dies within ``API_QUICK`` seconds of each of
        ``API_TRIES`` starts in a row (it cannot bind its port, say): restarting it again would not help."""
        if self.server.is_alive():
            return
        quick = time.monotonic() - self.started < API_QUICK
        self.failures = self.failures + 1 if quick else 0
        if self.failures >= API_TRIES:
            raise RuntimeError(f"the API server exited {API_TRIES} times at start (status {self.server.exitcode}); "
                               "see its log above")
        log.warning("the API server exited (%s); restarting it", self.server.exitcode)
        self._kill_group(self.server.pid)
        multiproc.process_dead(self.server.pid)
        self.server = self._spawn()
        self.started = time.monotonic()

    @staticmethod
    def _kill_group(pid: int | None) -> None:
        """What is left of a dead server's group (its workers, orphaned): killed, so that the port is free."""
        if pid is None:
            return
        try:
            os.killpg(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            return
        deadline = time.monotonic() + 2
        while time.monotonic() < deadline:
            try:
                os.killpg(pid, 0)
            except ProcessLookupError:
                return
            time.sleep(0.02)

    def stop(self, timeout: float = 10.0) -> None:
        """granian stops its workers (each lets go of its held requests and finishes what is under way)."""
        stop_processes([self.server], Settings.from_env().drain + timeout)
