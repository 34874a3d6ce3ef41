"""Against a real `referee serve` (the front and its app processes, RQ worker processes, Redis)."""

from __future__ import annotations

import json
import random
import threading
import time
import uuid

import requests

from clients.client import RefereeError
from service.core.record import match_rng
from service.games import GAMES
from tests.conftest import wait_for

GAME = GAMES["super_blatt"]


def replay(ref, mid: str, tokens: list[str], seed, players: int) -> dict:
    """Rebuild the match from its seed and the `moved` events alone, as the referee would."""
    state = GAME.setup(players, GAME.load_options(players, {}), match_rng(seed, "setup"))
    moved = sorted((e for t in tokens for e in ref.events(mid, t)["events"] if e["type"] == "moved"),
                   key=lambda e: e["version"])  # each seat sees only its own moves
    versions = []
    for e in moved:
        versions.append(e["version"])
        GAME.apply(state, e["data"]["seat"], e["data"]["move"], match_rng(seed, e["version"] - 1))
    assert versions == sorted(set(versions)), "a version carries exactly one move"
    return state


def test_human_match_to_the_end_with_result_and_resumable_events(ref):
    m = ref.create_match("super_blatt", 2, [{"name": "ann"}, {"name": "bob"}], seed="walk")
    seats = [ref.seat(m["id"], s["token"]) for s in m["seats"]]
    rng = random.Random(3)
    seen = 0
    while True:
        snap = seats[0].match()
        if snap["status"] != "active":
            break
        mover = snap["to_act"][0]
        me = seats[mover]
        legal = me.legal_moves()
        answer = me.move(rng.choice(legal["moves"]), expected_version=legal["version"])
        assert answer["version"] == legal["version"] + 1
        if mover in answer["to_act"]:  # a compound turn: the answer lists the next legal moves
            assert answer["legal_moves"] == me.legal_moves()["moves"]
        else:
            assert answer["legal_moves"] == []
        page = seats[0].events(after=seen)
        seen = page["last_seq"]
    final = wait_for(lambda: (s := seats[1].match())["status"] == "finished" and s)
    result = ref.result(m["id"])
    assert result["winners"] and len(result["scores"]) == 2 and result["seed"] == "walk"
    assert final["view"]["deck"] == []  # everything is revealed at the end
    state = replay(ref, m["id"], [s.token for s in seats], "walk", 2)
    assert state["scores"] == result["scores"]
    all_events = ref.events(m["id"], seats[0].token)["events"]
    assert [e["seq"] for e in all_events] == sorted({e["seq"] for e in all_events})
    assert ref.events(m["id"], seats[0].token, after=all_events[-3]["seq"])["events"] == all_events[-2:]


def test_all_bot_match_finishes_on_workers(ref):
    m = ref.create_match("super_blatt", 3, [{"bot": "greedy"}, {"bot": "random"}, {"bot": "random"}])
    assert m["status"] == "active" and all(s["token"] is None for s in m["seats"])
    snap = wait_for(lambda: (s := ref.match(m["id"], m["host_token"]))["status"] == "finished" and s, timeout=60)
    assert snap["result"]["winners"]
    assert any(e["type"] == "match_finished" for e in ref.events(m["id"])["events"])


def test_32_threads_on_one_match_only_one_move_per_version(ref):
    """32 threads race on one match: every version gets exactly one move, none twice, none lost."""
    m = ref.create_match("super_blatt", 2, [{"name": "a"}, {"name": "b"}], seed=32)
    tokens = [s["token"] for s in m["seats"]]
    accepted, refused, failures = [], [], []
    lock = threading.Lock()
    stop = time.monotonic() + 60

    def racer(i: int) -> None:
        rng = random.Random(i)
        session = requests.Session()
        url = ref.url
        while time.monotonic() < stop:
            snap = session.get(f"{url}/matches/{m['id']}", headers={"Authorization": f"Bearer {tokens[0]}"}).json()
            if snap["status"] != "active":
                return
            seat = snap["to_act"][0]
            head = {"Authorization": f"Bearer {tokens[seat]}"}
            legal = session.get(f"{url}/matches/{m['id']}/legal-moves", headers=head).json()
            if not legal["moves"]:
                continue
            body = {"move": rng.choice(legal["moves"])}
            if i % 2:
                body["expected_version"] = legal["version"]
            r = session.post(f"{url}/matches/{m['id']}/moves", json=body, headers=head)
            with lock:
                if r.status_code == 200:
                    accepted.append(r.json()["version"])
                elif r.status_code in (409, 422):
                    refused.append(r.json()["code"])
                else:
                    failures.append((r.status_code, r.text))

    threads = [threading.Thread(target=racer, args=(i,)) for i in range(32)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures
    assert len(accepted) == len(set(accepted)), "a version was applied twice"
    assert set(refused) <= {"stale_version", "not_your_turn", "illegal_move", "match_over"}
    snap = ref.match(m["id"], tokens[0])
    assert snap["status"] in ("scoring", "finished")
    moves = sorted(e["version"] for t in tokens for e in ref.events(m["id"], t)["events"] if e["type"] == "moved")
    assert sorted(accepted) == moves, "every accepted move is in the log, no other"
    state = replay(ref, m["id"], tokens, 32, 2)
    assert json.loads(json.dumps(GAME.view(state, 0))) == snap["view"], "replaying the log gives the match"


def test_idempotency_key_replays_the_first_answer(ref):
    """8 concurrent sends of one key, for 12 moves in a row (EXTRA follow-ups included): one apply each."""
    m = ref.create_match("super_blatt", 2, [{"name": "a"}, {"name": "b"}], seed=5)
    tokens = [s["token"] for s in m["seats"]]
    for _ in range(12):
        snap = ref.match(m["id"], tokens[0])
        seat = snap["to_act"][0]
        legal = ref.legal_moves(m["id"], tokens[seat])
        key = str(uuid.uuid4())
        answers = []

        def send(answers=answers, seat=seat, move=legal["moves"][0], key=key):
            try:
                answers.append(ref.move(m["id"], tokens[seat], move, idempotency_key=key))
            except RefereeError as exc:
                answers.append(exc.problem)

        threads = [threading.Thread(target=send) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert all(a == answers[0] for a in answers), answers
        assert ref.match(m["id"], tokens[0])["version"] == legal["version"] + 1
        assert ref.move(m["id"], tokens[seat], legal["moves"][0], idempotency_key=key) == answers[0]


def test_long_poll_wakes_on_a_move_and_times_out_otherwise(ref):
    m = ref.create_match("super_blatt", 2, [{"name": "a"}, {"name": "b"}], seed=9)
    tokens = [s["token"] for s in m["seats"]]
    snap = ref.match(m["id"], tokens[0])
    t0 = time.monotonic()
    same = ref.match(m["id"], tokens[0], since=snap["version"], wait=1)
    assert same["version"] == snap["version"] and 0.9 < time.monotonic() - t0 < 5
    seat = snap["to_act"][0]

    def later():
        time.sleep(0.5)
        ref.move(m["id"], tokens[seat], ref.legal_moves(m["id"], tokens[seat])["moves"][0])

    threading.Thread(target=later).start()
    t0 = time.monotonic()
    woke = ref.match(m["id"], tokens[0], since=snap["version"], wait=20)
    assert woke["version"] == snap["version"] + 1 and time.monotonic() - t0 < 10


def test_server_sent_events_resume_with_last_event_id(ref):
    m = ref.create_match("super_blatt", 2, [{"bot": "random"}, {"bot": "random"}], seed=4)
    got = list(ref.stream(m["id"], m["host_token"], wait=60))
    assert got[-1]["type"] == "match_finished"
    assert [e["seq"] for e in got] == sorted(e["seq"] for e in got)
    r = requests.get(f"{ref.url}/matches/{m['id']}/events", headers={"Accept": "text/event-stream",
                                                                     "Last-Event-ID": str(got[-3]["seq"])},
                     params={"wait": 5}, stream=True, timeout=30)
    assert r.headers["Content-Type"].startswith("text/event-stream")
    frames = [f.split("\n") for f in r.text.split("\n\n") if f.startswith("id: ")]
    assert [int(f[0][4:]) for f in frames if f[1] != "event: end"] == [e["seq"] for e in got[-2:]]
    assert frames[-1][1] == "event: end", "the last word once the match is over"


def test_views_never_show_the_deck_or_unturned_trends_over_http(ref):
    m = ref.create_match("super_blatt", 3, [{"name": "a"}, {"name": "b"}, {"name": "c"}])
    tokens = [s["token"] for s in m["seats"]] + [None, m["host_token"]]
    for token in tokens:
        snap = ref.match(m["id"], token)
        assert "deck" not in snap["view"] and "trend_deck" not in snap["view"] and "seed" not in snap
        text = json.dumps(ref.events(m["id"], token)) + json.dumps(snap)
        assert "trend_deck" not in text
    seat = ref.match(m["id"], tokens[0])["to_act"][0]
    legal = json.dumps(ref.legal_moves(m["id"], tokens[seat]))
    assert "deck" not in legal


def test_readyz_sees_workers_and_healthz(ref):
    assert requests.get(ref.url + "/healthz").json() == {"status": "ok"}
    ready = requests.get(ref.url + "/readyz").json()
    assert ready["status"] == "ready" and ready["workers"] >= 1
