"""The store's keys, one function a key, so every part names a key the same way.

Keys carry the hash tag ``{m:<id>}`` so a match lives in one Redis Cluster slot:

- ``ref:{m:<id>}``        hash: game, status, version, state, meta, auth, seq, result; once compacted
  (service/core/compaction.py), ``log`` instead of ``state``; once its analysis is asked for
  (service/core/analyses.py), ``analysis`` (its progress) and, when done, ``analysed`` (the result, compressed)
- ``ref:{m:<id>}:events`` stream; entry ``0-<seq>`` holds one event (``to``, ``type``, ``data``, ``v``); once
  compacted, only played again for reading, for ``cache_ttl`` seconds (with ``ref:{m:<id>}:state``)
- ``ref:{m:<id>}:outbox:<queue>`` hash of what the commits owe, until the dispatcher moves it on (core/outbox.py)
- ``ref:{m:<id>}:idem:<seat>:<key>`` the first answer to a move sent with an Idempotency-Key, and a
  digest of that request
- ``ref:listing`` and ``ref:listing:<game>`` zsets of the listed matches, scored by creation time (µs);
  global keys written with single-key commands outside any match's transaction (Redis Cluster
  puts them in slots of their own), so the listing is eventually consistent: a reader re-checks
  each match and drops the ones that expired
- ``ref:{m:<id>}:ticket:<ticket>`` a stream ticket: the seat it opens, until it expires
- ``ref:{m:<id>}:streams:<seat>`` zset of the seat's open event streams, scored by lease end
- channel ``ref:{m:<id>}:notify``: every commit publishes its notice there: the new version, then its status, the
  seats to act, its game, its state and its events, one a line (held long-polls and streams wake; a stream may
  send from it)

Global sets of a queue (on the queue's server): ``ref:pending:<queue>``, ``ref:finished:<queue>``,
``ref:reserve:<queue>`` below.
"""

from __future__ import annotations


def state_key(match_id: str) -> str:
    """A compacted match's state, played again, kept for reading (service/core/compaction.py)."""
    return f"ref:{{m:{match_id}}}:state"


def match_key(match_id: str) -> str:
    return f"ref:{{m:{match_id}}}"


def events_key(match_id: str) -> str:
    return f"ref:{{m:{match_id}}}:events"


def idem_key(match_id: str, seat: str, key: str) -> str:
    return f"ref:{{m:{match_id}}}:idem:{seat}:{key}"


def listing_key(game: str | None = None) -> str:
    return "ref:listing" if game is None else f"ref:listing:{game}"


def notify_channel(match_id: str) -> str:
    return f"ref:{{m:{match_id}}}:notify"


def ticket_key(match_id: str, ticket: str) -> str:
    return f"ref:{{m:{match_id}}}:ticket:{ticket}"


def streams_key(match_id: str, seat: int) -> str:
    return f"ref:{{m:{match_id}}}:streams:{seat}"


def pending_key(queue: str) -> str:
    """zset of the matches that owe a job (bot turn or scoring) on ``queue``, scored by time."""
    return f"ref:pending:{queue}"


def finished_key(queue: str) -> str:
    """zset of the finished matches kept, scored by the time they finished (``referee export --finished``)."""
    return f"ref:finished:{queue}"


def reserve_key(queue: str) -> str:
    """zset of the admitted matches not yet over, scored by the bytes each may still write (:func:`growth`):
    the room the store keeps for them (on the queue's server, as the other global sets)."""
    return f"ref:reserve:{queue}"
