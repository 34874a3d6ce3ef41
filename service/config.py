"""Settings from the environment, read once per process."""

from __future__ import annotations

import os
from dataclasses import dataclass


def _int(name: str, default: int) -> int:
    return int(os.environ.get(name, default))


@dataclass(frozen=True)
class Settings:
    redis_url: str | None
    #: seconds a finished or aborted match (and its events) is kept
    finished_ttl: int
    #: seconds without a commit after which a waiting or active match expires
    abandoned_ttl: int
    #: largest request body accepted, in bytes
    max_body: int
    #: longest long-poll (``wait``) a request may hold, in seconds
    max_wait: int
    #: seconds a bot or scoring job may run before RQ kills it
    job_timeout: int
    #: seconds a bot turn may stay undone before the sweeper re-enqueues it
    sweep_after: int
    queue: str

    @classmethod
    def from_env(cls) -> Settings:
        return cls(
            redis_url=os.environ.get("REDIS_URL") or None,
            finished_ttl=_int("REFEREE_FINISHED_TTL", 7 * 24 * 3600),
            abandoned_ttl=_int("REFEREE_ABANDONED_TTL", 2 * 24 * 3600),
            max_body=_int("REFEREE_MAX_BODY", 64 * 1024),
            max_wait=_int("REFEREE_MAX_WAIT", 60),
            job_timeout=_int("REFEREE_JOB_TIMEOUT", 30),
            sweep_after=_int("REFEREE_SWEEP_AFTER", 15),
            queue=os.environ.get("REFEREE_QUEUE", "referee"),
        )
