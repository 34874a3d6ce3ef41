"""Clocks, away and back, records and rematches through the referee and the Flask app (in-process,
real Redis); jobs run in a burst worker on a queue of the test's own."""

from __future__ import annotations

import json
import random
import threading
import time

import pytest
from rq.job import Job

from clients.cli import main as cli
from service.core import outbox as outbox_keys
from service.core.base import Actor
from service.core.play import REFUSED
from service.core.record import replay
from service.games import GAMES
from service.games.base import concretize
from service.infra.problems import Problem
from tests import outbox
from tests.workers import test_jobs
from tests.workers.test_jobs import burst
from workers import jobs
from workers.dispatch import Dispatcher

isolated = test_jobs.isolated  # a referee on a queue of its own

PLAIN = {"Content-Type": "application/json"}


def create(http, **body) -> dict:
    body = {"game": "super_blatt", "players": 2, "seats": [{"name": "ann"}, {"name": "bob"}], **body}
    resp = http.post("/matches", json=body)
    assert resp.status_code == 201, resp.json
    return resp.json


def auth(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


def problem(resp, status: int, code: str) -> dict:
    assert resp.status_code == status, resp.json
    assert resp.mimetype == "application/problem+json" and resp.json["code"] == code, resp.json
    return resp.json


@pytest.mark.parametrize("clock", [
    {"move_seconds": 0}, {"move_seconds": -1}, {"move_seconds": 86401}, {"initial_seconds": 0},
    {"initial_seconds": 60, "increment_seconds": 0}, {"initial_seconds": 60, "increment_seconds": 90000},
    {"move_seconds": 5, "on_timeout": "resign"}, {"move_seconds": 5, "on_timeout": "bot", "bot": "grandmaster"},
    {"move_seconds": 5, "initial_seconds": 5}, {}, {"move_seconds": 5, "increment_seconds": 1},
    {"move_seconds": 5, "on_timeout": "default", "bot": "random"}, {"move_seconds": 5, "on_illegal": "resign"},
])
def test_unusable_clocks_are_refused(http, clock):
    problem(http.post("/matches", json={"game": "super_blatt", "players": 2, "clock": clock}), 422, "invalid_clock")


def test_every_new_code_is_documented_on_its_route(app):
    paths = app.extensions["referee_api"].spec.to_dict()["paths"]

    def codes(path: str, method: str) -> str:
        return json.dumps(paths[path][method]["responses"])

    assert "invalid_clock" in codes("/matches", "post")
    for code in ("already_away", "unknown_bot", "match_over", "seat_out"):
        assert code in codes("/matches/{match_id}/away", "post")
    assert "not_away" in codes("/matches/{match_id}/back", "post")
    assert "not_over" in codes("/matches/{match_id}/record", "get")
    assert "not_over" in codes("/matches/{match_id}/rematch", "post")


def test_away_back_record_and_rematch_refuse_bad_requests_and_change_nothing(http):
    m = create(http, options={"first_seat": 1})  # seat 0 is not to act: no bot turn follows its away
    mid, ann, bob = m["id"], m["seats"][0]["token"], m["seats"][1]["token"]
    before = http.get(f"/matches/{mid}", headers=auth(ann)).json
    problem(http.post(f"/matches/{mid}/record"), 405, "method_not_allowed")
    problem(http.get(f"/matches/{mid}/record"), 409, "not_over")
    problem(http.post(f"/matches/{mid}/rematch", headers=auth(ann)), 409, "not_over")
    problem(http.post(f"/matches/{mid}/back", headers=auth(ann)), 409, "not_away")
    problem(http.post(f"/matches/{mid}/away", headers=auth(ann), json={"bot": "nobody"}), 422, "unknown_bot")
    problem(http.post(f"/matches/{mid}/away", headers=auth(m["host_token"]), json={}), 403, "not_a_seat")
    problem(http.post(f"/matches/{mid}/away", json={}), 401, "bad_token")
    assert http.get(f"/matches/{mid}", headers=auth(ann)).json == before

    away = http.post(f"/matches/{mid}/away", headers=auth(ann), json={"bot": "greedy"})
    assert away.status_code == 200 and away.json == {"id": mid, "version": 2, "seat": 0, "away": "greedy"}
    after_away = http.get(f"/matches/{mid}", headers=auth(bob)).json
    assert after_away["seats"][0]["away"] == "greedy"
    problem(http.post(f"/matches/{mid}/away", headers=auth(ann), json={}), 409, "already_away")
    assert http.get(f"/matches/{mid}", headers=auth(bob)).json == after_away
    back = http.post(f"/matches/{mid}/back", headers=auth(ann))
    assert back.json == {"id": mid, "version": 3, "seat": 0, "away": None}
    events = http.get(f"/matches/{mid}/events", headers=auth(bob)).json["events"]
    assert [(e["type"], e["data"]) for e in events[-2:]] == [("away", {"seat": 0, "bot": "greedy"}),
                                                             ("back", {"seat": 0})]
    waiting = http.post("/matches", json={"game": "super_blatt", "players": 2, "seats": [{"name": "a"}, {}]}).json
    problem(http.post(f"/matches/{waiting['id']}/away", headers=auth(waiting["seats"][0]["token"]), json={}), 409,
            "match_not_started")


def test_views_show_each_deadline_with_the_server_time(isolated):
    ref, client = isolated
    m = ref.create_match("super_blatt", 2, {"first_seat": 0}, 1, [{"name": "a"}, {"name": "b"}],
                         {"move_seconds": 30, "on_timeout": "bot"})
    t = time.time()
    view = ref.snapshot(m["id"], None)["clock"]
    assert abs(view["now"] - t) < 1 and view["on_timeout"] == "bot" and view["bot"] == "random"
    assert view["seats"][1] == {"seat": 1, "deadline": None, "remaining": None}
    assert abs(view["seats"][0]["deadline"] - (t + 30)) < 1 and 29 < view["seats"][0]["remaining"] <= 30
    # the timeout job was owed by the same commit, which (matches and RQ on one server) wrote it straight into
    # the due set, where the dispatcher keeps it until its deadline; nothing waits in the outbox for it
    key, job_id = outbox_keys.due_key(ref.settings.queue), f"timeout_{m['id']}_0_1"
    assert ref.store.direct and client.zscore(key, job_id) == view["seats"][0]["deadline"]
    assert not client.exists(outbox_keys.outbox_key(m["id"], ref.settings.queue))
    # a move stops the timer: the commit voids its timeout job, which would find nothing owed
    ref.apply_move(m["id"], Actor.of(m["seats"][0]["token"]), {"type": "take", "column": 0})
    assert client.zscore(key, job_id) is None
    assert client.hget(outbox_keys.due_jobs_key(ref.settings.queue), job_id) is None
    outbox.dispatch(ref)
    assert not client.exists(Job.key_for(job_id))

    # a simultaneous decision: every seat that owes it has its own deadline, kept while others move
    pp = ref.create_match("picture_perfect", 3, {}, 2, [{"name": n} for n in "abc"],
                          {"initial_seconds": 100, "increment_seconds": 5})
    match = ref.store.load(pp["id"])
    owing = GAMES["picture_perfect"].to_act(match.state)
    assert len(owing) > 1
    first = {s["seat"]: s["deadline"] for s in ref.snapshot(pp["id"], None)["clock"]["seats"]}
    assert all(first[s] for s in owing)
    mover = owing[0]
    time.sleep(0.2)
    move = concretize(GAMES["picture_perfect"].legal_moves(match.state, mover)[0], random.Random(0))
    ref.apply_move(pp["id"], Actor.playing(mover), move)
    second = {s["seat"]: s for s in ref.snapshot(pp["id"], None)["clock"]["seats"]}
    for s in owing[1:]:
        assert second[s]["deadline"] == first[s], "a seat that did not move keeps its deadline"
    bank = second[mover]["remaining"]
    assert 100 < bank < 105, "a Fischer clock: time used is taken off, the increment added"


def play_out(ref, mid: str, rng: random.Random, seats: set[int]) -> None:
    """Random moves for ``seats`` (as the referee's own seat path) until none of them is to act."""
    while True:
        match = ref.store.load(mid)
        game = GAMES[match.game]
        owing = [s for s in game.to_act(match.state) if s in seats] if match.status == "active" else []
        if not owing:
            return
        seat = owing[0]
        ref.apply_move(mid, Actor.playing(seat), concretize(rng.choice(game.legal_moves(match.state, seat)), rng))


def played_out_with_seat_0_out(ref, client, mid: str, rng: random.Random) -> dict:
    """Seat 1 played at random, seat 0's default moves and the bot's from the worker, to the end: the result,
    in which seat 0, out, ranks last."""
    while ref.store.load(mid).status == "active":
        play_out(ref, mid, rng, {1})
        burst(ref, client)
    burst(ref, client)
    result = ref.result(mid, None)
    assert result["forfeited"] == [0] and result["ranking"][-1] == [0]
    return result


def test_a_timeout_and_a_move_at_the_same_instant_exactly_one_happens(isolated):
    ref, _ = isolated
    outcomes = []
    for k in range(12):
        m = ref.create_match("super_blatt", 2, {"first_seat": 0}, k, [{"name": "a"}, {"name": "b"}],
                             {"move_seconds": 0.05, "on_timeout": "default"})
        mid = m["id"]
        move = GAMES["super_blatt"].legal_moves(ref.store.load(mid).state, 0)[-1]
        time.sleep(0.06)
        gate, got = threading.Barrier(2), {}

        def by_clock(gate=gate, got=got, mid=mid):
            gate.wait()
            got["timeout"] = ref.timeout(mid, 0, 1)

        def by_player(gate=gate, got=got, mid=mid, token=m["seats"][0]["token"], move=move):
            gate.wait()
            try:
                got["move"] = ref.apply_move(mid, Actor.of(token), move, expected_version=1)
            except Problem as exc:
                got["move"] = exc.code

        threads = [threading.Thread(target=by_clock), threading.Thread(target=by_player)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        events = ref.events(mid, None)["events"]
        timeouts = [e for e in events if e["type"] == "timeout"]
        moved_at_1 = [e for e in ref.store.events(mid, 0) if e["type"] == "moved" and e["v"] == 2]
        assert len(moved_at_1) == 1, "exactly one move was applied at version 1"
        if got["timeout"] == "default":
            assert got["move"] == "stale_version" and len(timeouts) == 1
        else:
            assert got["timeout"] == "not owed" and isinstance(got["move"], dict) and not timeouts
        assert ref.timeout(mid, 0, 1) == "not owed", "a timeout never fires twice"
        outcomes.append(got["timeout"])
    assert len(ref.store.events(mid, 0)) > 0 and outcomes  # both orders are fine; each ran to one outcome


def test_forfeit_zombie_to_the_end_ranks_last_then_record_replay_and_rematch(isolated, tmp_path, capsys,
                                                                             monkeypatch):
    ref, client = isolated
    # bob is played by hand, between bursts of the worker: his clock runs out in none of them
    monkeypatch.setattr(jobs, "clock_timeout", lambda *args: "not here")
    monkeypatch.setattr(Dispatcher, "apply", lambda self, op: False)  # (the dispatcher hands them to the worker)
    m = ref.create_match("super_blatt", 3, {"first_seat": 0}, 5, [{"name": "ann"}, {"name": "bob"}, {"bot": "random"}],
                         {"move_seconds": 0.05, "on_timeout": "forfeit"})
    mid = m["id"]
    tokens = {s["seat"]: s["token"] for s in m["seats"] if s["token"]}
    time.sleep(0.06)
    assert ref.timeout(mid, 0, 1) == "forfeit"
    snap = ref.snapshot(mid, tokens[1])
    assert snap["seats"][0]["out"] and snap["clock"]["seats"][0]["deadline"] is None
    with pytest.raises(Problem) as exc:
        ref.away(mid, tokens[0], None)
    assert exc.value.code == "seat_out"
    result = played_out_with_seat_0_out(ref, client, mid, random.Random(1))
    assert 0 not in result["winners"]

    record = ref.record(mid, None)
    assert record["seats"][0]["forfeited"] and record["clock"]["on_timeout"] == "forfeit"
    # a move's version is the match's once it was made (applied at the one before), as in its events
    assert [m["version"] for m in record["moves"]] == list(range(3, 3 + len(record["moves"])))
    assert replay(record) == record["result"] == {k: v for k, v in result.items() if k not in ("id", "game",
                                                                                              "status")}
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    assert cli(["replay", str(path)]) == 0
    assert "same as recorded" in capsys.readouterr().out
    record["result"]["scores"][1] += 1
    path.write_text(json.dumps(record))
    assert cli(["replay", str(path), "--json"]) == 1
    assert json.loads(capsys.readouterr().out.splitlines()[-1])["same_result"] is False

    first = ref.rematch(mid, tokens[1])
    assert ref.rematch(mid, tokens[1]) == first and first["seat"] == 2
    again = ref.rematch(mid, tokens[0])
    assert again["id"] == first["id"] and again["seat"] == 1 and again["token"] != first["token"]
    new = ref.snapshot(first["id"], first["token"])
    assert new["seat"] == 2 and [s["name"] for s in new["seats"]] == ["random bot", "ann", "bob"]
    assert new["seats"][0]["bot"] == "random" and not any(s["out"] for s in new["seats"])
    assert new["clock"]["on_timeout"] == "forfeit" and new["clock"]["move_seconds"] == 0.05
    assert ref.snapshot(first["id"], again["token"])["seat"] == 1
    # each former seat finds its own new seat and token in its view of the old match, and only there
    assert ref.snapshot(mid, tokens[1])["rematch"] == first
    assert ref.snapshot(mid, tokens[0])["rematch"] == again
    assert ref.snapshot(mid, None)["rematch"] == {"id": first["id"]}
    assert first["token"] not in json.dumps(ref.snapshot(mid, tokens[0]))
    assert first["token"] not in json.dumps(ref.events(mid, tokens[0]))


def test_with_on_illegal_forfeit_a_refused_move_at_its_turn_puts_the_seat_out_and_nothing_else_does(isolated):
    ref, client = isolated
    bad = {"type": "take", "column": 99}
    plain = ref.create_match("super_blatt", 2, {"first_seat": 0}, 5, [{"name": "ann"}, {"name": "bob"}],
                             {"move_seconds": 60})
    assert ref.snapshot(plain["id"], None)["clock"]["on_illegal"] == "refuse"  # the default: refused, no more
    with pytest.raises(Problem) as exc:
        ref.apply_move(plain["id"], Actor.of(plain["seats"][0]["token"]), bad)
    assert exc.value.code in REFUSED and "forfeited" not in exc.value.extra
    assert ref.store.load(plain["id"]).version == 1 and not ref.snapshot(plain["id"], None)["seats"][0]["out"]

    m = ref.create_match("super_blatt", 3, {"first_seat": 0}, 5, [{"name": "ann"}, {"name": "bob"}, {"bot": "random"}],
                         {"move_seconds": 60, "on_illegal": "forfeit"})
    mid, tokens = m["id"], [s["token"] for s in m["seats"]]
    legal = ref.legal_moves(mid, tokens[0])["moves"]

    def refused(token: str, move: dict, **kw) -> Problem:
        with pytest.raises(Problem) as exc:
            ref.apply_move(mid, Actor.of(token), move, **kw)
        return exc.value

    # what does not cost a seat: a move out of turn (malformed or not), a stale version, the referee's own seat path
    assert refused(tokens[1], bad).code == "invalid_move" and refused(tokens[1], legal[0]).code == "not_your_turn"
    assert refused(tokens[0], legal[0], expected_version=0).code == "stale_version"
    with pytest.raises(Problem):
        ref.apply_move(mid, Actor.playing(0), bad)
    assert ref.store.load(mid).version == 1
    # a move the rules refuse, sent by the seat at its turn: refused as ever, and the seat is out
    exc = refused(tokens[0], bad)
    assert exc.code in REFUSED and exc.extra["forfeited"] is True and "forfeits the match" in exc.detail
    snap = ref.snapshot(mid, tokens[1])
    assert snap["seats"][0]["out"] and snap["clock"]["seats"][0]["deadline"] is None and snap["version"] == 2
    assert [e["data"] for e in ref.events(mid, None)["events"] if e["type"] == "forfeit"] == [
        {"seat": 0, "reason": exc.code, "at": pytest.approx(time.time(), abs=30)}]
    assert refused(tokens[0], legal[0]).code == "seat_out"
    assert not ref.forfeit(mid, 0, 2, "illegal_move")  # once out, out: nothing more is written
    played_out_with_seat_0_out(ref, client, mid, random.Random(3))
    assert ref.record(mid, None)["seats"][0]["forfeited"]


def test_a_forfeit_for_a_refused_move_answers_problem_json_with_forfeited(http):
    m = create(http, clock={"move_seconds": 60, "on_illegal": "forfeit"}, options={"first_seat": 0})
    answer = problem(http.post(f"/matches/{m['id']}/moves", json={"move": {"type": "take", "column": 99}},
                               headers=auth(m["seats"][0]["token"])), 422, "invalid_move")
    assert answer["forfeited"] is True
    assert http.get(f"/matches/{m['id']}").json["seats"][0]["out"]
    assert http.delete(f"/matches/{m['id']}", headers=auth(m["host_token"])).json["status"] == "aborted"


def test_a_seat_timed_out_under_bot_is_back_as_soon_as_its_owner_moves(isolated):
    ref, _ = isolated
    m = ref.create_match("super_blatt", 2, {"first_seat": 0}, 3, [{"name": "a"}, {"name": "b"}],
                         {"initial_seconds": 0.05, "increment_seconds": 10, "on_timeout": "bot", "bot": "greedy"})
    time.sleep(0.06)
    assert ref.timeout(m["id"], 0, 1) == "bot"
    snap = ref.snapshot(m["id"], None)
    assert snap["seats"][0]["away"] == "greedy" and snap["clock"]["seats"][0] == {
        "seat": 0, "deadline": None, "remaining": 0.0}, "the bot plays it; its Fischer bank is empty"
    # the owner moves before the bot's job has run: the move stands and the seat is back
    owner = Actor.of(m["seats"][0]["token"])
    answer = ref.apply_move(m["id"], owner, {"type": "take", "column": 0}, expected_version=2)
    assert [e["type"] for e in answer["events"]][:2] == ["back", "moved"]
    snap = ref.snapshot(m["id"], None)
    assert snap["seats"][0]["away"] is None
    if 0 in snap["to_act"]:  # still owing (after an EXTRA): it plays on its increment
        assert 9 < snap["clock"]["seats"][0]["remaining"] <= 10


def test_a_finished_match_replays_step_by_step_as_a_spectator_saw_it(isolated, http):
    """GET /matches/{id}/replay?step=k: the record played again to its k-th move, the spectator's view there;
    the end is the finished match's spectator view, and nothing is answered before the match is over."""
    ref, client = isolated
    m = ref.create_match("super_blatt", 2, {"first_seat": 0}, 7, [{"name": "ann"}, {"name": "bob"}])
    mid = m["id"]
    problem(http.get(f"/matches/{mid}/replay"), 409, "not_over")
    views = [ref.snapshot(mid, None)["view"]]
    rng = random.Random(7)
    while ref.store.load(mid).status == "active":
        match = ref.store.load(mid)
        seat = GAMES[match.game].to_act(match.state)[0]
        legal = GAMES[match.game].legal_moves(match.state, seat)
        ref.apply_move(mid, Actor.playing(seat), concretize(rng.choice(legal), rng))
        views.append(ref.snapshot(mid, None)["view"])
    burst(ref, client)
    assert ref.store.load(mid).status == "finished"
    views[-1] = ref.snapshot(mid, None)["view"]
    record = ref.record(mid, None)
    steps = len(record["moves"])
    for k in (0, 1, steps // 2, steps):
        step = ref.replay_step(mid, None, k)
        assert step["step"] == k and step["steps"] == steps
        assert step["view"] == views[k]
        # the log up to here: the events of a version below the next move's (the web table's replay log): a move's
        # version in a record is the match's once it was made, its commit one version
        assert step["version"] == (record["moves"][k]["version"] - 1 if k < steps else None)
        if k:
            assert step["move"] == record["moves"][k - 1]["move"] and step["seat"] == record["moves"][k - 1]["seat"]
            assert step["events"] and all(e["type"] != "moved" for e in step["events"])
    assert ref.replay_step(mid, None, 99999)["step"] == steps
    answer = http.get(f"/matches/{mid}/replay?step=1")
    assert answer.status_code == 200 and answer.json["view"] == json.loads(json.dumps(views[1]))
    assert answer.json["to_act"] == [1]
    problem(http.get(f"/matches/{mid}/replay?step=-1"), 422, "invalid_body")


def test_an_invited_seat_names_itself_only_its_own_and_the_others_hear_it(http):
    """An invited person's seat carries its inviter's name ("Player 2") until its holder gives one."""
    m = create(http, seats=[{"name": "ann"}, {"name": "Player 2"}, {}], players=3, game="dice_party")
    mid, ann, guest = m["id"], m["seats"][0]["token"], m["seats"][1]["token"]
    path = f"/matches/{mid}/seats/1"
    before = http.get(f"/matches/{mid}", headers=auth(ann)).json
    problem(http.patch(path, json={"name": "Bea"}), 401, "bad_token")
    problem(http.patch(path, json={"name": "Bea"}, headers=auth(m["host_token"])), 403, "not_a_seat")
    problem(http.patch(path, json={"name": "Bea"}, headers=auth(ann)), 403, "not_your_seat")
    for body in ({}, {"name": ""}, {"name": "x" * 41}, {"name": "a\nb"}, {"name": 7}):  # as join refuses them
        problem(http.patch(path, json=body, headers=auth(guest)), 422, "invalid_body")
        problem(http.post(f"/matches/{mid}/join", json=body), 422, "invalid_body")
    problem(http.patch(f"/matches/nope{mid}/seats/1", json={"name": "Bea"}, headers=auth(guest)), 404, "unknown_match")
    assert http.get(f"/matches/{mid}", headers=auth(ann)).json == before

    named = http.patch(path, json={"name": "Bea"}, headers=auth(guest))
    assert named.status_code == 200 and named.json == {"id": mid, "version": 2, "seat": 1, "name": "Bea"}
    view = http.get(f"/matches/{mid}", headers=auth(ann)).json
    assert [s["name"] for s in view["seats"]] == ["ann", "Bea", None] and view["status"] == "waiting"
    events = http.get(f"/matches/{mid}/events", headers=auth(ann)).json["events"]
    assert events[-1]["type"] == "seat_named" and events[-1]["data"] == {"seat": 1, "name": "Bea", "before": "Player 2"}

    joined = http.post(f"/matches/{mid}/join", json={"name": "cid"}).json  # a joined seat names itself too
    assert http.patch(f"/matches/{mid}/seats/2", json={"name": "Cid"}, headers=auth(joined["token"])).status_code == 200
    assert http.get(f"/matches/{mid}", headers=auth(ann)).json["seats"][2]["name"] == "Cid"
    assert http.delete(f"/matches/{mid}", headers=auth(m["host_token"])).json["status"] == "aborted"
    problem(http.patch(path, json={"name": "Bo"}, headers=auth(guest)), 409, "match_over")
    assert http.get(f"/matches/{mid}", headers=auth(ann)).json["seats"][1]["name"] == "Bea"
