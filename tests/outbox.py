"""Tests that drive a referee in-process move its outboxes to RQ themselves, as the dispatcher would, and
run the jobs in a burst worker."""

from __future__ import annotations

from rq import SimpleWorker

from service.core.referee import Referee
from workers.dispatch import Dispatcher, until_idle


def dispatch(ref: Referee) -> int:
    """Move every outbox of ``ref``'s matches (and the jobs whose time has come) to RQ; how many ops moved."""
    dispatcher, moved = Dispatcher(ref), 0
    dispatcher.scan_every = 0.0  # no channel here: a cluster's outboxes are found by scanning, every round
    while step := dispatcher.round():
        moved += step
    return moved


def burst(ref: Referee, client=None, worker: type[SimpleWorker] = SimpleWorker, queues=None) -> int:
    """Dispatch, and run the jobs until nothing is owed now; how many jobs ran (for a ``worker`` class that
    counts them in ``ran``, else how many bursts did work).  ``client``: the queue's (the referee's own)."""
    return until_idle(ref, worker, queues)
