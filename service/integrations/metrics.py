"""Prometheus metrics (prefix ``referee_``), one set for every process of the service.

``referee serve``, ``referee api`` and ``referee worker`` run in prometheus_client's multiprocess mode
(service/integrations/multiproc.py): each process writes its counters, histograms and gauges to files of a folder they
share, and ``GET /metrics`` (any API process) or ``referee worker --metrics-port`` reads them all.  What the
store knows (queue depths, matches by status, its memory) is read at the scrape (service/core/gauges.py), so
it is true whichever process answers and costs nothing between scrapes.

Who counts what:

- the API processes (service/serving/front.py): every request, by route template
  (``/matches/{match_id}/moves``, never an
  id) and status, with its latency (not for the held long-polls and event streams, which last as long as
  they wait), and the long-polls and streams it holds;
- the API processes and the workers: moves applied and refused (``Referee.apply_move``), turn clocks'
  lateness (``Referee.timeout``);
- the workers: each job's wait (enqueued to started) and run time, by job function (workers/run.py);
- the webhook sender: ``referee_webhook_deliveries_total{outcome}``.

Label values are bounded: routes are templates (``unmatched`` for a path no route has), codes are the
problem codes of service/infra/problems.py, functions the few job functions.
"""

from __future__ import annotations

import bisect
import functools
import logging
import os
import re
from collections.abc import Callable

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST
from prometheus_client.registry import Collector

from service.adapters import prometheus

log = logging.getLogger("referee.metrics")

CONTENT_TYPE = CONTENT_TYPE_LATEST
#: request latencies: a move takes a millisecond or a few; a request waiting for its turn, more
LATENCY_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
JOB_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)
LATENESS_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1.0, 1.5, 2.0, 3.0, 5.0, 10.0, 30.0, 60.0)
UNMATCHED = "unmatched"

HTTP_REQUESTS = Counter("referee_http_requests", "HTTP requests answered, by route template, method and status.",
                        ["route", "method", "status"])
HTTP_LATENCY = Histogram("referee_http_request_duration_seconds",
                         "Time from a request's arrival at its API process to its answer (held long-polls and event "
                         "streams excluded), by route template and method.", ["route", "method"],
                         buckets=LATENCY_BUCKETS)
MOVES_APPLIED = Counter("referee_moves_applied", "Moves applied, by who made them (player: a seat's token over "
                        "HTTP; referee: a bot, an away seat, a forfeited seat's default).", ["by"])
MOVES_REFUSED = Counter("referee_moves_refused", "Moves refused, by problem code.", ["code"])
HELD_STREAMS = Gauge("referee_held_streams", "Event streams the API processes hold open.", multiprocess_mode="livesum")
HELD_LONG_POLLS = Gauge("referee_held_long_polls", "Long-polls (GET /matches/{id}?wait=) the API processes hold.",
                        multiprocess_mode="livesum")
JOB_WAIT = Histogram("referee_job_wait_seconds", "Time from a job's enqueueing (a scheduled timeout: its due "
                     "time) to its start in a worker, by job function.", ["function"], buckets=JOB_BUCKETS)
JOB_RUN = Histogram("referee_job_run_seconds", "Run time of a job, by job function.", ["function"],
                    buckets=JOB_BUCKETS)
JOBS = Counter("referee_jobs", "Jobs run, by job function and outcome (ok, failed).", ["function", "outcome"])
CLOCK_LATENESS = Histogram("referee_clock_lateness_seconds", "How late a turn clock's timeout was applied after "
                           "its deadline.", buckets=LATENESS_BUCKETS)
WEBHOOK_DELIVERIES = Counter("referee_webhook_deliveries", "Webhook delivery attempts, by outcome.", ["outcome"])

MOVED_BY_PLAYER = MOVES_APPLIED.labels("player")
MOVED_BY_REFEREE = MOVES_APPLIED.labels("referee")


# -- counting ------------------------------------------------------------------------------------------
def counted_move(apply_move: Callable) -> Callable:
    """``Referee.apply_move``, counting each move applied (by whom) and each refused (by code)."""
    from service.infra.problems import Problem

    @functools.wraps(apply_move)
    def counting(self, match_id: str, actor, *args, **kwargs):
        try:
            answer = apply_move(self, match_id, actor, *args, **kwargs)
        except Problem as problem:
            MOVES_REFUSED.labels(problem.code).inc()
            raise
        (MOVED_BY_PLAYER if actor.player else MOVED_BY_REFEREE).inc()
        return answer

    return counting


def clock_fired(events: list[dict]) -> None:
    """A timeout was applied: how late after its deadline (from the ``timeout`` event it emitted)."""
    for event in events:
        if event.get("type") == "timeout":
            data = event["data"]
            CLOCK_LATENESS.observe(max(0.0, data["at"] - data["deadline"]))


_TEMPLATE_PART = re.compile(r"<(?:\w+(?:\([^)]*\))?:)?(\w+)>")


@functools.cache
def route_template(rule: str | None) -> str:
    """A Flask rule as the OpenAPI document writes it: ``/matches/<string:match_id>`` is ``/matches/{match_id}``."""
    return UNMATCHED if rule is None else _TEMPLATE_PART.sub(r"{\1}", rule)


class Requests:
    """An API process's counting of requests, in its own memory first: a request costs a dict update and a bisect, and
    ``flush`` (every ``FLUSH`` seconds, on the process's loop) adds what was counted to the shared metrics.  A
    multiprocess counter's ``inc`` takes a lock and writes a file's mapped memory; a histogram's ``observe``
    does it twice: together ~15 µs a request on the one process every request passes through.  The histogram's
    buckets are added to in bulk, which prometheus-client has no public way for (service/adapters/prometheus.py)."""

    FLUSH = 0.5  # seconds: what a scrape may miss of an API process's latest requests

    def __init__(self) -> None:
        self.counts: dict[tuple[str, str, int], int] = {}
        self.latencies: dict[tuple[str, str], list[float]] = {}  # bucket counts, then the sum
        self.bounds = list(LATENCY_BUCKETS) + [float("inf")]
        self.counters: dict[tuple[str, str, int], Counter] = {}
        self.histograms: dict[tuple[str, str], Histogram] = {}

    def count(self, route: str, method: str, status: int, seconds: float | None) -> None:
        key = (route, method, status)
        self.counts[key] = self.counts.get(key, 0) + 1
        if seconds is not None:
            kept = self.latencies.get((route, method))
            if kept is None:
                kept = self.latencies[(route, method)] = [0] * (len(self.bounds) + 1)
            kept[bisect.bisect_left(self.bounds, seconds)] += 1
            kept[-1] += seconds

    def flush(self) -> None:
        counts, self.counts = self.counts, {}
        for key, n in counts.items():
            counter = self.counters.get(key)
            if counter is None:
                counter = self.counters[key] = HTTP_REQUESTS.labels(key[0], key[1], str(key[2]))
            counter.inc(n)
        latencies, self.latencies = self.latencies, {}
        for key, kept in latencies.items():
            histogram = self.histograms.get(key)
            if histogram is None:
                histogram = self.histograms[key] = HTTP_LATENCY.labels(*key)
            prometheus.add_observations(histogram, kept[:-1], kept[-1])


# -- the scrape ---------------------------------------------------------------------------------------------
def render(store: Collector | None = None) -> bytes:
    """The exposition: every process's metrics (multiprocess mode; else this process's), and what ``store`` (the
    core's :class:`service.core.gauges.StoreGauges`) reads at the scrape."""
    from prometheus_client import REGISTRY
    from prometheus_client.multiprocess import MultiProcessCollector

    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        counted = CollectorRegistry()
        MultiProcessCollector(counted)
    else:
        counted = REGISTRY
    out = generate_latest(counted)
    if store is not None:
        registry = CollectorRegistry()
        registry.register(store)
        out += generate_latest(registry)
    return out


def token_ok(header: str | None) -> bool:
    """Whether the Authorization header carries REFEREE_METRICS_TOKEN (always, when none is set)."""
    import hmac

    token = os.environ.get("REFEREE_METRICS_TOKEN")
    if not token:
        return True
    scheme, _, given = (header or "").strip().partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(given.strip().encode(), token.encode())


def serve_workers(host: str, port: int, store: Collector) -> None:
    """``referee worker --metrics-port``: the workers' metrics (and the queues', the store's) over HTTP, on a
    thread of the supervisor."""
    import threading
    from wsgiref.simple_server import WSGIRequestHandler, make_server

    import orjson

    def app(environ, start_response):
        if environ.get("PATH_INFO") != "/metrics":
            start_response("404 Not Found", [("Content-Type", "text/plain")])
            return [b"see /metrics\n"]
        if not token_ok(environ.get("HTTP_AUTHORIZATION")):
            from service.infra.problems import Problem

            start_response("401 Unauthorized", [("Content-Type", "application/problem+json")])
            return [orjson.dumps(Problem("bad_token", BAD_METRICS_TOKEN).as_dict())]
        body = render(store)
        start_response("200 OK", [("Content-Type", CONTENT_TYPE), ("Content-Length", str(len(body)))])
        return [body]

    class Quiet(WSGIRequestHandler):
        def log_message(self, *args) -> None:
            pass

    server = make_server(host, port, app, handler_class=Quiet)
    threading.Thread(target=server.serve_forever, name="metrics", daemon=True).start()
    log.info("workers' metrics on http://%s:%d/metrics", host, port)


BAD_METRICS_TOKEN = "Send the metrics token (REFEREE_METRICS_TOKEN) as 'Authorization: Bearer <token>'."
