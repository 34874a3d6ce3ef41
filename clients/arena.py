"""``referee arena``: N matches over HTTP between server bots and client-side bots, seats rotating.

A participant is one of:
  greedy, random, ...        a built-in bot kind, played by the server's RQ workers
  py:package.module:func     a Python callable ``func(view, moves, seat, rng) -> move`` run here
  cmd:PROGRAM ARGS           any program: it reads {"view", "moves", "seat"} as JSON on stdin and
                             writes one move as JSON on stdout (started once per decision)
"""

from __future__ import annotations

import argparse
import importlib
import json
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

from clients.client import Referee, RefereeError

Chooser = Callable[[dict, list, int, random.Random], dict]


@dataclass
class Participant:
    label: str
    bot: str | None = None  # server-side kind
    choose: Chooser | None = None

    @classmethod
    def parse(cls, spec: str) -> Participant:
        if spec.startswith("py:"):
            module, _, func = spec[3:].rpartition(":")
            return cls(spec, choose=getattr(importlib.import_module(module), func))
        if spec.startswith("cmd:"):
            return cls(spec, choose=program_chooser(spec[4:]))
        return cls(spec, bot=spec)


def program_chooser(command: str) -> Chooser:
    argv = shlex.split(command)

    def choose(view: dict, moves: list, seat: int, rng: random.Random) -> dict:
        out = subprocess.run(argv, input=json.dumps({"view": view, "moves": moves, "seat": seat}),
                             capture_output=True, text=True, timeout=60, check=True)
        return json.loads(out.stdout)

    return choose


@dataclass
class Tally:
    matches: int = 0
    wins: int = 0
    shared: int = 0
    scores: list[float] = field(default_factory=list)
    seat_wins: dict[int, int] = field(default_factory=lambda: defaultdict(int))
    seat_games: dict[int, int] = field(default_factory=lambda: defaultdict(int))


def play_match(ref: Referee, game: str, lineup: list[Participant], options: dict, seed: int,
               poll: float = 10.0) -> dict:
    """Create one match with this lineup and drive its client-side seats to the end."""
    seats = [{"bot": p.bot} if p.bot else {"name": f"arena-{i}"} for i, p in enumerate(lineup)]
    created = ref.create_match(game, len(lineup), seats, options or None, seed)
    mid = created["id"]
    tokens = {s["seat"]: s["token"] for s in created["seats"] if s["token"]}
    rng = random.Random(seed)
    watcher = next(iter(tokens.values()), created["host_token"])
    snap = ref.match(mid, watcher)
    while snap["status"] in ("active", "scoring", "waiting"):
        acted = False
        for seat in snap["to_act"]:
            if seat not in tokens:
                continue
            try:
                view = ref.match(mid, tokens[seat])["view"]
                legal = ref.legal_moves(mid, tokens[seat])
                if not legal["moves"]:
                    continue
                move = lineup[seat].choose(view, legal["moves"], seat, rng)
                ref.move(mid, tokens[seat], move, expected_version=legal["version"])
                acted = True
            except RefereeError as exc:
                if exc.code not in ("stale_version", "not_your_turn", "match_over"):
                    raise
                acted = True
        snap = ref.match(mid, watcher) if acted else ref.match(mid, watcher, snap["version"], poll)
    if snap["status"] != "finished":
        raise RuntimeError(f"match {mid} ended {snap['status']}")
    return ref.result(mid)


def progress(done: int, total: int, start: float) -> None:
    width = 30
    filled = int(width * done / total)
    rate = done / max(time.monotonic() - start, 1e-9)
    sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total}  {rate:.1f} matches/s")
    sys.stderr.flush()


def run(url: str, game: str, specs: list[str], matches: int, options: dict, concurrency: int, seed: int,
        quiet: bool = False) -> dict[str, Tally]:
    ref_local = threading.local()
    participants = [Participant.parse(s) for s in specs]
    n = len(participants)
    tallies: dict[str, Tally] = {p.label: Tally() for p in participants}
    lock = threading.Lock()

    def one(i: int) -> None:
        if not hasattr(ref_local, "ref"):
            ref_local.ref = Referee(url)
        shift = i % n
        lineup = participants[shift:] + participants[:shift]  # participant k sits at seat (k - shift) % n
        result = play_match(ref_local.ref, game, lineup, options, seed + i)
        with lock:
            for seat, p in enumerate(lineup):
                t = tallies[p.label]
                t.matches += 1
                t.seat_games[seat] += 1
                t.scores.append(result["scores"][seat])
                if seat in result["winners"]:
                    t.wins += 1
                    t.seat_wins[seat] += 1
                    t.shared += len(result["winners"]) > 1

    start = time.monotonic()
    done = 0
    with ThreadPoolExecutor(concurrency) as pool:
        futures = [pool.submit(one, i) for i in range(matches)]
        for fut in as_completed(futures):
            fut.result()
            done += 1
            if not quiet:
                progress(done, matches, start)
    if not quiet:
        sys.stderr.write("\n")
    return tallies


def table(tallies: dict[str, Tally], players: int) -> str:
    head = f"{'participant':28} {'matches':>7} {'wins':>5} {'win %':>6} {'shared':>6} {'mean score':>10}  " + " ".join(
        f"seat{s}" for s in range(players))
    lines = [head, "-" * len(head)]
    for label, t in tallies.items():
        seats = " ".join(f"{t.seat_wins[s]:>2}/{t.seat_games[s]:<2}" for s in range(players))
        mean = statistics.fmean(t.scores) if t.scores else 0.0
        lines.append(f"{label[:28]:28} {t.matches:>7} {t.wins:>5} {t.wins / max(t.matches, 1):>6.1%} {t.shared:>6} "
                     f"{mean:>10.1f}  {seats}")
    return "\n".join(lines)


def add_parser(sub) -> None:
    a = sub.add_parser("arena", help="play N matches over HTTP between bots, rotating seats",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    a.add_argument("--url", default="http://127.0.0.1:8000")
    a.add_argument("--game", required=True)
    a.add_argument("--bot", action="append", required=True, dest="bots",
                   help="one participant per seat (see above); repeat for each seat")
    a.add_argument("--matches", type=int, default=100)
    a.add_argument("--options", default="{}", help="match options as JSON")
    a.add_argument("--concurrency", type=int, default=8, help="matches in flight at once")
    a.add_argument("--seed", type=int, default=1)
    a.set_defaults(func=main)


def main(args) -> int:
    start = time.monotonic()
    tallies = run(args.url, args.game, args.bots, args.matches, json.loads(args.options), args.concurrency, args.seed)
    print(table(tallies, len(args.bots)))
    print(f"\n{args.matches} matches of {args.game} in {time.monotonic() - start:.1f} s")
    return 0
