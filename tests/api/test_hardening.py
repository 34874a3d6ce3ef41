"""Hostile input found by probing from outside: each family gets its 4xx problem+json, never a 5xx,
and a refused request changes nothing."""

from __future__ import annotations

import pytest
import redis
import yaml

from service.api import PROBLEM_JSON
from service.api.openapi import render
from service.infra.embedded import free_port
from tests.api.test_errors import auth, create, problem, state_of


@pytest.fixture()
def match(http):
    m = create(http)
    tokens = [s["token"] for s in m["seats"]]
    turn = http.get(f"/matches/{m['id']}", headers=auth(tokens[0])).json["to_act"][0]
    return {"id": m["id"], "host": m["host_token"], "token": tokens[turn], "other": tokens[1 - turn]}


def post_raw(http, path, body: bytes | str, token=None):
    headers = auth(token) if token else {}
    return http.post(path, data=body, content_type="application/json", headers=headers)


TAKE = '{"move": {"type": "take", "column": 0}}'


def test_the_reported_inputs_get_a_4xx(http, match):
    mid, token = match["id"], match["token"]
    before = state_of(http, mid, token)
    for after in (2**64 - 1, 2**64, 10**30, 2**53):
        problem(http.get(f"/matches/{mid}/events?after={after}"), 422, "invalid_body")
        problem(http.get(f"/matches/{mid}?since={after}&wait=1"), 422, "invalid_body")
    problem(post_raw(http, "/matches", '{"game": "super_blatt", "players": 2, "seed": 1180591620717411303424}'),
            422, "invalid_body")
    problem(post_raw(http, "/matches", '{"game": "super_blatt", "players": 2, "seats": [{"name": "a\\ud800"}, {}]}'),
            400, "invalid_body")
    deep = '{"move": ' + "[" * 5000 + "]" * 5000 + "}"
    problem(post_raw(http, f"/matches/{mid}/moves", deep, token), 400, "invalid_body")
    assert state_of(http, mid, token) == before


@pytest.mark.parametrize("body", [
    b'{"move": {"type": "take", "column": 0}, "x": "\xed\xa0\x80"}',  # a surrogate in raw UTF-8
    b'{"move": {"type": "take", "column": 0}, "x": "\xff"}',  # not UTF-8
    b'{"move": {"type": "take", "column": 0}, "expected_version": NaN}',
    b'{"move": {"type": "take", "column": 0}, "expected_version": Infinity}',
    b'{"move": {"type": "take", "column": 0}, "expected_version": 1e999}',
    b'{"move": {"type": "take", "column": 9}, "move": {"type": "take", "column": 0}}',  # duplicate key
    b'{"move": {"type": "take", "column": 9, "column": 0}}',  # duplicate key, nested
    b'{"move": ' + b"[" * 33 + b"]" * 33 + b"}",  # nested deeper than the limit
    b'{"move": {"type": "take", "column": 0}} trailing',
])
def test_bodies_that_are_not_strict_json_are_refused_and_change_nothing(http, match, body):
    before = state_of(http, match["id"], match["token"])
    problem(post_raw(http, f"/matches/{match['id']}/moves", body, match["token"]), 400, "invalid_body")
    assert state_of(http, match["id"], match["token"]) == before


def test_duplicate_keys_say_which(http, match):
    r = post_raw(http, f"/matches/{match['id']}/moves", b'{"move": {"type": "take", "column": 0}, "move": 1}',
                 match["token"])
    assert "Duplicate key 'move'" in problem(r, 400, "invalid_body")["detail"]


@pytest.mark.parametrize("value", ['"1"', "1.5", "1.000001", "true", "[1]", str(2**53), "-1", "9007199254740992.0"])
def test_expected_version_is_a_json_integer_in_range(http, match, value):
    before = state_of(http, match["id"], match["token"])
    body = f'{{"move": {{"type": "take", "column": 0}}, "expected_version": {value}}}'
    problem(post_raw(http, f"/matches/{match['id']}/moves", body, match["token"]), 422, "invalid_body")
    assert state_of(http, match["id"], match["token"]) == before


@pytest.mark.parametrize("name", ["a\u0000b", "tab\there", "new\nline", "\u202eevil", "bell\u0007", "", "x" * 41])
def test_names_are_short_printable_text(http, name):
    problem(http.post("/matches", json={"game": "super_blatt", "players": 2, "seats": [{"name": name}, {}]}), 422,
            "invalid_body")
    m = create(http, seats=[{"name": "ann"}, {}])
    problem(http.post(f"/matches/{m['id']}/join", json={"name": name}), 422, "invalid_body")


def test_printable_unicode_names_and_big_seeds_are_fine(http):
    m = create(http, seats=[{"name": "Zoë 🎲 小明"}, {"name": "o'brien"}], seed=2**64 - 1)
    assert m["seats"][0]["name"] == "Zoë 🎲 小明"
    problem(post_raw(http, "/matches", f'{{"game": "super_blatt", "players": 2, "seed": {2**64}}}'), 422,
            "invalid_body")
    problem(http.post("/matches", json={"game": "super_blatt", "players": 2, "seed": "a\u0000"}), 422,
            "invalid_body")
    problem(http.post("/matches", json={"game": "super_blatt", "players": 2.5}), 422, "invalid_body")


def test_an_idempotency_key_stands_for_one_request(http, match):
    mid, token = match["id"], match["token"]
    key = {"Idempotency-Key": "move-1", **auth(token)}
    first = http.post(f"/matches/{mid}/moves", json={"move": {"type": "take", "column": 0}}, headers=key)
    assert first.status_code == 200
    after = state_of(http, mid, token)
    # the same body (keys in another order) replays the first answer
    again = http.post(f"/matches/{mid}/moves", data='{"move": {"column": 0, "type": "take"}}',
                      content_type="application/json", headers=key)
    assert again.status_code == 200 and again.json == first.json
    # another move, or another expected_version, under the same key is refused
    for body in ({"move": {"type": "take", "column": 1}},
                 {"move": {"type": "take", "column": 0}, "expected_version": 1}):
        problem(http.post(f"/matches/{mid}/moves", json=body, headers=key), 422, "idempotency_mismatch")
    assert state_of(http, mid, token) == after
    # once it is the other seat's turn, its own keys are its own
    other = {"Idempotency-Key": "move-1", **auth(match["other"])}
    legal = http.get(f"/matches/{mid}/legal-moves", headers=auth(match["other"])).json["moves"]
    if legal:
        r = http.post(f"/matches/{mid}/moves", json={"move": legal[0]}, headers=other)
        assert r.status_code == 200, r.json


def test_a_replay_with_another_body_is_refused_while_a_bot_owes_its_turn(http):
    """The key is also checked when the replay would be refused on the new state (not your turn)."""
    m = create(http, seats=[{"name": "ann"}, {"name": "bob"}])
    tokens = [s["token"] for s in m["seats"]]
    turn = http.get(f"/matches/{m['id']}", headers=auth(tokens[0])).json["to_act"][0]
    key = {"Idempotency-Key": "k", **auth(tokens[turn])}
    assert http.post(f"/matches/{m['id']}/moves", json={"move": {"type": "take", "column": 0}},
                     headers=key).status_code == 200
    if turn not in http.get(f"/matches/{m['id']}", headers=auth(tokens[0])).json["to_act"]:
        problem(http.post(f"/matches/{m['id']}/moves", json={"move": {"type": "take", "column": 3}}, headers=key),
                422, "idempotency_mismatch")


@pytest.mark.parametrize("key", ["", "x" * 129, "caf\u00e9", "tab\tkey"])
def test_idempotency_keys_are_printable_ascii(http, match, key):
    problem(http.post(f"/matches/{match['id']}/moves", json={"move": {"type": "take", "column": 0}},
                      headers={"Idempotency-Key": key, **auth(match["token"])}), 400, "invalid_body")


@pytest.mark.parametrize("header", [
    "Bearer t\u00f6ken", "Bearer \u00e9", "Bearer two words", "Bearer", "Bearer ", "Basic abc", "token-only",
    "Bearer a\u0001b",
])
def test_malformed_bearer_tokens_are_refused_not_taken_for_a_spectator(http, match, header):
    for r in (http.get(f"/matches/{match['id']}", headers={"Authorization": header}),
              http.get(f"/matches/{match['id']}/events", headers={"Authorization": header}),
              http.get(f"/matches/{match['id']}/result", headers={"Authorization": header})):
        problem(r, 401, "bad_token")


@pytest.mark.parametrize("last", ["99999999999999999999999", "\u00b2", "-1", "1.5", "x"])
def test_a_bad_last_event_id_is_refused_before_the_stream_starts(http, match, last):
    r = http.get(f"/matches/{match['id']}/events", headers={"Accept": "text/event-stream", "Last-Event-ID": last})
    problem(r, 400, "invalid_body")


def test_405_says_which_methods_are_allowed(http, match):
    r = http.put("/games")
    problem(r, 405, "method_not_allowed")
    assert set(r.headers["Allow"].split(", ")) >= {"GET"}
    r = http.patch(f"/matches/{match['id']}")
    problem(r, 405, "method_not_allowed")
    assert {"GET", "DELETE"} <= set(r.headers["Allow"].split(", "))


def test_redis_down_answers_503_with_retry_after_and_not_ready(redis_url):
    from redis.backoff import NoBackoff
    from redis.retry import Retry

    from service.api.app import create_app
    from service.infra.config import Settings

    dead = redis.Redis(port=free_port(), retry=Retry(NoBackoff(), 0))  # nothing listens there
    http = create_app(Settings.from_env(), client=dead).test_client()
    for r in (http.get("/matches/abc"), http.post("/matches", json={"game": "super_blatt", "players": 2}),
              http.post("/matches/abc/moves", json={"move": {}}, headers=auth("t"))):
        problem(r, 503, "redis_unavailable")
        assert int(r.headers["Retry-After"]) >= 1
    assert http.get("/readyz").status_code == 503
    assert http.get("/healthz").status_code == 200  # the process itself is alive
    assert http.get("/games").status_code == 200  # needs no Redis


def _reachable(spec: dict) -> dict:
    """The parts of the document the paths use (flask-smorest also lists schemas no route refers to)."""
    seen: set[str] = set()
    todo = [spec["paths"]]
    while todo:
        node = todo.pop()
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref not in seen:
                seen.add(ref)
                _, _, kind, name = ref.split("/")
                todo.append(spec["components"][kind][name])
            todo.extend(node.values())
        elif isinstance(node, list):
            todo.extend(node)
    return {"paths": spec["paths"], "refs": [spec["components"][r.split("/")[2]][r.split("/")[3]] for r in seen]}


def test_every_integer_in_the_contract_is_bounded():
    unbounded = []

    def walk(node, where):
        if isinstance(node, dict):
            if node.get("type") == "integer" and "enum" not in node and not {"minimum", "maximum"} <= node.keys():
                unbounded.append(where)
            for k, v in node.items():
                walk(v, f"{where}/{k}")
        elif isinstance(node, list):
            for i, v in enumerate(node):
                walk(v, f"{where}/{i}")

    walk(_reachable(yaml.safe_load(render())), "")
    assert not unbounded, unbounded


def test_every_error_answer_is_documented_as_problem_json():
    spec = yaml.safe_load(render())
    wrong = []
    for path, ops in spec["paths"].items():
        for method, op in ops.items():
            if not isinstance(op, dict):
                continue
            for status, resp in op["responses"].items():
                if "$ref" in resp:
                    resp = spec["components"]["responses"][resp["$ref"].split("/")[-1]]
                if int(status) >= 400 and path != "/readyz" and set(resp.get("content", {})) != {PROBLEM_JSON}:
                    wrong.append(f"{method.upper()} {path} {status}")
    assert not wrong, wrong
