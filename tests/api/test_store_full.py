"""A full store never stops a game (issue 45, docs/store.md "The bound"): with a small bound, matches are
created until refused; every admitted match plays to its end, is scored and compacted; nothing answers 5xx
but the documented refusal; the store never reaches its bound; new matches are admitted again once
compaction has made room; and every line the service writes is JSON."""

from __future__ import annotations

import threading
import time
import uuid

import pytest
import redis
import requests

from service.core.keys import match_key
from service.core.store import GROWTH_MARGIN, growth
from service.infra.embedded import EmbeddedRedis
from tests.conftest import Server, json_lines, wait_for

#: bytes of room above what the warmed-up idle service uses: about 40 all-bot 4-player Super-Blatt matches
ROOM = 2 << 20


@pytest.fixture()
def bounded(tmp_path):
    store = EmbeddedRedis(tmp_path / "store", persist=False)
    url = store.start()
    client = redis.Redis.from_url(url)
    client.config_set("maxmemory-policy", "noeviction")
    yield url, client
    client.close()
    store.close()


def status(client: redis.Redis, match_id: str) -> str:
    return client.hget(match_key(match_id), "status").decode()


def test_growth_is_kept_per_game_and_player_count():
    assert growth("super_blatt", 4) == int(27.7 * GROWTH_MARGIN * 1024)
    assert growth("paparazzo", 5) > growth("paparazzo", 3) > growth("dice_party", 2)
    assert growth("super_blatt", 9) == growth("super_blatt", 4)  # a count not measured: the game's largest
    assert growth("super_blatt", 2, webhook=True) > growth("super_blatt", 2)
    assert growth("no_such_game", 2) > 0


def test_at_the_bound_admitted_matches_finish_and_new_ones_are_admitted_again(bounded):
    url, client = bounded
    server = Server(url, workers=2, env={"REFEREE_COMPACT_AFTER": "1", "REFEREE_JOB_TIMEOUT": "10"})
    try:
        body = {"game": "super_blatt", "players": 4,
                "seats": [{"bot": "random"}, {"bot": "greedy"}, {"bot": "random"}, {"bot": "greedy"}]}
        first = requests.post(server.url + "/matches", json=body).json()["id"]  # every process connected, warm
        wait_for(lambda: status(client, first) == "finished", timeout=20)
        time.sleep(1.5)  # (and compacted)
        bound = client.info("memory")["used_memory"] + ROOM
        client.config_set("maxmemory", bound)
        admitted: list[str] = []
        answers: list[tuple[int, str | None, float]] = []
        peak = [0]
        stop = threading.Event()

        def create() -> None:
            session = requests.Session()
            while not stop.is_set():
                answer = session.post(server.url + "/matches", json=body, timeout=30)
                code = answer.json().get("code") if answer.status_code >= 400 else None
                answers.append((answer.status_code, code, time.monotonic()))
                if answer.status_code == 201:
                    admitted.append(answer.json()["id"])
                elif code == "store_full":
                    assert answer.headers["Retry-After"]
                    time.sleep(0.2)

        def watch() -> None:
            while not stop.is_set():
                peak[0] = max(peak[0], client.info("memory")["used_memory"])
                time.sleep(0.05)

        threads = [threading.Thread(target=create) for _ in range(3)] + [threading.Thread(target=watch)]
        for thread in threads:
            thread.start()
        try:
            wait_for(lambda: any(code == "store_full" for _, code, _ in answers), timeout=20)
            full_at = time.monotonic()
            ready = requests.get(server.url + "/readyz").json()
            assert ready["status"] == "ready" and ready["store"]["max_bytes"] == bound  # full, and ready for play
            # compaction makes room: new matches are admitted again by themselves
            wait_for(lambda: any(status == 201 and at > full_at + 0.5 for status, _, at in answers), timeout=30)
        finally:
            stop.set()
            for thread in threads:
                thread.join()
        refused = [a for a in answers if a[0] != 201]
        assert refused and {(status, code) for status, code, _ in refused} == {(503, "store_full")}
        assert peak[0] < bound, f"the store reached its bound: {peak[0]} of {bound} bytes"

        def over() -> bool:  # (read from the store: a route would play a compacted match again, and cache it)
            return all(status(client, m) == "finished" for m in admitted)

        wait_for(over, timeout=30, interval=0.5)  # every admitted match played to its end and was scored
        wait_for(lambda: requests.get(server.url + "/readyz").json()["store"]["state"] == "room", timeout=20)
        assert requests.post(server.url + "/matches", json=body).status_code == 201
        lines = json_lines(server.log.name)  # (every line JSON)
        text = "\n".join(str(line) for line in lines)
        assert "OutOfMemoryError" not in text and "OOM" not in text
        assert not [line for line in lines if line.get("event") == "request" and line["status"] >= 500
                    and line["status"] != 503]
    finally:
        server.stop()


def test_the_reserve_keeps_each_admitted_match_once_until_it_is_over_or_expired(redis_url, monkeypatch):
    """The room kept is a sum kept with the set (written once however often a commit's note is written again),
    released by the commit that ends a match, and by the sweeper's pruning for a match that expired unfinished."""
    from service.core.outbox import Sender, note
    from service.core.referee import Referee as Engine
    from service.infra.config import Settings

    monkeypatch.setenv("REFEREE_QUEUE", f"reserve-{uuid.uuid4().hex[:8]}")
    client = redis.Redis.from_url(redis_url)
    engine = Engine(client, Settings.from_env())
    assert engine.store.reserved() == 0
    a = engine.create_match("super_blatt", 4, {}, 1, [{"name": "a"}, {"name": "b"}, {"name": "c"}, {"name": "d"}])
    b = engine.create_match("dice_party", 2, {}, 2, [{"name": "a"}, {"name": "b"}])
    kept = growth("super_blatt", 4) + growth("dice_party", 2)
    assert engine.store.reserved() == kept
    again = note(engine.store.reserve, a["id"], growth("super_blatt", 4), "reserve")[1]
    Sender(client, engine.settings.queue, {}).send_now([again])  # (the dispatcher's path: a pipeline)
    assert engine.store.reserved() == kept  # once
    engine.abort(a["id"], a["host_token"])
    assert engine.store.reserved() == growth("dice_party", 2)
    client.delete(match_key(b["id"]))  # as its TTL would
    assert engine.store.prune_reserve() == 1 and engine.store.reserved() == 0
    client.delete(engine.store.reserve)


def test_the_sweepers_valve_drops_replay_caches_and_nothing_else(redis_url, monkeypatch):
    """A compacted match read again keeps its replay as a cache, outside the reserve: a full store drops it (a
    reading plays the match again); a match not compacted keeps its events."""
    from service.core.keys import events_key, state_key
    from service.core.referee import Referee as Engine
    from service.infra.config import Settings
    from tests import outbox

    monkeypatch.setenv("REFEREE_QUEUE", f"valve-{uuid.uuid4().hex[:8]}")
    client = redis.Redis.from_url(redis_url)
    engine = Engine(client, Settings.from_env())
    done = engine.create_match("super_blatt", 2, {}, 7, [{"bot": "random"}, {"bot": "greedy"}])["id"]
    outbox.burst(engine, client)
    assert engine.compact(done) == "compacted"
    live = engine.create_match("super_blatt", 2, {}, 8, [{"name": "a"}, {"name": "b"}])["id"]
    before = engine.store.load(done, replayed=True).state  # a reading: the replay is cached
    assert client.exists(state_key(done), events_key(done)) == 2
    assert engine.store.drop_replay_caches() >= 1
    assert client.exists(state_key(done), events_key(done)) == 0 and client.exists(events_key(live))
    assert engine.store.load(done, replayed=True).state == before  # played again
    for q in (engine.queue, engine.search_queue, engine.people_queue):
        q.delete(delete_jobs=True)
