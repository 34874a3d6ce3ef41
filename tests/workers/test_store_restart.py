"""Delayed work outlives a restart of the store (issue 45): a webhook's retry waiting in the dispatcher's due
set, and one of RQ's delayed jobs, both still run once a private embedded server was stopped and started
again under load of the workers; every line the workers write meanwhile is JSON."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
import uuid
from datetime import timedelta

import redis
from rq import Queue
from rq.job import Job
from rq.serializers import JSONSerializer

from service.core.base import Actor
from service.core.referee import Referee as Engine
from service.infra.config import Settings
from service.infra.embedded import EmbeddedRedis
from tests.api.test_webhooks import Receiver
from tests.conftest import ROOT, json_lines, stop_group, wait_for


def test_a_delayed_retry_and_an_rq_delayed_job_still_run_after_the_store_restarts(tmp_path, monkeypatch):
    store = EmbeddedRedis(tmp_path / "store", persist=True)  # the append-only file keeps the due set
    url = store.start()
    env = {"REDIS_URL": url, "REFEREE_QUEUE": f"restart-{uuid.uuid4().hex[:8]}", "REFEREE_WEBHOOK_ALLOW": "127.0.0.1",
           "REFEREE_JOB_TIMEOUT": "5", "REFEREE_WEBHOOK_TIMEOUT": "2", "REFEREE_SWEEP_AFTER": "2",
           "REFEREE_LOG_FORMAT": ""}
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    log = tempfile.NamedTemporaryFile(prefix="referee-worker-", suffix=".log", delete=False)
    proc = subprocess.Popen([sys.executable, "-m", "clients.cli", "worker", "--workers", "1", "--search-workers", "0"],
                            cwd=ROOT, env={**os.environ, **env}, stdout=subprocess.DEVNULL, stderr=log,
                            start_new_session=True)
    receiver = Receiver(fail=1)  # the first send fails: its retry waits 2 s in the due set
    try:
        engine = Engine(redis.Redis.from_url(url), Settings.from_env())
        m = engine.create_match("super_blatt", 2, {"first_seat": 0}, 5, [{"name": "a"}, {"name": "b"}],
                                webhook={"url": receiver.url, "events": ["move"]})
        game = engine.game("super_blatt")
        match = engine.store.load(m["id"])
        engine.apply_move(m["id"], Actor.playing(0), game.legal_moves(match.state, 0)[0])
        queue = Queue(engine.settings.queue, connection=engine.queue.connection, serializer=JSONSerializer)
        delayed = f"delayed-{uuid.uuid4().hex[:8]}"
        queue.enqueue_in(timedelta(seconds=3), "workers.jobs.deliver_webhooks", m["id"], job_id=delayed,
                         result_ttl=600)
        wait_for(lambda: len(receiver.got) >= 1, timeout=20)  # the failed send: its retry is now due in 2 s
        assert receiver.got[0][2] == 500
        store.stop()  # (a graceful stop writes the append-only file out; both delayed jobs are in it)
        time.sleep(1.5)  # the workers meet a store that is gone
        store.start()
        secret = m["webhook"]["secret"]
        wait_for(lambda: receiver.delivered(secret), timeout=30)  # the retry fired after the restart
        assert [d["type"] for d in receiver.delivered(secret)] == ["move"]
        client = redis.Redis.from_url(url)
        wait_for(lambda: Job.fetch(delayed, connection=client, serializer=JSONSerializer).get_status()
                 == "finished", timeout=30)
    finally:
        stop_group(proc)
        receiver.close()
        store.close()
        log.close()
    said = [line.get("message", "") for line in json_lines(log.name)]
    os.unlink(log.name)
    assert any("backing off" in text for text in said), said  # the outage was said (once per process)
    assert len([t for t in said if "backing off" in t]) <= 12, said
