"""Webhooks by the Standard Webhooks specification (docs/webhooks.md): a real receiver on
loopback verifies every delivery with the ``standardwebhooks`` package; a receiver that fails and then
recovers gets every message, in order, once its retries succeed; a refused target is a 422 problem."""

from __future__ import annotations

import functools
import json
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import redis
import requests
from jsonschema import Draft202012Validator
from standardwebhooks import Webhook, WebhookVerificationError

from clients.client import Referee, RefereeError
from service.api.openapi import spec_dict
from service.core.base import Actor
from service.core.referee import Referee as Engine
from service.infra.config import Settings
from service.integrations.webhooks import EVENT_TYPES, Allowed, TargetRefused, check_target, deliver, due_key, messages
from tests.conftest import ROOT, Server, json_lines, wait_for


class Receiver:
    """An HTTP server on loopback that keeps every delivery; it answers ``fail`` 500s first, then 200s."""

    def __init__(self, fail: int = 0, delay: float = 0.0) -> None:
        self.got: list[tuple[dict, bytes, int]] = []
        self.fail = fail
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 - http.server's name
                body = self.rfile.read(int(self.headers["content-length"]))
                time.sleep(delay)
                status = 500 if receiver.fail > 0 else 200
                receiver.fail -= 1
                receiver.got.append(({k.lower(): v for k, v in self.headers.items()}, body, status))
                self.send_response(status)
                self.send_header("content-length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def delivered(self, secret: str) -> list[dict]:
        """The messages answered 200, each verified against ``secret`` and against the document's ``webhooks``."""
        out = []
        for headers, body, status in self.got:
            conforms(headers, body)
            if status == 200:
                out.append(Webhook(secret).verify(body, headers) | {"id": headers["webhook-id"]})
        return out

    def close(self) -> None:
        self.server.shutdown()


@functools.cache
def webhooks() -> dict:
    return spec_dict()["webhooks"]


@functools.cache
def message_validator(kind: str) -> Draft202012Validator:
    """The document's schema of a message type's body (OpenAPI 3.1 ``webhooks``), strictly: every field declared."""
    schema = webhooks()[kind]["post"]["requestBody"]["content"]["application/json"]["schema"]
    return Draft202012Validator({**schema, "components": spec_dict()["components"]},
                                format_checker=Draft202012Validator.FORMAT_CHECKER)


def conforms(headers: dict, body: bytes) -> None:
    """A delivery is what the document's ``webhooks`` says of its type: its body and its signature headers."""
    message = json.loads(body)
    assert message["type"] in webhooks(), message["type"]
    errors = list(message_validator(message["type"]).iter_errors(message))
    assert not errors, f"{message['type']}: {errors[0].message} at {list(errors[0].absolute_path)}"
    for header in webhooks()[message["type"]]["post"]["parameters"]:
        assert Draft202012Validator(header["schema"]).is_valid(headers[header["name"]]), header["name"]


@pytest.fixture(scope="module")
def hooked(redis_url):
    """`referee serve` whose webhooks may target loopback, as a test's receiver is, on queues of its own: the
    session's server (on the same Redis, without that allowance) must not take its deliveries."""
    server = Server(redis_url, env={"REFEREE_WEBHOOK_ALLOW": "127.0.0.1", "REFEREE_WEBHOOK_SECRET_GRACE": "3",
                                    "REFEREE_QUEUE": f"hooks-{uuid.uuid4().hex[:8]}"})
    yield server
    server.stop()


def play_to_the_end(ref: Referee, match: dict, turns: Receiver | None = None) -> None:
    """Seat 0 plays its first legal move whenever it is to act; with ``turns``, only once that receiver has
    the turn's message, as a backend driven by its webhook would."""
    token = match["seats"][0]["token"]
    while (snap := ref.match(match["id"], token))["status"] == "active":
        if 0 in snap["to_act"]:
            if turns is not None:
                wait_for(lambda v=snap["version"]: any(json.loads(body)["type"] == "turn"
                                                       and json.loads(body)["data"]["version"] == v
                                                       for _, body, _ in turns.got), timeout=30, interval=0.02)
            ref.move(match["id"], token, ref.legal_moves(match["id"], token)["moves"][0])
        else:
            ref.match(match["id"], token, since=snap["version"], wait=5)


def test_every_delivery_verifies_and_comes_in_order_with_only_public_events(hooked):
    receiver = Receiver()
    try:
        ref = Referee(hooked.url)
        m = ref.create_match("super_blatt", 2, [{"name": "ann"}, {"bot": "greedy"}], {"first_seat": 0}, 5)
        assert "webhook" not in m
        m = ref.create_match("super_blatt", 2, [{"name": "ann"}, {"bot": "greedy"}], {"first_seat": 0}, 5,
                             webhook={"url": receiver.url})
        secret = m["webhook"]["secret"]
        assert secret.startswith("whsec_") and set(m["webhook"]["events"]) == {
            "match.started", "turn", "move", "seat.timeout", "seat.forfeit", "match.finished", "match.aborted"}
        play_to_the_end(ref, m, turns=receiver)  # every turn of seat 0 is announced before it moves
        wait_for(lambda: any(d["type"] == "match.finished" for d in receiver.delivered(secret)), timeout=30)
        log = requests.get(f"{hooked.url}/matches/{m['id']}/webhooks",
                           headers={"Authorization": f"Bearer {m['host_token']}"}).json()
        retried = [d for d in log["deliveries"] if d["outcome"] != "delivered"]
        got = receiver.delivered(secret)
        if not retried:  # (on a loaded machine a send can time out and go again: at least once, not exactly)
            assert len({d["id"] for d in got}) == len(got), "each message once when every send succeeds"
        got = list({d["id"]: d for d in got}.values())  # in order of first arrival
        types = [d["type"] for d in got]
        assert types[0] == "match.started" and types[-1] == "match.finished" and "turn" in types
        moves = [d["data"] for d in got if d["type"] == "move"]
        # every move, in order, each once: the match was made at version 1, and its last commit is the scoring
        assert [mv["version"] for mv in moves] == list(range(2, ref.match(m["id"])["version"]))
        assert {mv["seat"] for mv in moves} == {0, 1}
        seen = {}  # what a spectator sees, by version
        for e in ref.events(m["id"])["events"]:
            seen.setdefault(e["version"], []).append({"type": e["type"], "data": e["data"]})
        for mv in moves:
            assert all(e in seen[mv["version"]] for e in mv["events"]), "only what a spectator sees"
        assert got[-1]["data"]["result"] == {k: v for k, v in ref.result(m["id"]).items()
                                             if k not in ("id", "game", "status")}
        # one meaning of version (docs/api.md): the record's moves carry the versions their events and messages do
        record = requests.get(f"{hooked.url}/matches/{m['id']}/record").json()
        assert [r["version"] for r in record["moves"]] == [mv["version"] for mv in moves]
        own = [e["version"] for e in ref.events(m["id"], m["seats"][0]["token"])["events"] if e["type"] == "moved"]
        assert own == [r["version"] for r in record["moves"] if r["seat"] == 0]  # a seat's own `moved` events

        headers, body, _ = receiver.got[0]
        with pytest.raises(WebhookVerificationError):  # the signature covers the body
            Webhook(secret).verify(body.replace(b"match", b"Match"), headers)

        assert log["url"] == receiver.url and {d["outcome"] for d in retried} <= {"retrying"}
        delivered = [d["id"] for d in reversed(log["deliveries"]) if d["outcome"] == "delivered"]
        assert delivered == [d["id"] for d in got]  # each delivered once, in order
        seat = requests.get(f"{hooked.url}/matches/{m['id']}/webhooks",
                            headers={"Authorization": f"Bearer {m['seats'][0]['token']}"})
        assert seat.status_code == 403 and seat.json()["code"] == "not_host"
    finally:
        receiver.close()


def test_a_receiver_that_fails_then_recovers_gets_every_message_in_order(hooked):
    receiver = Receiver(fail=2)
    try:
        ref = Referee(hooked.url)
        m = ref.create_match("super_blatt", 2, [{"name": "ann"}, {"bot": "random"}], {"first_seat": 0}, 6,
                             webhook={"url": receiver.url, "events": ["move", "match.finished"]})
        secret = m["webhook"]["secret"]
        play_to_the_end(ref, m)
        wait_for(lambda: any(d["type"] == "match.finished" for d in receiver.delivered(secret)), timeout=60)
        got = receiver.delivered(secret)
        assert {d["type"] for d in got} == {"move", "match.finished"}  # only the events asked for
        assert len({d["id"] for d in got}) == len(got)
        versions = [d["data"]["version"] for d in got if d["type"] == "move"]
        assert versions == list(range(2, ref.match(m["id"])["version"]))  # none lost, none twice, in order
        failed = [h["webhook-id"] for h, _, status in receiver.got if status == 500]
        assert failed == [got[0]["id"]] * 2  # the first message was retried until it went through
        log = requests.get(f"{hooked.url}/matches/{m['id']}/webhooks",
                           headers={"Authorization": f"Bearer {m['host_token']}"}).json()["deliveries"][::-1]
        first = [d for d in log if d["id"] == got[0]["id"]]  # oldest first
        assert [d["outcome"] for d in first][-1] == "delivered" and log[0]["status"] == 500
        assert {d["outcome"] for d in first[:-1]} == {"retrying"} and len(first) >= 3  # (a loaded machine may add one)
        assert {d["id"]: d["outcome"] for d in log} == {d["id"]: "delivered" for d in got}
    finally:
        receiver.close()


def test_a_rotated_secret_signs_what_follows_and_the_old_one_too_for_its_grace(hooked):
    """The hooked server's grace is 3 s (REFEREE_WEBHOOK_SECRET_GRACE): a receiver that has not switched yet
    still verifies what is sent within it; after it, only the new secret verifies."""
    receiver = Receiver()
    try:
        ref = Referee(hooked.url)
        m = ref.create_match("super_blatt", 2, [{"name": "a"}, {"name": "b"}], {"first_seat": 0},
                             webhook={"url": receiver.url, "events": ["move"]})
        old = m["webhook"]["secret"]
        host = {"Authorization": f"Bearer {m['host_token']}"}
        rotated = time.monotonic()
        new = requests.post(f"{hooked.url}/matches/{m['id']}/webhooks/secret", headers=host).json()["secret"]
        assert new.startswith("whsec_") and new != old

        def move() -> tuple[dict, bytes]:
            count = len(receiver.got)
            snap = ref.match(m["id"])
            seat = snap["to_act"][0]
            token = m["seats"][seat]["token"]
            ref.move(m["id"], token, ref.legal_moves(m["id"], token)["moves"][0])
            wait_for(lambda: len(receiver.got) > count, timeout=20)
            return receiver.got[-1][:2]

        headers, body = move()
        assert time.monotonic() - rotated < 3, "the first delivery came within the grace"
        assert len(headers["webhook-signature"].split()) == 2  # two signatures, space-separated
        assert Webhook(new).verify(body, headers)["type"] == "move"
        assert Webhook(old).verify(body, headers)["type"] == "move"  # a receiver that has not switched yet
        time.sleep(max(0.0, 3.2 - (time.monotonic() - rotated)))
        headers, body = move()
        assert Webhook(new).verify(body, headers)["type"] == "move"
        with pytest.raises(WebhookVerificationError):  # the grace is over: the old secret signs nothing more
            Webhook(old).verify(body, headers)
        other = requests.post(f"{hooked.url}/matches/{m['id']}/webhooks/secret",
                              headers={"Authorization": f"Bearer {m['seats'][0]['token']}"})
        assert other.status_code == 403 and other.json()["code"] == "not_host"
    finally:
        receiver.close()


@pytest.mark.parametrize(("url", "why"), [
    ("http://127.0.0.1:9/x", "not a public address"), ("http://10.1.2.3/x", "not a public address"),
    ("http://169.254.169.254/latest", "not a public address"), ("http://[::1]/x", "not a public address"),
    ("ftp://example.org/x", "http or https"), ("not a url", "http or https"), ("http:///x", "http or https"),
    ("http://example.org:port/x", "cannot be read"),
    ("http://user:pw@example.org/x", "credentials"), ("https://user@example.org/x", "credentials"),
    ("http://:pw@8.8.8.8/x", "credentials")])
def test_a_refused_target_is_a_422_webhook_refused_with_its_reason_and_creates_nothing(server, url, why):
    """The session's server allows no private target (REFEREE_WEBHOOK_ALLOW unset); a URL with credentials is
    refused even for a public host (they would be sent along, and shown in the webhook's log)."""
    before = requests.get(server.url + "/matches?limit=1").json()["matches"]
    answer = requests.post(server.url + "/matches", json={"game": "super_blatt", "players": 2,
                                                          "webhook": {"url": url}})
    assert answer.status_code == 422 and answer.headers["content-type"].startswith("application/problem+json")
    assert answer.json()["code"] == "webhook_refused", answer.json()
    assert why in answer.json()["detail"] and "pw" not in answer.json()["detail"]
    assert requests.get(server.url + "/matches?limit=1").json()["matches"] == before


def test_targets_are_checked_against_the_allow_list():
    nothing = Allowed.parse("")
    for url in ("http://127.0.0.1/x", "http://localhost:8080/", "http://192.168.1.5/", "http://[fe80::1]/",
                "http://0.0.0.0/", "https://no-such-host.invalid/"):
        with pytest.raises(TargetRefused):
            check_target(url, nothing)
    check_target("http://127.0.0.1:9000/x", Allowed.parse("127.0.0.1"))
    check_target("http://10.0.3.4/x", Allowed.parse(" 10.0.0.0/8 , hooks.internal"))
    check_target("http://hooks.internal/x", Allowed.parse("10.0.0.0/8,hooks.internal"))  # listed by name
    check_target("http://8.8.8.8/x", nothing)  # a public address needs no listing


def test_messages_follow_the_log_and_carry_only_public_events():
    log = [
        {"seq": 1, "v": 0, "type": "match_created", "data": {}, "to": "all"},
        {"seq": 2, "v": 0, "type": "dealt", "data": {"card": 7}, "to": [0]},
        {"seq": 3, "v": 0, "type": "match_started", "data": {"to_act": [0]}, "to": "all"},
        {"seq": 4, "v": 1, "type": "moved", "data": {"seat": 0, "move": {"bid": 3}}, "to": [0]},
        {"seq": 5, "v": 1, "type": "bid_placed", "data": {"seat": 0}, "to": "all"},
        {"seq": 6, "v": 1, "type": "dealt", "data": {"card": 9}, "to": [0]},
        {"seq": 7, "v": 2, "type": "timeout", "data": {"seat": 1, "action": "default"}, "to": "all"},
        {"seq": 8, "v": 2, "type": "moved", "data": {"seat": 1, "move": {"bid": 0}}, "to": [1]},
        {"seq": 9, "v": 3, "type": "forfeit", "data": {"seat": 0, "reason": "illegal_move", "at": 1.5}, "to": "all"},
        {"seq": 10, "v": 4, "type": "match_aborted", "data": {}, "to": "all"},
    ]
    out = list(messages("m1", log, None, 0, 0))
    assert [(m.type, m.id) for m in out] == [("match.started", "msg_m1_3"), ("move", "msg_m1_4"),
                                             ("seat.timeout", "msg_m1_7"), ("move", "msg_m1_8"),
                                             ("seat.forfeit", "msg_m1_9"), ("match.aborted", "msg_m1_10")]
    assert out[4].data == {"seat": 0, "reason": "illegal_move", "at": 1.5}
    assert out[1].data == {"version": 1, "seat": 0, "events": [{"type": "bid_placed", "data": {"seat": 0}}]}
    sent = json.dumps([m.data for m in out])
    assert '"bid": 3' not in sent and '"card"' not in sent  # a sealed move stays sealed, a dealt card private
    turn = list(messages("m1", log[:6], ("active", 2, [1]), 0, 0))[-1]
    assert (turn.type, turn.id, turn.data, turn.seq) == ("turn", "msg_m1_turn_2", {"version": 2, "to_act": [1]}, 6)
    assert not [m for m in messages("m1", [], ("active", 2, [1]), 6, 2) if m.type == "turn"]  # sent already


def test_an_unknown_event_type_is_an_invalid_body(hooked):
    with pytest.raises(RefereeError) as refused:
        Referee(hooked.url).create_match("super_blatt", 2, webhook={"url": "http://127.0.0.1:9/", "events": ["x"]})
    assert refused.value.status == 422 and refused.value.problem["code"] == "invalid_body"


def test_a_worker_killed_mid_delivery_loses_nothing(redis_url, monkeypatch):
    """SIGKILL `referee worker` while a slow receiver holds a delivery: once workers run again, every
    message arrives, in order of first arrival (the one cut off may come twice: at least once)."""
    env = {"REDIS_URL": redis_url, "REFEREE_QUEUE": f"test-hook-{uuid.uuid4().hex[:8]}",
           "REFEREE_WEBHOOK_ALLOW": "127.0.0.1", "REFEREE_JOB_TIMEOUT": "2", "REFEREE_WEBHOOK_TIMEOUT": "2",
           "REFEREE_SWEEP_AFTER": "1"}
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    engine = Engine(redis.Redis.from_url(redis_url), Settings.from_env())
    receiver = Receiver(delay=0.3)  # a delivery is under way whenever the worker is killed

    def workers() -> subprocess.Popen:
        return subprocess.Popen([sys.executable, "-m", "clients.cli", "worker", "--workers", "1", "--search-workers",
                                 "0"], cwd=ROOT, env={**os.environ, **env}, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, start_new_session=True)

    proc = workers()
    try:
        m = engine.create_match("super_blatt", 2, {"first_seat": 0}, 7, [{"name": "a"}, {"name": "b"}],
                                webhook={"url": receiver.url, "events": ["move"]})
        game = engine.game("super_blatt")
        for _ in range(10):
            match = engine.store.load(m["id"])
            seat = game.to_act(match.state)[0]
            engine.apply_move(m["id"], Actor.playing(seat), game.legal_moves(match.state, seat)[0])
        wait_for(lambda: len(receiver.got) >= 2, timeout=30)
        os.killpg(proc.pid, signal.SIGKILL)  # mid-delivery, lock held, cursor behind
        proc.wait()
        proc = workers()
        secret = m["webhook"]["secret"]
        wait_for(lambda: len({d["id"] for d in receiver.delivered(secret)}) == 10, timeout=60)
        first = list(dict.fromkeys(d["id"] for d in receiver.delivered(secret)))
        versions = [int(i.rsplit("_", 1)[1]) for i in first]
        assert versions == sorted(versions)
        wait_for(lambda: engine.queue.connection.zscore(due_key(engine.settings.queue), m["id"]) is None, timeout=20)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        receiver.close()
        for q in (engine.queue, engine.search_queue):
            q.delete(delete_jobs=True)


def test_a_slow_receiver_gets_every_message_once_in_order_and_no_job_meets_its_timeout(redis_url):
    """A receiver that answers each message in 0.3 s, within REFEREE_WEBHOOK_TIMEOUT (1.5 s), behind a job
    timeout of 2 s: each delivery job keeps to its deadline (1 s, looked at before each message) and hands
    the rest on, so no job is killed, no message goes twice, and none is reported failed."""
    server = Server(redis_url, env={"REFEREE_WEBHOOK_ALLOW": "127.0.0.1", "REFEREE_JOB_TIMEOUT": "2",
                                    "REFEREE_WEBHOOK_TIMEOUT": "1.5", "REFEREE_QUEUE": f"slow-{uuid.uuid4().hex[:8]}"})
    receiver = Receiver(delay=0.3)
    try:
        ref = Referee(server.url)
        m = ref.create_match("dice_party", 2, [{"bot": "random"}, {"bot": "random"}], None, 11,
                             webhook={"url": receiver.url, "events": ["move", "match.finished"]})
        secret = m["webhook"]["secret"]
        wait_for(lambda: ref.match(m["id"])["status"] == "finished", timeout=30)
        last = ref.match(m["id"])["version"]
        wait_for(lambda: any(d["type"] == "match.finished" for d in receiver.delivered(secret)), timeout=40)
        got = receiver.delivered(secret)
        ids = [d["id"] for d in got]
        assert len(ids) == len(set(ids)) == len(receiver.got), "every message once: none cut off, none sent again"
        versions = [d["data"]["version"] for d in got if d["type"] == "move"]
        assert versions == list(range(2, last)) and len(versions) >= 8  # in order, none lost
        log = requests.get(f"{server.url}/matches/{m['id']}/webhooks",
                           headers={"Authorization": f"Bearer {m['host_token']}"}).json()["deliveries"]
        assert {d["outcome"] for d in log} == {"delivered"}
        lines = json_lines(server.log.name)
        jobs = [e for e in lines if e.get("event") == "job" and e.get("job") == "deliver_webhooks"]
        assert len(jobs) >= 3, "the backlog went in several jobs, each within its deadline"
        assert all(e["outcome"] == "ok" and e["duration_ms"] < 2000 for e in jobs), jobs
        text = json.dumps(lines)
        assert "JobTimeoutException" not in text and "InvalidJobOperation" not in text
    finally:
        receiver.close()
        server.stop()


def test_a_retry_that_comes_early_goes_again_at_its_time(redis_url, monkeypatch):
    """A retry scheduled for ``retry_at`` that runs before it (beyond the slack) is scheduled again for the
    rest of the wait, never dropped; a delivery a commit woke during the back-off leaves it to that retry."""
    monkeypatch.setenv("REFEREE_WEBHOOK_ALLOW", "127.0.0.1")
    engine = Engine(redis.Redis.from_url(redis_url), Settings.from_env())
    m = engine.create_match("super_blatt", 2, {"first_seat": 0}, 3, [{"name": "a"}, {"name": "b"}],
                            webhook={"url": "http://127.0.0.1:9/x", "events": ["move"]})
    retry_at = time.time() + 5
    engine.store.redis.hset(f"ref:{{m:{m['id']}}}:hook", mapping={"retry_at": retry_at, "attempts": 2})
    again: list[float] = []
    out = deliver(engine.store, engine.queue.connection, engine.settings, m["id"], again.append, due_at=retry_at - 1)
    assert out == "rescheduled" and len(again) == 1 and 4.5 < again[0] <= 5
    assert deliver(engine.store, engine.queue.connection, engine.settings, m["id"], again.append) == "backing off"
    assert len(again) == 1


def test_a_delivery_job_is_never_enqueued_twice_under_one_id(redis_url):
    """RQ pushes a job's id on its queue at each enqueue: two enqueues of one waiting delivery job would run it
    twice at once, and the second to end would fail (``InvalidJobOperation``: its key deleted by the first).
    The dispatcher leaves out a job that waits, sends the next one as ``<id>_next`` while it runs, and reads
    their states under WATCH, so a worker that takes the job meanwhile makes it read them again."""
    from rq import Queue
    from rq.job import Job
    from rq.serializers import JSONSerializer

    from service.core.outbox import Sender, job

    conn = redis.Redis.from_url(redis_url)
    name = f"twice-{uuid.uuid4().hex[:8]}"
    queue = Queue(name, connection=conn, serializer=JSONSerializer)
    sender = Sender(conn, name, {name: queue})
    op = job("workers.jobs.deliver_webhooks", ["m1"], f"hooks_{uuid.uuid4().hex}", name, 5, reused=True)[1]
    try:
        assert sender.settle_reused([op]) == [op]  # nothing under that id yet
        sender.send_now([op])
        assert sender.settle_reused([op]) == []  # it waits: it will read what the op's commit wrote
        conn.hset(Job.key_for(op["id"]), "status", "started")
        assert [o["id"] for o in sender.settle_reused([op])] == [f"{op['id']}_next"]
        conn.hset(Job.key_for(op["id"]), "status", "finished")
        with conn.pipeline() as pipe:
            assert sender.settle_reused([op], pipe) == [op]
            conn.hset(Job.key_for(op["id"]), "status", "started")  # a worker takes it meanwhile
            pipe.multi()
            pipe.set(f"ref:test:{name}", 1)
            with pytest.raises(redis.WatchError):
                pipe.execute()
        assert queue.job_ids == [op["id"]]  # pushed once
    finally:
        queue.delete(delete_jobs=True)


def test_the_webhook_pages_local_example_runs(hooked, tmp_path):
    """docs/webhooks.md's local variant (its first example needs an outside host): a receiver on loopback gets
    every message of a match of two bots, each verifiable by the secret the creation answered."""
    import re
    import socket

    block = re.search(r"<!-- webhook:local -->\s*```sh\n(.*?)```\s*<!-- /webhook:local -->",
                      (ROOT / "docs" / "webhooks.md").read_text(), re.S)
    assert block, "docs/webhooks.md lost its local example"
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    out = subprocess.run(["bash", "-euo", "pipefail", "-c", block.group(1)], cwd=tmp_path, capture_output=True,
                         text=True, timeout=120, env=dict(os.environ, URL=hooked.url, HOOK_PORT=str(port),
                                                          HOOK_SECONDS="8"))
    assert out.returncode == 0, out.stderr
    lines = [line for line in out.stdout.splitlines() if line.strip()]
    created = json.loads(lines[0])
    assert created["webhook"]["secret"].startswith("whsec_")
    types = [json.loads(line.split(" ", 1)[1])["type"] for line in lines[1:]]
    for line in lines[1:]:
        message = json.loads(line.split(" ", 1)[1])
        assert message_validator(message["type"]).is_valid(message), message
    assert types[0] == "match.started" and "move" in types and types[-1] == "match.finished", types


def test_every_message_type_a_real_delivery_sends_is_the_documents(hooked):
    """The seven message types, each from a real delivery, against the document's ``webhooks``: a turn clock
    that runs out (seat.timeout), a seat that sends a move the rules refuse under on_illegal forfeit
    (seat.forfeit), a host that aborts (match.aborted); match.started, turn, move and match.finished come
    from the tests above too."""
    receiver = Receiver()
    try:
        ref = Referee(hooked.url)
        m = ref.create_match("super_blatt", 3, [{"name": "ann"}, {"name": "bob"}, {"name": "cy"}], {"first_seat": 0},
                             7, webhook={"url": receiver.url},
                             clock={"move_seconds": 1, "on_timeout": "default", "on_illegal": "forfeit"})
        secret, tokens = m["webhook"]["secret"], [s["token"] for s in m["seats"]]
        wait_for(lambda: any(d["type"] == "seat.timeout" for d in receiver.delivered(secret)), timeout=30)
        snap = ref.match(m["id"], tokens[0])
        seat = snap["to_act"][0]
        with pytest.raises(RefereeError):
            ref.move(m["id"], tokens[seat], {"type": "take", "column": 99})
        wait_for(lambda: any(d["type"] == "seat.forfeit" for d in receiver.delivered(secret)), timeout=30)
        ref.abort(m["id"], m["host_token"])
        wait_for(lambda: any(d["type"] == "match.aborted" for d in receiver.delivered(secret)), timeout=30)
        types = {d["type"] for d in receiver.delivered(secret)}  # each one checked against the document
        assert set(webhooks()) == set(EVENT_TYPES)
        assert types >= {"match.started", "turn", "move", "seat.timeout", "seat.forfeit", "match.aborted"}, types
    finally:
        receiver.close()


READ_WITH_GENERATED = """
import json, sys
from referee_client import models
for body in json.load(open(sys.argv[1])):
    name = "".join(part.title() for part in body["type"].replace(".", "_").split("_")) + "Message"
    message = getattr(models, name).from_dict(body)  # the generated model of the document's webhooks
    assert message.to_dict() == body, (name, message.to_dict(), body)
    print(name, message.data.match_id)
"""


def test_a_python_client_generated_from_the_document_reads_every_message(hooked, tmp_path):
    """openapi-python-client, from openapi.yaml, has a model for each message of the document's ``webhooks``: it
    reads every message a real delivery sends, and writes it back as it came."""
    bin_ = Path(sys.executable).parent
    env = {**os.environ, "PATH": f"{bin_}{os.pathsep}{os.environ['PATH']}"}
    subprocess.run([str(bin_ / "openapi-python-client"), "generate", "--path", str(ROOT / "openapi.yaml"), "--meta",
                    "none", "--output-path", str(tmp_path / "referee_client")], cwd=tmp_path, env=env, check=True,
                   capture_output=True, timeout=300)
    played, aborted = Receiver(), Receiver()  # (each match signs with a secret of its own)
    try:
        ref = Referee(hooked.url)
        m = ref.create_match("super_blatt", 2, [{"bot": "greedy"}, {"bot": "random"}], None, 9,
                             webhook={"url": played.url})
        a = ref.create_match("super_blatt", 2, [{"name": "ann"}, {}], None, 9, webhook={"url": aborted.url})
        ref.abort(a["id"], a["host_token"])
        wait_for(lambda: any(d["type"] == "match.finished" for d in played.delivered(m["webhook"]["secret"])),
                 timeout=60)
        wait_for(lambda: any(d["type"] == "match.aborted" for d in aborted.delivered(a["webhook"]["secret"])),
                 timeout=60)
    finally:
        played.close()
        aborted.close()
    bodies = [json.loads(body) for _, body, status in played.got + aborted.got if status == 200]
    (tmp_path / "messages.json").write_text(json.dumps(bodies))
    done = subprocess.run([sys.executable, "-c", READ_WITH_GENERATED, str(tmp_path / "messages.json")], cwd=tmp_path,
                          env={**env, "PYTHONPATH": str(tmp_path)}, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    read = {line.split()[0] for line in done.stdout.splitlines()}
    assert read >= {"MatchStartedMessage", "MoveMessage", "MatchFinishedMessage", "MatchAbortedMessage"}, read
