"""``referee bench analysis``: is the analysis right?  Its estimated chances scored against the results.

All-bot matches are played in this process's pool (seats rotating among the search, greedy and random bots; the
search bot at a small iteration budget, so that many matches are cheap), each is analysed (workers/analysis.py) at
``--budget``, and every decision's ``win`` (the acting seat's estimated chance to win with the move it played) is
scored against that seat's actual win share: the Brier score, against the uninformed 1/players, per game and by
stage of the match (first, middle and last third of its moves), and a reliability diagram (decisions binned by
estimate: mean estimate against observed win rate) written as SVG.  Per kind of bot at the seat, its mean estimate
against its observed win share: a seat's view does not say which bots play (itself included), so where one kind
wins far more than another the estimates cannot follow, and this shows by how much.  Deterministic for a seed and
budgets.

The study is long (hours for every game at 500 matches on two cores), so it can be run a few games at a time:
``--results FILE`` keeps each game's figures in FILE as it finishes (merged with what FILE already holds, a game
run again replacing its earlier figures), and the diagram is then drawn from every game FILE holds.  A game's
matches can be split across runs too: ``--first N`` starts at match N, and ``--add`` adds the run's figures to
those FILE holds for the game (the same seed and budgets, other matches) as if all had been scored at once.

With ``--url`` it times the service instead, as a user meets it: per ``--game``, ``--rounds`` matches of greedy
bots (``--players``, ``--options``) played on that server, then ``POST /matches/{id}/analysis`` and its progress
polled until ``done``; it prints each wait, from the ask to the answer, at the server's own budget.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import time
from pathlib import Path

from clients.client import Referee
from service.games import GAMES
from workers.analysis import analyse, play_record
from workers.bots.search import Budget

KINDS = ("search", "greedy", "random")
STAGES = ("first", "middle", "last")
BINS = 10
#: decisions a bin needs to be drawn (a handful of decisions at one estimate is no rate)
MIN_BIN = 30
COLOURS = ("#1b6ca8", "#c0392b", "#2e8b57", "#8e44ad", "#d35400", "#555555")


def table_size(name: str) -> int:
    """Three seats where the game allows (one of each kind), else its nearest size."""
    game = GAMES[name]
    return min(max(3, game.min_players), game.max_players)


Point = tuple[int, float, float, int, str]


def one_match(job: tuple[str, int, int, int, str]) -> list[Point]:
    """Match ``m`` of a game, analysed: per decision (stage, estimate, actual win share, players, the seat's bot)."""
    name, m, seed, iterations, budget = job
    players = table_size(name)
    kinds = [KINDS[(m + s) % len(KINDS)] for s in range(players)]
    record = play_record(name, players, kinds, f"{seed}:{m}", budget=Budget(iterations=iterations))
    winners = record["result"]["winners"]
    moves = len(record["moves"])
    out = []
    for d in analyse(record, budget)["decisions"]:
        actual = 1 / len(winners) if d["seat"] in winners else 0.0
        out.append((min(2, 3 * d["index"] // moves), d["win"], actual, players, kinds[d["seat"]]))
    return out


def scores(points: list[Point]) -> dict:
    """Brier score of the estimates and of 1/players, overall and by stage; the reliability bins; and per kind of
    bot at the seat, its mean estimate against its observed win share (what a seat's view cannot tell it: who
    plays, itself included)."""
    def brier(rows: list) -> tuple[float, float, int]:
        if not rows:
            return float("nan"), float("nan"), 0
        est = sum((w - a) ** 2 for _, w, a, _, _ in rows) / len(rows)
        base = sum((1 / p - a) ** 2 for _, _, a, p, _ in rows) / len(rows)
        return est, base, len(rows)

    def rate(rows: list) -> tuple[float, float, int]:
        return sum(w for w, _ in rows) / len(rows), sum(a for _, a in rows) / len(rows), len(rows)

    bins = []
    for b in range(BINS):
        rows = [(w, a) for _, w, a, _, _ in points if min(BINS - 1, int(w * BINS)) == b]
        if rows:
            bins.append(rate(rows))
    kinds = {k: rate(rows) for k in KINDS if (rows := [(w, a) for _, w, a, _, kind in points if kind == k])}
    return {"all": brier(points), "stages": [brier([p for p in points if p[0] == s]) for s in range(3)],
            "bins": bins, "kinds": kinds}


def merge(held: dict, new: dict) -> dict:
    """Two runs' figures of one game over different matches, exactly as if scored together: Brier scores and a
    bin's estimate and rate are means, weighted by their decisions (a bin is found again from its estimate)."""
    def how(run: dict) -> dict:
        return {k: v for k, v in run.items() if k != "ranges"}

    if how(held["run"]) != how(new["run"]):
        raise SystemExit(f"--add: the held figures were run with {held['run']}, not {new['run']}")
    spans = sorted(held["run"]["ranges"] + new["run"]["ranges"])
    if any(a[1] > b[0] for a, b in zip(spans, spans[1:])):
        raise SystemExit(f"--add: matches {new['run']['ranges']} overlap the held {held['run']['ranges']}")

    def mean(x: list, y: list) -> list:
        parts = [p for p in (x, y) if p[2]]
        n = sum(p[2] for p in parts)
        if not n:
            return [float("nan"), float("nan"), 0]
        return [sum(p[0] * p[2] for p in parts) / n, sum(p[1] * p[2] for p in parts) / n, n]

    bins: dict[int, list] = {}
    for e, o, n in [*held["bins"], *new["bins"]]:
        b = min(BINS - 1, int(e * BINS + 1e-9))
        bins[b] = mean(bins.get(b, [0.0, 0.0, 0]), [e, o, n])
    merged = {"all": mean(held["all"], new["all"]),
              "stages": [mean(x, y) for x, y in zip(held["stages"], new["stages"], strict=True)],
              "bins": [tuple(bins[b]) for b in sorted(bins)], "matches": held["matches"] + new["matches"],
              "run": {**new["run"], "ranges": spans}}
    if "kinds" in held and "kinds" in new:  # figures from before the bench kept them have none: nor then the sum
        merged["kinds"] = {k: mean(held["kinds"].get(k, [0.0, 0.0, 0]), new["kinds"].get(k, [0.0, 0.0, 0]))
                           for k in KINDS if k in held["kinds"] or k in new["kinds"]}
    return merged


def caption(budget: str, iterations: int) -> str:
    """The diagram's line on how its figures were made."""
    return (f"analysis budget {budget} playouts; search bot {iterations} iterations; seats rotating; "
            f"bins of {MIN_BIN}+ decisions")


def svg(results: dict[str, dict], note: str) -> str:
    """The reliability diagram: per game, observed win rate against mean estimate per bin (the diagonal: perfect)."""
    w, h, pad, side = 600, 440, 50, 320

    def x(v: float) -> float:
        return pad + v * side

    def y(v: float) -> float:
        return pad + (1 - v) * side

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {w} {h + 20 * len(results)}" '
             f'font-family="sans-serif" font-size="12" role="img" aria-labelledby="t">',
             '<title id="t">Reliability of the analysis: estimated chance to win against the observed win rate'
             '</title>', '<rect width="100%" height="100%" fill="#fff"/>',
             f'<rect x="{pad}" y="{pad}" width="{side}" height="{side}" fill="none" stroke="#999"/>',
             f'<line x1="{x(0)}" y1="{y(0)}" x2="{x(1)}" y2="{y(1)}" stroke="#bbb" stroke-dasharray="4 4"/>']
    for t in (0, 0.25, 0.5, 0.75, 1):
        parts.append(f'<text x="{x(t)}" y="{y(0) + 16}" text-anchor="middle">{t:g}</text>')
        parts.append(f'<text x="{x(0) - 6}" y="{y(t) + 4}" text-anchor="end">{t:g}</text>')
    parts.append(f'<text x="{x(0.5)}" y="{y(0) + 34}" text-anchor="middle">estimated chance to win (win)</text>')
    parts.append(f'<text x="14" y="{h / 2 - 30}" transform="rotate(-90 14 {h / 2 - 30})" '
                 f'text-anchor="middle">observed win rate</text>')
    parts.append(f'<text x="{pad}" y="30">{note}</text>')
    for i, (name, r) in enumerate(results.items()):
        colour = COLOURS[i % len(COLOURS)]
        shown = [(e, o, n) for e, o, n in r["bins"] if n >= MIN_BIN]
        pts = " ".join(f"{x(e):.1f},{y(o):.1f}" for e, o, _ in shown)
        parts.append(f'<polyline points="{pts}" fill="none" stroke="{colour}" stroke-width="2"/>')
        parts += [f'<circle cx="{x(e):.1f}" cy="{y(o):.1f}" r="3" fill="{colour}"><title>{name}: {n} decisions, '
                  f'estimate {e:.2f}, observed {o:.2f}</title></circle>' for e, o, n in shown]
        est, base, n = r["all"]
        parts.append(f'<text x="{pad}" y="{h + 20 * i}" fill="{colour}">{name}: Brier {est:.3f} vs 1/players '
                     f'{base:.3f} ({r["matches"]} matches, {n} decisions)</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def time_service(url: str, games: list[str], players: int | None, options: dict | None, rounds: int) -> None:
    """Each game's analysis on a running server, from the ask to ``done`` (the match itself not counted)."""
    ref = Referee(url)
    for name in games:
        n = players or GAMES[name].max_players
        for r in range(rounds):
            match = ref.create_match(name, n, seats=[{"bot": "greedy"}] * n, options=options, seed=f"time:{r}")
            deadline = time.monotonic() + 600
            while (status := ref.match(match["id"])["status"]) != "finished":
                if status == "aborted" or time.monotonic() > deadline:
                    raise SystemExit(f"match {match['id']} did not finish ({status})")
                time.sleep(0.2)
            start = time.monotonic()
            ref.analyse(match["id"])
            state = ref.analysis(match["id"], wait=600, poll=0.1)
            took = time.monotonic() - start
            print(f"{name} players={n} options={options or {}} round {r + 1}: {state['status']} in {took:.1f} s "
                  f"({state.get('total', 0)} decisions)", flush=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="referee bench analysis", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", action="append", choices=sorted(GAMES), help="repeatable; default all")
    parser.add_argument("--matches", type=int, default=500, help="matches per game (the issue asks 500)")
    parser.add_argument("--minutes", type=float, default=None, help="stop a game's matches after this long")
    parser.add_argument("--first", type=int, default=0, help="the number of the first match (its seed's)")
    parser.add_argument("--add", action="store_true",
                        help="with --results: add to the game's figures FILE holds (other matches) instead of "
                             "replacing them")
    parser.add_argument("--budget", default="16", help="the analysis's budget per decision (default 16 playouts)")
    parser.add_argument("--iterations", type=int, default=8, help="the playing search bot's iterations per move")
    parser.add_argument("--jobs", type=int, default=2, help="processes")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--svg", default="docs/analysis-reliability.svg", help="the reliability diagram ('' none)")
    parser.add_argument("--results", type=Path, default=None,
                        help="a JSON file keeping each game's figures across runs (the diagram draws all it holds)")
    parser.add_argument("--url", help="time the analysis on this running server instead (see above)")
    parser.add_argument("--players", type=int, default=None, help="with --url: seats (default the game's most)")
    parser.add_argument("--options", type=json.loads, default=None, help="with --url: the matches' options (JSON)")
    parser.add_argument("--rounds", type=int, default=3, help="with --url: matches per game")
    args = parser.parse_args(argv)
    if args.url:
        time_service(args.url, args.game or ["super_blatt"], args.players, args.options, args.rounds)
        return
    results: dict[str, dict] = {}
    if args.results is not None and args.results.exists():
        results = json.loads(args.results.read_text())
    for name in args.game or sorted(GAMES):
        start = time.monotonic()
        points: list = []
        played = 0
        jobs = [(name, m, args.seed, args.iterations, args.budget)
                for m in range(args.first, args.first + args.matches)]
        with multiprocessing.get_context("fork").Pool(args.jobs) as pool:  # left: its unfinished matches stop
            for got in pool.imap(one_match, jobs):
                points += got
                played += 1
                if args.minutes is not None and time.monotonic() - start > args.minutes * 60:
                    break
        r = {**scores(points), "matches": played, "run": {
            "budget": args.budget, "iterations": args.iterations, "seed": args.seed,
            "ranges": [[args.first, args.first + played]]}}
        est, base, n = r["all"]
        stages = "; ".join(f"{s} third {e:.3f} vs {b:.3f} ({k})" for s, (e, b, k) in zip(STAGES, r["stages"]))
        print(f"{name:16} players={table_size(name)} matches={played} decisions={n}: Brier {est:.3f} vs 1/players "
              f"{base:.3f}; {stages}; {time.monotonic() - start:.0f} s", flush=True)
        print("  reliability (estimate -> observed, decisions): " + ", ".join(
            f"{e:.2f}->{o:.2f} ({k})" for e, o, k in r["bins"]), flush=True)
        print("  by the seat's bot (mean estimate -> observed win share, decisions): " + ", ".join(
            f"{kind} {e:.2f}->{o:.2f} ({k})" for kind, (e, o, k) in r["kinds"].items()), flush=True)
        if args.add and name in results:
            r = merge(results[name], r)
            est, base, n = r["all"]
            print(f"  with the matches held before: matches={r['matches']} decisions={n}: Brier {est:.3f} vs "
                  f"1/players {base:.3f}", flush=True)
        results[name] = r
        if args.results is not None:
            args.results.write_text(json.dumps(dict(sorted(results.items())), indent=1) + "\n")
    if args.svg:
        Path(args.svg).write_text(svg(dict(sorted(results.items())), caption(args.budget, args.iterations)))
        print(f"wrote {args.svg}")
