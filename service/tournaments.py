"""Tournaments of bot accounts and built-in bots: round robin or Swiss, paired and started round by round.

Rulings (docs/tournaments.md says the same):

- **Points.** A match gives each seat points by its place: with P seats, place k (1 is first) is worth
  (P - k) / (P - 1), and seats tied for places share those places' points.  Two players: a win 1, a draw
  1/2, a loss 0.  A seat that forfeited (missed its clock, or sent a move the rules refuse) is ranked last
  by the referee.  A Swiss bye is worth 1 point (a win); a round robin bye (everyone sits out once when
  the count is odd) is worth nothing.
- **Tie-breaks**, in this order: Buchholz, then Sonneborn-Berger, then the order of the participants as
  given.  For matches of more than two seats we use their usual multiplayer reading: Buchholz adds, for
  each match played, the mean final points of the other participants in it; Sonneborn-Berger adds, for
  each match, the points earned in it times that same mean.  With two seats both are the chess ones.
  Byes add nothing to either.
- **Round robin.** Two seats: the circle method, every pair meets once.  More seats: every group of P
  participants meets once, the groups packed into rounds where nobody plays twice.
- **Swiss.** Participants ranked by points, Buchholz, Sonneborn-Berger, then order given; the leftover
  participants (count mod P) sit out with a bye, the lowest ranked who had the fewest byes.  The others
  are grouped top down, each group the highest ranked free participant with the nearest ranked ones
  that make no pair that met before; when no such grouping exists (a search of bounded size finds none),
  the grouping that repeats the fewest pairs, greedily.  Default rounds: ceil(log2(participants)).
- **Built-in bots** may be entered more than once and with a budget: ``builtin:KIND``, ``builtin:search@300ms``
  (milliseconds per decision) or ``builtin:search@200`` (iterations), as the arena names them, and
  ``#LABEL`` names one apart; a built-in named again without a label gets ``#2``, ``#3``... in the order
  given, so that every participant has a name of its own in the standings and on the ladder.  A bot account
  plays one seat: it is named once.
- **Seats** rotate fairly: a match's seats are filled first to last, each by whoever of its participants
  has sat there least so far, then by whoever sat latest on average.

Keys, per tournament under the hash tag ``{t:<id>}``: ``ref:{t:<id>}`` (hash: ``state``, one JSON document
written under the lock) and ``ref:{t:<id>}:lock``.  Global keys (single-key commands): ``ref:tournaments``
(zset of ids by creation) and ``ref:tournaments:running`` (the ones the backstop tick looks at).

A tournament moves on when the last match of its round ends: the bot relay (service/bots.py ``relay``,
after every commit of a tournament match) enqueues a job (workers/tournaments.py ``advance``) that calls
:meth:`Tournaments.advance`, and a periodic job (``tick``) does too, so a lost call never stalls a
tournament.
"""

from __future__ import annotations

import itertools
import math
import re
import secrets
import time
from collections import Counter

import orjson

from service import clock
from service.bots import Bots, builtin
from service.core.referee import Referee
from service.games import BOT_KINDS, GAMES
from service.problems import Problem
from service.store import Status

TOURNAMENTS = "ref:tournaments"
RUNNING = "ref:tournaments:running"
DEFAULT_CLOCK = {"move_seconds": 30, "on_timeout": "forfeit"}
#: a bot that sends a move the rules refuse forfeits that match, whatever clock the tournament was given
CONDUCT = {"on_illegal": "forfeit"}
SEARCH_BUDGET = 20_000  # nodes the Swiss search visits before it settles for the fewest repeated pairs
LOCK_MS = 60_000  # longer than an advance may run (ADVANCE_TIMEOUT): two never overlap
ADVANCE_TIMEOUT = 50  # seconds a job that moves a tournament on may take (it creates a round's matches)
TTL = 30 * 24 * 3600  # a finished tournament is kept this long


def tournament_key(tid: str) -> str:
    return f"ref:{{t:{tid}}}"


def lock_key(tid: str) -> str:
    return f"ref:{{t:{tid}}}:lock"


# -- pure parts: points, standings, pairings ---------------------------------------------------------------
def place_points(ranking: list[list[int]], players: int) -> list[float]:
    """Each seat's points from a ranking (a list of tied groups of seats, best first)."""
    points = [0.0] * players
    place = 0
    for tied in ranking:
        share = sum((players - 1 - (place + i)) / (players - 1) for i in range(len(tied))) / len(tied)
        for seat in tied:
            points[seat] = share
        place += len(tied)
    return points


def standings(participants: list[str], played: list[dict], byes: list[list[int]], bye_points: float) -> list[dict]:
    """One entry per participant, best first: points, Buchholz, Sonneborn-Berger (see the module's rulings).

    ``played``: each finished match as ``{"seats": [participant index per seat], "points": [per seat],
    "forfeits": [seats]}``."""
    n = len(participants)
    points = [0.0] * n
    wins, matches, forfeits, bye_count = [0] * n, [0] * n, [0] * n, [0] * n
    for m in played:
        best = max(m["points"])
        for seat, p in enumerate(m["seats"]):
            points[p] += m["points"][seat]
            matches[p] += 1
            wins[p] += m["points"][seat] == best and best > 0
            forfeits[p] += seat in m["forfeits"]
    for group in byes:
        for p in group:
            points[p] += bye_points
            bye_count[p] += 1
    buchholz, sb = [0.0] * n, [0.0] * n
    for m in played:
        for seat, p in enumerate(m["seats"]):
            others = [points[q] for q in m["seats"] if q != p]
            mean = sum(others) / len(others)
            buchholz[p] += mean
            sb[p] += m["points"][seat] * mean
    rows = [{"participant": participants[p], "points": round(points[p], 6), "buchholz": round(buchholz[p], 6),
             "sonneborn_berger": round(sb[p], 6), "matches": matches[p], "wins": wins[p], "byes": bye_count[p],
             "forfeits": forfeits[p], "index": p} for p in range(n)]
    rows.sort(key=lambda r: (-r["points"], -r["buchholz"], -r["sonneborn_berger"], r["index"]))
    for place, row in enumerate(rows, 1):
        row["rank"] = place
    return rows


def round_robin(n: int, size: int) -> list[list[list[int]]]:
    """Every round's groups: every pair once (two seats, circle method), or every group of ``size`` once."""
    if size == 2:
        ids: list[int | None] = list(range(n)) + ([None] if n % 2 else [])
        m, rounds = len(ids), []
        for _ in range(m - 1):
            rounds.append([[a, b] for a, b in ((ids[i], ids[m - 1 - i]) for i in range(m // 2))
                           if a is not None and b is not None])
            ids = [ids[0], ids[-1], *ids[1:-1]]
        return rounds
    left = [list(c) for c in itertools.combinations(range(n), size)]
    rounds = []
    while left:
        busy: set[int] = set()
        this = []
        for group in left:
            if not busy & set(group):
                this.append(group)
                busy |= set(group)
        left = [g for g in left if g not in this]
        rounds.append(this)
    return rounds


def swiss_round(order: list[int], size: int, met: Counter, byes_had: Counter) -> tuple[list[list[int]], list[int]]:
    """One Swiss round: (groups, byes), ``order`` the participants best first, ``met`` the times each pair
    (a sorted tuple) met, ``byes_had`` each participant's byes so far."""
    extra = len(order) % size
    by_fewest = sorted(reversed(order), key=lambda p: byes_had[p])  # stable: the lowest ranked first
    bye = by_fewest[:extra]
    playing = [p for p in order if p not in bye]

    def repeats(group: tuple[int, ...]) -> int:
        return sum(met[tuple(sorted(pair))] for pair in itertools.combinations(group, 2))

    budget = [SEARCH_BUDGET]

    def search(left: list[int]) -> list[list[int]] | None:
        if not left:
            return []
        first, rest = left[0], left[1:]
        for others in itertools.combinations(rest, size - 1):
            budget[0] -= 1
            if budget[0] < 0:
                return None
            group = (first, *others)
            if repeats(group):
                continue
            found = search([p for p in rest if p not in others])
            if found is not None:
                return [list(group), *found]
        return None

    groups = search(playing)
    if groups is None:  # no grouping without a rematch (or none found in budget): the fewest, greedily
        groups, left = [], list(playing)
        while left:
            first = left[0]
            others = min(itertools.combinations(left[1:], size - 1), key=lambda o: repeats((first, *o)))
            groups.append([first, *others])
            left = [p for p in left if p != first and p not in others]
    return groups, bye


def seat_order(group: list[int], seated: dict[int, Counter]) -> list[int]:
    """The group in seat order, seats filled first to last: each goes to whoever has sat there least so far,
    then to whoever sat latest on average, then by order given (``seated``: each participant's seats so far)."""
    def mean(p: int) -> float:
        counts = seated.get(p, Counter())
        total = sum(counts.values())
        return sum(seat * n for seat, n in counts.items()) / total if total else 0.0

    left, out = list(group), []
    for seat in range(len(group)):
        chosen = min(left, key=lambda p: (seated.get(p, Counter())[seat], -mean(p), p))
        out.append(chosen)
        left.remove(chosen)
    return out


# -- the tournaments, in Redis --------------------------------------------------------------------------------
#: ``builtin:KIND[@BUDGET][#LABEL]``: a budget is ``<milliseconds>ms`` or ``<iterations>``
BUILTIN = re.compile(r"builtin:(?P<kind>[a-z_]{1,32})(?:@(?P<budget>[0-9]{1,6})(?P<ms>ms)?)?(?:#[a-z0-9_-]{1,8})?")
#: the built-in bots that take a budget, and its bounds (as a seat of POST /matches has them)
BUDGETED = {"search"}
BUDGET_MS, ITERATIONS = (10, 10_000), (1, 100_000)


def builtin_seat(participant: str) -> dict | None:
    """A ``builtin:`` participant's seat in a match (``{"bot": kind, "budget_ms"|"iterations": n}``), else None;
    a kind or budget the referee does not have is ``unknown_bot`` / ``invalid_tournament``."""
    if not participant.startswith("builtin:"):
        return None
    found = BUILTIN.fullmatch(participant)
    if found is None:
        raise Problem("invalid_tournament", f"{participant!r}: a built-in bot is builtin:KIND, builtin:KIND@300ms or "
                                            "builtin:KIND@200 (a budget), and #LABEL to name it apart.")
    kind, budget = found["kind"], found["budget"]
    if kind not in BOT_KINDS:
        raise Problem("unknown_bot", f"The built-in bots are {sorted(BOT_KINDS)}, not {kind!r}.")
    seat: dict = {"bot": kind}
    if budget is not None:
        if kind not in BUDGETED:
            raise Problem("invalid_tournament", f"{participant!r}: only {sorted(BUDGETED)} take a budget; {kind} "
                                                "plays the same at any.")
        (lo, hi), key = (BUDGET_MS, "budget_ms") if found["ms"] else (ITERATIONS, "iterations")
        if not lo <= int(budget) <= hi:
            raise Problem("invalid_tournament", f"{participant!r}: {key} is {lo} to {hi}.")
        seat[key] = int(budget)
    return seat


def named_apart(participants: list[str]) -> list[str]:
    """Participants as the standings name them: a built-in bot given again without a label gets ``#2``, ``#3``...
    (the first keeps its name); a bot account, or a label, given twice is refused."""
    out: list[str] = []
    for p in participants:
        name, n = p, 1
        while p.startswith("builtin:") and "#" not in p and name in out:
            n += 1
            name = f"{p}#{n}"
        if name in out:
            raise Problem("invalid_tournament", f"{p!r} is named twice: a bot account plays one seat, and a label "
                                                "names one built-in bot.")
        out.append(name)
    return out


class Tournaments:
    def __init__(self, ref: Referee) -> None:
        self.ref = ref
        self.redis = ref.store.redis

    def create(self, game: str, size: int, fmt: str, rounds: int | None, participants: list[str],
               clock_request: dict | None, options: dict | None) -> dict:
        if game not in GAMES:
            raise Problem("unknown_game", f"There is no game {game!r}; see GET /games.")
        g = GAMES[game]
        if not g.min_players <= size <= g.max_players:
            raise Problem("invalid_tournament", f"{g.title} is played by {g.min_players} to {g.max_players}.")
        participants = named_apart(participants)
        if len(participants) < size:
            raise Problem("invalid_tournament", f"A match needs {size} participants; {len(participants)} are named.")
        bots = Bots(self.ref)
        for p in participants:
            if builtin_seat(p) is None and game not in bots.account(p)["games"]:
                raise Problem("game_not_played", f"The bot {p!r} does not play {game!r}.")
        try:
            g.load_options(size, options or {})
        except Exception as exc:  # noqa: BLE001 - the game's own error
            raise Problem("invalid_options", getattr(exc, "message", str(exc))) from None
        schedule = round_robin(len(participants), size) if fmt == "round_robin" else None
        if fmt == "swiss":
            rounds = rounds or max(1, math.ceil(math.log2(len(participants))))
        elif rounds is not None and rounds != len(schedule):
            raise Problem("invalid_tournament", f"This round robin has {len(schedule)} rounds, not {rounds}.")
        clock_request = {"on_timeout": "forfeit", **(clock_request or DEFAULT_CLOCK), **CONDUCT}
        why = clock.check_clock(clock_request, sorted(BOT_KINDS))
        if why:
            raise Problem("invalid_clock", why)
        tid = secrets.token_hex(6)
        state = {"id": tid, "game": game, "players_per_match": size, "format": fmt,
                 "rounds_total": rounds or len(schedule), "participants": participants, "clock": clock_request,
                 "options": options or {}, "schedule": schedule, "status": "running", "round": 0, "rounds": [],
                 "results": {}, "created": time.time(), "finished": None}
        self._save(state)
        self.redis.zadd(TOURNAMENTS, {tid: time.time()})
        self.redis.zadd(RUNNING, {tid: time.time()})
        self.advance(tid)
        self.schedule_tick(tid)
        return self.show(tid)

    def schedule_tick(self, tid: str) -> None:
        """The backstop: a job that moves the tournament on every few seconds, until it is finished."""
        from datetime import timedelta

        self.ref.queue.enqueue_in(timedelta(seconds=self.ref.settings.tournament_tick), "workers.tournaments.tick",
                                  tid, job_id=f"tournament_{tid}_{time.time_ns()}", result_ttl=0,
                                  job_timeout=ADVANCE_TIMEOUT)

    def _load(self, tid: str) -> dict:
        raw = self.redis.hget(tournament_key(tid), "state")
        if raw is None:
            raise Problem("unknown_tournament", f"There is no tournament {tid!r}.")
        return orjson.loads(raw)

    def _save(self, state: dict) -> None:
        key = tournament_key(state["id"])
        self.redis.hset(key, "state", orjson.dumps(state))
        if state["status"] == "finished":
            self.redis.expire(key, TTL)

    def advance(self, tid: str) -> str:
        """Note the results of the round's finished matches; once all are in, start the next round (or
        finish).  One advance at a time per tournament (a lock); a second caller leaves it to the first,
        and the periodic tick catches anything left."""
        token = secrets.token_hex(8)
        if not self.redis.set(lock_key(tid), token, nx=True, px=LOCK_MS):
            return "busy"
        try:
            state = self._load(tid)
            if state["status"] != "running":
                return state["status"]
            current = state["rounds"][-1] if state["rounds"] else None
            if current is not None:
                for m in current["matches"]:
                    if m["match_id"] not in state["results"]:
                        self._note_result(state, m)
                if any(m["match_id"] not in state["results"] for m in current["matches"]):
                    self._save(state)
                    return "playing"
            if state["round"] >= state["rounds_total"]:
                state["status"], state["finished"] = "finished", time.time()
                self._save(state)
                self.redis.zrem(RUNNING, tid)
                return "finished"
            self._start_round(state)
            self._save(state)
            return f"round {state['round']}"
        finally:
            self.redis.eval("if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end "
                            "return 0", 1, lock_key(tid), token)

    def _note_result(self, state: dict, m: dict) -> None:
        """A finished match's points, and its rating on the game's ladder."""
        from service.ladder import rate

        match = self.ref.store.load(m["match_id"])
        size = len(m["seats"])
        if match is not None and match.status == Status.FINISHED:
            ranking = match.result["ranking"]
            forfeits = [i for i, s in enumerate(match.meta["seats"]) if s.get("out")]
            place = {seat: i + 1 for i, tied in enumerate(ranking) for seat in tied}
            names = [state["participants"][p] for p in m["seats"]]
            rate(self.redis, state["game"], m["match_id"], names, [place[s] for s in range(size)],
                 match.result["winners"], forfeits)
            state["results"][m["match_id"]] = {"points": place_points(ranking, size), "forfeits": forfeits,
                                               "ranking": ranking}
        elif match is None or match.status == Status.ABORTED:  # lost: nobody scores
            state["results"][m["match_id"]] = {"points": [0.0] * size, "forfeits": [], "ranking": [],
                                               "aborted": True}

    def _played(self, state: dict) -> list[dict]:
        return [{"seats": m["seats"], **state["results"][m["match_id"]]}
                for r in state["rounds"] for m in r["matches"] if m["match_id"] in state["results"]]

    def _start_round(self, state: dict) -> None:
        n, size = len(state["participants"]), state["players_per_match"]
        number = state["round"] + 1
        if state["format"] == "round_robin":
            groups = state["schedule"][number - 1]
            busy = {p for g in groups for p in g}
            byes = [p for p in range(n) if p not in busy]
        else:
            table = self.table(state)
            order = [row["index"] for row in table]
            met: Counter = Counter()
            for r in state["rounds"]:
                for m in r["matches"]:
                    for pair in itertools.combinations(sorted(m["seats"]), 2):
                        met[pair] += 1
            had = Counter(p for r in state["rounds"] for p in r["byes"])
            groups, byes = swiss_round(order, size, met, had)
        seated: dict[int, Counter] = {}
        for r in state["rounds"]:
            for m in r["matches"]:
                for seat, p in enumerate(m["seats"]):
                    seated.setdefault(p, Counter())[seat] += 1
        bots = Bots(self.ref)
        matches = []
        for group in groups:
            seats = seat_order(group, seated)
            specs = []
            for p in seats:
                name = state["participants"][p]
                seat = builtin_seat(name)
                specs.append({**seat, "name": name} if seat else {"bot_account": name})
            clocked = None if all(builtin(state["participants"][p]) for p in seats) else state["clock"]
            created = bots.create_match(state["game"], size, state["options"], None, specs, clocked, True, None,
                                        {"tournament": state["id"], "round": number})
            matches.append({"match_id": created["id"], "seats": seats})
        state["rounds"].append({"round": number, "matches": matches, "byes": sorted(byes)})
        state["round"] = number

    def table(self, state: dict) -> list[dict]:
        bye_points = 1.0 if state["format"] == "swiss" else 0.0
        return standings(state["participants"], self._played(state), [r["byes"] for r in state["rounds"]],
                         bye_points)

    def show(self, tid: str) -> dict:
        state = self._load(tid)
        ids = [m["match_id"] for r in state["rounds"] for m in r["matches"]]
        summaries = dict(zip(ids, self.ref.store.summaries(ids))) if ids else {}
        rounds, flat = [], []
        for r in state["rounds"]:
            out = []
            for m in r["matches"]:
                summary = summaries.get(m["match_id"])
                result = state["results"].get(m["match_id"])
                item = {"match_id": m["match_id"], "round": r["round"],
                        "status": summary["status"] if summary else ("finished" if result else "expired"),
                        "seats": [{"seat": i, "participant": state["participants"][p]}
                                  for i, p in enumerate(m["seats"])],
                        "points": result["points"] if result else None}
                out.append(item)
                flat.append(item)
            rounds.append({"round": r["round"], "matches": out,
                           "byes": [state["participants"][p] for p in r["byes"]]})
        table = self.table(state)
        for row in table:
            del row["index"]
        return {"id": tid, "game": state["game"], "players_per_match": state["players_per_match"],
                "format": state["format"], "status": state["status"], "round": state["round"],
                "rounds_total": state["rounds_total"], "participants": state["participants"],
                "clock": state["clock"], "options": state["options"], "created": state["created"],
                "finished": state["finished"], "rounds": rounds, "matches": flat, "standings": table}

    def listing(self, limit: int = 50) -> dict:
        out = []
        for raw in self.redis.zrevrange(TOURNAMENTS, 0, limit - 1):
            tid = raw.decode()
            try:
                state = self._load(tid)
            except Problem:
                self.redis.zrem(TOURNAMENTS, tid)
                continue
            out.append({"id": tid, "game": state["game"], "format": state["format"], "status": state["status"],
                        "round": state["round"], "rounds_total": state["rounds_total"],
                        "participants": state["participants"]})
        return {"tournaments": out}


def enqueue_advance(ref: Referee, tid: str) -> None:
    """Move the tournament on in a job of its own (a match of it ended), outside the job that noticed."""
    ref.queue.enqueue_call("workers.tournaments.advance", args=(tid,), job_id=f"advance_{tid}_{time.time_ns()}",
                           timeout=ADVANCE_TIMEOUT, result_ttl=0)
