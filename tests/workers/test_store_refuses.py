"""A store that refuses every write for a while (at its bound) stops no process for good (issue 45): the
workers, the sweeper and the dispatcher each say it once and back off, none dies in a loop, every line they
write is JSON, and once the store takes writes again every match plays to its end."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
import uuid

import redis

from service.core.keys import match_key
from service.core.referee import Referee as Engine
from service.infra.config import Settings
from service.infra.embedded import EmbeddedRedis
from tests.conftest import ROOT, json_lines, stop_group, wait_for


def test_refused_writes_are_said_once_per_process_and_play_goes_on_after(tmp_path, monkeypatch):
    store = EmbeddedRedis(tmp_path / "store", persist=False)
    url = store.start()
    client = redis.Redis.from_url(url)
    client.config_set("maxmemory-policy", "noeviction")
    env = {"REDIS_URL": url, "REFEREE_QUEUE": f"refused-{uuid.uuid4().hex[:8]}", "REFEREE_JOB_TIMEOUT": "5",
           "REFEREE_SWEEP_AFTER": "1", "REFEREE_LOG_FORMAT": "", "REFEREE_BOT_SLICE_MS": "5"}
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    engine = Engine(client, Settings.from_env())
    bots = [{"bot": "random"}, {"bot": "greedy"}, {"bot": "random"}, {"bot": "greedy"}]
    ids = [engine.create_match("super_blatt", 4, {}, seed, bots)["id"] for seed in range(6)]
    client.config_set("maxmemory", 1)  # every write refused from now on, before any worker played a turn
    log = tempfile.NamedTemporaryFile(prefix="referee-worker-", suffix=".log", delete=False)
    proc = subprocess.Popen([sys.executable, "-m", "clients.cli", "worker", "--workers", "1", "--search-workers", "0"],
                            cwd=ROOT, env={**os.environ, **env}, stdout=subprocess.DEVNULL, stderr=log,
                            start_new_session=True)
    try:
        time.sleep(6)  # the processes meet the refusal, again and again
        assert all(client.hget(match_key(m), "status") == b"active" for m in ids)
        client.config_set("maxmemory", 0)
        wait_for(lambda: all(client.hget(match_key(m), "status") == b"finished" for m in ids), timeout=45,
                 interval=0.5)
    finally:
        stop_group(proc)
        log.close()
        client.close()
        store.close()
    lines = json_lines(log.name)
    os.unlink(log.name)
    said = [(line.get("pid"), line.get("message", "")) for line in lines]
    refused = [(pid, m) for pid, m in said if "refuses writes at its maxmemory" in m]
    assert refused, said
    by_process: dict = {}
    for pid, _ in refused:
        by_process[pid] = by_process.get(pid, 0) + 1
    assert max(by_process.values()) <= 2, refused  # once per incident (and per kind of it), not once per try
    assert not [m for _, m in said if "exited" in m], said  # no process died of it
    assert any("recovered after" in m for _, m in said), said
    assert len(lines) < 200, f"{len(lines)} lines in about 10 s"
