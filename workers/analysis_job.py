"""The RQ job of a finished match's analysis (asked for with ``POST /matches/{id}/analysis``: service/core/analyses.py).

It runs on the search queue at the server's budget (``REFEREE_ANALYSIS_BUDGET``) and judges the record's
decisions one by one (workers/analysis.py), writing its progress into the store as it goes (``running``,
decisions done of all), then the analysis beside the match's record, or ``failed``; either end releases the room
the store kept for it.

Below every turn.  A search worker serves the search bots' turns, then the people's queue; an analysis must
delay neither.  So between two decisions the job looks whether a turn waits in either queue (an analysis
waiting there does not count), and if one does it gives its worker up: it keeps the decisions judged so far
with its progress and owes the job that goes on from there, in one step (``Referee.continue_analysis``), and
that job joins the back of the search queue.  A turn thus waits for one decision at most (tens of
milliseconds at the default budget), and an analysis alone on a quiet server runs in one job.  Decisions are
judged independently (each from its own seeded deals), so an analysis cut into jobs is the same analysis.

Bounded as a whole.  A long match (a 5-player three-hand Paparazzo has 500-750 decisions) at 100 ms a decision
would take over a minute, so a budget in milliseconds is cut to ``REFEREE_ANALYSIS_SECONDS`` (45; a decision
also costs its deals and the progress writes, about 10 % more) over the match's decisions, never below
``ANALYSIS_FLOOR_MS``; the analysis's ``budget`` says what each decision had.  A budget of iterations alone is
kept as given: whoever sets one asks for the same analysis on any machine.
"""

from __future__ import annotations

import logging
import time

from rq import get_current_job

from service.core.referee import Referee
from service.infra.problems import Problem
from workers.analysis import assemble, budget_from_env, decisions, judge_decision
from workers.bots.search import Budget
from workers.jobs import referee_for

log = logging.getLogger("referee.workers")

#: seconds between two writes of an analysis's progress
PROGRESS_EVERY_S = 0.25
#: jobs looked at, at the head of the search queue, for a turn waiting behind analyses
PEEK = 100
#: the least time a decision gets when a long match's budget is cut to the whole analysis's seconds
ANALYSIS_FLOOR_MS = 10.0


def analyse_match(match_id: str, start: int = 0) -> str:
    """Analyse the finished match ``match_id`` from its ``start``-th decision on (0: the job asked for; more: one
    that goes on where its predecessor gave its worker up) and keep the analysis with its record."""
    ref = referee_for(get_current_job().connection)
    return run_analysis(ref, match_id, start, lambda: turn_waits(ref))


def turn_waits(ref: Referee) -> bool:
    """Whether a turn waits for a search worker: a job in the people's queue, or in the search queue one that is
    not an analysis's."""
    if len(ref.people_queue):
        return True
    return any(not job_id.startswith("analysis_") for job_id in ref.search_queue.get_job_ids(0, PEEK - 1))


def budget_of(ref: Referee, decisions: int) -> Budget:
    """The server's budget per decision (``REFEREE_ANALYSIS_BUDGET``, else the engine's default), its milliseconds
    cut so that ``decisions`` of them fit the whole analysis's seconds (the module's docstring)."""
    budget = Budget.parse(ref.settings.analysis_budget) if ref.settings.analysis_budget else budget_from_env()
    if budget.ms is None or not decisions:
        return budget
    share = max(ANALYSIS_FLOOR_MS, ref.settings.analysis_seconds * 1000 / decisions)
    return budget if share >= budget.ms else Budget(budget.iterations, float(round(share)))


def analyse_decisions(record: dict, todo: list, budget: Budget) -> list[dict]:
    """The engine's judgement of each of ``todo`` (decisions of ``record``), one by one as ``analyse`` judges them."""
    return [judge_decision((record["game"], str(record["seed"]), budget, d)) for d in todo]


def run_analysis(ref: Referee, match_id: str, start: int = 0, give_up=lambda: False) -> str:
    """The job's work on any referee (a test's, a benchmark's); ``give_up()`` says, between two decisions, to hand
    the rest to a job at the back of the queue.  Returns what became of the analysis."""
    try:
        record = ref.analysis_record(match_id)
    except Problem:  # the match expired meanwhile: its analysis went with it
        return "gone"
    judged = ref.store.analysis_judged(match_id) if start else []
    if len(judged) != start:  # a job run again after its successor was owed: that one goes on
        return "superseded"
    try:
        todo = decisions(record)
    except Exception:
        log.exception("the analysis of match %s failed: its record does not play again", match_id)
        ref.write_analysis(match_id, {"status": "failed", "done": start, "total": 0})
        return "failed"
    total, last = len(todo), time.monotonic()
    budget = budget_of(ref, total)
    progress = {"status": "running", "done": start, "total": total, "start": start}
    if not ref.write_analysis(match_id, progress):
        return "gone"
    try:
        for i in range(start, total):
            if i > start and give_up():
                return "continued" if ref.continue_analysis(match_id, progress, judged) else "gone"
            judged += analyse_decisions(record, todo[i:i + 1], budget)
            progress = {**progress, "done": i + 1}
            if time.monotonic() - last >= PROGRESS_EVERY_S and i + 1 < total:
                last = time.monotonic()
                if not ref.write_analysis(match_id, progress):
                    return "gone"
        result = assemble(record, budget, judged)
    except Exception:
        log.exception("the analysis of match %s failed", match_id)
        ref.write_analysis(match_id, {**progress, "status": "failed"})
        return "failed"
    ref.write_analysis(match_id, {"status": "done", "done": total, "total": total}, result)
    return "done"
