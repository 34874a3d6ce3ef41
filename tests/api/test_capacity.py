"""A bounded store that never falls over: the embedded server's maxmemory, new matches refused (503
``store_full``) before the bound while moves in matches in play still commit, ``/readyz`` saying so,
and ``referee export --finished`` streaming the kept finished matches as JSON lines."""

from __future__ import annotations

import json
import uuid

import pytest
import redis

from clients import cli
from clients.client import Referee as HttpReferee
from clients.client import RefereeError
from service.app import create_app
from service.config import Settings, machine_memory, parse_bytes
from service.core.referee import Referee
from service.embedded import EmbeddedRedis
from service.record import replay
from tests import outbox
from tests.conftest import Server


@pytest.fixture()
def own_server(tmp_path):
    """A server of this test's own: its maxmemory is changed, which a shared one must not see."""
    server = EmbeddedRedis(tmp_path / "store", persist=False)
    url = server.start()
    yield url, redis.Redis.from_url(url)
    server.close()


def test_the_embedded_server_is_bounded_and_never_evicts(tmp_path, monkeypatch):
    monkeypatch.delenv("REFEREE_STORE_MAXMEMORY", raising=False)
    assert Settings.from_env().store_max_memory == machine_memory() // 4  # the default, derived from the machine
    monkeypatch.setenv("REFEREE_STORE_MAXMEMORY", "64mb")
    assert Settings.from_env().store_max_memory == 64 << 20 == parse_bytes("65536k")
    server = EmbeddedRedis(tmp_path / "bounded", persist=False, maxmemory=Settings.from_env().store_max_memory)
    client = redis.Redis.from_url(server.start())
    try:
        assert client.config_get("maxmemory")["maxmemory"] == str(64 << 20)
        assert client.config_get("maxmemory-policy")["maxmemory-policy"] == "noeviction"  # a live match stays
    finally:
        client.close()
        server.close()


def test_a_nearly_full_store_refuses_new_matches_but_not_moves(own_server, monkeypatch):
    url, client = own_server
    monkeypatch.setenv("REDIS_URL", url)
    monkeypatch.setenv("REFEREE_QUEUE", f"test-{uuid.uuid4().hex[:8]}")
    http = create_app(Settings.from_env(), client=client).test_client()
    body = {"game": "super_blatt", "players": 2, "options": {"first_seat": 0}, "seats": [{"name": "a"}, {"name": "b"}]}
    made = http.post("/matches", json=body)
    assert made.status_code == 201
    match_id, token = made.json["id"], made.json["seats"][0]["token"]
    room = http.get("/readyz").json["store"]
    assert room["max_bytes"] == 0 and room["full"] is False and room["used_bytes"] > 0  # no bound: never full

    monkeypatch.setenv("REFEREE_STORE_FULL_AT", "0.5")  # a fresh server is small: leave the moves ample room
    http = create_app(Settings.from_env(), client=client).test_client()
    used = client.info("memory")["used_memory"]
    bound = int(used * 1.5)
    client.config_set("maxmemory", bound)
    try:
        refused = http.post("/matches", json=body)
        assert refused.status_code == 503
        assert refused.headers["Content-Type"].startswith("application/problem+json")
        assert refused.json["code"] == "store_full" and refused.headers["Retry-After"] == "60"
        room = http.get("/readyz").json["store"]
        assert room["full"] is True and room["max_bytes"] == bound and room["state"] == "full"

        auth = {"Authorization": f"Bearer {token}"}
        move = http.get(f"/matches/{match_id}/legal-moves", headers=auth).json["moves"][0]
        moved = http.post(f"/matches/{match_id}/moves", json={"move": move}, headers=auth)
        assert moved.status_code == 200, moved.json  # the room left is for the matches in play

        client.config_set("maxmemory", client.info("memory")["used_memory"] // 2)  # past the bound: writes refused
        nxt = moved.json["to_act"][0]  # (an EXTRA card gives the mover another take)
        auth = {"Authorization": f"Bearer {made.json['seats'][nxt]['token']}"}
        before = http.get(f"/matches/{match_id}", headers=auth).json
        move = http.get(f"/matches/{match_id}/legal-moves", headers=auth).json["moves"][0]
        at_wall = http.post(f"/matches/{match_id}/moves", json={"move": move}, headers=auth)
        assert at_wall.status_code == 503 and at_wall.json["code"] == "store_full", at_wall.json
        assert http.get(f"/matches/{match_id}", headers=auth).json == before  # nothing changed, nothing lost
        assert http.get("/readyz").json["store"]["state"] == "at_bound"  # said honestly: nothing commits now
    finally:
        client.config_set("maxmemory", 0)
    assert http.post("/matches", json=body).status_code == 201
    assert http.get("/readyz").json["store"]["full"] is False
    assert client.zscore(f"ref:reserve:{Settings.from_env().queue}", made.json["id"]) > 0  # kept until it is over


def test_export_finished_streams_the_kept_finished_matches(redis_url, monkeypatch, tmp_path, capsys):
    queue = f"test-{uuid.uuid4().hex[:8]}"
    monkeypatch.setenv("REDIS_URL", redis_url)
    monkeypatch.setenv("REFEREE_QUEUE", queue)
    client = redis.Redis.from_url(redis_url)
    ref = Referee(client, Settings.from_env())
    try:
        ids = [ref.create_match("super_blatt", 2, {}, seed, [{"bot": "random"}, {"bot": "greedy"}])["id"]
               for seed in (41, 42)]

        outbox.burst(ref, client)
        assert all(ref.store.load(i).status == "finished" for i in ids)
        ref.compact(ids[0])  # a compacted match is exported as it was
        out = tmp_path / "finished.jsonl"
        assert cli.main(["export", "--finished", "--output", str(out)]) == 0
        records = [json.loads(line) for line in out.read_text().splitlines()]
        assert [r["id"] for r in records] == sorted(ids, key=lambda i: client.zscore(ref.store.finished, i))
        for record in records:
            assert replay(record) == record["result"] and record["finished_at"]
        assert "2 finished matches" in capsys.readouterr().err

        later = client.zscore(ref.store.finished, records[-1]["id"])
        assert cli.main(["export", "--finished", "--since", str(later + 1), "--output", str(out)]) == 0
        assert out.read_text() == ""
        monkeypatch.delenv("REDIS_URL")
        assert cli.main(["export", "--finished"]) == 2  # nowhere to read from
    finally:
        for q in (ref.queue, ref.search_queue):
            q.delete(delete_jobs=True)
        client.delete(ref.store.finished)


def test_export_finds_the_embedded_server_from_its_data_folder(tmp_path):
    server = EmbeddedRedis(tmp_path / "data", persist=False)
    url = server.start()
    try:
        assert EmbeddedRedis.url_of(tmp_path / "data") == url
    finally:
        server.close()


def test_a_move_at_the_wall_through_a_real_server_is_a_503_and_changes_nothing(own_server):
    """The same through `referee serve`'s front and app processes, where a move takes the hot lane."""
    url, client = own_server
    server = Server(url, workers=1)
    try:
        ref = HttpReferee(server.url)
        m = ref.create_match("super_blatt", 2, [{"name": "a"}, {"name": "b"}], {"first_seat": 0})
        token = m["seats"][0]["token"]
        before = ref.match(m["id"], token)
        client.config_set("maxmemory", client.info("memory")["used_memory"] // 2)
        try:
            with pytest.raises(RefereeError) as refused:
                ref.move(m["id"], token, ref.legal_moves(m["id"], token)["moves"][0])
            assert refused.value.problem["code"] == "store_full" and refused.value.status == 503
            with pytest.raises(RefereeError) as refused:
                ref.create_match("super_blatt", 2)
            assert refused.value.problem["code"] == "store_full"
        finally:
            client.config_set("maxmemory", 0)
        assert ref.match(m["id"], token) == before
    finally:
        server.stop()
