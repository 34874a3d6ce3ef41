"""Every bad input gets its 4xx problem+json with a stable code, never a 5xx, and changes nothing."""

from __future__ import annotations

import json

import pytest


def create(http, seats=None, players=2, **extra):
    body = {"game": "super_blatt", "players": players, "seed": 11,
            "seats": seats or [{"name": "ann"}, {"name": "bob"}], **extra}
    r = http.post("/matches", json=body)
    assert r.status_code == 201, r.json
    return r.json


def auth(token):
    return {"Authorization": f"Bearer {token}"}


def state_of(http, mid, token):
    r = http.get(f"/matches/{mid}", headers=auth(token))
    events = http.get(f"/matches/{mid}/events", headers=auth(token)).json
    return json.dumps(r.json, sort_keys=True), json.dumps(events, sort_keys=True)


def problem(r, status, code):
    assert r.status_code == status, (r.status_code, r.data[:300])
    assert r.content_type == "application/problem+json"
    body = r.json
    assert body["code"] == code and body["status"] == status
    assert body["type"].endswith(code) and body["title"] and body["detail"]
    return body


@pytest.fixture()
def match(http):
    m = create(http)
    tokens = [s["token"] for s in m["seats"]]
    snap = http.get(f"/matches/{m['id']}", headers=auth(tokens[0])).json
    turn = snap["to_act"][0]
    return {"id": m["id"], "host": m["host_token"], "tokens": tokens, "turn": turn, "other": 1 - turn}


BAD_MOVES = [
    # (description, kwargs for http.post, status, code)
    ("malformed JSON", {"data": "{not json", "content_type": "application/json"}, 400, "invalid_body"),
    ("body is a list", {"json": [1, 2]}, 422, "invalid_body"),
    ("no move", {"json": {}}, 422, "invalid_body"),
    ("move is a string", {"json": {"move": "take"}}, 422, "invalid_body"),
    ("unknown field", {"json": {"move": {"type": "take", "column": 0}, "extra": 1}}, 422, "invalid_body"),
    ("version is text", {"json": {"move": {"type": "take", "column": 0}, "expected_version": "x"}}, 422,
     "invalid_body"),
    ("unknown move type", {"json": {"move": {"type": "fly"}}}, 422, "invalid_move"),
    ("column is text", {"json": {"move": {"type": "take", "column": "one"}}}, 422, "invalid_move"),
    ("column out of range", {"json": {"move": {"type": "take", "column": 7}}}, 422, "invalid_move"),
    ("missing column", {"json": {"move": {"type": "take"}}}, 422, "invalid_move"),
    ("bool as column", {"json": {"move": {"type": "take", "column": True}}}, 422, "invalid_move"),
    ("pass when no EXTRA", {"json": {"move": {"type": "pass"}}}, 422, "illegal_move"),
    ("stale version", {"json": {"move": {"type": "take", "column": 0}, "expected_version": 0}}, 409,
     "stale_version"),
]


@pytest.mark.parametrize("desc,kwargs,status,code", BAD_MOVES, ids=[b[0] for b in BAD_MOVES])
def test_bad_moves_are_refused_and_change_nothing(http, match, desc, kwargs, status, code):
    token = match["tokens"][match["turn"]]
    before = state_of(http, match["id"], token)
    r = http.post(f"/matches/{match['id']}/moves", headers=auth(token), **kwargs)
    problem(r, status, code)
    assert state_of(http, match["id"], token) == before


def test_out_of_turn_wrong_token_missing_token_host_token(http, match):
    mid = match["id"]
    before = state_of(http, mid, match["tokens"][0])
    move = {"move": {"type": "take", "column": 0}}
    problem(http.post(f"/matches/{mid}/moves", headers=auth(match["tokens"][match["other"]]), json=move), 409,
            "not_your_turn")
    problem(http.post(f"/matches/{mid}/moves", headers=auth("forged"), json=move), 401, "bad_token")
    problem(http.post(f"/matches/{mid}/moves", json=move), 401, "bad_token")
    problem(http.post(f"/matches/{mid}/moves", headers={"Authorization": "Basic abc"}, json=move), 401, "bad_token")
    problem(http.post(f"/matches/{mid}/moves", headers=auth(match["host"]), json=move), 403, "not_a_seat")
    problem(http.get(f"/matches/{mid}", headers=auth("forged")), 401, "bad_token")
    problem(http.get(f"/matches/{mid}/legal-moves"), 401, "bad_token")
    assert state_of(http, mid, match["tokens"][0]) == before


def test_unknown_match_game_route_and_method(http):
    problem(http.get("/matches/nope"), 404, "unknown_match")
    problem(http.post("/matches/nope/moves", headers=auth("x"), json={"move": {"type": "take", "column": 0}}), 404,
            "unknown_match")
    problem(http.get("/matches/nope/events"), 404, "unknown_match")
    problem(http.get("/games/chess"), 404, "unknown_game")
    problem(http.post("/matches", json={"game": "chess", "players": 2}), 404, "unknown_game")
    problem(http.get("/nowhere"), 404, "not_found")
    problem(http.put("/games"), 405, "method_not_allowed")


def test_bad_match_creation(http):
    problem(http.post("/matches", json={"game": "super_blatt", "players": 5}), 422, "invalid_options")
    problem(http.post("/matches", json={"game": "super_blatt", "players": 2, "options": {"first_seat": 3}}), 422,
            "invalid_options")
    problem(http.post("/matches", json={"game": "super_blatt", "players": 2, "options": {"nope": 1}}), 422,
            "invalid_options")
    problem(http.post("/matches", json={"game": "super_blatt", "players": 2, "seats": [{}]}), 422,
            "invalid_options")
    problem(http.post("/matches", json={"game": "super_blatt", "players": 2, "seats": [{"bot": "genius"}, {}]}),
            422, "unknown_bot")
    problem(http.post("/matches", json={"game": "super_blatt", "players": "two"}), 422, "invalid_body")
    problem(http.post("/matches", json={"game": "super_blatt", "players": 2, "seed": [1]}), 422, "invalid_body")
    problem(http.post("/matches", data="game=super_blatt", content_type="text/plain"), 415, "unsupported_media_type")


def test_oversized_body(http, match):
    token = match["tokens"][match["turn"]]
    before = state_of(http, match["id"], token)
    huge = {"move": {"type": "take", "column": 0, "pad": "x" * 200_000}}
    problem(http.post(f"/matches/{match['id']}/moves", headers=auth(token), json=huge), 413, "body_too_large")
    assert state_of(http, match["id"], token) == before


def test_waiting_match_refuses_moves_and_join_rules(http):
    m = create(http, seats=[{"name": "ann"}, {}])
    mid, ann = m["id"], m["seats"][0]["token"]
    assert m["seats"][1]["token"] is None and m["status"] == "waiting"
    problem(http.post(f"/matches/{mid}/moves", headers=auth(ann), json={"move": {"type": "take", "column": 0}}),
            409, "match_not_started")
    problem(http.post(f"/matches/{mid}/join", json={"name": "cy", "seat": 0}), 409, "seat_taken")
    problem(http.post(f"/matches/{mid}/join", json={"name": "cy", "seat": 5}), 409, "seat_taken")
    problem(http.post(f"/matches/{mid}/join", json={}), 422, "invalid_body")
    r = http.post(f"/matches/{mid}/join", json={"name": "cy"})
    assert r.status_code == 201 and r.json["seat"] == 1 and r.json["status"] == "active"
    problem(http.post(f"/matches/{mid}/join", json={"name": "dee"}), 409, "not_waiting")


def test_abort_host_only_then_moves_refused(http, match):
    mid = match["id"]
    problem(http.delete(f"/matches/{mid}", headers=auth(match["tokens"][0])), 403, "not_host")
    problem(http.delete(f"/matches/{mid}"), 401, "bad_token")
    r = http.delete(f"/matches/{mid}", headers=auth(match["host"]))
    assert r.status_code == 200 and r.json["status"] == "aborted"
    problem(http.post(f"/matches/{mid}/moves", headers=auth(match["tokens"][match["turn"]]),
                      json={"move": {"type": "take", "column": 0}}), 409, "match_over")
    problem(http.delete(f"/matches/{mid}", headers=auth(match["host"])), 409, "match_over")
    problem(http.get(f"/matches/{mid}/result"), 409, "result_not_ready")


def test_bad_query_parameters(http, match):
    problem(http.get(f"/matches/{match['id']}?since=-1&wait=1"), 422, "invalid_body")
    problem(http.get(f"/matches/{match['id']}?wait=abc"), 422, "invalid_body")
    problem(http.get(f"/matches/{match['id']}/events?after=x"), 422, "invalid_body")


def test_photos_only_for_games_with_photos(http, match):
    problem(http.get(f"/matches/{match['id']}/photos/0"), 404, "not_found")
