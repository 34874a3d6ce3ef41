"""``referee bench watchers``: the load generator's moves/s and p99 with and without thousands of watchers.

It starts its own ``referee serve`` (default settings but ``REFEREE_MAX_PER_CLIENT``, since every watcher comes
from one address; embedded Redis in a temporary folder), creates a few idle matches, and runs ``referee
loadtest`` alone and while an asyncio client holds
``--streams`` idle event streams and ``--polls`` long-polls on those idle matches (a long-poll that
ends is sent again at once; their first waits are spread over the full one, so that they end at
spread times, as a crowd's do).  The runs alternate, alone first and last: alone, with, alone, with,
..., alone.  Each run with the watchers is compared with the mean of the two runs alone around it,
so that the machine's drift during a round cancels to first order; the median of the rounds comes
last.  It also prints the memory of the API processes per held request (their RSS before and after
the streams opened).
Traffic goes only to loopback.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time

import requests

from clients import loadtest
from service.infra.embedded import free_port


class IdleStream(asyncio.Protocol):
    """An idle watcher's event stream: its request sent and its answer's head checked, then no more reading.

    The server's heartbeats wait in the kernel's receive buffer (a few bytes a minute) until :meth:`check`
    reads them.  The watchers stand for people on other machines: a client that woke for each of 10,000
    streams' heartbeats would take its CPU from the 2 cores the server is measured on (about 8 % of a core
    here, for 667 heartbeats a second), and the bench would measure its own client.
    """

    def __init__(self, request: bytes) -> None:
        self.request = request
        self.head = b""
        self.received = 0  # bytes of the body (the retry hint, heartbeats)
        self.ended = False  # the server closed the stream
        self.opened: asyncio.Future = asyncio.get_running_loop().create_future()
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport) -> None:
        self.transport = transport
        transport.write(self.request)

    def data_received(self, data: bytes) -> None:
        if self.opened.done():
            self.received += len(data)
            return
        self.head += data
        if b"\r\n\r\n" not in self.head:
            return
        head, _, body = self.head.partition(b"\r\n\r\n")
        if b" 200 " not in head.split(b"\r\n", 1)[0]:
            self.opened.set_exception(ConnectionError(f"stream refused: {head[:100]!r}"))
            self.transport.close()
            return
        self.received = len(body)
        self.transport.pause_reading()
        self.opened.set_result(None)

    def eof_received(self) -> bool:
        self.ended = True
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self.ended = True
        if not self.opened.done():
            self.opened.set_exception(ConnectionError("closed before its answer"))

    async def check(self) -> bool:
        """Read what waited in the buffer; False when the server had closed the stream."""
        self.transport.resume_reading()
        await asyncio.sleep(0.5)
        return not self.ended


async def open_stream(host: str, port: int, path: str, token: str | None = None) -> IdleStream:
    auth = f"Authorization: Bearer {token}\r\n" if token else ""
    request = f"GET {path} HTTP/1.1\r\nHost: {host}\r\nAccept: text/event-stream\r\n{auth}\r\n".encode()
    _, stream = await asyncio.get_running_loop().create_connection(lambda: IdleStream(request), host, port)
    await stream.opened
    return stream


async def long_poll(host: str, port: int, path: str, conns: dict) -> int:
    """One long-poll on a kept-alive connection (reopened when the server closed it); returns the status."""
    for _ in range(2):
        if conns.get("r") is None:
            conns["r"], conns["w"] = await asyncio.open_connection(host, port)
        try:
            conns["w"].write(f"GET {path} HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
            status = await conns["r"].readline()
            length = 0
            while (line := await conns["r"].readline()) not in (b"\r\n", b""):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            await conns["r"].readexactly(length)
            return int(status.split()[1])
        except (OSError, asyncio.IncompleteReadError, IndexError, ValueError):
            conns["w"].close()
            conns["r"] = None
    return 0


class Watchers:
    """Holds N idle streams and M long-polls on an event loop in a thread of its own."""

    def __init__(self, url: str, matches: list[str], streams: int, polls: int, wait: float) -> None:
        self.host, self.port = url.split("//")[1].split(":")[0], int(url.rsplit(":", 1)[1])
        self.matches, self.streams, self.polls, self.wait = matches, streams, polls, wait
        self.held: list[IdleStream] = []
        self.refused = self.dropped = self.polled = self.poll_errors = self.received = 0
        self.ready = threading.Event()
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_until_complete, args=(self._main(),), daemon=True)
        self.stop: asyncio.Event | None = None

    async def _main(self) -> None:
        self.stop = asyncio.Event()
        if not self.streams:
            self.ready.set()
        tasks = [asyncio.ensure_future(self._stream(i)) for i in range(self.streams)]
        tasks += [asyncio.ensure_future(self._poll(i)) for i in range(self.polls)]
        await self.stop.wait()
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        alive = await asyncio.gather(*(stream.check() for stream in self.held))
        self.dropped = alive.count(False)
        self.received = sum(stream.received for stream in self.held)
        for stream in self.held:
            stream.transport.close()

    async def _stream(self, i: int) -> None:
        await asyncio.sleep(i * 0.0005)  # open them over a few seconds, not in one burst
        path = f"/matches/{self.matches[i % len(self.matches)]}/events"
        while True:
            try:
                stream = await open_stream(self.host, self.port, path)
                break
            except (OSError, ConnectionError):
                self.refused += 1
                await asyncio.sleep(1)
        self.held.append(stream)
        if len(self.held) == self.streams:
            self.ready.set()

    async def _poll(self, i: int) -> None:
        path = f"/matches/{self.matches[i % len(self.matches)]}?since=1000000&wait="
        conns: dict = {}
        await asyncio.sleep(i * 0.002)
        # the first wait of each is a different share of the full one, so that their ends (and new long-polls)
        # are spread over the interval, as a crowd's are; all of them opened together would end together
        wait = self.wait * (i + 1) / self.polls
        while True:
            status = await long_poll(self.host, self.port, f"{path}{wait}", conns)
            wait = self.wait
            if status == 200:
                self.polled += 1
            else:
                self.poll_errors += 1
                await asyncio.sleep(1)

    def start(self) -> None:
        self.thread.start()

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.stop.set)
        self.thread.join(30)


def descendants(pid: int) -> list[int]:
    out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout.split()
    kids = [int(p) for p in out]
    return kids + [g for k in kids for g in descendants(k)]


def api_rss(serve_pid: int) -> int:
    """Bytes of resident memory of the API processes (granian's server and its API processes)."""
    total = 0
    for pid in descendants(serve_pid):
        try:
            with open(f"/proc/{pid}/comm", "rb") as fh:
                if not fh.read().startswith((b"referee-api", b"referee-app")):
                    continue
            with open(f"/proc/{pid}/status") as fh:
                total += next(int(line.split()[1]) * 1024 for line in fh if line.startswith("VmRSS:"))
        except (OSError, StopIteration):
            continue
    return total


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="referee bench watchers", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--streams", type=int, default=10_000, help="idle event streams held open")
    p.add_argument("--polls", type=int, default=1_000, help="long-polls held (each sent again when it ends)")
    p.add_argument("--matches", type=int, default=32, help="concurrent matches of the load generator")
    p.add_argument("--duration", type=float, default=60.0, help="seconds of load, each run")
    p.add_argument("--rounds", type=int, default=1, help="runs with the watchers (each between two alone)")
    p.add_argument("--idle-matches", type=int, default=100, help="matches the watchers watch")
    args = p.parse_args(argv)

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    if args.streams + args.polls + 200 > hard:
        raise SystemExit(f"the open-files limit ({hard}) is too low for {args.streams + args.polls} connections")
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory() as data:
        env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
        # every watcher comes from this one address: let it hold them all (the default caps one address, which is
        # one client, not thousands behind it)
        env.setdefault("REFEREE_MAX_PER_CLIENT", str(args.streams + args.polls + 1000))
        serve = subprocess.Popen([sys.executable, "-m", "clients.cli", "serve", "--port", str(port),
                                  "--data", data], env=env, stdout=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 60
            while True:
                try:
                    if requests.get(url + "/readyz", timeout=1).status_code == 200:
                        break
                except requests.RequestException:
                    pass
                if time.monotonic() > deadline:
                    raise SystemExit("referee serve did not become ready")
                time.sleep(0.3)
            http = requests.Session()
            idle = [http.post(url + "/matches", json={"game": "super_blatt", "players": 2,
                                                      "seats": [{"name": "a"}, {"name": "b"}]}).json()["id"]
                    for _ in range(args.idle_matches)]
            def load(r: int) -> dict:
                return loadtest.run(url, "super_blatt", 2, args.matches, args.duration, 2, 1 + r)

            # alone, with, alone, with, ..., alone: each run with watchers is judged against the mean of the runs
            # alone on either side of it, so a drift of the machine during the round cancels (to first order)
            before, ratios = load(0), []
            for r in range(args.rounds):
                rss0 = api_rss(serve.pid)
                watchers = Watchers(url, idle, args.streams, args.polls, wait=60)
                t0 = time.monotonic()
                watchers.start()
                if not watchers.ready.wait(300):
                    raise SystemExit(f"only {len(watchers.held)} of {args.streams} streams opened")
                opened = time.monotonic() - t0
                time.sleep(2)
                rss1 = api_rss(serve.pid)
                crowd = load(r)
                watchers.close()
                held = len(watchers.held) - watchers.dropped
                time.sleep(3)
                after = load(r + 1)
                alone = {k: (before[k] + after[k]) / 2 for k in ("moves_per_s", "p99_ms")}
                ratios.append((crowd["moves_per_s"] / alone["moves_per_s"], crowd["p99_ms"] / alone["p99_ms"]))
                print(f"round {r + 1}: {args.matches} matches, {args.duration:.0f} s each run")
                print(f"  alone before: {before['moves_per_s']:7.0f} moves/s, p99 {before['p99_ms']:6.1f} ms "
                      f"({before['errors']} errors); after: {after['moves_per_s']:7.0f} moves/s, "
                      f"p99 {after['p99_ms']:6.1f} ms ({after['errors']} errors)")
                print(f"  with {args.streams} streams + {args.polls} long-polls: {crowd['moves_per_s']:7.0f} moves/s, "
                      f"p99 {crowd['p99_ms']:6.1f} ms ({crowd['errors']} errors)")
                print(f"  ratio to the mean of before and after: {ratios[-1][0]:.1%} of the moves/s, "
                      f"{ratios[-1][1]:.1%} of the p99")
                print(f"  streams: {args.streams} opened in {opened:.1f} s, {held} still open at the end, "
                      f"{watchers.dropped} dropped, {watchers.refused} refused ({watchers.received} bytes read from "
                      f"them at the end); long-polls answered: {watchers.polled} ({watchers.poll_errors} errors)")
                if args.streams:
                    print(f"  API memory: {rss0 / 2**20:.0f} MiB -> {rss1 / 2**20:.0f} MiB, "
                          f"{(rss1 - rss0) / (args.streams + args.polls) / 1024:.1f} KiB per held request")
                before = after
            moves, p99 = (statistics.median(x) for x in zip(*ratios))
            print(f"median of {args.rounds} rounds: {moves:.1%} of the moves/s, {p99:.1%} of the p99 "
                  f"(target: at least 90 % and at most 110 %)")
        finally:
            serve.send_signal(2)
            try:
                serve.wait(30)
            except subprocess.TimeoutExpired:
                serve.kill()
    return 0


if __name__ == "__main__":
    sys.exit(main())
