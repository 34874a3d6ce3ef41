"""prometheus-client's private ``_buckets`` and ``_sum`` of a histogram: observations added in bulk.

A histogram's public ``observe`` takes one observation; in multiprocess mode it writes the process's mapped
file twice, under a lock.  An API process counts its requests in its own memory and adds them to the shared
histogram every half second (service/integrations/metrics.py, ``Requests``), a bucket at a time.
"""

from __future__ import annotations

from collections.abc import Sequence

from prometheus_client import Histogram


def add_observations(histogram: Histogram, counts: Sequence[int], total: float) -> None:
    """Add ``counts`` observations to each bucket of ``histogram`` (a labelled child; its buckets in order, the
    last the +Inf one) and ``total`` to its sum."""
    for bucket, n in zip(histogram._buckets, counts):
        if n:
            bucket.inc(n)
    histogram._sum.inc(total)
