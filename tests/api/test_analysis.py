"""POST and GET /matches/{id}/analysis through the Flask app (in-process, real Redis), its job on the search
queue, its progress, its result kept and exported with the record, and the store's room (service/core/analyses.py,
workers/analysis_job.py)."""

from __future__ import annotations

import dataclasses
import json
import uuid

import orjson
import pytest
import redis

from clients import cli
from service.core.analyses import ANALYSIS_JOB, analysis_job_id
from service.core.keys import match_key
from service.core.record import replay
from service.core.store import dumps
from service.infra.config import Settings
from tests import outbox
from workers import analysis_job
from workers.analysis import analyse
from workers.bots.search import Budget

SEATS = [{"bot": "random"}, {"bot": "greedy"}, {"bot": "random"}, {"bot": "greedy"}]


@pytest.fixture()
def own(redis_url, monkeypatch):
    """The app and its referee on a queue of their own: no live worker or dispatcher of the session takes the
    analysis's job, which the test runs itself."""
    from service.api.app import create_app

    monkeypatch.setenv("REFEREE_QUEUE", f"test-{uuid.uuid4().hex[:8]}")
    monkeypatch.setenv("REFEREE_ANALYSIS_BUDGET", "20")  # iterations: quick and deterministic
    client = redis.Redis.from_url(redis_url)
    app = create_app(Settings.from_env(), client=client)
    app.testing = True  # every answer is checked against its schema
    ref = app.extensions["referee"]
    yield app.test_client(), ref, client
    for queue in (*ref.bot_queues, ref.search_queue):
        queue.delete(delete_jobs=True)
    client.delete(ref.store.finished, ref.store.reserve)


def finished(ref, client, players: int = 2, seed: int = 5) -> str:
    """A finished all-bot Super-Blatt match (its jobs run here)."""
    match_id = ref.create_match("super_blatt", players, {}, seed, SEATS[:players])["id"]
    outbox.burst(ref, client)
    assert ref.store.load(match_id).status == "finished"
    return match_id


def run_search_queue(ref) -> int:
    """Dispatch, then run what the search queue holds (the search workers' queue), as a search worker would."""
    return outbox.burst(ref, queues=[ref.search_queue])


def problem(resp, status: int, code: str) -> dict:
    assert resp.status_code == status, resp.json
    assert resp.mimetype == "application/problem+json" and resp.json["code"] == code, resp.json
    return resp.json


def test_nobody_may_ask_before_the_end_and_nothing_is_written(own):
    http, ref, client = own
    waiting = http.post("/matches", json={"game": "super_blatt", "players": 2, "seats": [{"name": "a"}, {}]}).json
    active = http.post("/matches", json={"game": "super_blatt", "players": 2,
                                         "seats": [{"name": "a"}, {"name": "b"}]}).json
    for m in (waiting, active):
        mid = m["id"]
        for headers in ({}, {"Authorization": f"Bearer {m['seats'][0]['token']}"}):  # a spectator, a seat
            answer = problem(http.post(f"/matches/{mid}/analysis", headers=headers), 409, "match_not_over")
            assert set(answer) == {"type", "title", "status", "detail", "code"}
        problem(http.get(f"/matches/{mid}/analysis"), 404, "no_analysis")
        assert not client.hexists(match_key(mid), "analysis")
    assert outbox.dispatch(ref) == 0 and len(ref.search_queue) == 0  # no job was owed
    for method in (http.get, http.post):
        problem(method("/matches/nosuchmatch/analysis"), 404, "unknown_match")


def test_asking_again_returns_the_same_analysis_and_one_job_on_the_search_queue(own):
    http, ref, client = own
    mid = finished(ref, client)
    problem(http.get(f"/matches/{mid}/analysis"), 404, "no_analysis")
    first = http.post(f"/matches/{mid}/analysis")
    assert first.status_code == 202 and first.json == {"status": "queued", "done": 0, "total": 0}
    again = http.post(f"/matches/{mid}/analysis", headers={"Authorization": "Bearer someone-else"})
    assert again.status_code == 202 and again.json == first.json
    assert http.get(f"/matches/{mid}/analysis").json == first.json
    outbox.dispatch(ref)
    # the search queue, below people's and bot turns, and no other
    assert ref.search_queue.get_job_ids() == [analysis_job_id(mid)]
    assert len(ref.queue) == 0 and len(ref.people_queue) == 0
    assert ref.search_queue.fetch_job(analysis_job_id(mid)).func_name == ANALYSIS_JOB
    # the room its result may take is kept until it is written: no more than the record
    assert client.zscore(ref.store.reserve, mid) == len(dumps(ref.record(mid, None)))
    http.post(f"/matches/{mid}/analysis")
    assert outbox.dispatch(ref) == 0 and len(ref.search_queue) == 1


def test_an_analysis_is_not_asked_for_while_the_store_is_full_but_one_asked_before_is_answered(own, monkeypatch):
    http, ref, client = own
    asked, fresh = finished(ref, client, seed=6), finished(ref, client, seed=7)
    http.post(f"/matches/{asked}/analysis")
    full = {"used_bytes": 90, "max_bytes": 100, "reserved_bytes": 5, "state": "full", "full": True}
    monkeypatch.setattr(type(ref), "store_room", lambda self: full)
    problem(http.post(f"/matches/{fresh}/analysis"), 503, "store_full")
    assert not client.hexists(match_key(fresh), "analysis")
    assert http.post(f"/matches/{asked}/analysis").json["status"] == "queued"


def test_progress_is_written_as_it_goes_and_the_result_is_kept_and_exported_with_the_record(own, monkeypatch):
    http, ref, client = own
    mid = finished(ref, client, players=4)
    http.post(f"/matches/{mid}/analysis")
    seen: list[dict] = []
    write = ref.write_analysis

    def watched(match_id, progress, result=None):
        written = write(match_id, progress, result)
        seen.append(http.get(f"/matches/{mid}/analysis").json)
        return written

    monkeypatch.setattr(ref, "write_analysis", watched)
    monkeypatch.setattr(analysis_job, "PROGRESS_EVERY_S", 0.0)
    monkeypatch.setattr(analysis_job, "referee_for", lambda connection: ref)
    assert run_search_queue(ref) == 1
    total = seen[-1]["total"]
    assert total > 0 and [s["status"] for s in seen] == ["running"] * total + ["done"]
    assert [s["done"] for s in seen] == list(range(total + 1))
    done = http.get(f"/matches/{mid}/analysis")
    assert done.status_code == 200 and done.json["status"] == "done" and done.json["done"] == total
    analysis = done.json["analysis"]
    assert analysis["game"] == "super_blatt" and analysis["players"] == 4 and len(analysis["decisions"]) == total
    assert analysis["budget"] and [s["seat"] for s in analysis["summary"]] == [0, 1, 2, 3]
    record = ref.record(mid, None)
    assert {d["index"] for d in analysis["decisions"]} <= set(range(len(record["moves"])))
    for d in analysis["decisions"]:
        move = record["moves"][d["index"]]
        assert (move["version"], move["seat"]) == (d["version"], d["seat"])
    # kept with the record and exported with it, no larger than it; the record still replays
    assert http.get(f"/matches/{mid}/record").json["analysis"] == analysis == record["analysis"]
    assert len(orjson.dumps(analysis)) <= len(orjson.dumps({k: v for k, v in record.items() if k != "analysis"}))
    assert replay(record) == record["result"]
    # asked again: the same analysis at once, no new job; the room kept for it is free again
    again = http.post(f"/matches/{mid}/analysis")
    assert again.status_code == 200 and again.json == done.json
    assert outbox.dispatch(ref) == 0 and len(ref.search_queue) == 0
    assert client.zscore(ref.store.reserve, mid) is None
    # compacted, the match keeps it
    assert ref.compact(mid) == "compacted"
    assert http.get(f"/matches/{mid}/analysis").json == done.json and ref.record(mid, None)["analysis"] == analysis


def test_export_finished_carries_the_analysis(own, redis_url, monkeypatch, tmp_path):
    http, ref, client = own
    mid = finished(ref, client, seed=8)
    http.post(f"/matches/{mid}/analysis")
    run_search_queue(ref)
    monkeypatch.setenv("REDIS_URL", redis_url)
    out = tmp_path / "finished.jsonl"
    assert cli.main(["export", "--finished", "--output", str(out)]) == 0
    records = {r["id"]: r for r in map(json.loads, out.read_text().splitlines())}
    assert records[mid]["analysis"] == http.get(f"/matches/{mid}/analysis").json["analysis"]


def test_a_failed_analysis_says_so_and_runs_again_when_asked(own, monkeypatch):
    http, ref, client = own
    mid = finished(ref, client, seed=9)
    http.post(f"/matches/{mid}/analysis")
    real = analysis_job.analyse_decisions
    calls = []

    def broken(*args):
        calls.append(args)
        if len(calls) == 2:
            raise RuntimeError("the engine failed")
        return real(*args)

    monkeypatch.setattr(analysis_job, "analyse_decisions", broken)
    run_search_queue(ref)
    failed = http.get(f"/matches/{mid}/analysis").json
    assert failed["status"] == "failed" and failed["done"] == 1 and failed["total"] > 1
    assert client.zscore(ref.store.reserve, mid) is None  # its room is free
    monkeypatch.setattr(analysis_job, "analyse_decisions", real)
    again = http.post(f"/matches/{mid}/analysis")
    assert again.status_code == 202 and again.json == {"status": "queued", "done": 0, "total": 0}
    run_search_queue(ref)
    assert http.get(f"/matches/{mid}/analysis").json["status"] == "done"


def test_a_long_match_gets_less_time_a_decision_so_that_the_whole_analysis_fits_its_seconds(own, monkeypatch):
    """``REFEREE_ANALYSIS_SECONDS``: a budget in milliseconds is cut to the seconds over the decisions (not below
    the floor), a budget of iterations alone is kept, and the analysis says the budget its decisions had."""
    http, ref, client = own
    cut = dataclasses.replace(ref.settings, analysis_budget="20/100ms", analysis_seconds=1.0)
    monkeypatch.setattr(ref, "settings", cut)
    assert analysis_job.budget_of(ref, 5) == Budget(20, 100.0)  # 200 ms each would fit: the budget stands
    assert analysis_job.budget_of(ref, 40) == Budget(20, 25.0)
    assert analysis_job.budget_of(ref, 1000) == Budget(20, analysis_job.ANALYSIS_FLOOR_MS)
    monkeypatch.setattr(ref, "settings", dataclasses.replace(cut, analysis_budget="20"))
    assert analysis_job.budget_of(ref, 1000) == Budget(20)
    monkeypatch.setattr(ref, "settings", cut)
    mid = finished(ref, client, players=4)
    http.post(f"/matches/{mid}/analysis")
    monkeypatch.setattr(analysis_job, "referee_for", lambda connection: ref)
    assert run_search_queue(ref) == 1
    done = http.get(f"/matches/{mid}/analysis").json
    assert done["status"] == "done"
    assert done["analysis"]["budget"] == f"20/{max(10, round(1000 / done['total']))}ms"


def test_the_job_gives_its_worker_up_to_a_waiting_turn_and_the_analysis_is_the_same(own, monkeypatch):
    """Between two decisions the job hands the rest to a job at the back of the search queue when a turn waits;
    decisions are judged independently, so the analysis cut into jobs is the one judged in one go."""
    http, ref, client = own
    mid = finished(ref, client, players=3, seed=12)
    http.post(f"/matches/{mid}/analysis")
    outbox.dispatch(ref)
    ref.people_queue.enqueue("workers.jobs.sweep", job_id=f"turn_{mid}")  # a turn waits for a worker
    assert analysis_job.turn_waits(ref)
    ref.people_queue.empty()
    assert not analysis_job.turn_waits(ref), "an analysis waiting in the search queue is no turn"
    runs = []
    monkeypatch.setattr(analysis_job, "referee_for", lambda connection: ref)
    monkeypatch.setattr(analysis_job, "turn_waits", lambda r: runs.append(1) or len(runs) % 3 == 0)
    while len(ref.search_queue) or outbox.dispatch(ref):
        outbox.burst(ref, queues=[ref.search_queue])
    done = http.get(f"/matches/{mid}/analysis").json
    assert done["status"] == "done" and done["total"] > 6
    record = ref.analysis_record(mid)
    assert done["analysis"] == analyse(record, ref.settings.analysis_budget)
    assert not client.hexists(match_key(mid), "analysing"), "the decisions judged on the way go with the end"


def test_an_expired_match_takes_its_analysis_with_it(own):
    http, ref, client = own
    mid = finished(ref, client, seed=10)
    http.post(f"/matches/{mid}/analysis")
    assert client.ttl(match_key(mid)) > 0
    client.delete(match_key(mid))  # its TTL passed before the job ran
    run_search_queue(ref)
    assert not client.exists(match_key(mid)), "the job wrote no key without an expiry"
    problem(http.get(f"/matches/{mid}/analysis"), 404, "unknown_match")


def test_an_analysis_whose_job_was_lost_is_answered_failed_and_runs_again_when_asked(own):
    http, ref, client = own
    mid = finished(ref, client, seed=11)
    http.post(f"/matches/{mid}/analysis")
    assert http.get(f"/matches/{mid}/analysis").json["status"] == "queued"  # its job waits in the outbox
    outbox.dispatch(ref)
    assert http.get(f"/matches/{mid}/analysis").json["status"] == "queued"  # and now in RQ
    ref.search_queue.fetch_job(analysis_job_id(mid)).delete()  # its worker died and RQ dropped it
    assert http.get(f"/matches/{mid}/analysis").json == {"status": "failed", "done": 0, "total": 0}
    again = http.post(f"/matches/{mid}/analysis")
    assert again.status_code == 202 and again.json["status"] == "queued"
    outbox.dispatch(ref)
    assert ref.search_queue.get_job_ids() == [analysis_job_id(mid)]
