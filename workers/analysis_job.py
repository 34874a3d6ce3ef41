"""The RQ job of a finished match's analysis (asked for with ``POST /matches/{id}/analysis``: service/core/analyses.py).

It runs on the search queue, whose workers take it after the search bots' turns, at the server's budget
(``REFEREE_ANALYSIS_BUDGET``), and writes its progress into the store as it goes (``running``, decisions done of
all), then the analysis (workers/analysis.py) beside the match's record, or ``failed``.  Either end releases
the room the store kept for it.
"""

from __future__ import annotations

import logging
import time

from rq import get_current_job

from service.core.referee import Referee
from service.infra.problems import Problem
from workers.analysis import analyse
from workers.jobs import referee_for

log = logging.getLogger("referee.workers")

#: seconds between two writes of an analysis's progress (each decision may take a few milliseconds)
PROGRESS_EVERY_S = 0.25


def analyse_match(match_id: str) -> str:
    """Analyse the finished match ``match_id`` and keep the analysis with its record."""
    return run_analysis(referee_for(get_current_job().connection), match_id)


def run_analysis(ref: Referee, match_id: str) -> str:
    """The job's work, on any referee (a test's, a benchmark's): what became of the analysis."""
    try:
        record = ref.analysis_record(match_id)
    except Problem:  # the match expired meanwhile: its analysis went with it
        return "gone"
    counts = {"done": 0, "total": 0}
    last = 0.0

    def progress(done: int, total: int) -> None:
        nonlocal last
        counts.update(done=done, total=total)
        now = time.monotonic()
        if now - last >= PROGRESS_EVERY_S or done == total:
            last = now
            ref.write_analysis(match_id, {"status": "running", **counts})

    ref.write_analysis(match_id, {"status": "running", **counts})
    try:
        result = analyse(record, ref.settings.analysis_budget, progress)
    except Exception:
        log.exception("the analysis of match %s failed", match_id)
        ref.write_analysis(match_id, {"status": "failed", **counts})
        return "failed"
    total = len(result["decisions"])
    ref.write_analysis(match_id, {"status": "done", "done": total, "total": total}, result)
    return "done"
