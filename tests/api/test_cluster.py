"""The match store on a 3-primary Valkey Cluster, RQ's queue on a server of its own.

The live API tests (tests/api/test_live.py, tests/api/test_games_http.py) run here a second time,
against a `referee serve` configured as a deployment beyond one machine would be:
``REFEREE_REDIS_CLUSTER=1`` with ``REDIS_URL`` naming one node, ``REFEREE_QUEUE_URL`` another server.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import uuid

import pytest
import redis
from redis.cluster import RedisCluster

from service.core.base import Actor
from service.core.outbox import outbox_key
from service.core.referee import Referee
from service.core.store import Store
from service.infra.config import Settings
from service.infra.connections import connect
from service.infra.embedded import EmbeddedCluster, EmbeddedRedis
from tests import outbox
from tests.api import test_games_http, test_live
from tests.conftest import ROOT, Server
from workers.dispatch import Dispatcher
from workers.jobs import FORGET, sweep

for _module in (test_live, test_games_http):  # collected again here, where `server` is the cluster's
    globals().update({name: test for name, test in vars(_module).items() if name.startswith("test_")})


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """(cluster, queue server): the cluster holds the matches, the single server RQ's queue."""
    nodes = EmbeddedCluster(tmp_path_factory.mktemp("cluster"))
    queue = EmbeddedRedis(tmp_path_factory.mktemp("queue"), persist=False)
    nodes.start()
    try:
        queue.start()
        yield nodes, queue
    finally:
        queue.close()
        nodes.stop()


@pytest.fixture(scope="module")
def env(cluster):
    nodes, queue = cluster
    return {"REDIS_URL": nodes.url, "REFEREE_REDIS_CLUSTER": "1", "REFEREE_QUEUE_URL": queue.url}


@pytest.fixture(scope="module")
def server(cluster, env):
    srv = Server(env["REDIS_URL"], env=env)
    yield srv
    srv.stop()


@pytest.fixture()
def local_ref(env, monkeypatch):
    """A referee in this process on the cluster, with a queue of its own that no live worker takes."""
    for key, value in dict(env, REFEREE_QUEUE=f"test-{uuid.uuid4().hex[:8]}").items():
        monkeypatch.setenv(key, value)
    settings = Settings.from_env()
    store, queue = connect(settings)
    ref = Referee(store, settings, queue)
    yield ref
    for queue in ref.bot_queues:
        queue.delete(delete_jobs=True)


def burst(ref: Referee) -> None:
    outbox.burst(ref)


def test_connections_follow_the_settings(local_ref, env):
    assert isinstance(local_ref.store.redis, RedisCluster)
    assert isinstance(local_ref.queue.connection, redis.Redis)
    assert local_ref.store.queue is local_ref.queue.connection is not local_ref.store.redis


def test_every_key_of_a_match_lives_on_one_node_and_the_queue_on_its_own_server(local_ref, cluster):
    nodes, queue = cluster
    m = local_ref.create_match("super_blatt", 2, {"first_seat": 1}, 3, [{"name": "ann"}, {"bot": "greedy"}])
    burst(local_ref)  # the bot moves: a hash, an event stream
    ann = m["seats"][0]["token"]
    local_ref.apply_move(m["id"], Actor.of(ann), local_ref.legal_moves(m["id"], ann)["moves"][0],
                         idempotency_key="k1")  # and an idempotency key
    holders = {}
    for node in nodes.nodes:
        keys = redis.Redis(port=node.port, password=node.password).keys(f"ref:{{m:{m['id']}}}*")
        if keys:
            holders[node.port] = sorted(keys)
    assert len(holders) == 1, holders
    (keys,) = holders.values()
    assert len(keys) == 3 and any(b":idem:" in k for k in keys)
    # the jobs a commit owes are written into its match's slot, by its compare-and-set: an outbox on that node
    owing = local_ref.create_match("super_blatt", 2, {"first_seat": 1}, 5, [{"name": "bo"}, {"bot": "greedy"}])
    holders = {node.port: sorted(redis.Redis(port=node.port, password=node.password).keys(f"ref:{{m:{owing['id']}}}*"))
               for node in nodes.nodes}
    (keys,) = [k for k in holders.values() if k]
    assert outbox_key(owing["id"], local_ref.settings.queue).encode() in keys and len(keys) == 3  # hash, events, outbox
    assert redis.Redis(port=queue.port, password=queue.password).zscore(local_ref.store.pending, m["id"]) is not None


def test_a_dispatcher_dying_between_enqueue_and_emptying_the_outbox_sends_nothing_twice(local_ref, monkeypatch):
    """The queue lives apart, so the dispatcher enqueues (marking each job sent) and then empties the outbox, in
    two steps.  One that dies between them leaves the ops in the outbox; the next finds them marked, sends
    nothing again, and empties it."""
    m = local_ref.create_match("super_blatt", 2, {}, 4, [{"bot": "random"}, {"bot": "greedy"}])
    box = outbox_key(m["id"], local_ref.settings.queue)
    # the bot turn, the sweeper's note and the room the store keeps for the match (docs/store.md)
    assert len(local_ref.queue) == 0 and local_ref.store.redis.hlen(box) == 3
    with monkeypatch.context() as crash:
        crash.setattr(Store, "taken", lambda *args, **kwargs: None)  # the dispatcher dies here
        assert Dispatcher(local_ref).round() == 3
    assert len(local_ref.queue) == 1 and local_ref.store.redis.hlen(box) == 3
    kept = local_ref.store.reserved()
    assert Dispatcher(local_ref).round() == 2  # only the notes again (idempotent); the job was marked as sent
    assert local_ref.store.reserved() == kept  # the room is kept once
    assert len(local_ref.queue) == 1 and not local_ref.store.redis.exists(box)
    burst(local_ref)
    match = local_ref.store.load(m["id"])
    assert match.status == "finished" and match.result["winners"]
    assert sweep(local_ref, older_than=0) == 0


def test_the_sweeper_keeps_a_match_noted_again_while_it_swept(local_ref):
    queue, pending = local_ref.queue.connection, local_ref.store.pending
    queue.zadd(pending, {"fresh": 100.0, "stale": 10.0})
    assert queue.eval(FORGET, 1, pending, "fresh", 50) == 0  # noted after the sweep's cutoff: kept
    assert queue.eval(FORGET, 1, pending, "stale", 50) == 1
    assert queue.zrange(pending, 0, -1) == [b"fresh"]


def test_a_cluster_without_a_queue_server_is_refused(monkeypatch, env):
    monkeypatch.setenv("REDIS_URL", env["REDIS_URL"])
    monkeypatch.setenv("REFEREE_REDIS_CLUSTER", "1")
    monkeypatch.delenv("REFEREE_QUEUE_URL", raising=False)
    with pytest.raises(RuntimeError, match="REFEREE_QUEUE_URL"):
        connect(Settings.from_env())


def test_python_m_service_embedded_serves_a_cluster_until_stopped(monkeypatch):
    """The benchmark helper: it prints the settings of a cluster that works, and Ctrl-C removes it."""
    proc = subprocess.Popen([sys.executable, "-m", "service.infra.embedded", "--primaries", "3"], cwd=ROOT,
                            stdout=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline().split()
        assert line[0] == "export"
        for pair in line[1:]:
            monkeypatch.setenv(*pair.split("=", 1))
        store, queue = connect(Settings.from_env())
        assert isinstance(store, RedisCluster) and len(store.get_primaries()) == 3
        store.set("ref:{probe}", 1)
        assert store.get("ref:{probe}") == b"1" and queue.ping()
    finally:
        proc.send_signal(signal.SIGINT)
        assert proc.wait(20) == 0
    with pytest.raises(redis.ConnectionError):
        queue.connection_pool.reset()
        queue.ping()
