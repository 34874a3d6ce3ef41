"""Hot lanes (service/api/lanes.py) answer the requests of a move exactly as Flask's routes do.

The same seeded match is played twice, once through an app with its lanes and once through its
Flask dispatch alone, with the same random moves and the same bad requests; every answer (status,
headers, body) must be the same bytes.  The lane must really answer the plain requests (a spy
counts), and decline what only marshmallow may judge.
"""

from __future__ import annotations

import logging
import random

import orjson
import pytest
from marshmallow import Schema, fields, validate

from service.api import MAX_INT
from service.api.lanes import compile_body, rule_pattern
from service.api.matches import MoveRequestSchema
from service.games.base import concretize


def answer(client, method: str, path: str, token: str | None = None, body=None, headers=None, raw=None):
    hdrs = dict(headers or {})
    if token is not None:
        hdrs["Authorization"] = f"Bearer {token}"
    if raw is not None:
        r = client.open(path, method=method, data=raw, headers=hdrs, content_type="application/json")
    else:
        r = client.open(path, method=method, json=body, headers=hdrs)
    return r.status, sorted(r.headers.items()), r.data


@pytest.fixture()
def twins(app, monkeypatch):
    """Two clients of the same app: one through the lanes, one with the lanes switched off per request."""
    lanes = app.lanes
    assert lanes is not None
    used = []

    def spy(environ):
        out = type(lanes).__call__(lanes, environ)
        used.append(out is not None)
        return out

    class Off:
        def __init__(self, client):
            self.client = client

        def open(self, *args, **kwargs):
            monkeypatch.setattr(app, "lanes", None)
            try:
                return self.client.open(*args, **kwargs)
            finally:
                monkeypatch.setattr(app, "lanes", spy)

    monkeypatch.setattr(app, "lanes", spy)
    return app.test_client(), Off(app.test_client()), used


def new_match(app, seed: int) -> tuple[str, list[str], str]:
    ref = app.extensions["referee"]
    m = ref.create_match("super_blatt", 2, {}, seed, [{"name": "ann"}, {"name": "bob"}])
    return m["id"], [s["token"] for s in m["seats"]], m["host_token"]


def test_a_played_match_answers_the_same_through_lanes_and_flask(app, twins):
    on, off, used = twins
    seed = 4242
    (mid_a, tok_a, host_a), (mid_b, tok_b, host_b) = new_match(app, seed), new_match(app, seed)
    rng = random.Random(7)
    for step in range(120):
        to_act = app.extensions["referee"].snapshot(mid_a, tok_a[0])["to_act"]
        if not to_act:
            break
        seat = to_act[0]
        legal_a = answer(on, "GET", f"/matches/{mid_a}/legal-moves", tok_a[seat])
        legal_b = answer(off, "GET", f"/matches/{mid_b}/legal-moves", tok_b[seat])
        assert legal_a == legal_b
        legal = orjson.loads(legal_a[2])
        other = 1 - seat
        # refusals that change nothing, through both
        for path_tail, token, body, headers in [
            ("moves", tok_a[other], {"move": legal["moves"][0], "expected_version": legal["version"]}, None),
            ("moves", tok_a[seat], {"move": legal["moves"][0], "expected_version": legal["version"] - 1}, None),
            ("moves", tok_a[seat], {"move": {"type": "no_such_move"}}, None),
            ("moves", tok_a[seat], {"move": {"type": "play", "card": -5}}, None),
            ("moves", "wrong", {"move": legal["moves"][0]}, None),
            ("moves", host_a, {"move": legal["moves"][0]}, None),
            ("moves", tok_a[seat], {"move": legal["moves"][0], "expected_version": legal["version"]},
             {"Idempotency-Key": "\u00e9"}),
            ("legal-moves", "wrong", None, None),
            ("legal-moves", host_a, None, None),
        ]:
            if step % 20:
                break
            method = "POST" if path_tail == "moves" else "GET"
            token_b = {tok_a[other]: tok_b[other], tok_a[seat]: tok_b[seat], host_a: host_b}.get(token, token)
            got_a = answer(on, method, f"/matches/{mid_a}/{path_tail}", token, body, headers)
            got_b = answer(off, method, f"/matches/{mid_b}/{path_tail}", token_b, body, headers)
            assert int(got_a[0][:3]) >= 400 and got_a == got_b, (path_tail, body, got_a, got_b)
        move = concretize(rng.choice(legal["moves"]), rng)
        body = {"move": move, "expected_version": legal["version"]}
        headers = {"Idempotency-Key": f"k{step}"} if step % 3 == 0 else None
        got_a = answer(on, "POST", f"/matches/{mid_a}/moves", tok_a[seat], body, headers)
        got_b = answer(off, "POST", f"/matches/{mid_b}/moves", tok_b[seat], body, headers)
        assert got_a == got_b and got_a[0] == "200 OK"
        if headers:  # a replayed key answers as the first time, through both
            assert answer(on, "POST", f"/matches/{mid_a}/moves", tok_a[seat], body, headers) == got_a
    assert sum(used) >= 100, "the lanes answered too few of the plain requests"


def test_unknown_match_and_bad_authorization_answer_the_same(app, twins):
    on, off, used = twins
    for method, path, token, headers, body in [
        ("GET", "/matches/nope/legal-moves", "abc", None, None),
        ("POST", "/matches/nope/moves", "abc", None, {"move": {"type": "pass"}}),
        ("GET", "/matches/nope/legal-moves", None, {"Authorization": "Basic eDp5"}, None),
        ("GET", "/matches/nope/legal-moves", None, None, None),
        ("POST", "/matches/nope/moves", None, {"Authorization": "Bearer a b"}, {"move": {}}),
    ]:
        assert answer(on, method, path, token, body, headers) == answer(off, method, path, token, body, headers)
    assert all(used)


@pytest.mark.parametrize("raw", [
    b"{", b"[]", b'{"move": 3}', b'{"move": {}, "expected_version": true}', b'{"move": {}, "expected_version": 1.0}',
    b'{"move": {}, "expected_version": -1}', b'{"move": {}, "expected_version": 9007199254740992}',
    b'{"move": {}, "extra": 1}', b'{"expected_version": 1}', b'{"move": {}, "move": {}}', b'{"move": {"type": "pass"}}',
    b'{"move": {"type": "pass"}, "expected_version": null}',
])
def test_bodies_only_marshmallow_may_judge_go_to_flask_and_answer_the_same(app, twins, raw):
    on, off, used = twins
    path = "/matches/nope/moves"
    assert answer(on, "POST", path, "abc", raw=raw) == answer(off, "POST", path, "abc", raw=raw)
    plain = raw in (b'{"move": {"type": "pass"}}', b'{"move": {"type": "pass"}, "expected_version": null}',
                    b'{"move": {}, "expected_version": 1.0}')  # 1.0 is the integer 1 (JSON Schema's rule)
    assert used == [plain]  # the lane took only the plain ones (an unknown match: 404 either way)


def test_a_query_string_another_content_type_or_a_chunked_body_go_to_flask(app, twins):
    on, off, used = twins
    on.get("/matches/nope/legal-moves?x=1", headers={"Authorization": "Bearer abc"})
    on.post("/matches/nope/moves", data=b'{"move": {}}', content_type="text/plain",
            headers={"Authorization": "Bearer abc"})
    on.post("/matches/nope/moves", data=b'{"move": {}}', content_type="application/json",
            headers={"Authorization": "Bearer abc", "Transfer-Encoding": "chunked"})
    assert used == [False, False, False]


BODIES = [
    {}, {"move": {}}, {"move": {"type": "x"}, "expected_version": 0}, {"move": {}, "expected_version": MAX_INT},
    {"move": {}, "expected_version": MAX_INT + 1}, {"move": {}, "expected_version": -1},
    {"move": {}, "expected_version": True}, {"move": {}, "expected_version": 2.0},
    {"move": {}, "expected_version": "3"},
    {"move": {}, "expected_version": None}, {"move": []}, {"move": None}, {"move": "x"}, {"move": {}, "x": 1},
    [], "x", None, 3,
]


@pytest.mark.parametrize("body", BODIES)
def test_the_compiled_check_accepts_only_what_marshmallow_loads_the_same(body):
    """Compiled from MoveRequestSchema: whatever it accepts, marshmallow loads to the same dict."""
    schema = MoveRequestSchema()
    fast = compile_body(schema)(body)
    if fast is not None:
        assert schema.load(body) == fast
    plain = isinstance(body, dict) and isinstance(body.get("move"), dict) and set(body) <= {"move", "expected_version"}
    plain = plain and (body.get("expected_version") is None or (
        type(body["expected_version"]) is int and 0 <= body["expected_version"] <= MAX_INT))
    assert (fast is not None) == plain


def test_fields_that_do_not_compile_build_no_lane():
    class Hooked(Schema):
        n = fields.Integer(strict=True, validate=validate.OneOf([1, 2]))

    class Loose(Schema):
        s = fields.String()

    for schema in (Hooked(), Loose()):
        with pytest.raises(TypeError):
            compile_body(schema)
    with pytest.raises(TypeError):
        rule_pattern("/matches/<int:n>")
    assert rule_pattern("/matches/<string:match_id>/moves").match("/matches/ab-1/moves").group(1) == "ab-1"
    assert not rule_pattern("/matches/<string:match_id>/moves").match("/matches/a/b/moves")


def test_a_failure_inside_a_lane_is_the_apis_own_500_and_logged(app, monkeypatch, caplog):
    def boom(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(app.extensions["referee"], "legal_moves", boom)
    monkeypatch.setattr(app, "testing", False)
    with caplog.at_level(logging.ERROR):
        r = app.test_client().get("/matches/x/legal-moves", headers={"Authorization": "Bearer abc"})
    assert r.status_code == 500 and r.json["code"] == "internal" and r.content_type == "application/problem+json"
    assert "boom" in caplog.text


def test_a_move_survives_a_forgotten_script_and_a_dropped_connection(app, redis_client, monkeypatch):
    """The store's lean command path (Store.call) falls back to redis-py's own: a server that forgot the
    compare-and-set script loads it again, a connection the server dropped is reopened."""
    ref = app.extensions["referee"]
    mid, tokens, _ = new_match(app, 99)
    client = app.test_client()

    def play_one() -> None:
        seat = ref.snapshot(mid, tokens[0])["to_act"][0]
        legal = client.get(f"/matches/{mid}/legal-moves", headers={"Authorization": f"Bearer {tokens[seat]}"}).json
        r = client.post(f"/matches/{mid}/moves", headers={"Authorization": f"Bearer {tokens[seat]}"},
                        json={"move": legal["moves"][0], "expected_version": legal["version"]})
        assert r.status_code == 200, r.json
        assert r.json["version"] == legal["version"] + 1

    play_one()
    own = ref.store.redis
    slow = []
    monkeypatch.setattr(own, "execute_command", lambda *a, **k: slow.append(a[0]) or type(own).execute_command(
        own, *a, **k))
    redis_client.script_flush()
    play_one()
    assert "SCRIPT LOAD" in slow  # the script was loaded again
    conn = own.connection
    conn.send_command("CLIENT", "ID")
    redis_client.client_kill_filter(_id=conn.read_response())
    slow.clear()
    play_one()
    assert "HMGET" in slow  # the dropped connection's command went the client's own way, and reconnected
