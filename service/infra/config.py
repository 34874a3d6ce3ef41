"""Settings from the environment, read once per process."""

from __future__ import annotations

import os
from dataclasses import dataclass


def _int(name: str, default: int) -> int:
    return int(os.environ.get(name, default))


_UNITS = {"k": 1 << 10, "kb": 1 << 10, "m": 1 << 20, "mb": 1 << 20, "g": 1 << 30, "gb": 1 << 30}


def parse_bytes(text: str) -> int:
    """``1073741824``, ``512mb``, ``2gb``: a size as Valkey's configuration writes it (binary units)."""
    text = text.strip().lower()
    number = text.rstrip("kmgb")
    return int(float(number) * _UNITS.get(text[len(number):], 1))


def machine_memory() -> int:
    """This machine's memory in bytes (``MemTotal``), or 4 GiB where /proc/meminfo cannot be read."""
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemTotal:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 4 << 30


def _flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in ("1", "true", "yes", "on")


@dataclass(frozen=True)
class Settings:
    #: the match store: one server, or (``redis_cluster``) any node of a Valkey/Redis Cluster
    redis_url: str | None
    redis_cluster: bool
    #: RQ's queues and the pending set, on one server (RQ cannot run on a cluster); None: REDIS_URL's server
    queue_url: str | None
    #: seconds a finished or aborted match (and its events) is kept
    finished_ttl: int
    #: the embedded server's ``maxmemory`` in bytes (a quarter of the machine's memory unless set)
    store_max_memory: int
    #: share of the store's ``maxmemory`` from which creating a match is refused (503 ``store_full``)
    store_full_at: float
    #: seconds without a commit after which a waiting or active match expires
    abandoned_ttl: int
    #: largest request body accepted, in bytes
    max_body: int
    #: longest long-poll (``wait``) a request may hold, in seconds
    max_wait: int
    #: seconds a bot or scoring job may run before RQ kills it
    job_timeout: int
    #: seconds a bot turn may stay undone before the sweeper re-enqueues it
    sweep_after: int
    queue: str
    #: seconds between two looks of the dispatcher at the jobs due (turn-clock timeouts) and at the outboxes
    dispatch_interval: float
    #: seconds a finished match is kept whole (its players read it) before it is compacted to its log
    compact_after: float
    #: seconds a compacted match's state and events, played again for reading, are kept
    replay_cache_ttl: int
    #: seconds between the comment lines that keep an idle event stream open
    heartbeat: float
    #: seconds a stream ticket (``POST /matches/{id}/stream-ticket``) may be used to open a stream
    ticket_ttl: int
    #: event streams one token (or one ticket's seat) may hold open at once
    max_streams: int
    #: seconds after which the server ends an event stream (the client resumes from Last-Event-ID);
    #: it lets a load balancer spread long-lived connections again
    stream_max_age: float
    #: socket timeout of ordinary Redis commands, in seconds (blocking reads are sliced below it)
    redis_timeout: float
    #: seconds a client has to send a request's head (the request line and headers), counted from the
    #: connection's start or the previous answer: a connection silent longer is closed (the keep-alive bound)
    head_timeout: float
    #: largest request head (request line and headers) in bytes; a longer one is answered 431 and closed
    max_head: int
    #: seconds a client has to send a request's body once its head came (408 ``body_timeout``)
    body_timeout: float
    #: client connections each API process holds at once; more wait in the listen backlog until one closes
    max_connections: int
    #: requests one client address may have under way at once, held long-polls and streams included
    #: (503 ``client_limit`` with Retry-After past it)
    max_per_client: int
    #: requests one client address may have waiting for Flask, or in it, in one API process: the lines of the
    #: addresses are served in turn, and past this a request is answered 503 ``client_limit`` with Retry-After
    max_waiting_per_client: int
    #: seconds Flask may take over one request: past it the request is answered 504 ``app_timeout``
    #: and the process is replaced
    app_timeout: float
    #: hosts and networks (comma-separated) a webhook may target although they are not public addresses
    webhook_allow: str
    #: seconds a webhook target has to answer one delivery
    webhook_timeout: float
    #: seconds a webhook message is retried (with exponential backoff) before it is given up
    webhook_max_age: int
    #: seconds a stopping API process waits for its held requests to be answered
    drain: float
    #: origins a browser may call from (comma-separated, ``*`` for any); CORS is off when empty
    cors_origins: tuple[str, ...]
    #: seconds a client is told to wait (``Retry-After``) while Redis is unreachable
    retry_after: int
    #: RQ queue of the search bot's turns, served by workers of their own (``--search-workers``)
    search_queue: str
    #: the search bot's default budget per decision, in milliseconds
    search_ms: int
    #: the search budget of each decision a match's analysis judges (``POST /matches/{id}/analysis``), as a bot's
    #: budget is written: iterations (``300``), milliseconds (``200ms``) or both (``300/200ms``); None: the
    #: engine's own default (workers/analysis.py)
    analysis_budget: str | None = None
    #: seconds a whole analysis should take at most on one search worker: a budget in milliseconds is cut, per
    #: decision, to this over the match's decisions (never below ``ANALYSIS_FLOOR_MS``); iterations are kept
    analysis_seconds: float = 45.0
    #: RQ queue of the bot turns of matches where someone plays over HTTP (a person or a connected
    #: bot): the workers take it before the main queue, so those turns never wait behind all-bot matches
    people_queue: str = "referee-people"
    #: longest a bot-turn job plays one match's consecutive bot turns before it hands the rest to a
    #: new job at the back of the queue (milliseconds), so a long all-bot match never holds a worker
    bot_slice_ms: int = 50
    #: a PEM certificate (chain) and its key: granian then serves HTTP/2 and HTTP/1.1 over TLS only
    tls_cert: str | None = None
    tls_key: str | None = None
    #: seconds between two looks of the backstop job at a running tournament (issue 35): a round whose
    #: last match ended without moving its tournament on starts at most this late
    tournament_tick: float = 5.0
    #: seconds between two sweeps that relay to bot accounts what their matches owe them (the backstop of a
    #: relay job that was lost)
    relay_sweep: float = 1.0
    #: seconds a challenged bot has to accept or decline, unless the challenger gives its own deadline
    challenge_seconds: float = 30.0
    #: seconds a webhook's secret, once rotated, still signs each delivery next to the new one
    webhook_secret_grace: float = 86400.0

    @classmethod
    def from_env(cls) -> Settings:
        queue = os.environ.get("REFEREE_QUEUE", "referee")
        return cls(
            redis_url=os.environ.get("REDIS_URL") or None,
            redis_cluster=_flag("REFEREE_REDIS_CLUSTER"),
            queue_url=os.environ.get("REFEREE_QUEUE_URL") or None,
            finished_ttl=_int("REFEREE_FINISHED_TTL", 7 * 24 * 3600),
            abandoned_ttl=_int("REFEREE_ABANDONED_TTL", 2 * 24 * 3600),
            store_max_memory=parse_bytes(os.environ.get("REFEREE_STORE_MAXMEMORY") or str(machine_memory() // 4)),
            store_full_at=float(os.environ.get("REFEREE_STORE_FULL_AT", 0.9)),
            max_body=_int("REFEREE_MAX_BODY", 64 * 1024),
            max_wait=_int("REFEREE_MAX_WAIT", 60),
            job_timeout=_int("REFEREE_JOB_TIMEOUT", 30),
            sweep_after=_int("REFEREE_SWEEP_AFTER", 15),
            queue=queue,
            dispatch_interval=float(os.environ.get("REFEREE_DISPATCH_INTERVAL", 0.05)),
            compact_after=float(os.environ.get("REFEREE_COMPACT_AFTER", 30)),
            replay_cache_ttl=_int("REFEREE_REPLAY_CACHE_TTL", 300),
            heartbeat=float(os.environ.get("REFEREE_HEARTBEAT", 15)),
            ticket_ttl=_int("REFEREE_TICKET_TTL", 300),
            max_streams=_int("REFEREE_MAX_STREAMS", 16),
            stream_max_age=float(os.environ.get("REFEREE_STREAM_MAX_AGE", 3600)),
            redis_timeout=float(os.environ.get("REFEREE_REDIS_TIMEOUT", 5)),
            head_timeout=float(os.environ.get("REFEREE_HEAD_TIMEOUT", 30)),
            max_head=_int("REFEREE_MAX_HEAD", 64 * 1024),
            body_timeout=float(os.environ.get("REFEREE_BODY_TIMEOUT", 30)),
            max_connections=_int("REFEREE_MAX_CONNECTIONS", 16384),
            max_per_client=_int("REFEREE_MAX_PER_CLIENT", 4096),
            max_waiting_per_client=_int("REFEREE_MAX_WAITING_PER_CLIENT", 128),
            app_timeout=float(os.environ.get("REFEREE_APP_TIMEOUT", 30)),
            tls_cert=os.environ.get("REFEREE_TLS_CERT") or None,
            tls_key=os.environ.get("REFEREE_TLS_KEY") or None,
            drain=float(os.environ.get("REFEREE_DRAIN", 5)),
            webhook_allow=os.environ.get("REFEREE_WEBHOOK_ALLOW", ""),
            webhook_timeout=float(os.environ.get("REFEREE_WEBHOOK_TIMEOUT", 5)),
            webhook_max_age=_int("REFEREE_WEBHOOK_MAX_AGE", 24 * 3600),
            cors_origins=tuple(o.strip() for o in os.environ.get("REFEREE_CORS_ORIGINS", "").split(",") if o.strip()),
            retry_after=_int("REFEREE_RETRY_AFTER", 1),
            search_queue=os.environ.get("REFEREE_SEARCH_QUEUE") or f"{queue}-search",
            search_ms=_int("REFEREE_SEARCH_MS", 1000),
            analysis_budget=os.environ.get("REFEREE_ANALYSIS_BUDGET") or None,
            analysis_seconds=float(os.environ.get("REFEREE_ANALYSIS_SECONDS", 45)),
            people_queue=os.environ.get("REFEREE_PEOPLE_QUEUE") or f"{queue}-people",
            bot_slice_ms=_int("REFEREE_BOT_SLICE_MS", 50),
            tournament_tick=float(os.environ.get("REFEREE_TOURNAMENT_TICK", 5)),
            relay_sweep=float(os.environ.get("REFEREE_RELAY_SWEEP", 1)),
            challenge_seconds=float(os.environ.get("REFEREE_CHALLENGE_SECONDS", 30)),
            webhook_secret_grace=float(os.environ.get("REFEREE_WEBHOOK_SECRET_GRACE", 86400)),
        )

    @property
    def scheme(self) -> str:
        return "https" if self.tls_cert else "http"

    @property
    def queue_apart(self) -> bool:
        """Whether the queue lives on another server than the matches (always so on a cluster)."""
        return self.redis_cluster or self.queue_url not in (None, self.redis_url)
