"""Jobs commit with their move: killed at each point between a commit and its job, nothing is lost or
run twice.

A commit writes the jobs it owes (bot turns, scorings, clock deadlines) into its match's outbox in
the same compare-and-set; the dispatcher moves them to RQ.  These tests stop and SIGKILL the
dispatcher, the workers and the whole service of a real ``referee serve`` at each point, and check
every match: each version played once (the ``moved`` events' versions consecutive), every bot turn
and every timeout that was owed happened, exactly once.
"""

from __future__ import annotations

import os
import signal
import time
import uuid
from collections import Counter
from pathlib import Path

import pytest
import redis
import requests

from clients.soak import tree
from service.core.outbox import outbox_key
from tests.conftest import Server, wait_for


def processes(server: Server, name: str) -> list[int]:
    """The pids of the server's processes called ``name`` (their process title)."""
    out = []
    for pid in tree(server.proc.pid):
        try:
            if Path(f"/proc/{pid}/comm").read_text().strip() == name[:15]:
                out.append(pid)
        except OSError:
            pass
    return out


def events(url: str, match_id: str) -> list[dict]:
    return requests.get(f"{url}/matches/{match_id}/events?after=0&limit=1000", timeout=5).json()["events"]


def check_once(url: str, match_id: str) -> list[dict]:
    """Every version of the match was played once, every timer ran out at most once; its events."""
    evs = events(url, match_id)
    moved = [e["version"] for e in evs if e["type"] == "moved"]
    assert moved == list(range(moved[0], moved[0] + len(moved))) if moved else True, f"{match_id}: {moved}"
    timeouts = Counter((e["data"]["seat"], e["data"]["deadline"]) for e in evs if e["type"] == "timeout")
    assert all(n == 1 for n in timeouts.values()), timeouts
    return evs


@pytest.fixture()
def serve(redis_url):
    env = {"REFEREE_QUEUE": f"test-outbox-{uuid.uuid4().hex[:8]}", "REFEREE_BOT_SLICE_MS": "5"}
    servers: list[Server] = []

    def start() -> Server:
        servers.append(Server(redis_url, workers=1, env=env))
        servers[-1].queue = env["REFEREE_QUEUE"]
        return servers[-1]

    yield start
    for s in servers:
        s.stop()


def create(url: str, seats: list[dict], clock: dict | None = None, first_seat: int = 0) -> dict:
    body = {"game": "super_blatt", "players": len(seats), "seats": seats, "options": {"first_seat": first_seat}}
    if clock:
        body["clock"] = clock
    answer = requests.post(f"{url}/matches", json=body, timeout=5)
    assert answer.status_code == 201, answer.text
    return answer.json()


def move_first_legal(url: str, match_id: str, token: str) -> int:
    """Seat 0 plays its first legal moves until its turn is over (a turn may take several); the version then."""
    auth = {"Authorization": f"Bearer {token}"}
    while True:
        legal = requests.get(f"{url}/matches/{match_id}/legal-moves", headers=auth, timeout=5).json()["moves"]
        answer = requests.post(f"{url}/matches/{match_id}/moves", json={"move": legal[0]}, headers=auth, timeout=5)
        assert answer.status_code == 200, answer.text
        if answer.json()["to_act"] != [0]:
            return answer.json()["version"]


def version(url: str, match_id: str) -> int:
    return requests.get(f"{url}/matches/{match_id}", timeout=5).json()["version"]


def test_killed_at_each_point_between_commit_and_job_nothing_is_lost_or_run_twice(serve, redis_url):
    server = serve()
    url, store = server.url, redis.Redis.from_url(redis_url)
    people = [create(url, [{"name": "ann"}, {"bot": "greedy"}]) for _ in range(4)]
    clocked = [create(url, [{"name": "idle"}, {"name": "idle too"}], {"move_seconds": 1.5, "on_timeout": "default"})
               for _ in range(3)]
    all_bots = [create(url, [{"bot": "random"}, {"bot": "greedy"}]) for _ in range(3)]

    # 1. committed, not yet dispatched: the dispatcher is stopped, then killed; its successor sends the jobs
    (dispatcher,) = processes(server, "referee-dispatcher")
    os.kill(dispatcher, signal.SIGSTOP)
    moved_at = {m["id"]: move_first_legal(url, m["id"], m["seats"][0]["token"]) for m in people}
    for m in people:
        owed = f"bot_{m['id']}_1_{moved_at[m['id']]}"
        assert store.hexists(outbox_key(m["id"], server.queue), owed), "owed, in the outbox"
    time.sleep(0.5)
    assert all(version(url, m["id"]) == moved_at[m["id"]] for m in people), "no bot moved: nothing was sent"
    os.kill(dispatcher, signal.SIGKILL)
    wait_for(lambda: [p for p in processes(server, "referee-dispatcher") if p != dispatcher], timeout=20)
    for m in people:
        wait_for(lambda m=m: version(url, m["id"]) > moved_at[m["id"]], timeout=20)

    # 2. a worker killed while it plays: the sweeper hands its turn on
    for pid in processes(server, "referee-worker"):
        os.kill(pid, signal.SIGKILL)

    # 3. the whole service killed between commit and dispatch, then started again
    (dispatcher,) = wait_for(lambda: processes(server, "referee-dispatcher"), timeout=20)
    os.kill(dispatcher, signal.SIGSTOP)
    moved_at = {m["id"]: move_first_legal(url, m["id"], m["seats"][0]["token"]) for m in people
                if requests.get(f"{url}/matches/{m['id']}", timeout=5).json()["to_act"] == [0]}
    for pid in tree(server.proc.pid):
        os.kill(pid, signal.SIGKILL)
    server.proc.wait()
    server = serve()
    url = server.url
    for match_id, at in moved_at.items():
        wait_for(lambda match_id=match_id, at=at: version(url, match_id) > at, timeout=30)

    # every match: the bots finished theirs, the clocks ran out at their deadlines, each thing once
    for m in all_bots:
        wait_for(lambda m=m: requests.get(f"{url}/matches/{m['id']}", timeout=5).json()["status"] == "finished",
                 timeout=60)
    for m in clocked:
        wait_for(lambda m=m: sum(e["type"] == "timeout" for e in events(url, m["id"])) >= 3, timeout=30)
    for m in people + clocked + all_bots:
        check_once(url, m["id"])
    for m in clocked:  # each timeout applied its default move once, right after its deadline
        evs = events(url, m["id"])
        for e in (e for e in evs if e["type"] == "timeout"):
            assert 0 <= e["data"]["at"] - e["data"]["deadline"] < 15
