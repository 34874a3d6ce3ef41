"""Bot accounts, challenges and tournaments (issue 35) against a real `referee serve` with real workers, and
`referee bot run` processes as a bot author runs them.

The server runs with short heartbeats, ticks and sweeps, and the tournaments with a short clock, so that
every wait here is bounded (seconds; a whole tournament at most 4 minutes on a loaded machine)."""

from __future__ import annotations

import itertools
import json
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter
from fractions import Fraction

import pytest
import redis
import requests

from service.competition.bots import bot_key
from tests.conftest import ROOT, Server, wait_for

CLOCK = {"move_seconds": 30, "on_timeout": "forfeit"}  # ample on a loaded machine; a killed bot waits it once


@pytest.fixture(scope="module")
def srv(redis_url):
    server = Server(redis_url, workers=2, env={
        "REFEREE_HEARTBEAT": "1", "REFEREE_TOURNAMENT_TICK": "1", "REFEREE_RELAY_SWEEP": "1",
        "REFEREE_CHALLENGE_SECONDS": "5", "REFEREE_QUEUE": f"bots-{uuid.uuid4().hex[:6]}"})
    yield server
    server.stop()


def tag() -> str:
    return uuid.uuid4().hex[:6]


def register(srv, name: str, **body) -> str:
    r = requests.post(f"{srv.url}/bots", json={"name": name, **body}, timeout=10)
    assert r.status_code == 201, r.text
    return r.json()["token"]


def auth(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


class Inbox:
    """A bot's event stream held open on a thread, its events collected as they come."""

    def __init__(self, srv, token: str, after: int = 0) -> None:
        self.events: list[dict] = []
        self.ids: list[int] = []
        self.response = requests.get(f"{srv.url}/bots/me/events", stream=True, timeout=(5, 30),
                                     headers={**auth(token), "Accept": "text/event-stream",
                                              "Last-Event-ID": str(after)})
        assert self.response.status_code == 200, self.response.text
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        frame: dict = {}
        try:
            for line in self.response.iter_lines(decode_unicode=True):
                if line:
                    key, _, value = line.partition(":")
                    frame[key] = value.lstrip(" ")
                    continue
                if "data" in frame:
                    self.ids.append(int(frame["id"]))
                    self.events.append(json.loads(frame["data"]))
                frame = {}
        except (requests.RequestException, OSError, AttributeError):
            pass

    def of(self, kind: str) -> list[dict]:
        return [e["data"] for e in self.events if e["type"] == kind]

    def wait(self, kind: str, count: int = 1, timeout: float = 15) -> list[dict]:
        return wait_for(lambda: len(self.of(kind)) >= count and self.of(kind), timeout)

    def close(self) -> None:
        self.response.close()


def bot_process(srv, name: str, tmp_path, play: str = "random") -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "clients.cli", "bot", "run", "--url", srv.url, "--name", name, "--play", play,
         "--token-file", str(tmp_path / f"{name}.token")],
        cwd=ROOT, env={**os.environ}, stdout=subprocess.DEVNULL, stderr=open(tmp_path / f"{name}.log", "w"))


def concrete(move: dict) -> dict:
    """A legal move as sent: a range object (``{"min", "max", "step"}``) in place of a number is its least."""
    return {k: v["min"] if isinstance(v, dict) and "min" in v else v for k, v in move.items()}


def online(srv, name: str) -> bool:
    return any(b["name"] == name and b["online"] for b in requests.get(f"{srv.url}/bots", timeout=10).json()["bots"])


def stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


# -- accounts ---------------------------------------------------------------------------------------------
def test_a_bot_registers_once_is_listed_and_only_its_own_token_retires_it(srv):
    name, other = f"a-{tag()}", f"b-{tag()}"
    token = register(srv, name, games=["super_blatt"])
    other_token = register(srv, other)
    again = requests.post(f"{srv.url}/bots", json={"name": name}, timeout=10)
    assert again.status_code == 409 and again.json()["code"] == "bot_exists"
    bad = requests.post(f"{srv.url}/bots", json={"name": "Not A Name"}, timeout=10)
    assert bad.status_code == 422 and bad.json()["code"] == "invalid_body"
    listed = {b["name"]: b for b in requests.get(f"{srv.url}/bots", timeout=10).json()["bots"]}
    assert listed[name] == {"name": name, "games": ["super_blatt"], "online": False, "ratings": {}}
    assert "token" not in json.dumps(listed[name])
    refused = requests.delete(f"{srv.url}/bots/{name}", headers=auth(other_token), timeout=10)
    assert refused.status_code == 403 and refused.json()["code"] == "not_your_bot"
    assert requests.delete(f"{srv.url}/bots/{name}", headers=auth("x" * 32), timeout=10).json()["code"] == "bad_token"
    assert requests.delete(f"{srv.url}/bots/{name}", headers=auth(token), timeout=10).status_code == 200
    names = [b["name"] for b in requests.get(f"{srv.url}/bots", timeout=10).json()["bots"]]
    assert name not in names and other in names
    gone = requests.get(f"{srv.url}/bots/me/events", headers=auth(token), timeout=10)
    assert gone.status_code == 401 and gone.json()["code"] == "bad_token"


def test_a_bot_is_online_while_it_holds_its_stream_which_resumes_from_last_event_id(srv):
    name = f"on-{tag()}"
    token = register(srv, name)
    assert not online(srv, name)
    inbox = Inbox(srv, token)
    wait_for(lambda: online(srv, name), 10)
    sent = [requests.post(f"{srv.url}/bots/{name}/challenges", json={"game": "super_blatt", "players": 2},
                          timeout=10).json() for _ in range(3)]
    got = inbox.wait("challenge", 3)
    assert [c["id"] for c in got] == [c["id"] for c in sent]
    assert inbox.ids == sorted(inbox.ids) and len(set(inbox.ids)) == 3
    inbox.close()
    wait_for(lambda: not online(srv, name), 10)
    offline = requests.post(f"{srv.url}/bots/{name}/challenges", json={"game": "super_blatt", "players": 2},
                            timeout=10)
    assert offline.status_code == 409 and offline.json()["code"] == "bot_offline"
    resumed = Inbox(srv, token, after=inbox.ids[0])
    assert [c["id"] for c in resumed.wait("challenge", 2)] == [c["id"] for c in sent[1:]]
    time.sleep(1.5)  # a heartbeat or more: nothing else comes
    assert len(resumed.events) == 2
    page = requests.get(f"{srv.url}/bots/me/events?after=1", headers=auth(token), timeout=10).json()
    assert [e["data"]["id"] for e in page["events"]] == [c["id"] for c in sent[1:]]
    resumed.close()


# -- challenges -----------------------------------------------------------------------------------------------
def test_a_challenge_is_declined_lapses_or_is_accepted_and_becomes_an_ordinary_match(srv):
    name = f"ch-{tag()}"
    token = register(srv, name, games=["super_blatt"])
    inbox = Inbox(srv, token)
    wait_for(lambda: online(srv, name), 10)
    url = f"{srv.url}/bots/{name}/challenges"
    other_game = requests.post(url, json={"game": "paparazzo", "players": 3}, timeout=10)
    assert other_game.status_code == 422 and other_game.json()["code"] == "game_not_played"

    declined = requests.post(url, json={"game": "super_blatt", "players": 2}, timeout=10).json()
    r = requests.post(f"{srv.url}/bots/me/challenges/{declined['id']}/decline", json={"reason": "busy"},
                      headers=auth(token), timeout=10)
    assert r.status_code == 200 and r.json()["status"] == "declined"
    seen = requests.get(f"{url}/{declined['id']}", headers=auth(declined["token"]), timeout=10).json()
    assert seen["status"] == "declined" and seen["reason"] == "busy" and "match" not in seen
    late = requests.post(f"{srv.url}/bots/me/challenges/{declined['id']}/accept", headers=auth(token), timeout=10)
    assert late.status_code == 409 and late.json()["code"] == "challenge_closed"

    lapsing = requests.post(url, json={"game": "super_blatt", "players": 2, "seconds": 0.5}, timeout=10).json()
    time.sleep(1)
    assert requests.get(f"{url}/{lapsing['id']}", headers=auth(lapsing["token"]), timeout=10).json()["status"] == \
        "lapsed"
    r = requests.post(f"{srv.url}/bots/me/challenges/{lapsing['id']}/accept", headers=auth(token), timeout=10)
    assert r.status_code == 409 and r.json()["code"] == "challenge_closed" and "lapsed" in r.json()["detail"]

    spec = {"game": "super_blatt", "players": 2, "seats": [{"name": "challenger"}, {"bot_account": name}],
            "clock": {"move_seconds": 30, "on_timeout": "default"}}
    accepted = requests.post(url, json=spec, timeout=10).json()
    assert accepted["status"] == "pending"
    assert inbox.wait("challenge", 3)[-1]["seat"] == 1
    r = requests.post(f"{srv.url}/bots/me/challenges/{accepted['id']}/accept", headers=auth(token), timeout=10)
    assert r.status_code == 201 and r.json()["seat"] == 1
    match_id = r.json()["match_id"]
    seen = requests.get(f"{url}/{accepted['id']}", headers=auth(accepted["token"]), timeout=10).json()
    assert seen["status"] == "accepted" and seen["match"]["id"] == match_id
    mine, bots_seat = seen["match"]["seats"]
    assert mine["token"] and bots_seat["token"] is None and bots_seat["bot_account"] == name
    by_bot = requests.get(f"{url}/{accepted['id']}", headers=auth(token), timeout=10).json()
    assert by_bot["match_id"] == match_id and "match" not in by_bot  # the bot never sees the challenger's tokens
    started = inbox.wait("match.started")[0]
    assert started["match_id"] == match_id and started["seat"] == 1

    # an ordinary match: the challenger and the bot play it to the end, then a rematch is possible
    bot_token = started["token"]
    deadline = time.monotonic() + 60
    while True:
        m = requests.get(f"{srv.url}/matches/{match_id}", headers=auth(mine["token"]), timeout=10).json()
        if m["status"] != "active" or time.monotonic() > deadline:
            break
        for seat, token_ in ((0, mine["token"]), (1, bot_token)):
            if seat in m["to_act"]:
                moves = requests.get(f"{srv.url}/matches/{match_id}/legal-moves", headers=auth(token_),
                                     timeout=10).json()["moves"]
                requests.post(f"{srv.url}/matches/{match_id}/moves", headers=auth(token_), timeout=10,
                              json={"move": concrete(moves[0])})
    wait_for(lambda: requests.get(f"{srv.url}/matches/{match_id}", timeout=10).json()["status"] == "finished", 20)
    assert inbox.wait("match.finished")[0]["match_id"] == match_id
    turns = [t for t in inbox.of("turn") if t["match_id"] == match_id]
    assert turns and all(t["seat"] == 1 for t in turns)
    record = requests.get(f"{srv.url}/matches/{match_id}/record", headers=auth(mine["token"]), timeout=10).json()
    assert record["seats"][1]["name"] == name and record["clock"]["move_seconds"] == 30
    assert requests.post(f"{srv.url}/matches/{match_id}/rematch", headers=auth(mine["token"]),
                         timeout=10).status_code in (200, 201)
    inbox.close()


def test_a_bot_token_acts_for_no_other_bot_and_a_seat_token_for_no_other_match(srv):
    a, b = f"ta-{tag()}", f"tb-{tag()}"
    token_a, token_b = register(srv, a), register(srv, b)
    inbox_a, inbox_b = Inbox(srv, token_a), Inbox(srv, token_b)
    wait_for(lambda: online(srv, a) and online(srv, b), 10)
    ma = requests.post(f"{srv.url}/matches", json={"game": "super_blatt", "players": 2, "options": {"first_seat": 0},
                                                   "seats": [{"bot_account": a}, {"name": "human"}]}, timeout=10)
    mb = requests.post(f"{srv.url}/matches", json={"game": "super_blatt", "players": 2, "options": {"first_seat": 0},
                                                   "seats": [{"bot_account": b}, {"name": "human"}]}, timeout=10)
    assert ma.status_code == 201 and mb.status_code == 201
    assert ma.json()["seats"][0]["token"] is None  # the host never gets the bot's seat token
    seat_a = inbox_a.wait("match.started")[0]
    inbox_b.wait("match.started")
    mb_id = mb.json()["id"]
    moves = inbox_b.wait("turn")[0]["moves"]
    for token in (seat_a["token"], token_a):  # a's seat token, a's bot token: not b's seat
        r = requests.post(f"{srv.url}/matches/{mb_id}/moves", json={"move": concrete(moves[0])}, headers=auth(token),
                          timeout=10)
        assert r.status_code == 401 and r.json()["code"] == "bad_token"
        r = requests.get(f"{srv.url}/matches/{mb_id}/legal-moves", headers=auth(token), timeout=10)
        assert r.status_code == 401
    challenge = requests.post(f"{srv.url}/bots/{b}/challenges", json={"game": "super_blatt", "players": 2},
                              timeout=10).json()
    r = requests.post(f"{srv.url}/bots/me/challenges/{challenge['id']}/accept", headers=auth(token_a), timeout=10)
    assert r.status_code == 404 and r.json()["code"] == "unknown_challenge"
    r = requests.get(f"{srv.url}/bots/{b}/challenges/{challenge['id']}", headers=auth(token_a), timeout=10)
    assert r.status_code == 401
    assert requests.delete(f"{srv.url}/bots/{b}", headers=auth(token_a), timeout=10).status_code == 403
    assert all(e["data"].get("match_id") != mb_id for e in inbox_a.events)  # nothing of b's match reaches a
    for m in (ma.json(), mb.json()):
        requests.delete(f"{srv.url}/matches/{m['id']}", headers=auth(m["host_token"]), timeout=10)
    inbox_a.close()
    inbox_b.close()


def test_a_turn_carries_only_its_own_seats_view_and_legal_moves(srv):
    name = f"hid-{tag()}"
    token = register(srv, name)
    inbox = Inbox(srv, token)
    wait_for(lambda: online(srv, name), 10)
    created = requests.post(f"{srv.url}/matches", json={
        "game": "paparazzo", "players": 3, "seats": [{"name": "p0"}, {"bot_account": name}, {"name": "p2"}]},
        timeout=10).json()
    match_id = created["id"]
    started = inbox.wait("match.started")[0]
    people = {s["seat"]: s["token"] for s in created["seats"] if s["token"]}
    checked = 0
    deadline = time.monotonic() + 60
    while checked < 3 and time.monotonic() < deadline:
        m = requests.get(f"{srv.url}/matches/{match_id}", headers=auth(started["token"]), timeout=10).json()
        if m["status"] != "active":
            break
        if 1 in m["to_act"]:
            turn = wait_for(lambda v=m["version"]: next(
                (t for t in inbox.of("turn") if t["match_id"] == match_id and t["version"] == v), None), 10)
            assert turn["seat"] == 1 and turn["view"] == m["view"]
            legal = requests.get(f"{srv.url}/matches/{match_id}/legal-moves", headers=auth(started["token"]),
                                 timeout=10).json()
            assert turn["moves"] == legal["moves"]
            for seat, other in people.items():
                theirs = requests.get(f"{srv.url}/matches/{match_id}", headers=auth(other), timeout=10).json()
                assert theirs["view"] != turn["view"], seat  # another seat's hidden cards are not in the turn
            requests.post(f"{srv.url}/matches/{match_id}/moves", headers=auth(started["token"]), timeout=10,
                          json={"move": concrete(turn["moves"][0]), "expected_version": turn["version"]})
            checked += 1
            continue
        seat = m["to_act"][0]
        moves = requests.get(f"{srv.url}/matches/{match_id}/legal-moves", headers=auth(people[seat]),
                             timeout=10).json()["moves"]
        requests.post(f"{srv.url}/matches/{match_id}/moves", headers=auth(people[seat]),
                      json={"move": concrete(moves[0])}, timeout=10)
    assert checked == 3
    assert all(t["seat"] == 1 for t in inbox.of("turn"))
    requests.delete(f"{srv.url}/matches/{match_id}", headers=auth(created["host_token"]), timeout=10)
    assert inbox.wait("match.finished")[0]["status"] == "aborted"
    inbox.close()


def answer_turns(srv, inbox: Inbox, match_id: str, token: str, turns: int) -> int:
    """Answer the bot's next ``turns`` turns of a match from its inbox (the first legal move); how many."""
    answered = set()
    deadline = time.monotonic() + 60
    while len(answered) < turns and time.monotonic() < deadline:
        if requests.get(f"{srv.url}/matches/{match_id}", timeout=10).json()["status"] != "active":
            break
        turn = next((t for t in inbox.of("turn") if t["match_id"] == match_id and t["version"] not in answered), None)
        if turn is None:
            time.sleep(0.05)
            continue
        answered.add(turn["version"])
        requests.post(f"{srv.url}/matches/{match_id}/moves", headers=auth(token), timeout=10,
                      json={"move": concrete(turn["moves"][0]), "expected_version": turn["version"]})
    return len(answered)


def test_a_finished_match_leaves_nothing_in_the_account_a_rematch_reseats_the_bot_and_retiring_hands_it_on(
        srv, redis_url):
    name = f"ret-{tag()}"
    token = register(srv, name, games=["super_blatt"], away="greedy")
    inbox = Inbox(srv, token)
    wait_for(lambda: online(srv, name), 10)
    store = redis.Redis.from_url(redis_url)

    def fields_of(match_id: str) -> list[bytes]:
        return [f for f in store.hkeys(bot_key(name)) if match_id.encode() in f]

    def create() -> tuple[str, str]:
        match_id = requests.post(f"{srv.url}/matches", timeout=10, json={
            "game": "super_blatt", "players": 2, "seats": [{"bot": "random"}, {"bot_account": name}]}).json()["id"]
        started = wait_for(lambda: next((e for e in inbox.of("match.started") if e["match_id"] == match_id), None), 15)
        return match_id, started["token"]

    # played to the end: match.finished comes once, and the account keeps no field of that match
    first, seat_token = create()
    answer_turns(srv, inbox, first, seat_token, 10_000)
    finished = wait_for(lambda: [e for e in inbox.of("match.finished") if e["match_id"] == first], 30)
    assert finished[0]["status"] == "finished" and fields_of(first) == []
    # a rematch (asked by the bot itself here) seats it again, rotated, and tells it so
    asked = requests.post(f"{srv.url}/matches/{first}/rematch", headers=auth(seat_token), timeout=10).json()
    second = asked["id"]
    started = wait_for(lambda: [e for e in inbox.of("match.started") if e["match_id"] == second], 15)
    assert len(started) == 1 and started[0]["seat"] == asked["seat"] == 0 and started[0]["token"] == asked["token"]
    assert requests.get(f"{srv.url}/matches/{second}", timeout=10).json()["seats"][0]["name"] == name
    requests.post(f"{srv.url}/matches/{first}/rematch", headers=auth(seat_token), timeout=10)  # asked again: no news
    # retired in the middle of a match: its away bot plays its seat to the end
    seat_token = started[0]["token"]
    assert answer_turns(srv, inbox, second, seat_token, 2) == 2
    assert len([e for e in inbox.of("match.started") if e["match_id"] == second]) == 1
    assert fields_of(second)
    assert requests.delete(f"{srv.url}/bots/{name}", headers=auth(token), timeout=10).status_code == 200
    inbox.close()
    wait_for(lambda: requests.get(f"{srv.url}/matches/{second}", timeout=10).json()["status"] == "finished", 60)
    events = requests.get(f"{srv.url}/matches/{second}/events", timeout=10).json()["events"]
    assert {"seat": 0, "bot": "greedy"} in [e["data"] for e in events if e["type"] == "away"]
    assert not store.exists(bot_key(name))


# -- tournaments ------------------------------------------------------------------------------------------
def points_of(ranking: list[list[int]], players: int) -> list[Fraction]:
    """The docs' ruling, computed again: place k of P is worth (P - k) / (P - 1), ties share."""
    out, place = [Fraction(0)] * players, 0
    for tied in ranking:
        share = sum(Fraction(players - 1 - (place + i), players - 1) for i in range(len(tied))) / len(tied)
        for seat in tied:
            out[seat] = share
        place += len(tied)
    return out


def check_standings(srv, tour: dict, bye_points: Fraction) -> dict[str, Fraction]:
    """The standings recomputed from every match's own result, with Buchholz and Sonneborn-Berger."""
    points: Counter = Counter()
    played = []
    for r in tour["rounds"]:
        for name in r["byes"]:
            points[name] += bye_points
        for m in r["matches"]:
            result = requests.get(f"{srv.url}/matches/{m['match_id']}/result", timeout=10).json()
            names = [s["participant"] for s in m["seats"]]
            got = points_of(result["ranking"], len(names))
            assert [float(p) for p in got] == m["points"]
            for name, p in zip(names, got):
                points[name] += p
            played.append((names, got))
    buchholz: Counter = Counter()
    sb: Counter = Counter()
    for names, got in played:
        for i, name in enumerate(names):
            mean = sum(points[o] for o in names if o != name) / (len(names) - 1)
            buchholz[name] += mean
            sb[name] += got[i] * mean
    rows = {row["participant"]: row for row in tour["standings"]}
    assert set(rows) == set(tour["participants"])
    for name, row in rows.items():
        assert row["points"] == pytest.approx(float(points[name]))
        assert row["buchholz"] == pytest.approx(float(buchholz[name]))
        assert row["sonneborn_berger"] == pytest.approx(float(sb[name]))
    order = [row["participant"] for row in tour["standings"]]
    keys = [(-points[n], -buchholz[n], -sb[n]) for n in order]
    assert keys == sorted(keys)
    assert [row["rank"] for row in tour["standings"]] == list(range(1, len(order) + 1))
    return points


def finish(srv, tid: str, timeout: float = 360) -> dict:
    return wait_for(lambda: (t := requests.get(f"{srv.url}/tournaments/{tid}", timeout=10).json())["status"]
                    == "finished" and t, timeout, 0.5)


def test_two_bot_run_processes_and_a_builtin_play_a_round_robin_and_a_swiss_to_the_end(srv, tmp_path):
    alpha, beta = f"alpha-{tag()}", f"beta-{tag()}"
    procs = [bot_process(srv, alpha, tmp_path), bot_process(srv, beta, tmp_path, "greedy")]
    try:
        wait_for(lambda: online(srv, alpha) and online(srv, beta), 30)
        everyone = [alpha, beta, "builtin:greedy"]
        r = requests.post(f"{srv.url}/tournaments", json={
            "game": "super_blatt", "players_per_match": 2, "format": "round_robin", "participants": everyone,
            "clock": CLOCK}, timeout=10)
        assert r.status_code == 201, r.text
        assert r.json()["status"] == "running" and len(r.json()["rounds"]) == 1
        rr = finish(srv, r.json()["id"])
        assert rr["round"] == rr["rounds_total"] == 3
        pairs = Counter(frozenset(s["participant"] for s in m["seats"]) for m in rr["matches"])
        assert pairs == Counter(frozenset(p) for p in itertools.combinations(everyone, 2))
        assert sorted(b for r_ in rr["rounds"] for b in r_["byes"]) == sorted(everyone)
        firsts = Counter(m["seats"][0]["participant"] for m in rr["matches"])
        assert max(firsts.values()) == 1  # seats rotated: each sits first once
        assert all(m["status"] == "finished" for m in rr["matches"])
        check_standings(srv, rr, Fraction(0))
        assert sum(row["forfeits"] for row in rr["standings"]) == 0

        r = requests.post(f"{srv.url}/tournaments", json={
            "game": "super_blatt", "players_per_match": 2, "format": "swiss", "rounds": 3,
            "participants": everyone, "clock": CLOCK}, timeout=10)
        assert r.status_code == 201, r.text
        sw = finish(srv, r.json()["id"])
        assert sw["rounds_total"] == 3 and len(sw["rounds"]) == 3
        pairs = Counter(frozenset(s["participant"] for s in m["seats"]) for m in sw["matches"])
        assert max(pairs.values()) == 1  # no rematch where one was avoidable
        assert Counter(b for r_ in sw["rounds"] for b in r_["byes"]) == Counter(everyone)  # one bye each
        check_standings(srv, sw, Fraction(1))

        ladder = {e["name"]: e for e in requests.get(f"{srv.url}/ladder?game=super_blatt", timeout=10)
                  .json()["games"][0]["entrants"]}
        assert ladder[alpha]["matches"] == ladder[beta]["matches"] == 4
        listed = {b["name"]: b for b in requests.get(f"{srv.url}/bots", timeout=10).json()["bots"]}
        assert listed[alpha]["ratings"]["super_blatt"]["matches"] == 4
        page = requests.get(f"{srv.url}/tournaments/{sw['id']}/page", timeout=10)
        assert page.status_code == 200 and "tournament.js" in page.text
        assert sw["id"] in [t["id"] for t in requests.get(f"{srv.url}/tournaments", timeout=10).json()["tournaments"]]
    finally:
        for p in procs:
            stop(p)
    assert all(p.returncode == 0 for p in procs)


def test_a_bot_killed_mid_tournament_forfeits_or_is_played_by_its_away_bot_and_the_tournament_ends(srv, tmp_path):
    alpha, beta = f"ka-{tag()}", f"kb-{tag()}"
    procs = {alpha: bot_process(srv, alpha, tmp_path), beta: bot_process(srv, beta, tmp_path)}
    try:
        wait_for(lambda: online(srv, alpha) and online(srv, beta), 30)
        r = requests.post(f"{srv.url}/tournaments", json={
            "game": "super_blatt", "players_per_match": 2, "format": "round_robin",
            "participants": [alpha, beta, "builtin:random", "builtin:greedy"], "clock": CLOCK}, timeout=10)
        assert r.status_code == 201, r.text
        tid = r.json()["id"]
        first = r.json()["rounds"][0]["matches"]
        mine = next(m["match_id"] for m in first if alpha in [s["participant"] for s in m["seats"]])
        wait_for(lambda: requests.get(f"{srv.url}/matches/{mine}", timeout=10).json()["version"] > 4, 30)
        procs[alpha].kill()  # mid-match, without a word
        procs[alpha].wait()
        wait_for(lambda: not online(srv, alpha), 10)
        done = finish(srv, tid)
        rows = {row["participant"]: row for row in done["standings"]}
        assert rows[alpha]["matches"] == 3 and all(m["status"] == "finished" for m in done["matches"])
        check_standings(srv, done, Fraction(0))
        # the match it was playing: its clock ran out at the turn it had been sent (forfeit), or its next turn
        # came once it was offline (its away bot played on); the later ones: its away bot played them
        seat = next(s["seat"] for m in done["matches"] if m["match_id"] == mine
                    for s in m["seats"] if s["participant"] == alpha)
        events = requests.get(f"{srv.url}/matches/{mine}/events?limit=1000", timeout=10).json()["events"]
        forfeited = any(e["type"] == "timeout" and e["data"]["seat"] == seat and e["data"]["action"] == "forfeit"
                        for e in events)
        assert forfeited or any(e["type"] == "away" and e["data"]["seat"] == seat for e in events)
        assert rows[alpha]["forfeits"] == int(forfeited)
        later = [m for m in done["matches"] if m["round"] > 1 and alpha in [s["participant"] for s in m["seats"]]]
        for m in later:
            seat = next(s["seat"] for s in m["seats"] if s["participant"] == alpha)
            events = requests.get(f"{srv.url}/matches/{m['match_id']}/events?limit=1000", timeout=10).json()["events"]
            assert any(e["type"] == "away" and e["data"]["seat"] == seat for e in events), m
        assert rows[beta]["forfeits"] == 0
    finally:
        for p in procs.values():
            stop(p)


def test_bot_run_reconnects_after_a_dropped_stream_and_resumes_without_replaying(srv, tmp_path):
    """``referee bot run``'s runner (clients/botrun.py) on a thread: its stream is cut under it; it reconnects
    from its last event id, accepts a challenge and plays the match to the end; it stops when told."""
    from clients.botrun import BotRunner

    name = f"re-{tag()}"
    runner = BotRunner(srv.url, name, "greedy", ["super_blatt"], token_file=tmp_path / "token", log=lambda _: None)
    thread = threading.Thread(target=runner.run, daemon=True)
    thread.start()
    try:
        wait_for(lambda: online(srv, name), 15)
        first = runner.response
        first.raw.connection.sock.shutdown(2)  # the network drops the stream
        wait_for(lambda: runner.response is not first and online(srv, name), 15)
        challenge = requests.post(f"{srv.url}/bots/{name}/challenges", timeout=10, json={
            "game": "super_blatt", "players": 2, "seats": [{"bot_account": name}, {"bot": "random"}]}).json()
        status = wait_for(lambda: (c := requests.get(f"{srv.url}/bots/{name}/challenges/{challenge['id']}",
                                                     headers=auth(challenge["token"]), timeout=10).json())
                          ["status"] == "accepted" and c, 15)
        wait_for(lambda: any(f["match_id"] == status["match_id"] for f in runner.finished), 180)
        assert runner.moves >= 10 and runner.latencies
        assert requests.get(f"{srv.url}/matches/{status['match_id']}", timeout=10).json()["status"] == "finished"
    finally:
        runner.stop()
        thread.join(15)
    assert not thread.is_alive()
