"""The load of tests/api/test_hosts.py, run on its client host (a network namespace).

    python -m tests.api.hosts_driver --api URL --api URL --redis URL [--queue URL]

Plays Super-Blatt matches through the API hosts (match i on host i mod n): some with two people
played here and a greedy bot, some with bots only.  Every move carries an Idempotency-Key and the
version it was chosen at; a request that fails on one host (connection refused or reset, a 5xx)
is sent again, same key, to the next host.  Prints ``progress N`` after every 20 acknowledged
moves, then, once every match is over, checks each against the store itself (its full event
stream, private events included): every acknowledged move is in the log at its version, every
version carries exactly one move, replaying the log from the seed gives the recorded result.
Prints the findings as one JSON line.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import threading
import time
import uuid

import orjson
import redis
import requests

from clients.client import TRANSIENT
from service.core.keys import events_key
from service.core.record import match_rng
from service.games import GAMES

GAME = GAMES["super_blatt"]


class Hosts:
    """Sends a request to a preferred API host and fails over to the others."""

    def __init__(self, urls: list[str]) -> None:
        self.urls = urls
        self.resent = 0  # requests sent again to another host
        self.lock = threading.Lock()

    def call(self, first: int, method: str, path: str, token: str | None = None, deadline: float = 60.0,
             **kwargs) -> requests.Response:
        headers = kwargs.pop("headers", {})
        if token:
            headers["Authorization"] = f"Bearer {token}"
        stop = time.monotonic() + deadline
        i = first
        while True:
            url = self.urls[i % len(self.urls)]
            try:
                r = requests.request(method, url + path, headers=headers, timeout=10, **kwargs)
                if r.status_code < 500:
                    return r
            except TRANSIENT:
                pass
            if time.monotonic() > stop:
                raise RuntimeError(f"{method} {path}: no API host answered")
            with self.lock:
                self.resent += 1
            i += 1
            time.sleep(0.05)


def play(hosts: Hosts, index: int, seed: int, report: dict, progress) -> None:
    """One match with two people played here (seats 0 and 1) and a greedy bot (seat 2)."""
    r = hosts.call(index, "POST", "/matches", json={"game": GAME.name, "players": 3, "seed": seed,
                                                     "seats": [{"name": "ann"}, {"name": "bob"}, {"bot": "greedy"}]})
    assert r.status_code == 201, r.text
    m = r.json()
    tokens = {s["seat"]: s["token"] for s in m["seats"] if s["token"]}
    report["matches"][m["id"]] = {"seed": seed, "acknowledged": []}
    rng = random.Random(seed)
    wait = ""
    while True:
        snap = hosts.call(index, "GET", f"/matches/{m['id']}{wait}", tokens[0]).json()
        if snap["status"] != "active":
            return
        mine = [s for s in snap["to_act"] if s in tokens]
        if not mine:  # the bot's turn: hold the request until the match moves on
            wait = f"?since={snap['version']}&wait=5"
            continue
        wait = ""
        seat = mine[0]
        legal = hosts.call(index, "GET", f"/matches/{m['id']}/legal-moves", tokens[seat]).json()
        move = rng.choice(legal["moves"])
        r = hosts.call(index, "POST", f"/matches/{m['id']}/moves", tokens[seat],
                       headers={"Idempotency-Key": str(uuid.uuid4())},
                       json={"move": move, "expected_version": legal["version"]})
        if r.status_code == 200:
            report["matches"][m["id"]]["acknowledged"].append({"version": r.json()["version"], "seat": seat,
                                                               "move": move})
            progress()
        else:
            assert r.json()["code"] == "stale_version", r.text  # the match moved on: look again


def bots_only(hosts: Hosts, index: int, seed: int, report: dict) -> None:
    r = hosts.call(index, "POST", "/matches", json={"game": GAME.name, "players": 4, "seed": seed,
                                                     "seats": [{"bot": "random"}] * 4})
    assert r.status_code == 201, r.text
    report["matches"][r.json()["id"]] = {"seed": seed, "acknowledged": []}


def check(store: redis.Redis, hosts: Hosts, report: dict, timeout: float) -> list[str]:
    """What went wrong, match by match (nothing, when every match finished with its moves intact)."""
    problems = []
    deadline = time.monotonic() + timeout
    for i, (mid, entry) in enumerate(report["matches"].items()):
        while (snap := hosts.call(i, "GET", f"/matches/{mid}").json())["status"] != "finished":
            if time.monotonic() > deadline:
                problems.append(f"{mid}: still {snap['status']} at version {snap['version']}")
                break
            time.sleep(0.2)
        else:
            log = [orjson.loads(fields[b"e"]) for _, fields in store.xrange(events_key(mid))]
            moved = [e for e in log if e["type"] == "moved"]
            versions = [e["v"] for e in moved]
            if versions != list(range(2, snap["version"])):  # 1: created; last: the scoring
                problems.append(f"{mid}: moves at versions {versions}, final version {snap['version']}")
            at = {e["v"]: (e["data"]["seat"], e["data"]["move"]) for e in moved}
            for ack in entry["acknowledged"]:
                if at.get(ack["version"]) != (ack["seat"], ack["move"]):
                    problems.append(f"{mid}: acknowledged {ack} is not in the log")
            players = len(snap["seats"])
            seed = entry["seed"]
            state, _ = GAME.opening(players, GAME.load_options(players, {}), match_rng(seed, "setup"))
            for e in moved:
                GAME.apply(state, e["data"]["seat"], e["data"]["move"], match_rng(seed, e["v"] - 1))
            if GAME.final_result(state).as_dict()["scores"] != snap["result"]["scores"]:
                problems.append(f"{mid}: replaying the log does not give the result")
            report["moves"] += len(moved)
    return problems


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--api", action="append", required=True)
    p.add_argument("--redis", required=True, help="the match store (one server), to read each match's full log")
    p.add_argument("--people", type=int, default=8, help="matches with two people and a bot")
    p.add_argument("--bots", type=int, default=4, help="matches of four bots")
    p.add_argument("--finish-within", type=float, default=120)
    args = p.parse_args()
    hosts = Hosts(args.api)
    for i in range(len(args.api)):
        hosts.call(i, "GET", "/healthz")
    report: dict = {"matches": {}, "moves": 0}
    acknowledged = [0]
    lock = threading.Lock()

    def progress() -> None:
        with lock:
            acknowledged[0] += 1
            if acknowledged[0] % 20 == 0:
                print(f"progress {acknowledged[0]}", flush=True)

    for i in range(args.bots):
        bots_only(hosts, i, 1000 + i, report)
    errors: list[str] = []

    def person(i: int) -> None:
        try:
            play(hosts, i, i, report, progress)
        except Exception as exc:  # reported with the findings, not lost on a thread's stderr
            errors.append(f"match {i}: {exc!r}")

    threads = [threading.Thread(target=person, args=(i,)) for i in range(args.people)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    problems = errors + check(redis.Redis.from_url(args.redis), hosts, report, args.finish_within)
    print(json.dumps({"matches": len(report["matches"]), "moves": report["moves"], "acknowledged": acknowledged[0],
                      "resent": hosts.resent, "problems": problems}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
