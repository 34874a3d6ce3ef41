"""RQ jobs: bot turns are no-ops unless owed, duplicates collapse, lost turns are swept, scoring finishes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
import uuid

import pytest
import redis
from rq import Queue
from rq.job import Job
from rq.serializers import JSONSerializer

from service.core.base import Actor
from service.core.keys import match_key
from service.core.referee import Referee
from service.infra.config import Settings
from tests import outbox
from tests.conftest import ROOT, wait_for
from workers.dispatch import Dispatcher
from workers.jobs import sweep


@pytest.fixture()
def isolated(redis_url, monkeypatch):
    """A referee on a queue of its own, so the session's live workers never take these jobs."""
    name = f"test-{uuid.uuid4().hex[:8]}"
    monkeypatch.setenv("REFEREE_QUEUE", name)
    client = redis.Redis.from_url(redis_url)
    ref = Referee(client, Settings.from_env())
    yield ref, client
    for queue in (*ref.bot_queues, ref.search_queue):
        queue.delete(delete_jobs=True)


def burst(ref: Referee, client) -> None:
    outbox.burst(ref, client)


def test_duplicate_bot_jobs_collapse_into_one_move(isolated):
    ref, client = isolated
    m = ref.create_match("super_blatt", 2, {"first_seat": 1}, 7, [{"name": "ann"}, {"bot": "greedy"}])
    outbox.dispatch(ref)
    assert ref.store.load(m["id"]).version == 1 and len(ref.people_queue) == 1 and len(ref.queue) == 0
    for _ in range(3):  # the same (match, seat, version) enqueued again, e.g. by a sweeper on another host
        ref.send([ref.bot_turn_op(ref.store.load(m["id"]), 1, 1)])
    ref.send([ref.bot_turn_op(ref.store.load(m["id"]), 1, 0)])  # and a stale one
    burst(ref, client)
    match = ref.store.load(m["id"])
    assert match.version == 2, "the bot moved exactly once"
    assert match.state["turn"] == 0 or match.state["pending"] is not None


def test_sweeper_requeues_a_lost_bot_turn_and_the_match_finishes(isolated):
    ref, client = isolated
    m = ref.create_match("super_blatt", 2, {}, 8, [{"bot": "random"}, {"bot": "greedy"}])
    outbox.dispatch(ref)
    job_ids = ref.queue.get_job_ids()
    assert len(job_ids) == 1
    ref.queue.empty()  # a worker took the job and died: it is gone
    assert sweep(ref, older_than=3600) == 0  # too recent to be called lost
    assert sweep(ref, older_than=0) == 1
    assert ref.queue.get_job_ids() == job_ids  # same id: same (match, seat, version)
    burst(ref, client)
    match = ref.store.load(m["id"])
    assert match.status == "finished" and match.result["winners"]
    assert sweep(ref, older_than=0) == 0  # nothing owed any more


def test_sweeper_requeues_a_turn_stranded_as_queued_by_a_worker_killed_while_dequeuing(isolated):
    ref, client = isolated
    m = ref.create_match("super_blatt", 2, {"first_seat": 1}, 13, [{"name": "ann"}, {"bot": "greedy"}])
    outbox.dispatch(ref)
    (job_id,) = ref.people_queue.get_job_ids()
    client.lrem(ref.people_queue.key, 1, job_id)  # taken off the queue; its status still says "queued"
    assert ref.people_queue.fetch_job(job_id).get_status() == "queued"
    assert sweep(ref, older_than=0) == 1
    burst(ref, client)
    assert ref.store.load(m["id"]).version == 2


def test_sweeper_requeues_lost_scoring(isolated):
    ref, client = isolated
    m = ref.create_match("super_blatt", 2, {"first_seat": 0}, 9, [{"name": "a"}, {"name": "b"}])
    match = ref.store.load(m["id"])
    # play to the end by hand, through the referee's own path
    from service.games import GAMES

    game = GAMES["super_blatt"]
    while match.status == "active":
        seat = game.to_act(match.state)[0]
        ref.apply_move(m["id"], Actor.playing(seat), game.legal_moves(match.state, seat)[0])
        match = ref.store.load(m["id"])
    assert match.status == "scoring"
    outbox.dispatch(ref)
    ref.people_queue.empty()
    assert sweep(ref, older_than=0) == 1
    burst(ref, client)
    assert ref.store.load(m["id"]).status == "finished"


def test_aborted_match_owes_no_bot_turn(isolated):
    ref, client = isolated
    m = ref.create_match("super_blatt", 2, {"first_seat": 1}, 10, [{"name": "a"}, {"bot": "random"}])
    ref.abort(m["id"], m["host_token"])
    burst(ref, client)
    assert ref.store.load(m["id"]).version == 2  # created, aborted; the queued bot turn did nothing


def test_finished_matches_expire(isolated, redis_url, monkeypatch):
    monkeypatch.setenv("REFEREE_FINISHED_TTL", "120")
    ref = Referee(redis.Redis.from_url(redis_url), Settings.from_env())
    m = ref.create_match("super_blatt", 2, {}, 11, [{"name": "a"}, {"name": "b"}])
    assert ref.store.redis.ttl(match_key(m["id"])) > 24 * 3600  # live: the abandoned TTL
    ref.abort(m["id"], m["host_token"])
    assert 0 < ref.store.redis.ttl(match_key(m["id"])) <= 120


def test_killed_worker_process_does_not_stall_a_match(redis_url):
    """`referee worker`: SIGKILL a worker process mid-match; the supervisor replaces it and the sweeper
    re-enqueues any turn it took with it, so the all-bot match still finishes."""
    queue = f"test-kill-{uuid.uuid4().hex[:8]}"
    env = dict(os.environ, REDIS_URL=redis_url, REFEREE_QUEUE=queue, REFEREE_JOB_TIMEOUT="2",
               REFEREE_SWEEP_AFTER="1")
    proc = subprocess.Popen([sys.executable, "-m", "clients.cli", "worker", "--workers", "2"], cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        os.environ["REFEREE_QUEUE"] = queue
        try:
            ref = Referee(redis.Redis.from_url(redis_url), Settings.from_env())
        finally:
            del os.environ["REFEREE_QUEUE"]
        children = wait_for(lambda: [int(p) for p in subprocess.run(  # (slow to start on a loaded machine)
            ["pgrep", "-P", str(proc.pid)], capture_output=True, text=True).stdout.split()], timeout=30)
        m = ref.create_match("super_blatt", 4, {}, 12, [{"bot": "random"}] * 4)
        time.sleep(0.05)
        for pid in children:
            try:
                os.kill(pid, signal.SIGKILL)  # workers and sweeper, mid-match
            except ProcessLookupError:
                pass
        match = wait_for(lambda: (x := ref.store.load(m["id"])).status == "finished" and x, timeout=120)
        assert match.result["winners"]
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(20)
        Queue(queue, connection=redis.Redis.from_url(redis_url), serializer=JSONSerializer).delete(delete_jobs=True)
    assert subprocess.run(["pgrep", "-P", str(proc.pid)], capture_output=True).stdout == b""


def test_search_turns_go_to_their_own_queue_and_replay_for_a_seed(isolated):
    """A search seat with an iteration budget is enqueued on the search queue, never the main one,
    and plays the same move for the same match seed."""
    ref, client = isolated
    played = []
    for _ in range(2):
        m = ref.create_match("super_blatt", 2, {"first_seat": 1}, 21, [{"name": "ann"}, {"bot": "search",
                                                                                       "iterations": 8}])
        outbox.dispatch(ref)
        assert len(ref.queue) == 0 and len(ref.search_queue) == 1
        burst(ref, client)
        assert ref.store.load(m["id"]).version == 1, "a main-queue worker never takes a search turn"
        outbox.burst(ref, client, queues=[ref.search_queue])
        assert ref.store.load(m["id"]).version >= 2  # (an EXTRA is a second decision of the same turn)
        played.append([e["data"] for e in ref.store.events(m["id"], 0) if e["type"] == "moved"])
    assert played[0] == played[1] and played[0][0]["seat"] == 1


def test_a_long_search_does_not_hold_up_other_matches(redis_url):
    """`referee worker --workers 1 --search-workers 1`: while a search turn thinks for 3 s, a greedy
    bot of another match still moves at once."""
    queue = f"test-search-{uuid.uuid4().hex[:8]}"
    env = dict(os.environ, REDIS_URL=redis_url, REFEREE_QUEUE=queue)
    proc = subprocess.Popen([sys.executable, "-m", "clients.cli", "worker", "--workers", "1", "--search-workers",
                             "1"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.environ["REFEREE_QUEUE"] = queue
    try:
        ref = Referee(redis.Redis.from_url(redis_url), Settings.from_env())
    finally:
        del os.environ["REFEREE_QUEUE"]
    try:
        wait_for(lambda: len(subprocess.run(["pgrep", "-P", str(proc.pid)], capture_output=True).stdout.split()) == 4,
                 timeout=10)
        time.sleep(1)  # the workers are listening
        slow = ref.create_match("super_blatt", 2, {"first_seat": 1}, 22,
                                [{"name": "ann"}, {"bot": "search", "budget_ms": 3000}])
        wait_for(lambda: ref.search_queue.started_job_registry.count == 1, timeout=10)
        start = time.monotonic()
        quick = ref.create_match("super_blatt", 2, {"first_seat": 1}, 23, [{"name": "bob"}, {"bot": "greedy"}])
        wait_for(lambda: ref.store.load(quick["id"]).version == 2, timeout=10, interval=0.02)
        assert time.monotonic() - start < 2.0
        assert ref.store.load(slow["id"]).version == 1  # still thinking
        wait_for(lambda: ref.store.load(slow["id"]).version == 2, timeout=15)
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(20)
        for q in (*ref.bot_queues, ref.search_queue):
            q.delete(delete_jobs=True)


def test_sweeper_fires_a_lost_timeout_of_a_match_between_people(isolated, monkeypatch):
    """A clocked match of two people owes only its deadline: noted for the sweeper all the same, so a timeout
    job lost with its worker is fired again, once."""
    ref, client = isolated
    m = ref.create_match("super_blatt", 2, {"first_seat": 0}, 14, [{"name": "a"}, {"name": "b"}],
                         {"move_seconds": 0.05, "on_timeout": "default"})
    assert client.zscore(ref.store.pending, m["id"]) is not None  # noted by the commit, with the deadline
    time.sleep(0.1)
    # the deadline has passed; the dispatcher cannot apply the timeout itself (it failed there, say), so it
    # hands it to a worker
    with monkeypatch.context() as patched:
        patched.setattr(Dispatcher, "apply", lambda self, op: False)
        outbox.dispatch(ref)
    assert len(ref.people_queue) == 1
    ref.people_queue.empty()  # a worker took it and died
    assert sweep(ref, older_than=0) == 1
    burst(ref, client)
    timeouts = [e["data"] for e in ref.store.events(m["id"], 0) if e["type"] == "timeout"]
    assert timeouts[0]["seat"] == 0  # (the next seat's clock may run out in the burst too)
    assert len({(t["seat"], t["deadline"]) for t in timeouts}) == len(timeouts), "each timer ran out once"


@pytest.fixture()
def hooking(redis_url, monkeypatch):
    """A referee on a queue of its own whose webhooks may target loopback, and a match with a webhook."""
    monkeypatch.setenv("REFEREE_QUEUE", f"test-{uuid.uuid4().hex[:8]}")
    monkeypatch.setenv("REFEREE_WEBHOOK_ALLOW", "127.0.0.1")
    client = redis.Redis.from_url(redis_url)
    ref = Referee(client, Settings.from_env())
    m = ref.create_match("super_blatt", 2, {"first_seat": 0}, 3, [{"name": "a"}, {"name": "b"}],
                         webhook={"url": "http://127.0.0.1:9/hook"})
    yield ref, client, m
    for queue in (*ref.bot_queues, ref.search_queue):
        queue.delete(delete_jobs=True)


def test_the_webhook_sweep_leaves_a_delivery_waiting_in_the_outbox_and_resends_a_lost_one(hooking):
    """On one server the commit writes a webhook's note itself, while its delivery job waits in the outbox for the
    dispatcher: the sweep takes that job for alive, and sends the delivery again only once it is lost."""
    from service.core.outbox import outbox_key
    from workers.jobs import sweep_webhooks

    ref, client, m = hooking
    job_id = f"hooks_{m['id']}"
    assert client.hexists(outbox_key(m["id"], ref.settings.queue), job_id)  # the job, for the dispatcher
    assert sweep_webhooks(ref) == 0 and len(ref.queue) == 0  # waiting there is alive: nothing sent twice
    outbox.dispatch(ref)
    assert len(ref.queue) == 1
    ref.queue.empty()  # a worker took it and died
    assert sweep_webhooks(ref) == 1 and len(ref.queue) == 1


def test_a_delivery_owed_while_the_matchs_delivery_runs_is_sent_after_it_never_dropped(hooking):
    """RQ drops a job enqueued under the id of a running one (the running one deletes the key as it ends): a
    commit's delivery owed while ``hooks_<match>`` runs goes as ``hooks_<match>_next`` (commits collapse into it),
    and while that one runs too, under an id of its own."""

    ref, client, m = hooking
    outbox.dispatch(ref)
    ref.queue.empty()
    tokens = [s["token"] for s in m["seats"]]
    base = f"hooks_{m['id']}"

    def commit_and_dispatch() -> list[str]:
        """A move of the seat to act (each commit owes the webhook's delivery), dispatched: the job ids sent."""
        seat = ref.snapshot(m["id"], None)["to_act"][0]
        ref.apply_move(m["id"], Actor.of(tokens[seat]), ref.legal_moves(m["id"], tokens[seat])["moves"][0])
        outbox.dispatch(ref)
        ids = ref.queue.job_ids
        ref.queue.empty()
        return ids

    def running(job_id: str, yes: bool = True) -> None:
        if yes:
            client.hset(Job.key_for(job_id), "status", "started")
        else:
            client.delete(Job.key_for(job_id))

    assert commit_and_dispatch() == [base]  # none runs: the match's own id, which queued commits share
    running(base)
    assert commit_and_dispatch() == [f"{base}_next"]
    running(f"{base}_next")
    (own,) = commit_and_dispatch()
    assert own.startswith(f"{base}_") and own != f"{base}_next"
    running(base, False)
    assert commit_and_dispatch() == [base]


def test_a_delivery_that_finds_the_lock_taken_waits_for_its_holder_to_let_go(hooking):
    """The holder reads the log a last time, then lets go: a delivery that came meanwhile takes the match over
    then, rather than leave its commit to the sweeper; a holder still at work keeps it (it reads the log again)."""
    from service.integrations import webhooks

    ref, client, m = hooking
    client.set(webhooks.lock_key(m["id"]), "holder", px=60_000)
    again: list[float] = []
    assert webhooks.deliver(ref.store, client, ref.settings, m["id"], again.append) == "busy"
    releaser = threading.Timer(webhooks.HANDOFF_S / 3, lambda: client.delete(webhooks.lock_key(m["id"])))
    client.set(webhooks.lock_key(m["id"]), "holder", px=60_000)
    releaser.start()
    outcome = webhooks.deliver(ref.store, client, ref.settings, m["id"], again.append)
    releaser.join()
    assert outcome == "retrying" and again  # it took over and tried to send (port 9 refuses): a retry is set
