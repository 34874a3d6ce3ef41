"""GET /metrics, X-Request-Id and the log lines, against a real `referee serve` (its stderr in a file)."""

from __future__ import annotations

import itertools
import json
import os
import random
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
import requests
from prometheus_client.parser import text_string_to_metric_families

from service.infra.embedded import free_port
from service.integrations import logs, metrics, requestid
from service.integrations.metrics import route_template
from tests.conftest import ROOT, Server, wait_for

TOKEN = "metrics-s3cret"
#: a queue of this module's own: servers of other tests share the session's Redis, and their workers would play
#: (and count, and log) this module's jobs
QUEUE = f"metrics-test-{os.getpid()}"


@pytest.fixture(scope="module")
def served(redis_url):
    # a bot's chain of turns on a loaded machine may outlast the tests' usual 5 s job timeout: killed, it counts
    # as failed and its retry plays on, later than these tests wait
    srv = Server(redis_url, env={"REFEREE_METRICS_TOKEN": TOKEN, "REFEREE_LOG_FORMAT": "json", "REFEREE_QUEUE": QUEUE,
                                 "REFEREE_JOB_TIMEOUT": "30"})
    yield srv
    srv.stop()


def scrape(url: str, token: str | None = TOKEN) -> dict[tuple[str, tuple], float]:
    got = requests.get(url + "/metrics", headers={"Authorization": f"Bearer {token}"} if token else {}, timeout=10)
    assert got.status_code == 200 and got.headers["Content-Type"].startswith("text/plain"), got.text
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(got.text) for s in family.samples}


def value(samples: dict, name: str, **labels) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def log_lines(server: Server) -> list[dict]:
    out = []
    for line in Path(server.log.name).read_text(errors="replace").splitlines():
        if line.startswith("{"):
            try:
                out.append(json.loads(line))
            except ValueError:
                pass
    return out


def concrete(legal: dict, rng: random.Random) -> dict:
    """A legal move with each range replaced by one of its numbers."""
    def pick(v):
        if isinstance(v, dict) and v.keys() == {"min", "max", "step"}:
            return v["min"] + v["step"] * rng.randint(0, (v["max"] - v["min"]) // v["step"])
        return v
    return {k: pick(v) for k, v in legal.items()}


def new_match(url: str) -> tuple[str, str]:
    made = requests.post(url + "/matches", json={"game": "dice_party", "players": 2,
                                                 "seats": [{"name": "ann"}, {"bot": "random"}]}, timeout=10)
    assert made.status_code == 201, made.text
    return made.json()["id"], made.json()["seats"][0]["token"]


def play_until_bot(url: str, match_id: str, token: str, tag: str, moves: int = 40, seconds: float = 60) -> list[str]:
    """Moves of seat 0 (each with a request id of its own) until the bot has had a turn; their ids.  The bot may
    take its time on a loaded machine (it may begin the match): the wait is bounded in seconds, not in looks."""
    rng, ids, auth = random.Random(7), [], {"Authorization": f"Bearer {token}"}
    deadline, snap = time.monotonic() + seconds, {}
    for i in itertools.count():
        if len(ids) >= moves or time.monotonic() > deadline:
            break
        snap = requests.get(f"{url}/matches/{match_id}", headers=auth, timeout=10).json()
        if snap["status"] != "active":
            break
        if 0 not in snap["to_act"]:
            time.sleep(0.05)
            continue
        legal = requests.get(f"{url}/matches/{match_id}/legal-moves", headers=auth, timeout=10).json()["moves"]
        rid = f"{tag}-{i}"
        moved = requests.post(f"{url}/matches/{match_id}/moves", json={"move": concrete(rng.choice(legal), rng)},
                              headers={**auth, "X-Request-Id": rid}, timeout=10)
        assert moved.headers["X-Request-Id"] == rid
        if moved.status_code != 200:  # the bot (or a timeout) moved first under load: look again
            assert moved.status_code in (409, 422), moved.text
            continue
        ids.append(rid)
        if 1 in moved.json()["to_act"] or snap["version"] + 1 < moved.json()["version"]:
            break
    assert ids, f"no move was applied: {snap.get('status')}, to act {snap.get('to_act')}, version {snap.get('version')}"
    return ids


def test_route_templates_and_request_ids():
    assert route_template("/matches/<string:match_id>/moves") == "/matches/{match_id}/moves"
    assert route_template("/matches/<string:match_id>/photos/<int(max=15):seat>") == "/matches/{match_id}/photos/{seat}"
    assert route_template(None) == "unmatched"
    assert requestid.valid("abc-123") and requestid.valid("x" * 128)
    assert not requestid.valid("x" * 129) and not requestid.valid("a\tb") and not requestid.valid("")
    made = requestid.accept("\x01bad")
    assert uuid.UUID(made).version == 4 and uuid.UUID(made).hex == made and made != requestid.make()
    text = logs.line({"ts": "T", "level": "info", "event": "request", "method": "GET", "route": "/healthz",
                      "status": 200, "duration_ms": 1.5, "request_id": "r1", "match_id": None}, text=True)
    assert text == b"T INFO GET /healthz 200 1.5ms request_id=r1\n"
    assert json.loads(logs.line({"a": 1, "b": None}, text=False)) == {"a": 1}


def test_the_fronts_counts_reach_the_histogram_as_observe_would_put_them():
    from prometheus_client import REGISTRY

    counted = metrics.Requests()
    for seconds in (0.003, 0.3, 0.0001, 20.0):
        counted.count("/t", "GET", 200, seconds)
    counted.count("/t", "GET", 404, None)  # held: counted, not timed
    counted.flush()

    def sample(name: str, **labels) -> float:
        return REGISTRY.get_sample_value(name, {"route": "/t", "method": "GET", **labels})

    bucket = "referee_http_request_duration_seconds_bucket"
    assert [sample(bucket, le=le) for le in ("0.0005", "0.005", "0.5", "10.0", "+Inf")] == [1, 2, 3, 3, 4]
    assert sample("referee_http_request_duration_seconds_count") == 4
    assert abs(sample("referee_http_request_duration_seconds_sum") - 20.3031) < 1e-9
    assert sample("referee_http_requests_total", status="200") == 4 and sample("referee_http_requests_total",
                                                                               status="404") == 1


def test_metrics_count_moves_refusals_and_routes(served):
    url = served.url
    match_id, token = new_match(url)
    # refused while the match is surely in play (played on, it may end: then match_over comes first)
    refused = requests.post(f"{url}/matches/{match_id}/moves", json={"move": {"type": "no_such_move"}},
                            headers={"Authorization": f"Bearer {token}"}, timeout=10)
    assert refused.status_code == 422 and refused.json()["code"] == "invalid_move"
    play_until_bot(url, match_id, token, "count")

    def counted():
        s = scrape(url)
        moves = "/matches/{match_id}/moves"
        ready = (value(s, "referee_jobs_total", function="play_bot_turn", outcome="ok") >= 1
                 and value(s, "referee_http_requests_total", route=moves, method="POST", status="422") >= 1)
        return s if ready else None  # the front adds its counts every 0.5 s

    samples = wait_for(counted, timeout=90, interval=0.5)
    assert value(samples, "referee_moves_applied_total", by="player") >= 1
    assert value(samples, "referee_moves_applied_total", by="referee") >= 1
    assert value(samples, "referee_moves_refused_total", code="invalid_move") >= 1
    moves = "/matches/{match_id}/moves"
    assert value(samples, "referee_http_requests_total", route=moves, method="POST", status="200") >= 1
    assert value(samples, "referee_http_requests_total", route=moves, method="POST", status="422") >= 1
    assert value(samples, "referee_http_request_duration_seconds_count", route=moves, method="POST") >= 2
    assert value(samples, "referee_job_wait_seconds_count", function="play_bot_turn") >= 1
    assert value(samples, "referee_job_run_seconds_count", function="play_bot_turn") >= 1
    assert value(samples, "referee_store_up") == 1
    assert value(samples, "referee_store_used_memory_bytes") > 0
    assert ("referee_store_reserved_bytes", ()) in samples  # (the room kept for the matches not yet over)
    assert ("referee_queue_depth", (("queue", QUEUE),)) in samples
    assert sum(value(samples, "referee_matches", status=s) for s in ("active", "scoring", "finished")) >= 1
    assert ("referee_held_streams", ()) in samples and ("referee_held_long_polls", ()) in samples
    routes = {dict(labels).get("route") for name, labels in samples if name == "referee_http_requests_total"}
    assert not any(match_id in r for r in routes), routes  # templates, never ids


def test_the_metrics_token_is_enforced(served):
    for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": f"Basic {TOKEN}"}):
        refused = requests.get(served.url + "/metrics", headers=headers, timeout=10)
        assert refused.status_code == 401, refused.text
        assert refused.headers["Content-Type"] == "application/problem+json"
        assert refused.json()["code"] == "bad_token"
    assert scrape(served.url)


def test_request_ids_are_echoed_given_or_made_and_logged_once(served):
    url = served.url
    given = requests.get(url + "/healthz", headers={"X-Request-Id": "given-id-1"}, timeout=10)
    assert given.headers["X-Request-Id"] == "given-id-1"
    made = requests.get(url + "/healthz", timeout=10).headers["X-Request-Id"]
    too_long = requests.get(url + "/healthz", headers={"X-Request-Id": "y" * 129}, timeout=10).headers["X-Request-Id"]
    for rid in (made, too_long):
        assert len(rid) == 32 and int(rid, 16) >= 0
    missing = requests.get(url + "/matches/nope", headers={"X-Request-Id": "given-404"}, timeout=10)
    assert missing.status_code == 404 and missing.headers["X-Request-Id"] == "given-404"
    match_id, token = new_match(url)
    version = requests.get(f"{url}/matches/{match_id}", timeout=10).json()["version"]
    polled = requests.get(f"{url}/matches/{match_id}", params={"since": version + 5, "wait": 0.3},
                          headers={"X-Request-Id": "held-poll"}, timeout=10)  # held by the front, then answered
    assert polled.status_code == 200 and polled.headers["X-Request-Id"] == "held-poll"
    with requests.get(f"{url}/matches/{match_id}/events", headers={"Accept": "text/event-stream",
                      "Authorization": f"Bearer {token}", "X-Request-Id": "held-stream"}, stream=True,
                      timeout=10) as stream:
        assert stream.status_code == 200 and stream.headers["X-Request-Id"] == "held-stream"
        next(stream.iter_content(64))

    def logged():
        lines = {line["request_id"]: line for line in log_lines(served) if line.get("event") == "request"}
        return lines if {"given-id-1", made, "given-404", "held-poll", "held-stream"} <= lines.keys() else None

    lines = wait_for(logged, timeout=15)
    requests_logged = [line for line in log_lines(served) if line.get("event") == "request"]
    assert sum(1 for line in requests_logged if line["request_id"] == "given-id-1") == 1  # one line per request
    line = lines["given-id-1"]
    assert {"ts", "request_id", "method", "route", "status", "duration_ms"} <= line.keys()
    assert (line["method"], line["route"], line["status"]) == ("GET", "/healthz", 200)
    assert lines["given-404"]["match_id"] == "nope" and lines["given-404"]["route"] == "/matches/{match_id}"
    assert lines["given-404"]["status"] == 404
    assert lines["held-poll"]["match_id"] == match_id and lines["held-poll"]["status"] == 200
    assert lines["held-stream"]["route"] == "/matches/{match_id}/events"


def test_the_bot_turn_a_move_causes_logs_the_moves_request_id(served):
    url = served.url
    match_id, token = new_match(url)
    ids = play_until_bot(url, match_id, token, f"chain-{match_id}")

    def bot_lines():
        found = [line for line in log_lines(served) if line.get("event") == "job" and line.get("match_id") == match_id
                 and line.get("job") == "play_bot_turn" and line.get("request_id") in ids]
        return found or None

    job = wait_for(bot_lines, timeout=30, interval=0.3)[0]  # the bot's turn after one of our moves
    # a match with a person: its bot turns go to the people's queue (docs/bots.md)
    assert job["outcome"] == "ok" and job["queue"] == f"{QUEUE}-people"
    assert job["duration_ms"] >= 0 and job["wait_ms"] >= 0
    moves = [line for line in log_lines(served) if line.get("request_id") == job["request_id"]
             and line.get("event") == "request"]
    assert [m["route"] for m in moves] == ["/matches/{match_id}/moves"] and moves[0]["match_id"] == match_id


def test_a_start_removes_the_metrics_folders_of_killed_supervisors(monkeypatch, tmp_path):
    from service.integrations import multiproc

    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    stale, live, other = (tmp_path / f"referee-metrics-{dead.pid}-abc", tmp_path / f"referee-metrics-{os.getpid()}-x",
                          tmp_path / "referee-metrics-notapid")
    for folder in (stale, live, other):
        folder.mkdir()
    multiproc.remove_stale()
    assert not stale.exists() and live.exists() and other.exists()


def test_a_turn_clocks_timeout_is_timed_against_its_deadline(served):
    before = value(scrape(served.url), "referee_clock_lateness_seconds_count")
    made = requests.post(served.url + "/matches", json={
        "game": "dice_party", "players": 2, "seats": [{"name": "slow"}, {"bot": "random"}],
        "clock": {"move_seconds": 1, "on_timeout": "default"}}, timeout=10)
    assert made.status_code == 201, made.text

    def timed():
        s = scrape(served.url)
        return s if value(s, "referee_clock_lateness_seconds_count") > before else None

    samples = wait_for(timed, timeout=60, interval=0.5)
    assert value(samples, "referee_clock_lateness_seconds_bucket", le="+Inf") > before
    assert value(samples, "referee_clock_lateness_seconds_sum") > 0  # the dispatcher applies it at its deadline


def test_a_worker_host_serves_its_metrics(redis_url, tmp_path):
    """Last in this file: its worker's scheduler may keep the queue's scheduler lock a while after it stops."""
    port = free_port()
    env = {**os.environ, "REDIS_URL": redis_url, "REFEREE_METRICS_TOKEN": TOKEN, "REFEREE_QUEUE": QUEUE + "-host"}
    err = open(tmp_path / "worker.log", "w")
    proc = subprocess.Popen([sys.executable, "-m", "clients.cli", "worker", "--workers", "1", "--search-workers", "0",
                             "--metrics-port", str(port)], cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=err)
    try:
        def answered():
            try:
                return scrape(f"http://127.0.0.1:{port}")
            except requests.RequestException:
                return None

        samples = wait_for(answered, timeout=30, interval=0.3)
        assert ("referee_queue_depth", (("queue", QUEUE + "-host"),)) in samples
        assert requests.get(f"http://127.0.0.1:{port}/metrics", timeout=5).status_code == 401
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(30)
        err.close()
