"""The tournaments' backstop (issue 35): a job per running tournament that moves it on every
``REFEREE_TOURNAMENT_TICK`` seconds and schedules itself again until the tournament is finished, so a
round whose last match ended without moving it on (a lost relay) still starts."""

from __future__ import annotations

from rq import get_current_job

from service.problems import Problem
from service.tournaments import Tournaments
from workers.jobs import referee_for


def tick(tid: str) -> str:
    tournaments = Tournaments(referee_for(get_current_job().connection))
    try:
        done = tournaments.advance(tid)
    except Problem:  # expired or unknown: nothing more to look at
        return "gone"
    if done != "finished":
        tournaments.schedule_tick(tid)
    return done
