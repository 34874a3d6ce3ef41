"""Backstops of issue 35: a job per running tournament that moves it on every ``REFEREE_TOURNAMENT_TICK``
seconds and schedules itself again until the tournament is finished, so a round whose last match ended
without moving it on (a lost relay) still starts; and the sweep that relays to bot accounts what their
matches owe them every ``REFEREE_RELAY_SWEEP`` seconds."""

from __future__ import annotations

from rq import get_current_job

from service.competition import bots
from service.competition.tournaments import Tournaments
from service.infra.problems import Problem
from workers.jobs import referee_for


def tick(tid: str) -> str:
    tournaments = Tournaments(referee_for(get_current_job().connection))
    try:
        done = tournaments.advance(tid)
    except Problem:  # expired or unknown: nothing more to look at
        return "gone"
    except Exception:  # a failure of this look must not end the backstop
        tournaments.schedule_tick(tid)
        raise
    if done != "finished":
        tournaments.schedule_tick(tid)
    return done


def advance(tid: str) -> str:
    """A match of the tournament ended: note it, and start the next round if that one is complete."""
    try:
        return Tournaments(referee_for(get_current_job().connection)).advance(tid)
    except Problem:
        return "gone"


def relay_sweep() -> int:
    """Relay every match bot accounts play (service/competition/bots.py ``sweep``), then schedule the next sweep while
    any is played; the chain ends (its lease lapses) when none is, and the next match started restarts it."""
    ref = referee_for(get_current_job().connection)
    done = bots.sweep(ref)
    client = ref.store.redis
    client.delete(bots.sweep_lease(ref))
    if client.zcard(bots.PLAYING):
        bots.ensure_sweep(ref)
    return done
