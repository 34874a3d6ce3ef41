"""Every Redis client the service makes, made here: the app, the workers, the sweeper and the CLI.

The match store is one server (``REDIS_URL``) or a Valkey/Redis Cluster (``REFEREE_REDIS_CLUSTER=1``,
``REDIS_URL`` naming any node).  RQ's queues need a single node: ``REFEREE_QUEUE_URL``, by default
the store's own server, in which case both roles share one client so that a commit and the jobs it
owes are one transaction.

redis-py reconnects by itself once a server that went away is back (the embedded server restarted
by ``referee serve``), retrying a command a few times with backoff first; what still fails is
answered 503 ``redis_unavailable`` by the API.
"""

from __future__ import annotations

import redis
from redis.cluster import RedisCluster

from service.infra.config import Settings

Store = redis.Redis | RedisCluster


def store_client(settings: Settings, timeout: float | None = None) -> Store:
    """``timeout``: the socket timeout of every command (None: none, as RQ's blocking dequeue needs)."""
    if not settings.redis_url:
        raise RuntimeError("Set REDIS_URL (or run `referee serve`, which starts an embedded server).")
    kwargs = {"socket_timeout": timeout, "socket_connect_timeout": timeout} if timeout else {}
    if settings.redis_cluster:
        return RedisCluster.from_url(settings.redis_url, **kwargs)
    return redis.Redis.from_url(settings.redis_url, **kwargs)


def queue_client(settings: Settings, store: Store, timeout: float | None = None) -> redis.Redis:
    if not settings.queue_apart:
        return store
    if not settings.queue_url:
        raise RuntimeError("A cluster store needs REFEREE_QUEUE_URL: RQ's queues live on one server.")
    kwargs = {"socket_timeout": timeout, "socket_connect_timeout": timeout} if timeout else {}
    return redis.Redis.from_url(settings.queue_url, **kwargs)


def connect(settings: Settings, timeout: float | None = None) -> tuple[Store, redis.Redis]:
    """(store, queue) clients; the same client when the queue lives on the store's server."""
    store = store_client(settings, timeout)
    return store, queue_client(settings, store, timeout)


def store_for_queue(settings: Settings, queue: redis.Redis) -> Store:
    """The store a worker's jobs use, given the worker's queue connection (the same one unless apart)."""
    return store_client(settings) if settings.queue_apart else queue
