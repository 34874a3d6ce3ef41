"""``referee arena``: N matches over HTTP between server bots and client-side bots, seats rotating.

A participant is one of:
  greedy, random, search     a built-in bot kind, played by the server's RQ workers;
                             search@300ms or search@200 give the search bot a budget per decision
                             in milliseconds or in iterations (iterations: reproducible for a seed)
  py:package.module:func     a Python callable ``func(view, moves, seat, rng) -> move`` run here
  cmd:PROGRAM ARGS           any program, started once and kept running: for each decision it reads
                             one line of JSON {"match", "seat", "view", "moves"} on stdin and writes
                             its move as one line of JSON on stdout, within --timeout seconds

A participant that answers with an illegal or malformed move, raises, crashes or runs out of time
forfeits that match: the arena aborts it, records the forfeit (the other seats share the win) and
goes on.  Every match is put on the server's ladder (GET /ladder) under the participants' labels.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import queue
import random
import shlex
import statistics
import subprocess
import sys
import threading
import time
from collections import defaultdict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field

from clients.client import DEFAULT_URL, Referee, RefereeError

Chooser = Callable[[dict, list, int, random.Random], dict]
#: a refused move that is the participant's fault, not a race with another seat
FORFEIT_CODES = ("invalid_move", "illegal_move", "invalid_body")


class Forfeit(Exception):
    """The participant lost the match by its own fault; the message says how."""


class Program:
    """One long-lived process speaking JSON lines: a request per decision, a move per line back.

    Decisions from concurrent matches take turns.  A program that does not answer in time, dies or
    writes something that is not a JSON object forfeits the match and is restarted for the next one.
    """

    def __init__(self, command: str, timeout: float) -> None:
        self.argv = shlex.split(command)
        self.timeout = timeout
        self.lock = threading.Lock()
        self.proc: subprocess.Popen | None = None
        self.lines: queue.Queue[str | None] = queue.Queue()

    def _start(self) -> None:
        self.proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        self.lines = queue.Queue()
        threading.Thread(target=self._read, args=(self.proc, self.lines), daemon=True).start()

    @staticmethod
    def _read(proc: subprocess.Popen, lines: queue.Queue) -> None:
        for line in proc.stdout:
            lines.put(line)
        lines.put(None)

    def ask(self, request: dict) -> dict:
        with self.lock:
            if self.proc is None or self.proc.poll() is not None:
                self._start()
            try:
                self.proc.stdin.write(json.dumps(request) + "\n")
                self.proc.stdin.flush()
                line = self.lines.get(timeout=self.timeout)
            except (OSError, ValueError) as exc:
                self.stop()
                raise Forfeit(f"the program could not be asked: {exc}") from None
            except queue.Empty:
                self.stop()
                raise Forfeit(f"no answer within {self.timeout:g} s") from None
            if line is None:
                self.stop()
                raise Forfeit("the program exited")
            try:
                move = json.loads(line)
            except ValueError:
                raise Forfeit(f"not a JSON line: {line[:80]!r}") from None
            if not isinstance(move, dict):
                raise Forfeit(f"a move is a JSON object, not {line[:80]!r}")
            return move

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.proc = None


@dataclass
class Participant:
    label: str
    seat: dict | None = None  # a server-side bot seat, e.g. {"bot": "search", "budget_ms": 300}
    choose: Chooser | None = None
    program: Program | None = None

    @classmethod
    def parse(cls, spec: str, timeout: float = 10.0) -> Participant:
        if spec.startswith("py:"):
            module, _, func = spec[3:].rpartition(":")
            return cls(spec, choose=getattr(importlib.import_module(module), func))
        if spec.startswith("cmd:"):
            return cls(spec, program=Program(spec[4:], timeout))
        kind, _, budget = spec.partition("@")
        seat: dict = {"bot": kind}
        if budget.endswith("ms") and budget[:-2].isdigit():
            seat["budget_ms"] = int(budget[:-2])
        elif budget.isdigit():
            seat["iterations"] = int(budget)
        elif budget:
            raise ValueError(f"a budget is KIND@MILLISECONDSms or KIND@ITERATIONS, not {spec!r}")
        return cls(spec, seat=seat)

    def decide(self, match_id: str, view: dict, moves: list, seat: int, rng: random.Random) -> dict:
        if self.program is not None:
            return self.program.ask({"match": match_id, "seat": seat, "view": view, "moves": moves})
        try:
            return self.choose(view, moves, seat, rng)
        except Exception as exc:  # a participant's bug loses its match, not the run
            raise Forfeit(f"{type(exc).__name__}: {exc}") from None

    def close(self) -> None:
        if self.program is not None:
            self.program.stop()


@dataclass
class Tally:
    matches: int = 0
    wins: int = 0
    shared: int = 0
    forfeits: int = 0
    scores: list[float] = field(default_factory=list)
    seat_wins: dict[int, int] = field(default_factory=lambda: defaultdict(int))
    seat_games: dict[int, int] = field(default_factory=lambda: defaultdict(int))

    def as_dict(self) -> dict:
        return {"matches": self.matches, "wins": self.wins, "shared": self.shared, "forfeits": self.forfeits,
                "mean_score": statistics.fmean(self.scores) if self.scores else None,
                "seats": {s: {"matches": n, "wins": self.seat_wins[s]} for s, n in sorted(self.seat_games.items())}}


def play_match(ref: Referee, game: str, lineup: list[Participant], options: dict, seed: int,
               poll: float = 10.0) -> dict:
    """Create one match with this lineup, drive its client-side seats to the end, and return its record:
    ``{id, seed, lineup, winners, scores, forfeit, reason}`` (``forfeit``: the seat that lost by its fault)."""
    seats = [p.seat or {"name": f"arena-{i}"} for i, p in enumerate(lineup)]
    created = ref.create_match(game, len(lineup), seats, options or None, seed)
    mid = created["id"]
    record = {"id": mid, "seed": seed, "lineup": [p.label for p in lineup], "host_token": created["host_token"],
              "winners": [], "scores": None, "forfeit": None, "reason": None}
    tokens = {s["seat"]: s["token"] for s in created["seats"] if s["token"]}
    rng = random.Random(seed)
    watcher = next(iter(tokens.values()), created["host_token"])
    if not tokens:  # server bots only: follow the match's events to its end, not a request per move
        for _ in ref.stream(mid, watcher, wait=max(poll, 60) * 10):
            pass
    # every snapshot brings the watcher's view and legal moves: its turn costs no request but its move
    snap = ref.match(mid, watcher, legal_moves=True)
    while snap["status"] in ("active", "scoring", "waiting"):
        acted, last = False, None
        for seat in snap["to_act"]:
            if seat not in tokens:
                continue
            try:
                seen = snap if seat == snap["seat"] and not acted else ref.match(mid, tokens[seat], legal_moves=True)
                if not seen["legal_moves"]:
                    continue
                move = lineup[seat].decide(mid, seen["view"], seen["legal_moves"], seat, rng)
                last = ref.move(mid, tokens[seat], move, expected_version=seen["version"])
                acted = True
            except Forfeit as exc:
                return _forfeit(ref, record, seat, str(exc))
            except RefereeError as exc:
                if exc.code in FORFEIT_CODES:
                    return _forfeit(ref, record, seat, f"{exc.code}: {exc.problem.get('detail', '')}")
                if exc.code not in ("stale_version", "not_your_turn", "match_over"):
                    raise
                acted, last = True, None
        if not acted:
            snap = ref.match(mid, watcher, snap["version"], poll, legal_moves=True)
        elif last is not None and last["status"] == "active" and not set(last["to_act"]) & set(tokens):
            # the server's bots are to act: wait for their move rather than look at once
            snap = ref.match(mid, watcher, last["version"], poll, legal_moves=True)
        else:
            snap = ref.match(mid, watcher, legal_moves=True)
    if snap["status"] != "finished":
        raise RuntimeError(f"match {mid} ended {snap['status']}")
    result = ref.result(mid)
    record.update(winners=result["winners"], scores=result["scores"])
    return record


def _forfeit(ref: Referee, record: dict, seat: int, reason: str) -> dict:
    ref.abort(record["id"], record["host_token"])
    players = len(record["lineup"])
    record.update(forfeit=seat, reason=reason, winners=[s for s in range(players) if s != seat])
    return record


def rate(ref: Referee, record: dict) -> None:
    """Put the match on the server's ladder under the participants' labels."""
    ref.request("POST", "/ladder", record["host_token"], json={
        "match_id": record["id"], "entrants": record["lineup"],
        "forfeits": [] if record["forfeit"] is None else [record["forfeit"]]})


def progress(done: int, total: int, start: float) -> None:
    width = 30
    filled = int(width * done / total)
    rate_ = done / max(time.monotonic() - start, 1e-9)
    shown = f"{rate_:.1f}" if rate_ >= 1 else f"{rate_:.2g}"  # a slow arena's rate is not rounded to 0.0
    sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total}  {shown} matches/s")
    sys.stderr.flush()


def run(url: str, game: str, specs: list[str], matches: int, options: dict, concurrency: int, seed: int,
        quiet: bool = False, timeout: float = 10.0, ladder: bool = True,
        records: list[dict] | None = None) -> dict[str, Tally]:
    """Play the matches; the tallies per participant label.  Each match's record is appended to
    ``records`` when given.  Match i has seed ``seed + i`` and participant k at seat ``(k - i) % n``."""
    ref_local = threading.local()
    participants = [Participant.parse(s, timeout) for s in specs]
    by_label = {p.label: p for p in participants}  # the same spec twice is one participant (one program)
    participants = [by_label[p.label] for p in participants]
    n = len(participants)
    tallies: dict[str, Tally] = {p.label: Tally() for p in participants}
    lock = threading.Lock()

    def one(i: int) -> None:
        if not hasattr(ref_local, "ref"):
            ref_local.ref = Referee(url)
        shift = i % n
        lineup = participants[shift:] + participants[:shift]  # participant k sits at seat (k - shift) % n
        record = play_match(ref_local.ref, game, lineup, options, seed + i)
        if ladder:
            rate(ref_local.ref, record)
        with lock:
            if records is not None:
                records.append({k: v for k, v in record.items() if k != "host_token"})
            for seat, p in enumerate(lineup):
                t = tallies[p.label]
                t.matches += 1
                t.seat_games[seat] += 1
                if record["scores"] is not None:
                    t.scores.append(record["scores"][seat])
                t.forfeits += record["forfeit"] == seat
                if seat in record["winners"]:
                    t.wins += 1
                    t.seat_wins[seat] += 1
                    t.shared += len(record["winners"]) > 1

    start = time.monotonic()
    done = 0
    try:
        with ThreadPoolExecutor(concurrency) as pool:
            futures = [pool.submit(one, i) for i in range(matches)]
            for fut in as_completed(futures):
                fut.result()
                done += 1
                if not quiet:
                    progress(done, matches, start)
    finally:
        for p in by_label.values():
            p.close()
    if not quiet:
        sys.stderr.write("\n")
    return tallies


def table(tallies: dict[str, Tally], players: int) -> str:
    head = (f"{'participant':28} {'matches':>7} {'wins':>5} {'win %':>6} {'shared':>6} {'forfeits':>8} "
            f"{'mean score':>10}  " + " ".join(f"seat{s}" for s in range(players)))
    lines = [head, "-" * len(head)]
    for label, t in tallies.items():
        seats = " ".join(f"{t.seat_wins[s]:>2}/{t.seat_games[s]:<2}" for s in range(players))
        mean = statistics.fmean(t.scores) if t.scores else 0.0
        lines.append(f"{label[:28]:28} {t.matches:>7} {t.wins:>5} {t.wins / max(t.matches, 1):>6.1%} {t.shared:>6} "
                     f"{t.forfeits:>8} {mean:>10.1f}  {seats}")
    return "\n".join(lines)


def add_parser(sub) -> None:
    a = sub.add_parser("arena", help="play N matches over HTTP between bots, rotating seats",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    a.add_argument("--url", default=os.environ.get("REFEREE_URL", DEFAULT_URL), help="default: $REFEREE_URL")
    a.add_argument("--game", required=True)
    a.add_argument("--bot", action="append", required=True, dest="bots",
                   help="one participant per seat (see above); repeat for each seat")
    a.add_argument("--matches", type=int, default=100)
    a.add_argument("--options", default="{}", help="match options as JSON")
    a.add_argument("--concurrency", type=int, default=8, help="matches in flight at once")
    a.add_argument("--seed", type=int, default=1, help="match i is created with seed SEED+i (reproducible)")
    a.add_argument("--timeout", type=float, default=10.0, help="seconds a cmd: participant has per decision")
    a.add_argument("--json", metavar="FILE", help="also write the results and every match's record as JSON "
                                                  "('-': print JSON instead of the table)")
    a.add_argument("--no-ladder", action="store_true", help="do not put the matches on the server's ladder")
    a.set_defaults(func=main)


def main(args) -> int:
    start = time.monotonic()
    records: list[dict] = []
    tallies = run(args.url, args.game, args.bots, args.matches, json.loads(args.options), args.concurrency,
                  args.seed, timeout=args.timeout, ladder=not args.no_ladder, records=records)
    elapsed = time.monotonic() - start
    if args.json:
        records.sort(key=lambda r: r["seed"])
        doc = {"game": args.game, "seed": args.seed, "matches": args.matches, "seconds": round(elapsed, 2),
               "participants": {label: t.as_dict() for label, t in tallies.items()},
               "records": records}
        text = json.dumps(doc, indent=2)
        if args.json == "-":
            print(text)
            return 0
        with open(args.json, "w") as out:
            out.write(text + "\n")
    print(table(tallies, len(args.bots)))
    print(f"\n{args.matches} matches of {args.game} in {elapsed:.1f} s")
    return 0
