"""``referee bench tournament``: a Swiss tournament of connected bots and built-in bots, end to end, on a
running server (``--url``; it starts no server).

It registers ``--connected`` bot accounts and runs each as ``referee bot run`` does (a :class:`BotRunner`
on a thread of this process, each with its own event stream), adds the built-in bots, starts the
tournament, waits for it to finish, and prints: the wall time from creation to the end, the moves played
and moves per second over all its matches, the decision latency the connected bots saw (from a ``turn``
event's arrival to the answer of the move it sent, their own thinking included; and from the commit that
made the turn owed, by the server's clock, to the event's arrival: the relay through the workers and the
event stream), and the standings.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import threading
import time
import uuid

import requests

from clients.botrun import BotRunner


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] if ordered else float("nan")


def run(url: str, game: str, connected: int, builtins: list[str], rounds: int, size: int, plays: list[str],
        move_seconds: float, timeout: float) -> dict:
    tag = uuid.uuid4().hex[:4]
    folder = tempfile.mkdtemp(prefix="bench-tournament-")
    runners = [BotRunner(url, f"bench-{tag}-{i:02d}", plays[i % len(plays)], [game],
                         token_file=f"{folder}/bot-{i}.token", log=lambda line: None) for i in range(connected)]
    threads = [threading.Thread(target=r.run, daemon=True) for r in runners]
    for r in runners:
        r.account()
    for t in threads:
        t.start()
    deadline = time.monotonic() + 30
    while True:
        online = {b["name"] for b in requests.get(f"{url}/bots?online=true", timeout=10).json()["bots"]}
        if all(r.name in online for r in runners):
            break
        if time.monotonic() > deadline:
            raise SystemExit("the connected bots did not come online within 30 s")
        time.sleep(0.2)
    participants = [r.name for r in runners] + [f"builtin:{b}" for b in builtins]
    started = time.monotonic()
    created = requests.post(f"{url}/tournaments", timeout=30, json={
        "game": game, "players_per_match": size, "format": "swiss", "rounds": rounds,
        "participants": participants, "clock": {"move_seconds": move_seconds, "on_timeout": "forfeit"}})
    if created.status_code != 201:
        raise SystemExit(f"POST /tournaments: {created.status_code} {created.text}")
    tid = created.json()["id"]
    while True:
        tour = requests.get(f"{url}/tournaments/{tid}", timeout=10).json()
        if tour["status"] == "finished":
            break
        if time.monotonic() - started > timeout:
            raise SystemExit(f"the tournament {tid} did not finish within {timeout:g} s")
        time.sleep(0.05)
    wall = time.monotonic() - started
    for r in runners:
        r.stop()
    moves = 0
    for m in tour["matches"]:
        moves += len(requests.get(f"{url}/matches/{m['match_id']}/record", timeout=10).json()["moves"])
    latencies = [x for r in runners for x in r.latencies]
    delays = [x for r in runners for x in r.delays]
    return {"delays": delays, "id": tid, "wall": wall, "moves": moves, "matches": len(tour["matches"]),
            "latencies": latencies, "connected_moves": sum(r.moves for r in runners), "tournament": tour}


def report(out: dict, args) -> str:
    tour, lat = out["tournament"], out["latencies"]
    lines = [f"Swiss tournament {out['id']} of {tour['game']}: {len(tour['participants'])} participants "
             f"({args.connected} connected, {len(args.builtins)} built-in), {tour['rounds_total']} rounds, "
             f"{out['matches']} matches",
             f"wall time        {out['wall']:.1f} s (creation to finished)",
             f"moves            {out['moves']} ({out['moves'] / out['wall']:.1f} moves/s over the tournament)",
             f"connected bots   {out['connected_moves']} decisions; turn event to move answered: "
             f"p50 {1000 * percentile(lat, 0.5):.1f} ms, p99 {1000 * percentile(lat, 0.99):.1f} ms, "
             f"mean {1000 * statistics.fmean(lat) if lat else float('nan'):.1f} ms",
             f"                 commit that made the turn owed to its event's arrival: "
             f"p50 {1000 * percentile(out['delays'], 0.5):.1f} ms, p99 {1000 * percentile(out['delays'], 0.99):.1f} ms",
             "", f"{'rank':>4}  {'participant':<20} {'points':>6} {'buchholz':>8} {'s-b':>6} {'played':>6} "
                 f"{'wins':>4} {'byes':>4} {'forfeits':>8}"]
    for row in tour["standings"]:
        lines.append(f"{row['rank']:>4}  {row['participant']:<20} {row['points']:>6.1f} {row['buchholz']:>8.2f} "
                     f"{row['sonneborn_berger']:>6.2f} {row['matches']:>6} {row['wins']:>4} {row['byes']:>4} "
                     f"{row['forfeits']:>8}")
    return "\n".join(lines)


def main(argv: list[str]) -> None:
    p = argparse.ArgumentParser(prog="referee bench tournament", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--url", default="http://127.0.0.1:8000", help="a running server (referee serve)")
    p.add_argument("--game", default="super_blatt")
    p.add_argument("--players", type=int, default=2, help="seats per match")
    p.add_argument("--connected", type=int, default=13, help="bot accounts connected from this process")
    p.add_argument("--builtins", default="random,greedy,search", help="built-in participants (comma-separated)")
    p.add_argument("--play", default="random,greedy", help="what the connected bots play, in turn")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--move-seconds", type=float, default=30.0, help="the clock of matches with a connected bot")
    p.add_argument("--timeout", type=float, default=1800.0, help="seconds to wait for the end")
    args = p.parse_args(argv)
    args.builtins = [b for b in args.builtins.split(",") if b]
    out = run(args.url, args.game, args.connected, args.builtins, args.rounds, args.players,
              args.play.split(","), args.move_seconds, args.timeout)
    print(report(out, args))
