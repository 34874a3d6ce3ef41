"""redis-py's connection, used below its command layer: a command packed by hiredis and sent on the
connection a single-connection client holds (``Redis.connection``, ``Connection.send_packed_command``,
``Connection.read_response``).

redis-py's per-command machinery (option parsing, retry wrapper, type checks of every argument, response
callbacks) costs more of the client's CPU than packing and parsing: measured on a move through the hot lanes,
the public ``execute_command`` instead costs about 10 µs more a command and a fifth more client CPU a move
(docs/architecture.md, "Private names of dependencies").  These are public methods, but using them this way
relies on how a single-connection client keeps its connection and on ``read_response`` raising the command's
error (``NoScriptError``...) and answering without response callbacks.
"""

from __future__ import annotations

from typing import Any

import redis
from hiredis import pack_command
from redis.cluster import RedisCluster


def call(client: redis.Redis | RedisCluster, *args: Any) -> Any:
    """``args`` as one command straight on ``client``'s own connection, its answer unconverted; a failed
    connection falls back to the client's own command, which reconnects and retries exactly as any other call
    does (as does a client without a connection of its own: a pooled client, a cluster's)."""
    conn = getattr(client, "connection", None)
    if conn is not None:
        try:
            conn.send_packed_command((pack_command(args),), check_health=False)
            return conn.read_response()
        except (redis.ConnectionError, redis.TimeoutError):
            conn.disconnect()  # the client's retry reconnects it
    return client.execute_command(*args)
