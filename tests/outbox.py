"""Tests that drive a referee in-process move its outboxes to RQ themselves, as the dispatcher would, and
run the jobs in a burst worker."""

from __future__ import annotations

from rq import SimpleWorker
from rq.serializers import JSONSerializer

from service.referee import Referee
from workers.dispatch import Dispatcher


def dispatch(ref: Referee) -> int:
    """Move every outbox of ``ref``'s matches (and the jobs whose time has come) to RQ; how many ops moved."""
    dispatcher, moved = Dispatcher(ref), 0
    while step := dispatcher.round():
        moved += step
    return moved


def burst(ref: Referee, client=None, worker: type[SimpleWorker] = SimpleWorker, queues=None) -> int:
    """Dispatch, run the bot queues' jobs until none is left, and again while jobs owe more; how many jobs ran
    (for a ``worker`` class that counts them in ``ran``, else how many bursts did work)."""
    ran = 0
    while True:
        dispatch(ref)
        w = worker(queues or ref.bot_queues, connection=client or ref.queue.connection, serializer=JSONSerializer)
        before = sum(len(q) for q in w.queues)
        if not before:
            return ran
        w.work(burst=True, logging_level="ERROR")
        ran += getattr(w, "ran", 1)
