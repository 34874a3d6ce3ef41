"""What the store knows, read at a metrics scrape: RQ queue depths, matches by status, the store's memory.

Read at the scrape (not counted as things happen) so the figures are true whichever process answers and cost
nothing between scrapes; ``GET /metrics`` and ``referee worker --metrics-port`` hand it to
:func:`service.integrations.metrics.render`.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator

from prometheus_client.core import GaugeMetricFamily

from service.core import outbox
from service.core.keys import listing_key, match_key
from service.core.store import Status

log = logging.getLogger("referee.metrics")

#: matches counted by status at a scrape, newest listed first (REFEREE_METRICS_MATCHES)
MATCHES_COUNTED = int(os.environ.get("REFEREE_METRICS_MATCHES", 10_000))


class StoreGauges:
    """What the store says at the scrape: RQ queue depths, matches by status, the store's memory."""

    def __init__(self, referee) -> None:
        self.referee = referee

    def collect(self) -> Iterator[GaugeMetricFamily]:
        ref = self.referee
        up = GaugeMetricFamily("referee_store_up", "Whether the store and the queue's server answered this scrape.")
        try:
            queued = GaugeMetricFamily("referee_queue_depth", "Jobs waiting in each RQ queue.", labels=["queue"])
            scheduled = GaugeMetricFamily("referee_queue_scheduled", "Jobs scheduled for later on each RQ queue "
                                          "(retries after a failure).", labels=["queue"])
            due = GaugeMetricFamily("referee_jobs_due_later", "Jobs the dispatcher keeps until their time "
                                    "(turn clocks' timeouts).")
            due.add_metric([], ref.queue.connection.zcard(outbox.due_key(ref.settings.queue)))
            outboxes = GaugeMetricFamily("referee_outboxes", "Matches whose outbox holds ops the dispatcher has "
                                         "not moved yet (one server only; a cluster has no index).")
            outboxes.add_metric([], ref.store.redis.zcard(ref.store.index) if ref.store.index else 0)
            started = GaugeMetricFamily("referee_queue_started", "Jobs being run from each RQ queue.",
                                        labels=["queue"])
            for queue in (ref.people_queue, ref.queue, ref.search_queue):
                queued.add_metric([queue.name], queue.count)
                scheduled.add_metric([queue.name], queue.scheduled_job_registry.count)
                started.add_metric([queue.name], queue.started_job_registry.count)
            used, bound = ref.store.memory()
            memory = GaugeMetricFamily("referee_store_used_memory_bytes", "INFO memory used_memory of the store's "
                                       "fullest server.")
            memory.add_metric([], used)
            limit = GaugeMetricFamily("referee_store_max_memory_bytes", "That server's maxmemory (0: no bound).")
            limit.add_metric([], bound)
            reserved = GaugeMetricFamily("referee_store_reserved_bytes", "Room the store keeps for the admitted "
                                         "matches not yet over (docs/store.md).")
            reserved.add_metric([], ref.store.reserved())
            listed, by_status = self.matches()
            matches = GaugeMetricFamily("referee_matches", f"Listed matches by status (the newest {MATCHES_COUNTED} "
                                        "of the listing, counted at the scrape).", labels=["status"])
            for status, count in sorted(by_status.items()):
                matches.add_metric([status], count)
            total = GaugeMetricFamily("referee_matches_listed", "Matches in the listing (expired ones included "
                                      "until a reader drops them).")
            total.add_metric([], listed)
        except Exception as exc:  # noqa: BLE001 - a scrape still answers what the processes counted
            log.warning("metrics: the store could not be read: %r", exc)
            up.add_metric([], 0)
            yield up
            return
        up.add_metric([], 1)
        yield from (up, queued, scheduled, due, outboxes, started, memory, limit, reserved, matches, total)

    def matches(self) -> tuple[int, dict[str, int]]:
        """(listing size, {status: count}) over the newest ``MATCHES_COUNTED`` listed matches."""
        store = self.referee.store
        listed = store.redis.zcard(listing_key())
        by_status = {str(s): 0 for s in Status}
        page = 1000
        for start in range(0, min(listed, MATCHES_COUNTED), page):
            ids = store.redis.zrevrange(listing_key(), start, min(start + page, MATCHES_COUNTED) - 1)
            pipe = store.redis.pipeline(transaction=False)
            for match_id in ids:
                pipe.hget(match_key(match_id.decode()), "status")
            for status in pipe.execute():
                if status is not None:
                    key = status.decode()
                    by_status[key] = by_status.get(key, 0) + 1
        return listed, by_status
