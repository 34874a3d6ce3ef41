"""``referee bench serving``: this checkout's `referee serve` side by side with boardgame.io and an older checkout.

Every level of every round gets fresh servers, one at a time, in this order: boardgame.io (``node server.js``,
then ``node load.js N --seconds S --players P``), the older checkout (``--before DIR``: its ``referee serve``,
started with its own ``.venv`` when it has one (its games' entry points may differ from
this one's), else with that folder first on ``PYTHONPATH``), then this one; each Referee level is measured with
``referee loadtest --players P --matches N --duration S`` once per ``--turns`` (ask: a seat asks for its legal
moves; stream: it learns its turn from its event stream).  Each run prints a line as it ends; the rounds'
figures and their ratios come last as a Markdown table.  CPU per move counts every process of the server
(the embedded store included, the load generator not), from /proc.

The peer (``--peer DIR``) is the folder of boardgame.io's Super-Blatt server and load client (server.js and
load.js, with its node_modules installed by ``npm ci``).  Traffic goes only to loopback.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import requests

from clients.soak import tree
from service.infra.embedded import free_port

ROOT = Path(__file__).resolve().parent.parent


def jiffies(pids: list[int]) -> int:
    """CPU time (user + system, in clock ticks) of these processes, those still alive."""
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
        except (OSError, IndexError, ValueError):
            pass
    return total


def wait_up(url: str, proc: subprocess.Popen, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the server exited ({proc.returncode})")
        try:
            if requests.get(url, timeout=1).status_code < 500:
                return
        except requests.RequestException:
            pass
        time.sleep(0.2)
    raise RuntimeError("the server did not come up")


def stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def run_peer(peer: Path, matches: int, seconds: float, players: int) -> dict:
    port = free_port()
    env = {**os.environ, "PORT": str(port), "NODE_ENV": "production"}
    server = subprocess.Popen(["node", "server.js"], cwd=peer, env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        wait_up(f"http://127.0.0.1:{port}/games", server)
        before = jiffies([server.pid])
        out = subprocess.run(["node", "load.js", str(matches), "--seconds", str(seconds), "--players", str(players),
                              "--server", f"http://127.0.0.1:{port}"], cwd=peer, env=env, capture_output=True,
                             text=True, timeout=seconds + 120)
        used = jiffies([server.pid]) - before
        line = next(x for x in out.stdout.splitlines() if x.startswith("RESULT "))
        result = json.loads(line[len("RESULT "):])
        moves = result["moves"] if "moves" in result else result["moves_per_s"] * seconds
        return {"moves_per_s": float(result["moves_per_s"]), "p99_ms": float(result["p99_ms"]),
                "p50_ms": float(result["p50_ms"]), "cpu_ms_per_move": used * 10 / max(1, moves)}
    finally:
        stop(server)


def run_referee(checkout: Path | None, matches: int, seconds: float, players: int, turns: list[str],
                processes: int | None) -> dict[str, dict]:
    """A fresh `referee serve` (of ``checkout``, or this one), one loadtest per way of learning turns."""
    port, data = free_port(), tempfile.mkdtemp(prefix="referee-bench-")
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
    python = sys.executable
    if checkout is not None and (checkout / ".venv" / "bin" / "python").exists():
        python = str(checkout / ".venv" / "bin" / "python")  # its own install: its own games' entry points
    elif checkout is not None:  # its own code first, its own example game's too (an installed plugin of today's
        env["PYTHONPATH"] = f"{checkout}:{checkout / 'examples' / 'liars_dice'}"  # may not load in the old code)
    cmd = [python, "-m", "clients.cli", "serve", "--port", str(port), "--data", data]
    if processes:
        cmd += ["--processes", str(processes)]
    server = subprocess.Popen(cmd, cwd=checkout or ROOT, env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, start_new_session=True)
    out: dict[str, dict] = {}
    try:
        wait_up(f"http://127.0.0.1:{port}/readyz", server)
        time.sleep(1)
        for way in turns:
            pids = tree(server.pid)
            before = jiffies(pids)
            run = subprocess.run([sys.executable, "-m", "clients.cli", "loadtest", "--url",
                                  f"http://127.0.0.1:{port}", "--players", str(players), "--matches", str(matches),
                                  "--duration", str(seconds), "--turns", way, "--json"],
                                 cwd=ROOT, capture_output=True, text=True, timeout=seconds + 180,
                                 env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"})
            used = jiffies(pids) - before
            r = json.loads(run.stdout.strip().splitlines()[-1])
            out[way] = {"moves_per_s": r["moves_per_s"], "p99_ms": r["p99_ms"], "p50_ms": r["p50_ms"],
                        "errors": r["errors"], "cpu_ms_per_move": used * 10 / max(1, r["moves"])}
    finally:
        stop(server)
        shutil.rmtree(data, ignore_errors=True)
    return out


def fmt(r: dict) -> str:
    return (f"{r['moves_per_s']:,.0f} moves/s, p50 {r['p50_ms']:.1f} ms, p99 {r['p99_ms']:.1f} ms, "
            f"{r['cpu_ms_per_move']:.2f} ms CPU/move" + (f", {r['errors']} errors" if r.get("errors") else ""))


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="referee bench serving", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--peer", type=Path, help="boardgame.io's folder (server.js, load.js, node_modules)")
    p.add_argument("--before", type=Path, help="a checkout of an older commit to measure beside this one")
    p.add_argument("--levels", default="1,8,32,64", help="concurrent matches, comma-separated")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--seconds", type=float, default=10)
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--turns", default="ask,stream", help="ask, stream or both (comma-separated)")
    p.add_argument("--processes", type=int, help="--processes of each `referee serve` (default: its own)")
    args = p.parse_args(argv)
    levels = [int(x) for x in args.levels.split(",")]
    turns = args.turns.split(",")
    rows: list[tuple[int, int, str, dict]] = []  # round, level, who, figures
    for rnd in range(1, args.rounds + 1):
        for level in levels:
            if args.peer:
                r = run_peer(args.peer, level, args.seconds, args.players)
                rows.append((rnd, level, "boardgame.io", r))
                print(f"round {rnd}, {level} matches, boardgame.io: {fmt(r)}", flush=True)
            for name, checkout in (("before", args.before), ("now", None)):
                if name == "before" and checkout is None:
                    continue
                for way, r in run_referee(checkout, level, args.seconds, args.players, turns, args.processes).items():
                    rows.append((rnd, level, f"{name} {way}", r))
                    print(f"round {rnd}, {level} matches, {name} ({way}): {fmt(r)}", flush=True)
    whos = list(dict.fromkeys(who for _, _, who, _ in rows))
    print("\n| matches | " + " | ".join(f"{w} moves/s (p99 ms)" for w in whos)
          + (" | now ask / boardgame.io | now stream / boardgame.io" if args.peer else "") + " |")
    print("|---" * (1 + len(whos) + (2 if args.peer else 0)) + "|")
    for level in levels:
        cells = []
        for who in whos:
            rs = [r for _, lv, w, r in rows if lv == level and w == who]
            cells.append(" / ".join(f"{r['moves_per_s']:,.0f} ({r['p99_ms']:.1f})" for r in rs))
        if args.peer:
            for way in ("ask", "stream"):
                ratios = []
                for rnd in range(1, args.rounds + 1):
                    peer = [r for n, lv, w, r in rows if (n, lv, w) == (rnd, level, "boardgame.io")]
                    ours = [r for n, lv, w, r in rows if (n, lv, w) == (rnd, level, f"now {way}")]
                    if peer and ours:
                        ratios.append(f"{ours[0]['moves_per_s'] / peer[0]['moves_per_s']:.2f}x")
                cells.append(" / ".join(ratios))
        print(f"| {level} | " + " | ".join(cells) + " |")
    print("\n| matches | " + " | ".join(f"{w} CPU ms/move" for w in whos) + " |")
    print("|---" * (1 + len(whos)) + "|")
    for level in levels:
        cells = [" / ".join(f"{r['cpu_ms_per_move']:.2f}" for _, lv, w, r in rows if lv == level and w == who)
                 for who in whos]
        print(f"| {level} | " + " | ".join(cells) + " |")
