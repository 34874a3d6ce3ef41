"""A finished match's analysis: asked for by anyone, run once by a search worker, kept with the match's record.

The analysis itself (each seat's chances, judged from what that seat knew) is workers/analysis.py's; this part
keeps its life in the store, in the match's own hash (service/core/keys.py), so it lives and expires with the
match and travels with its record:

- ``POST /matches/{id}/analysis`` (``ask_analysis``) notes it ``queued`` and writes its job into the match's
  outbox in one script (``Store.ask_analysis``), as a commit writes the jobs it owes: the dispatcher hands it
  to the search queue, whose workers take it behind the search bots' turns (never before a match in play).
  Asking again answers what is kept, so an analysis runs once however often it is asked for; one that failed
  is run again.
- Only a finished match is analysed: before its end an analysis would tell what the seats hold.
- The job (workers/analysis_job.py) writes ``running`` with the decisions done as it goes, then the result.
- The store's admission (docs/store.md) holds: an analysis is asked for only while the store admits new
  matches, and the room its result may take (no more than its record's size) is kept in the reserve until the
  job has written it.
"""

from __future__ import annotations

from rq.job import Job, JobStatus

from service.core import outbox
from service.core.base import unknown_match
from service.core.capacity import Capacity
from service.core.records import Records
from service.core.store import Status, dumps
from service.infra.problems import Problem

#: the RQ function of an analysis, enqueued by name (the core never imports the workers)
ANALYSIS_JOB = "workers.analysis_job.analyse_match"
#: longest an analysis job may run before RQ stops it (it is then run again, up to its retries)
ANALYSIS_TIMEOUT_S = 600
#: the progress of an analysis before its job starts
QUEUED = {"status": "queued", "done": 0, "total": 0}
#: the states of an RQ job that will still run, or runs
LIVE = {JobStatus.CREATED, JobStatus.QUEUED, JobStatus.SCHEDULED, JobStatus.DEFERRED, JobStatus.STARTED}


def analysis_job_id(match_id: str, start: int = 0) -> str:
    """The job that judges a match's decisions from ``start`` on (the first, or one that goes on after its
    predecessor gave its worker up to a turn: workers/analysis_job.py)."""
    return f"analysis_{match_id}" if not start else f"analysis_{match_id}_{start}"


def reserve_member(match_id: str) -> str:
    """The analysis's member of the store's reserve: the match's own id (released when the match ended, so free;
    the sweeper releases it too should the match expire first)."""
    return match_id


def shown(progress: dict, result: dict | None) -> dict:
    """An analysis as the API answers it: its progress (without the job's own ``start``), the analysis once done."""
    out = {"status": progress["status"], "done": progress["done"], "total": progress["total"]}
    return {**out, "analysis": result} if result is not None else out


class Analyses(Records, Capacity):
    """Asking for a finished match's analysis, its progress and its result."""

    def ask_analysis(self, match_id: str) -> tuple[dict, bool]:
        """The analysis of a finished match as kept (its progress, and its result once done) and whether this
        request asked for it first (its job is then owed)."""
        status, progress, result = self._analysis_of(match_id)
        if status != Status.FINISHED:
            raise Problem("match_not_over", f"The match is {status}: it is analysed once it is finished, when "
                          "nothing it hides is secret any more.")
        if progress is not None and progress["status"] != "failed" and not self._lost(match_id, progress):
            return shown(progress, result), False
        self.check_room()  # a new write beyond every match's reserve: refused as a new match is while full
        room = len(dumps(self.record(match_id, None)))  # an analysis is no larger than its record (its contract)
        ops = dict([outbox.job(ANALYSIS_JOB, [match_id], analysis_job_id(match_id), self.search_queue.name,
                               ANALYSIS_TIMEOUT_S),
                    outbox.note(self.store.reserve, reserve_member(match_id), room, "reserve")])
        code, found = self.store.ask_analysis(match_id, QUEUED, ops, progress)
        if code == 0:  # expired meanwhile
            raise unknown_match(match_id)
        if code == 2 and found["status"] == "done":  # asked for and done meanwhile
            return self.analysis(match_id), False
        return shown(found, None), code == 3

    def analysis(self, match_id: str) -> dict:
        """The analysis's progress (``queued``, ``running`` with the decisions done of all, ``done``, ``failed``),
        with the analysis itself once done."""
        _, progress, result = self._analysis_of(match_id)
        if progress is None:
            raise Problem("no_analysis", "Nobody has asked for this match's analysis yet: POST it to ask.")
        if self._lost(match_id, progress):
            return shown({**progress, "status": "failed"}, None)
        return shown(progress, result)

    def _lost(self, match_id: str, progress: dict) -> bool:
        """Whether an analysis queued or running has lost its job (its worker was killed, its retries spent): it
        is then answered failed, and asking again runs it again.  Its job is alive while its op waits in the
        match's outbox or RQ holds it in a live state (the dispatcher hands one to the other without a gap); the
        progress is read again after that, since a job that has just ended wrote its end first."""
        if progress["status"] not in ("queued", "running"):
            return False
        job_id = analysis_job_id(match_id, progress.get("start", 0))
        status = self.queue.connection.hget(Job.key_for(job_id), "status")
        if status is not None and status.decode() in LIVE:
            return False
        if self.store.redis.hexists(outbox.outbox_key(match_id, self.store.outbox), job_id):
            return False
        return self.store.analysis(match_id)[1] == progress

    def _analysis_of(self, match_id: str) -> tuple[Status, dict | None, dict | None]:
        status, progress, result = self.store.analysis(match_id)
        if status is None:
            raise unknown_match(match_id)
        return status, progress, result

    def analysis_record(self, match_id: str) -> dict:
        """The record an analysis judges (without an analysis kept from before)."""
        record = self.record(match_id, None)
        record.pop("analysis", None)
        return record

    def continue_analysis(self, match_id: str, progress: dict, judged: list[dict]) -> bool:
        """Keep the decisions judged so far and owe the job that judges the rest, at the back of the search queue
        (the job gave its worker up to a turn waiting for it)."""
        start = len(judged)
        op = outbox.job(ANALYSIS_JOB, [match_id, start], analysis_job_id(match_id, start), self.search_queue.name,
                        ANALYSIS_TIMEOUT_S)
        return self.store.continue_analysis(match_id, {**progress, "start": start}, judged, dict([op]))

    def write_analysis(self, match_id: str, progress: dict, result: dict | None = None) -> bool:
        """Write an analysis's progress (and its result); at its end (done or failed) release the room kept."""
        written = self.store.write_analysis(match_id, progress, result)
        if progress["status"] in ("done", "failed"):
            self.sender.send_now([outbox.note(self.store.reserve, reserve_member(match_id), 0, "release")[1]])
        return written
