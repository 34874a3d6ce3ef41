"""The typed contract holds: every answer of random matches of every game and variant validates, under a
strict JSON Schema validator, against what openapi.yaml says of it (and, under ``app.testing``, dumps
unchanged through its schema); every legal move, made concrete, is a valid move request."""

from __future__ import annotations

import random
from functools import cache

import jsonschema_rs
import orjson
import pytest
from jsonschema import Draft202012Validator
from marshmallow import Schema

from service.api import first_difference
from service.api.contract import EVENT_TYPES, OUTCOMES, VIEWS, camel
from service.api.openapi import spec_dict
from service.core.record import rank_forfeits
from service.games import GAMES
from service.games.base import concretize

CASES = [(name, variant) for name, game in GAMES.items() for variant in game.variants]


@cache
def spec() -> dict:
    return spec_dict()


@cache
def validator(name: str) -> Draft202012Validator:
    """A strict validator for one component schema (discriminators are hints; oneOf must match once)."""
    return Draft202012Validator({"$ref": f"#/components/schemas/{name}", "components": spec()["components"]})


@cache
def fast(name: str) -> jsonschema_rs.Draft202012Validator:
    """The same check in Rust, for the many values of random play."""
    return jsonschema_rs.Draft202012Validator({"$ref": f"#/components/schemas/{name}",
                                               "components": spec()["components"]})


def response_schema(path: str, method: str = "get", status: str = "200") -> dict:
    return spec()["paths"][path][method]["responses"][status]["content"]["application/json"]["schema"]


def check(answer: dict, name: str) -> None:
    errors = sorted(validator(name).iter_errors(answer), key=lambda e: e.path)
    assert not errors, f"{name}: {errors[0].message} at {list(errors[0].absolute_path)}"


def test_document_is_typed_end_to_end():
    """operationId everywhere, servers, game-keyed answers, and no untyped object left in a game's answers."""
    document = spec()
    assert document["servers"]
    for path, item in document["paths"].items():
        for method, op in item.items():
            assert method == "parameters" or op.get("operationId"), f"{method.upper()} {path} has no operationId"
    for path in ("/matches/{match_id}", "/matches/{match_id}/legal-moves", "/matches/{match_id}/events",
                 "/matches/{match_id}/result"):
        assert set(response_schema(path)["discriminator"]["mapping"]) == set(GAMES)
    assert set(response_schema("/matches/{match_id}/moves", "post")["discriminator"]["mapping"]) == set(GAMES)
    assert set(response_schema("/games/{game}")["discriminator"]["mapping"]) == set(GAMES)
    body = document["paths"]["/matches"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    assert set(body["discriminator"]["mapping"]) == set(GAMES)
    schemas = document["components"]["schemas"]
    for name in GAMES:
        g = camel(name)
        for kind in ("Game", "Match", "LegalMoves", "MoveResult", "Events", "Result", "CreateMatch"):
            assert f"{g}{kind}" in schemas
        events = schemas[f"{g}Event"]["discriminator"]["mapping"]
        for own in ("moved", "match_created", "match_started", "seat_joined", "match_scoring", "match_finished",
                    "match_aborted"):
            assert own in events

    def untyped(node, where):  # an object with neither properties nor a typed map inside a game's answers
        if isinstance(node, dict):
            if node.get("type") == "object" and "properties" not in node and "additionalProperties" not in node:
                yield where
            for k, v in node.items():
                yield from untyped(v, f"{where}.{k}")
        elif isinstance(node, list):
            for i, v in enumerate(node):
                yield from untyped(v, f"{where}[{i}]")

    typed = {k: v for k, v in schemas.items() if any(k.startswith(camel(g)) for g in GAMES)}
    assert not list(untyped(typed, "schemas"))


def test_a_move_validates_against_its_game_only_once():
    """The games share move names ({"type": "pass"}): the request takes any game's move (anyOf), and within
    its game a move matches exactly one move type."""
    request = validator("MoveRequest")
    assert request.is_valid({"move": {"type": "pass"}})
    assert request.is_valid({"move": {"type": "bid", "amount": 3}})
    assert not request.is_valid({"move": {"type": "no_such_move"}})
    assert validator("BigShotMove").is_valid({"type": "pass"})
    assert not validator("BigShotMove").is_valid({"type": "take", "column": 1})
    assert not validator("SuperBlattMove").is_valid({"type": "take", "column": 1, "extra": 1})


def wire(value):
    """A value as it goes over the wire (tuples become lists)."""
    return orjson.loads(orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS))


def same_through(schema: Schema, value: dict) -> None:
    """The dump check of ``app.testing``, on a value built in-process: nothing undeclared, nothing retyped."""
    dumped = schema.dump(value)
    assert dumped == value, first_difference(value, dumped)


@pytest.mark.parametrize("name,variant", CASES, ids=[f"{n}-{'-'.join(map(str, v.values())) or 'base'}"
                                                     for n, v in CASES])
def test_every_view_event_legal_move_and_result_of_random_play_is_typed(name, variant):
    """In-process random play of every variant: what the referee would send is declared (dump check) and valid
    under a strict validator (required, enums, nullability, exactly one union member)."""
    game, g = GAMES[name], camel(name)
    views, legal_moves, events, outcome = (fast(f"{g}{k}") for k in ("View", "LegalMove", "Event", "Outcome"))
    view_schema, outcome_schema = VIEWS[name](), OUTCOMES[name]()
    event_schemas = {kind: schema() for kind, schema in EVENT_TYPES[name].items()}
    for round_ in range(2):
        rng = random.Random(f"{name}{variant}{round_}")
        players = rng.randint(game.min_players, game.max_players)
        state, log = game.opening(players, game.load_options(players, variant), rng)
        steps = 0
        while not game.is_over(state):
            seat = rng.choice(game.to_act(state))
            if steps % 3 == 0:
                for viewer in [None, *range(players)]:
                    view = wire(game.view(state, viewer))
                    same_through(view_schema, view)
                    assert views.is_valid(view), next(views.iter_errors(view)).message
            legal = wire(game.legal_moves(state, seat))
            for m in legal:
                assert legal_moves.is_valid(m), m
            move = game.parse_move(concretize(rng.choice(legal), rng))
            log += [{"type": "moved", "data": {"seat": seat, "move": move}}, *game.apply(state, seat, move, rng)]
            steps += 1
        for viewer in [None, *range(players)]:
            view = wire(game.view(state, viewer))
            same_through(view_schema, view)
            assert views.is_valid(view), next(views.iter_errors(view)).message
        result = wire(rank_forfeits({**game.final_result(state).as_dict(), "seed": 5}, []))  # as the referee does
        same_through(outcome_schema, result)
        assert outcome.is_valid(result)
        for seq, e in enumerate(log):
            sent = wire({"seq": seq, "version": seq, "type": e["type"], "data": e["data"]})
            same_through(event_schemas[e["type"]], sent)
            assert events.is_valid(sent), (sent, next(events.iter_errors(sent)).message)


@pytest.mark.parametrize("name", GAMES)
def test_a_match_over_http_answers_as_documented(app, http, name):
    """Every seat plays random legal moves through the app (under app.testing, which dumps each answer through
    its schema); every answer is checked against openapi.yaml, and every legal move made concrete is a valid
    move request."""
    game, g = GAMES[name], camel(name)
    check(http.get("/games").json, "GameList")
    check(http.get(f"/games/{name}").json, f"{g}Game")
    rng = random.Random(name)
    players = game.min_players
    created = http.post("/matches", json={"game": name, "players": players, "options": game.variants[-1],
                                          "seed": 5, "seats": [{"name": f"p{i}"} for i in range(players)]})
    assert created.status_code == 201, created.json
    match_id = created.json["id"]
    tokens = [{"Authorization": f"Bearer {s['token']}"} for s in created.json["seats"]]
    move_request, own_moves = validator("MoveRequest"), validator(f"{g}Move")
    snap = http.get(f"/matches/{match_id}", headers=tokens[0]).json
    steps = 0
    while snap["status"] == "active":
        seat = rng.choice(snap["to_act"])
        legal = http.get(f"/matches/{match_id}/legal-moves", headers=tokens[seat]).json
        check(legal, f"{g}LegalMoves")
        move = concretize(rng.choice(legal["moves"]), rng)
        assert move_request.is_valid({"move": move}) and own_moves.is_valid(move), move
        answer = http.post(f"/matches/{match_id}/moves", headers=tokens[seat],
                           json={"move": move, "expected_version": legal["version"]})
        assert answer.status_code == 200, answer.json
        check(answer.json, f"{g}MoveResult")
        snap = http.get(f"/matches/{match_id}", headers=tokens[steps % players] if steps % 4 else {}).json
        check(snap, f"{g}Match")
        steps += 1
        assert steps < 3000
    app.extensions["referee"].score(match_id)  # what the scoring job does
    seen = set()
    for headers in [{}, *tokens]:
        check(http.get(f"/matches/{match_id}", headers=headers).json, f"{g}Match")
        after = 0
        while True:
            page = http.get(f"/matches/{match_id}/events", query_string={"after": after}, headers=headers).json
            check(page, f"{g}Events")
            if not page["events"]:
                break
            seen |= {e["type"] for e in page["events"]}
            after = page["last_seq"]
    check(http.get(f"/matches/{match_id}/result").json, f"{g}Result")
    assert seen >= {"match_created", "match_started", "moved", "match_scoring", "match_finished"}
