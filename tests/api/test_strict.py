"""Validation exactly as strict as the OpenAPI document (issue 46): what the document admits is served, what
it refuses is refused with its documented status, and the same rule holds wherever a value appears."""

from __future__ import annotations

import jsonschema
import pytest

from service.api.openapi import spec_dict
from tests.api.test_errors import auth, create, problem


@pytest.fixture(scope="module")
def document() -> dict:
    return spec_dict()


def body_schema(document: dict, path: str, method: str = "post") -> jsonschema.Draft202012Validator:
    schema = document["paths"][path][method]["requestBody"]["content"]["application/json"]["schema"]
    return jsonschema.Draft202012Validator({**schema, "components": document["components"]})


def started(http) -> dict:
    m = create(http)
    tokens = [s["token"] for s in m["seats"]]
    snap = http.get(f"/matches/{m['id']}", headers=auth(tokens[0])).json
    return {"id": m["id"], "host": m["host_token"], "token": tokens[snap["to_act"][0]], "version": snap["version"]}


@pytest.mark.parametrize("listed", [0, 1, "true", "no", None])
def test_listed_is_a_json_boolean(http, document, listed):
    body = {"game": "super_blatt", "players": 2, "listed": listed}
    assert not body_schema(document, "/matches").is_valid(body)  # the document refuses it: so does the service
    problem(http.post("/matches", json=body), 422, "invalid_body")


@pytest.mark.parametrize("value", ["1", "yes", "True", "on"])
def test_query_booleans_are_true_or_false(http, value):
    problem(http.get(f"/matches?open={value}"), 422, "invalid_body")
    assert http.get("/matches?open=true").status_code == 200


def test_away_takes_no_body_as_the_document_says(http, document):
    assert document["paths"]["/matches/{match_id}/away"]["post"]["requestBody"]["required"] is False
    m = started(http)
    r = http.post(f"/matches/{m['id']}/away", headers=auth(m["token"]))
    assert r.status_code == 200, r.json
    assert r.json["away"] == "random"


def test_a_bot_account_seat_is_alone_a_422_like_every_wrong_shape(http, document):
    for seat in ({"bot": "0", "bot_account": "0"}, {"name": "ann", "bot_account": "alpha"}):
        assert not body_schema(document, "/matches").is_valid({"game": "super_blatt", "players": 2,
                                                               "seats": [seat, {}]})  # the document says so too
        body = problem(http.post("/matches", json={"game": "super_blatt", "players": 2, "seats": [seat, {}]}), 422,
                       "invalid_body")
        assert "bot_account" in str(body["errors"])


def test_authentication_comes_before_the_lookup(http):
    """POST /ladder without a token: 401 bad_token, whatever match it names (an unknown one included), and before
    its body is judged; with a token, the match is looked up (404 for an unknown one)."""
    body = {"match_id": "no-such-match", "entrants": ["a", "b"]}
    problem(http.post("/ladder", json=body), 401, "bad_token")
    problem(http.post("/ladder", json={"match_id": 5}), 401, "bad_token")
    problem(http.post("/ladder", json=body, headers=auth("some-token")), 404, "unknown_match")
    for method, path in (("delete", ""), ("get", "/legal-moves"), ("post", "/moves"), ("post", "/away"),
                         ("post", "/back"), ("post", "/rematch"), ("post", "/stream-ticket"), ("get", "/webhooks")):
        kwargs = {"json": {"move": {"type": "take", "column": 0}}} if path == "/moves" else {}
        problem(getattr(http, method)(f"/matches/no-such-match{path}", **kwargs), 401, "bad_token")
        problem(getattr(http, method)(f"/matches/no-such-match{path}", headers=auth("x"), **kwargs), 404,
                "unknown_match")


@pytest.mark.parametrize("query", ["follow=", "follow=abc", "follow=m,1,short"])
def test_follow_is_refused_as_its_pattern_says(http, document, query):
    param = next(p for p in document["paths"]["/events"]["get"]["parameters"] if p["name"] == "follow")
    value = query.split("=", 1)[1]
    assert not jsonschema.Draft202012Validator(param["schema"]["items"]).is_valid(value)
    problem(http.get(f"/events?{query}", headers={"Accept": "text/event-stream"}), 422, "invalid_body")


def test_integer_valued_numbers_are_integers_everywhere(http, document):
    """One rule, JSON Schema's (2020-12): a number with a zero fractional part is an integer.  ``2.0`` is read
    as 2 in the referee's own fields and inside a move alike; ``2.5`` is refused in both."""
    assert body_schema(document, "/matches").is_valid({"game": "super_blatt", "players": 2.0})
    m = http.post("/matches", json={"game": "super_blatt", "players": 2.0, "seed": 4,
                                    "seats": [{"name": "a"}, {"name": "b"}]})
    assert m.status_code == 201, m.json
    problem(http.post("/matches", json={"game": "super_blatt", "players": 2.5}), 422, "invalid_body")
    match = started(http)
    mid, token = match["id"], match["token"]
    half = http.post(f"/matches/{mid}/moves", json={"move": {"type": "take", "column": 0.5}}, headers=auth(token))
    problem(half, 422, "invalid_move")
    half = http.post(f"/matches/{mid}/moves", json={"move": {"type": "take", "column": 0},
                                                     "expected_version": match["version"] + 0.5}, headers=auth(token))
    problem(half, 422, "invalid_body")
    r = http.post(f"/matches/{mid}/moves", json={"move": {"type": "take", "column": 0.0},
                                                  "expected_version": float(match["version"])}, headers=auth(token))
    assert r.status_code == 200, r.json
    assert r.json["version"] == match["version"] + 1
    moved = [e for e in http.get(f"/matches/{mid}/events", headers=auth(token)).json["events"]
             if e["type"] == "moved"]
    assert moved[-1]["data"]["move"] == {"type": "take", "column": 0}  # kept as the integer it is
    assert type(moved[-1]["data"]["move"]["column"]) is int


@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded", None])
def test_a_body_that_is_not_json_is_415(http, content_type):
    m = started(http)
    before = http.get(f"/matches/{m['id']}", headers=auth(m["token"])).json
    r = http.post(f"/matches/{m['id']}/moves", data=b'{"move": {"type": "take", "column": 0}}',
                  headers={**auth(m["token"]), **({"Content-Type": content_type} if content_type else {})})
    problem(r, 415, "unsupported_media_type")
    assert http.get(f"/matches/{m['id']}", headers=auth(m["token"])).json == before  # nothing changed
    problem(http.post("/matches", data="game=super_blatt", content_type="text/plain"), 415, "unsupported_media_type")


def test_415_is_documented_on_every_json_body(document):
    for path, item in document["paths"].items():
        for method, op in item.items():
            if method != "parameters" and "application/json" in op.get("requestBody", {}).get("content", {}):
                assert "`unsupported_media_type`" in op["responses"]["415"]["description"], f"{method} {path}"


@pytest.mark.parametrize("value", [0, 1, "true", "yes"])
def test_a_games_boolean_option_is_a_json_boolean(http, document, value):
    """Big Shot's ``hidden_money`` (service/games/big_shot/rules.md) is a boolean in the document: 0 or "yes" is
    refused, as the referee's own ``listed`` is."""
    body = {"game": "big_shot", "players": 3, "options": {"hidden_money": value}}
    assert not body_schema(document, "/matches").is_valid(body)
    problem(http.post("/matches", json=body), 422, "invalid_options")
    assert http.post("/matches", json={**body, "options": {"hidden_money": True}}).status_code == 201


@pytest.mark.parametrize("column", ["1", True, 0.5, "0"])
def test_a_moves_integer_is_a_json_integer(http, column):
    """Das Super-Blatt's `take` names a `column` (service/games/super_blatt/rules.md): a string, a boolean or a fraction
    is not one, and is refused as an invalid move whoever's turn it is; nothing changes."""
    m = started(http)
    before = http.get(f"/matches/{m['id']}", headers=auth(m["token"])).json
    r = http.post(f"/matches/{m['id']}/moves", json={"move": {"type": "take", "column": column}},
                  headers=auth(m["token"]))
    problem(r, 422, "invalid_move")
    assert http.get(f"/matches/{m['id']}", headers=auth(m["token"])).json == before
