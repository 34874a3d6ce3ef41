"""Turn clocks against a real `referee serve`: RQ worker processes and RQ's own scheduler, 1-2 s clocks."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from clients import loadtest
from clients.client import Referee, RefereeError
from service.games import GAMES
from tests.conftest import ROOT, Server, wait_for


def timeouts(ref, mid: str) -> list[dict]:
    return [e for e in ref.events(mid)["events"] if e["type"] == "timeout"]


def humans(n: int) -> list[dict]:
    return [{"name": f"p{i}"} for i in range(n)]


def stop(ref, match_id: str, host_token: str) -> None:
    """Abort a match nobody plays any more, so its clocks stop (it may have finished already)."""
    try:
        ref.abort(match_id, host_token)
    except RefereeError as exc:
        assert exc.problem["code"] == "match_over", exc.problem


def test_each_on_timeout_in_each_game(ref):
    created = {}
    for name in sorted(GAMES):
        n = GAMES[name].min_players
        for action in ("default", "bot", "forfeit"):
            before = time.time()
            m = ref.create_match(name, n, humans(n), clock={"move_seconds": 1, "on_timeout": action})
            created[m["id"]] = (name, action, m, before)
    for mid, (name, action, m, before) in created.items():
        first = wait_for(lambda mid=mid: timeouts(ref, mid), timeout=20)[0]
        seat, data = first["data"]["seat"], first["data"]
        assert data["action"] == action and 1 <= data["deadline"] - before < 6, (name, first)
        assert data["at"] >= data["deadline"], "never before its deadline"
        snap = ref.match(mid)
        if action == "default":  # the game's default move was played for the seat
            assert snap["version"] >= first["version"] and not snap["seats"][seat]["out"], name
        elif action == "bot":
            assert snap["seats"][seat]["away"] == "random", name
            wait_for(lambda mid=mid, v=first["version"]: ref.match(mid)["version"] > v, timeout=10)  # the bot plays
        else:
            assert snap["seats"][seat]["out"] and snap["seats"][seat]["away"] is None, name
        stop(ref, mid, m["host_token"])  # nobody is coming: stop the clocks


def test_a_human_who_never_moves_sees_the_match_finish_under_on_timeout_bot(ref):
    m = ref.create_match("super_blatt", 2, [{"name": "gone"}, {"bot": "greedy"}], options={"first_seat": 0},
                         clock={"move_seconds": 1, "on_timeout": "bot", "bot": "greedy"})
    gone = ref.seat(m["id"], m["seats"][0]["token"])
    final = wait_for(lambda: (s := gone.match())["status"] == "finished" and s, timeout=60)
    assert final["seats"][0]["away"] == "greedy" and final["result"]["winners"]
    assert [e["data"]["seat"] for e in timeouts(ref, m["id"])] == [0], "timed out once, then the bot played"


def test_a_move_landing_just_before_its_deadline_is_applied_once_and_the_timeout_is_void(ref):
    m = ref.create_match("super_blatt", 2, humans(2), options={"first_seat": 0},
                         clock={"move_seconds": 1.5, "on_timeout": "default"})
    ann = ref.seat(m["id"], m["seats"][0]["token"])
    deadline = ann.match()["clock"]["seats"][0]["deadline"]
    move = ann.legal_moves()["moves"][0]
    # the move lands just before its deadline: the timeout, due to the millisecond, finds it applied (a move and
    # its timeout racing at the very deadline: tests/api/test_lifecycle.py, exactly one of them happens)
    time.sleep(max(0.0, deadline - time.time() - 0.1))
    answer = ann.move(move, expected_version=1)
    assert answer["version"] == 2
    time.sleep(2.5)  # the timeout job for (match, seat 0, version 1) was voided, or has run and found nothing owed
    mine = [e for e in ann.events()["events"] if e["type"] == "moved"]
    assert [e["version"] for e in mine][:1] == [2] and mine[0]["data"]["move"] == move
    assert [e for e in timeouts(ref, m["id"]) if e["data"]["deadline"] == deadline] == []  # (ann may owe more)
    stop(ref, m["id"], m["host_token"])


def test_away_and_back_with_real_workers(ref):
    m = ref.create_match("super_blatt", 2, humans(2), options={"first_seat": 0})
    ann, bob = (ref.seat(m["id"], s["token"]) for s in m["seats"])
    assert ref.away(m["id"], ann.token, "greedy")["away"] == "greedy"
    snap = wait_for(lambda: (s := bob.match())["to_act"] == [1] and s)  # the bot played ann's turn
    assert snap["seats"][0]["away"] == "greedy"
    assert ref.back(m["id"], ann.token)["away"] is None
    # bob plays until ann is to act (a trick bob wins gives him the lead again)
    while (s := bob.match())["to_act"] == [1]:
        bob.move(bob.legal_moves()["moves"][0])
    assert s["to_act"] == [0]
    v = s["version"]
    time.sleep(1.5)
    assert ann.match()["version"] == v, "back: nobody plays ann's seat but ann"
    ann.move(ann.legal_moves()["moves"][0])
    events = [e["type"] for e in bob.events()["events"]]
    assert events.count("away") == 1 and events.count("back") == 1
    # a seat timed out under "bot" is back as soon as its owner moves
    stop(ref, m["id"], m["host_token"])


def test_rematch_and_record_export_replay_round_trip(ref, server, tmp_path):
    m = ref.create_match("super_blatt", 2, [{"name": "ann"}, {"bot": "random"}], options={"first_seat": 0},
                         clock={"move_seconds": 1, "on_timeout": "bot"})
    ann = ref.seat(m["id"], m["seats"][0]["token"])
    wait_for(lambda: ann.match()["status"] == "finished", timeout=60)
    out = tmp_path / "match.json"
    env = dict(os.environ, REFEREE_URL=server.url)
    cmd = [sys.executable, "-m", "clients.cli"]
    subprocess.run(cmd + ["export", m["id"], "--output", str(out)], cwd=ROOT, env=env, check=True,
                   capture_output=True)
    record = json.loads(Path(out).read_text())
    assert record["seats"][1]["bot"] == "random" and record["moves"] and record["clock"]["move_seconds"] == 1
    done = subprocess.run(cmd + ["replay", str(out)], cwd=ROOT, env=env, capture_output=True, text=True)
    assert done.returncode == 0 and "same as recorded" in done.stdout, done.stdout + done.stderr
    record["result"]["winners"] = [9]
    out.write_text(json.dumps(record))
    assert subprocess.run(cmd + ["replay", str(out)], cwd=ROOT, env=env, capture_output=True).returncode == 1

    again = ref.rematch(m["id"], ann.token)
    assert ref.rematch(m["id"], ann.token) == again and again["seat"] == 1
    new = ref.match(again["id"], again["token"])
    assert [s["bot"] for s in new["seats"]] == ["random", None] and new["clock"]["move_seconds"] == 1
    wait_for(lambda: ref.match(again["id"])["version"] > 1)  # the bot, now seat 0, starts or plays on
    stop(ref, again["id"], m["host_token"])  # the old host token hosts the rematch


def test_loadtest_with_clocks_prints_how_late_timeouts_fire(server):
    figures = loadtest.run(server.url, "super_blatt", 2, matches=2, duration=3, procs=1, seed=5,
                           clock={"move_seconds": 60}, timeouts=2, timeout_seconds=1)
    assert figures["moves"] > 0 and figures["errors"] == 0
    assert figures["timeouts"] >= 2 and 0 <= figures["timeout_late_p50_ms"] <= figures["timeout_late_max_ms"] < 5000


@pytest.fixture()
def lone_server(redis_url):
    """A server of its own, on a queue of its own, so its workers can be killed."""
    srv = Server(redis_url, workers=1, env={"REFEREE_QUEUE": f"kill-{uuid.uuid4().hex[:6]}"})
    yield srv
    srv.stop()


def children(pid: int) -> list[int]:
    out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True).stdout
    return [int(p) for p in out.split()]


def test_a_worker_killed_while_a_deadline_is_pending_still_times_the_seat_out(lone_server):
    ref = Referee(lone_server.url)
    m = ref.create_match("super_blatt", 2, humans(2), options={"first_seat": 0},
                         clock={"move_seconds": 2, "on_timeout": "forfeit"})
    # the worker processes (and the scheduler each forks) die at once; the API's processes stay
    api = {p for p in children(lone_server.proc.pid)
           if Path(f"/proc/{p}/comm").read_text(errors="replace").startswith(("referee-api", "referee-app"))}
    killed = []
    for pid in children(lone_server.proc.pid):
        if pid not in api:
            for victim in children(pid) + [pid]:
                os.kill(victim, signal.SIGKILL)
                killed.append(victim)
    assert killed
    first = wait_for(lambda: timeouts(ref, m["id"]), timeout=30)[0]
    assert first["data"] == {**first["data"], "seat": 0, "action": "forfeit"}
    assert ref.match(m["id"])["seats"][0]["out"]
    stop(ref, m["id"], m["host_token"])
