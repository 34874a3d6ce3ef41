"""A soak: ``referee loadtest`` against a ``referee serve`` of its own for a long while, sampling every minute.

    python -m clients.soak --duration 3600 --matches 16 [--interval 60] [--port 18600]

Every ``--interval`` seconds it prints a Markdown table row: the resident memory (RSS, from /proc) of
each process of the service (the front, the app processes, the workers, the dispatcher, the sweeper,
the embedded Valkey) and the store's ``used_memory``, the finished matches it keeps, and the store's
bytes per finished match (``used_memory`` over the first sample's, divided by the matches finished
since).  The load is ``referee loadtest --matches N --duration D`` as a user runs it; everything
stops after ``--duration`` (plus a minute at most), and the data folder is removed.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import defaultdict
from pathlib import Path

import redis


def tree(pid: int) -> list[int]:
    """``pid`` and all its descendants."""
    children: dict[int, list[int]] = defaultdict(list)
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children[ppid].append(int(entry.name))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo += children.get(p, [])
    return out


def rss_by_role(pid: int) -> dict[str, float]:
    """MB of RSS per role (the process's title; of several app processes or workers, the largest)."""
    out: dict[str, float] = {}
    for p in tree(pid):
        try:
            name = Path(f"/proc/{p}/comm").read_text().strip()
            rss = int(Path(f"/proc/{p}/statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6
        except OSError:
            continue
        name = "valkey" if "valkey" in name else "serve" if name.startswith("python") else name.removeprefix("referee-")
        name = name.rstrip("0123456789").rstrip("-")  # app-0, app-1...: the largest of them
        out[name] = max(out.get(name, 0.0), rss)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m clients.soak", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--duration", type=float, default=3600)
    parser.add_argument("--matches", type=int, default=16)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--interval", type=float, default=60)
    parser.add_argument("--port", type=int, default=18600)
    parser.add_argument("--redis-port", type=int, default=18679)
    args = parser.parse_args(argv)
    data = tempfile.mkdtemp(prefix="referee-soak-")
    url = f"http://127.0.0.1:{args.port}"
    serve = subprocess.Popen([sys.executable, "-m", "clients.cli", "serve", "--port", str(args.port), "--data", data,
                              "--redis-port", str(args.redis_port)], stdout=subprocess.DEVNULL,
                             stderr=open(os.path.join(data, "serve.log"), "w"), start_new_session=True)  # noqa: SIM115
    load = None
    try:
        for _ in range(300):
            try:
                urllib.request.urlopen(f"{url}/readyz", timeout=1)
                break
            except OSError:
                time.sleep(0.2)
        store = redis.Redis(port=args.redis_port, password=_password(data))
        finished_key = "ref:finished:" + os.environ.get("REFEREE_QUEUE", "referee")
        load = subprocess.Popen([sys.executable, "-m", "clients.cli", "loadtest", "--url", url, "--matches",
                                 str(args.matches), "--players", str(args.players), "--duration", str(args.duration)])
        start = time.monotonic()
        base_used, base_finished, header = None, 0, None
        while load.poll() is None:
            used = store.info("memory")["used_memory"]
            finished = store.zcard(finished_key)
            if base_used is None:
                base_used, base_finished = used, finished
            roles = rss_by_role(serve.pid)
            if header is None:
                header = sorted(roles)
                print("| minute | " + " | ".join(f"{r} MB" for r in header) +
                      " | store MB | finished matches | store bytes per finished match |", flush=True)
                print("|---" * (len(header) + 4) + "|", flush=True)
            per = (used - base_used) / (finished - base_finished) if finished > base_finished else float("nan")
            print(f"| {(time.monotonic() - start) / 60:.0f} | " + " | ".join(f"{roles.get(r, 0):.1f}" for r in header)
                  + f" | {used / 1e6:.1f} | {finished} | {per:.0f} |", flush=True)
            deadline = time.monotonic() + args.interval
            while load.poll() is None and time.monotonic() < deadline:
                time.sleep(0.5)
        return load.returncode
    finally:
        if load is not None and load.poll() is None:
            load.kill()
        os.killpg(serve.pid, signal.SIGINT)
        try:
            serve.wait(60)
        except subprocess.TimeoutExpired:
            os.killpg(serve.pid, signal.SIGKILL)
        shutil.rmtree(data, ignore_errors=True)


def _password(data: str) -> str | None:
    """The embedded server's password, if ``referee serve`` set one in its data folder."""
    for path in Path(data).glob("*password*"):
        return path.read_text().strip()
    return None


if __name__ == "__main__":
    sys.exit(main())
