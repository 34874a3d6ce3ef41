"""Per-game ratings of whoever plays rated matches (the arena's participants), kept in Redis.

OpenSkill's Plackett-Luce model (a maintained multiplayer Bayesian rating, TrueSkill's open
successor): each entrant has a skill estimate ``mu`` and an uncertainty ``sigma``; the ladder
orders by the conservative ``ordinal`` (mu - 3 sigma).  One hash per game, one field per entrant;
a match is rated once (a marker per match id, in the ladder's slot), and an update is one WATCH/MULTI,
so concurrent reports from several hosts never lose one another.
"""

from __future__ import annotations

import json
from collections import defaultdict

import redis
from openskill.models import PlackettLuce

from service.core.base import HOST
from service.core.referee import Referee
from service.core.store import Status
from service.infra.problems import Problem, wrong_shape

MODEL = PlackettLuce()
RATED_TTL = 30 * 24 * 3600  # how long a match id is remembered as rated


def ladder_key(game: str) -> str:
    return f"ref:{{ladder:{game}}}"


def rated_key(game: str, match_id: str) -> str:
    """Marks a match as rated; in the ladder's hash slot, so one transaction covers both."""
    return f"ref:{{ladder:{game}}}:rated:{match_id}"


def _entry(raw: bytes | None) -> dict:
    if raw is None:
        fresh = MODEL.rating()
        return {"mu": fresh.mu, "sigma": fresh.sigma, "matches": 0, "wins": 0, "forfeits": 0}
    return json.loads(raw)


def rate(client: redis.Redis, game: str, match_id: str, entrants: list[str], ranks: list[int],
         winners: list[int], forfeits: list[int]) -> bool:
    """Rate one match: ``entrants[seat]`` finished at place ``ranks[seat]`` (1 is first, ties share).

    False when this match was rated before.  An entrant sitting at several seats of one match
    takes the mean of its seats' updates.
    """
    key, marker = ladder_key(game), rated_key(game, match_id)
    names = sorted(set(entrants))
    with client.pipeline(transaction=True) as pipe:
        while True:
            try:
                pipe.watch(key, marker)
                if pipe.exists(marker):
                    return False
                now = dict(zip(names, (_entry(r) for r in pipe.hmget(key, names))))
                teams = [[MODEL.rating(mu=now[e]["mu"], sigma=now[e]["sigma"])] for e in entrants]
                updated = MODEL.rate(teams, ranks=ranks)
                seats: dict[str, list[int]] = defaultdict(list)
                for seat, e in enumerate(entrants):
                    seats[e].append(seat)
                out = {}
                for e, mine in seats.items():
                    entry = now[e]
                    entry["mu"] = sum(updated[s][0].mu for s in mine) / len(mine)
                    entry["sigma"] = sum(updated[s][0].sigma for s in mine) / len(mine)
                    entry["matches"] += len(mine)
                    entry["wins"] += sum(s in winners for s in mine)
                    entry["forfeits"] += sum(s in forfeits for s in mine)
                    out[e] = json.dumps(entry)
                pipe.multi()
                pipe.hset(key, mapping=out)
                pipe.set(marker, 1, ex=RATED_TTL)
                pipe.execute()
                return True
            except redis.WatchError:
                continue


def standings(client: redis.Redis, game: str) -> list[dict]:
    """The game's entrants, best first by ordinal (mu - 3 sigma)."""
    rows = []
    for name, raw in client.hgetall(ladder_key(game)).items():
        entry = json.loads(raw)
        ordinal = MODEL.rating(mu=entry["mu"], sigma=entry["sigma"]).ordinal()
        rows.append({"name": name.decode(), **entry, "ordinal": ordinal})
    rows.sort(key=lambda r: (-r["ordinal"], r["name"]))
    return rows


def report(ref: Referee, match_id: str, token: str | None, entrants: list[str], forfeits: list[int]) -> dict:
    """The host of a match puts it on its game's ladder, naming who played each seat.

    A finished match is rated by its ranking; an aborted one only when the host names the seats
    that forfeited it (an illegal move, a bot that did not answer): they share the last place.
    """
    match = ref.store.load(match_id)
    if match is None:
        raise Problem("unknown_match", f"There is no match {match_id!r} (it may have expired).")
    if ref.seat_of(match, token, required=True) != HOST:
        raise Problem("not_host", "Only the match's host token can put it on the ladder.")
    players = match.meta["players"]
    if len(entrants) != players:
        raise wrong_shape(f"Name one entrant per seat: this match has {players}.")
    if any(not 0 <= s < players for s in forfeits):
        raise wrong_shape(f"Forfeits are seats 0 to {players - 1}.")
    if match.status == Status.FINISHED and not forfeits:
        place = {seat: i + 1 for i, tied in enumerate(match.result["ranking"]) for seat in tied}
        ranks, winners = [place[s] for s in range(players)], match.result["winners"]
    elif match.status == Status.ABORTED and forfeits and len(set(forfeits)) < players:
        ranks = [2 if s in forfeits else 1 for s in range(players)]
        winners = [s for s in range(players) if s not in forfeits]
    else:
        raise Problem("not_over", "A match is rated once finished, or once aborted with the seats that forfeited it.")
    if not rate(ref.store.redis, match.game, match_id, entrants, ranks, winners, sorted(set(forfeits))):
        raise Problem("already_rated", "This match is already on the ladder.")
    mine = set(entrants)
    return {"match_id": match_id, "game": match.game,
            "entrants": [row for row in standings(ref.store.redis, match.game) if row["name"] in mine]}
