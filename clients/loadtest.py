"""``referee loadtest``: drive N concurrent matches over HTTP and print moves/s and latency percentiles.

Every match has all-human seats played here by random movers, each seat on a keep-alive connection of
its own (as each player's own client would be; a server of several processes then shares a table's
requests among them, where one connection per table would pin it to one): each move is a
``POST /moves``, preceded by a ``GET /legal-moves`` unless the previous move's answer already
listed the mover's next legal moves (a compound turn).  With ``--turns stream`` each seat instead
holds its event stream with ``legal_moves=true``, as a browser table would, and moves when a
``legal_moves`` frame tells it its turn has come: no request but the move itself (it also prints how
long the turn's notice took, from the previous move's answer to the frame).  A match is left at its last
move (its answer lists nobody to act) and replaced by a new one, so N matches stay in play; in either mode
nothing waits for its scoring, a worker's job after the last move (a stream's ``end`` frame comes after it).

The tables start out of step, as a server's tables are: each table leaves (aborts) its first match after a
random number of moves, 1 to ``--spread`` (100; 0 starts every table in step).  Tables that start
together on a server that serves its requests first come first served move at the same pace, so they
stay in step for the whole run: they then finish and create their matches in bursts (a Super-Blatt match
is ~67 moves), a load no crowd of people makes.  ``--idle`` first creates that many extra live matches that just sit
there, to show a move's cost does not grow with the number of live matches.  Traffic goes
only to the given URLs (loopback by default) and stops after ``--duration`` seconds; with
several ``--url`` (API hosts against one store), match i is played through URL i mod n.

``--clock JSON`` gives every played match a turn clock (the cost of a move with a clock);
``--timeouts N`` also creates N clocked matches whose seats never move (``--timeout-seconds``,
on_timeout "default"), so their timeouts fire all through the run, and prints how late they
fired (the timeout event's ``at`` minus its ``deadline``); they are aborted at the end.
"""

from __future__ import annotations

import argparse
import functools
import json
import multiprocessing as mp
import os
import random
import selectors
import socket
import statistics
import sys
import threading
import time
from urllib.parse import urlsplit

import orjson

from service.games.base import concretize


class Conn:
    """A keep-alive HTTP/1.1 JSON connection on a bare socket.

    The load generator shares the machine with the server it measures, so its CPU is taken from
    the server: through http.client a move cost the generator 0.58 ms of CPU, through this 0.21 ms.
    It speaks only what the referee's JSON routes answer: bodies with a Content-Length.
    """

    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        self.host, self.port = parts.hostname, parts.port or 80
        self.sock: socket.socket | None = None
        self.buf = b""

    def _connect(self) -> socket.socket:
        sock = socket.create_connection((self.host, self.port), timeout=30)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = b""
        return sock

    def call(self, method: str, path: str, body: dict | None = None, token: str | None = None) -> tuple[int, dict]:
        data = orjson.dumps(body) if body is not None else b""
        head = f"{method} {path} HTTP/1.1\r\nHost: {self.host}\r\nContent-Length: {len(data)}\r\n"
        if body is not None:
            head += "Content-Type: application/json\r\n"
        if token:
            head += f"Authorization: Bearer {token}\r\n"
        request = head.encode() + b"\r\n" + data
        for attempt in range(2):  # a kept-alive connection the server has closed is reopened once
            try:
                if self.sock is None:
                    self.sock = self._connect()
                self.sock.sendall(request)
                status, payload = self._response()
                break
            except OSError:
                if self.sock is not None:
                    self.sock.close()
                self.sock = None
                if attempt:
                    raise
        return status, orjson.loads(payload) if payload else {}

    def _read_until(self, marker: bytes) -> bytes:
        while (i := self.buf.find(marker)) < 0:
            self._fill()
        out, self.buf = self.buf[:i], self.buf[i + len(marker):]
        return out

    def _read_exactly(self, n: int) -> bytes:
        while len(self.buf) < n:
            self._fill()
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def _fill(self) -> None:
        chunk = self.sock.recv(65536)
        if not chunk:
            raise ConnectionError("the server closed the connection")
        self.buf += chunk

    def _response(self) -> tuple[int, bytes]:
        lines = self._read_until(b"\r\n\r\n").split(b"\r\n")
        status = int(lines[0].split(b" ", 2)[1])
        headers = {k.strip().lower(): v.strip() for k, v in (line.split(b":", 1) for line in lines[1:])}
        if b"content-length" in headers:
            return status, self._read_exactly(int(headers[b"content-length"]))
        raise ValueError("a response without Content-Length (the referee always sends one)")


def create(conn: Conn, game: str, players: int, seed: int, clock: dict | None) -> tuple[int, dict]:
    body = {"game": game, "players": players, "seed": seed, "seats": [{"name": f"p{i}"} for i in range(players)]}
    return conn.call("POST", "/matches", {**body, "clock": clock} if clock else body)


def new_match(conn: Conn, game: str, players: int, seed: int,
              clock: dict | None = None) -> tuple[str, dict[int, str], list[int], str]:
    """A match of named seats: its id, the seats' tokens, who is to act, the host token."""
    status, created = create(conn, game, players, seed, clock)
    if status != 201:
        raise RuntimeError(f"create failed: {status} {created}")
    tokens = {s["seat"]: s["token"] for s in created["seats"]}
    _, snap = conn.call("GET", f"/matches/{created['id']}", token=tokens[0])
    return created["id"], tokens, snap["to_act"], created["host_token"]


SPREAD = 100


def mover(url: str, game: str, players: int, deadline: float, seed: int, out: list, clock: dict | None = None,
          spread: int = SPREAD) -> None:
    """One table: each seat a player with a connection of its own, as each person's own client would have."""
    conns = [Conn(url) for _ in range(players)]
    rng = random.Random(seed)
    lat: list[float] = []
    errors = finished = 0
    mid, tokens, to_act, host = new_match(conns[0], game, players, seed, clock)
    left = rng.randint(1, spread) if spread else 0  # moves before the first match is left (the module's docstring)
    follow_up: dict | None = None  # the mover's next legal moves, from a move's answer
    while time.monotonic() < deadline:
        if left == 1 and to_act:
            conns[0].call("DELETE", f"/matches/{mid}", token=host)
            to_act, finished = [], finished - 1
        left -= left > 0
        if not to_act:
            finished += 1
            mid, tokens, to_act, host = new_match(conns[0], game, players, rng.randrange(1 << 30), clock)
            follow_up = None
            continue
        seat = to_act[0]
        conn = conns[seat]
        if follow_up is not None and follow_up["seat"] == seat:
            legal, status = follow_up, 200
        else:
            status, legal = conn.call("GET", f"/matches/{mid}/legal-moves", token=tokens[seat])
        follow_up = None
        if status != 200 or not legal["moves"]:
            errors += 1
            _, snap = conn.call("GET", f"/matches/{mid}", token=tokens[seat])
            to_act = snap["to_act"]
            continue
        move = concretize(rng.choice(legal["moves"]), rng)
        t0 = time.perf_counter()
        status, answer = conn.call("POST", f"/matches/{mid}/moves", {"move": move,
                                                                     "expected_version": legal["version"]},
                                   token=tokens[seat])
        lat.append(time.perf_counter() - t0)
        if status != 200:
            errors += 1
            _, snap = conn.call("GET", f"/matches/{mid}", token=tokens[seat])
            to_act = snap["to_act"]
            continue
        to_act = answer["to_act"]
        if answer["legal_moves"]:
            follow_up = {"seat": seat, "version": answer["version"], "moves": answer["legal_moves"]}
    out.append((lat, errors, finished, []))


class EventStream(Conn):
    """A seat's event stream on a bare socket: ``feed`` takes what arrived, ``frames`` yields the whole frames among
    it as (event, data), comments skipped; several streams share one thread through a selector."""

    def __init__(self, url: str, path: str, token: str, timeout: float) -> None:
        super().__init__(url)
        self.sock = self._connect()
        self.sock.settimeout(timeout)
        self.sock.sendall(f"GET {path} HTTP/1.1\r\nHost: {self.host}\r\nAccept: text/event-stream\r\n"
                          f"Authorization: Bearer {token}\r\n\r\n".encode())
        head = self._read_until(b"\r\n\r\n")
        if b" 200 " not in head.split(b"\r\n", 1)[0]:
            raise RuntimeError(f"stream refused: {head[:200]!r}")
        self.chunked = b"transfer-encoding: chunked" in head.lower()
        self.text = b""
        self.ended = False

    def feed(self, read: bool = True) -> None:
        """Read what the socket has (one read; none with ``read`` False: what came with the head) and add its body
        to ``text`` (whole chunks, when chunked)."""
        if read:
            self._fill()
        if not self.chunked:
            self.text, self.buf = self.text + self.buf, b""
            return
        while (i := self.buf.find(b"\r\n")) >= 0:
            size = int(self.buf[:i].split(b";")[0], 16)
            if size == 0:
                self.ended = True
                return
            if len(self.buf) < i + 2 + size + 2:
                return  # the rest of the chunk is still on its way
            self.text += self.buf[i + 2:i + 2 + size]
            self.buf = self.buf[i + 2 + size + 2:]

    def frames(self):
        while (i := self.text.find(b"\n\n")) >= 0:
            frame, self.text = self.text[:i], self.text[i + 2:]
            event, data = "message", b""
            for line in frame.split(b"\n"):
                if line.startswith(b"event: "):
                    event = line[7:].decode()
                elif line.startswith(b"data: "):
                    data = line[6:]
            if data:
                yield event, orjson.loads(data)

    def close(self) -> None:
        self.sock.close()


def streamed(url: str, game: str, players: int, deadline: float, seed: int, out: list,
             clock: dict | None = None) -> None:
    """One table whose seats learn of their turns from their event streams: one thread for the table (as a mover
    of ``--turns ask`` is), reading every seat's stream through a selector, and each seat moving on its own
    keep-alive connection whenever its stream (or its own move's answer) lists its legal moves."""
    rng = random.Random(seed)
    conn = Conn(url)
    lat: list[float] = []
    notice: list[float] = []
    errors = finished = 0
    seats = list(range(players))
    posts = [Conn(url) for _ in seats]  # each seat's keep-alive connection for its moves, as a bot host keeps
    while time.monotonic() < deadline:
        mid, tokens, _, _ = new_match(conn, game, players, rng.randrange(1 << 30), clock)
        try:
            streams = [EventStream(url, f"/matches/{mid}/events?legal_moves=true", tokens[s],
                                   max(1.0, deadline - time.monotonic())) for s in seats]
        except (OSError, ConnectionError, RuntimeError):
            errors += 1
            continue
        selector = selectors.DefaultSelector()
        for s in seats:
            selector.register(streams[s].sock, selectors.EVENT_READ, s)
        acted, posted, over = [-1] * players, {}, False
        try:
            ready = [(seat, False) for seat in seats]  # first what came with each stream's head
            while not over and time.monotonic() < deadline:
                for seat, read in ready:
                    streams[seat].feed(read)
                    for event, data in streams[seat].frames():
                        if event == "end":
                            over = True
                        if event != "legal_moves" or data["version"] <= acted[seat] or over:
                            continue
                        if (sent := posted.get(data["version"])) is not None:
                            notice.append(time.perf_counter() - sent)
                        legal = data
                        while legal and time.monotonic() < deadline:
                            acted[seat] = legal["version"]
                            move = concretize(rng.choice(legal["moves"]), rng)
                            t0 = time.perf_counter()
                            status, answer = posts[seat].call("POST", f"/matches/{mid}/moves", {
                                "move": move, "expected_version": legal["version"]}, token=tokens[seat])
                            lat.append(time.perf_counter() - t0)
                            if status != 200:  # another seat of a simultaneous decision came first: next frame
                                errors += status != 409
                                break
                            posted[answer["version"]] = time.perf_counter()
                            if not answer["to_act"]:  # its last move: on to the next, as a mover of --turns ask
                                over = True
                                break
                            legal = answer["legal_moves"] and {"version": answer["version"],
                                                               "moves": answer["legal_moves"]}
                    if streams[seat].ended:
                        over = True
                wait = min(1.0, deadline - time.monotonic())
                ready = [(key.data, True) for key, _ in selector.select(timeout=max(0.0, wait))] if wait > 0 else []
        except (OSError, ConnectionError) as exc:
            if time.monotonic() < deadline:
                errors += 1
                print(f"a streamed table failed: {exc!r}", file=sys.stderr)
        finally:
            selector.close()
            for stream in streams:
                stream.close()
        finished += over and time.monotonic() < deadline
    for c in posts:
        if c.sock is not None:
            c.sock.close()
    out.append((lat, errors, finished, notice))


def _process(urls: list[str], first: int, game: str, players: int, matches: int, duration: float, seed: int,
             queue, clock: dict | None, turns: str, spread: int) -> None:
    """Matches ``first`` to ``first + matches - 1`` of the run, each on its URL."""
    deadline = time.monotonic() + duration
    out: list = []
    table = streamed if turns == "stream" else functools.partial(mover, spread=spread)
    threads = [threading.Thread(target=table, args=(urls[(first + i) % len(urls)], game, players, deadline,
                                                    seed + i, out, clock))
               for i in range(matches)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    queue.put(out)


def create_idle(url: str, game: str, players: int, count: int) -> None:
    conn = Conn(url)
    for i in range(count):
        conn.call("POST", "/matches", {"game": game, "players": players, "seed": i,
                                       "seats": [{"name": f"idle{s}"} for s in range(players)]})


def timeout_lateness(conn: Conn, idle: list[dict], since: float, until: float) -> list[float]:
    """Seconds from deadline to firing of the idle matches' timeouts due in [since, until]; aborts them."""
    late = []
    for created in idle:
        _, page = conn.call("GET", f"/matches/{created['id']}/events?after=0&limit=1000")
        late += [e["data"]["at"] - e["data"]["deadline"] for e in page.get("events", [])
                 if e["type"] == "timeout" and since <= e["data"]["deadline"] <= until]
        conn.call("DELETE", f"/matches/{created['id']}", token=created["host_token"])
    return sorted(late)


def run(url: str | list[str], game: str, players: int, matches: int, duration: float, procs: int, seed: int,
        clock: dict | None = None, timeouts: int = 0, timeout_seconds: float = 1.0, turns: str = "ask",
        spread: int = SPREAD) -> dict:
    urls = [url] if isinstance(url, str) else url
    ctx = mp.get_context("fork")
    queue = ctx.Queue()
    shares = [matches // procs + (i < matches % procs) for i in range(procs)]
    workers = [ctx.Process(target=_process, args=(urls, sum(shares[:i]), game, players, n, duration,
                                                  seed + 1000 * i, queue, clock, turns, spread))
               for i, n in enumerate(shares) if n]
    conn = Conn(urls[0])
    idle_clock = {"move_seconds": timeout_seconds, "on_timeout": "default"}
    idle = [create(conn, game, players, seed + i, idle_clock)[1] for i in range(timeouts)]
    wall = time.time()
    start = time.monotonic()
    for w in workers:
        w.start()
    results = [item for _ in workers for item in queue.get()]
    for w in workers:
        w.join()
    elapsed = time.monotonic() - start
    lat = sorted(x for r in results for x in r[0])
    late = timeout_lateness(conn, idle, wall, wall + elapsed) if idle else []

    def pct(values: list[float], p: float) -> float:
        return values[min(len(values) - 1, int(len(values) * p))] * 1000 if values else float("nan")

    out = {"matches": matches, "moves": len(lat), "seconds": elapsed, "moves_per_s": len(lat) / elapsed,
           "p50_ms": pct(lat, 0.50), "p95_ms": pct(lat, 0.95), "p99_ms": pct(lat, 0.99),
           "mean_ms": statistics.fmean(lat) * 1000 if lat else float("nan"),
           "errors": sum(r[1] for r in results), "finished_matches": sum(r[2] for r in results)}
    if turns == "stream":
        notice = sorted(x for r in results for x in r[3])
        out.update(notice_p50_ms=pct(notice, 0.50), notice_p99_ms=pct(notice, 0.99))
    if idle:
        out.update(timeouts=len(late), timeout_late_p50_ms=pct(late, 0.50), timeout_late_p99_ms=pct(late, 0.99),
                   timeout_late_max_ms=late[-1] * 1000 if late else float("nan"))
    return out


def add_parser(sub) -> None:
    p = sub.add_parser("loadtest", help="drive N concurrent matches; print moves/s and latency percentiles",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--url", action="append", help="an API host (repeat for several; default $REFEREE_URL, "
                                                   "else http://127.0.0.1:8000)")
    p.add_argument("--game", default="super_blatt")
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--matches", type=int, default=32, help="concurrent matches")
    p.add_argument("--duration", type=float, default=15.0, help="seconds of load")
    p.add_argument("--procs", type=int, default=2, help="load-generator processes")
    p.add_argument("--idle", type=int, default=0, help="extra live matches created first and left idle")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--clock", type=json.loads, help='a turn clock for each played match, e.g. \'{"move_seconds": 60}\'')
    p.add_argument("--timeouts", type=int, default=0,
                   help="extra clocked matches whose seats never move: prints how late their timeouts fire")
    p.add_argument("--timeout-seconds", type=float, default=1.0, help="their move_seconds")
    p.add_argument("--turns", choices=("ask", "stream"), default="ask",
                   help="how a seat learns its legal moves: ask (GET legal-moves) or stream (its event stream)")
    p.add_argument("--spread", type=int, default=SPREAD,
                   help="each table leaves its first match after 1 to this many moves, so tables run out of "
                        "step (0: all start in step)")
    p.add_argument("--json", action="store_true", help="print the figures as JSON")
    p.set_defaults(func=main)


def main(args) -> int:
    urls = args.url or [os.environ.get("REFEREE_URL", "http://127.0.0.1:8000")]
    for url in urls:
        host = urlsplit(url).hostname
        if host not in ("127.0.0.1", "localhost", "::1") and not host.startswith("127."):
            raise SystemExit("loadtest only targets loopback addresses")
    if args.idle:
        t0 = time.monotonic()
        create_idle(urls[0], args.game, args.players, args.idle)
        print(f"created {args.idle} idle live matches in {time.monotonic() - t0:.1f} s")
    r = run(urls, args.game, args.players, args.matches, args.duration, args.procs, args.seed, args.clock,
            args.timeouts, args.timeout_seconds, args.turns, args.spread)
    if args.json:
        print(json.dumps(r))
    else:
        print(f"{r['matches']} concurrent {args.game} matches, {r['seconds']:.1f} s: {r['moves']} moves, "
              f"{r['moves_per_s']:.0f} moves/s; latency p50 {r['p50_ms']:.1f} ms, p95 {r['p95_ms']:.1f} ms, "
              f"p99 {r['p99_ms']:.1f} ms (mean {r['mean_ms']:.1f}); {r['finished_matches']} matches finished, "
              f"{r['errors']} errors")
        if args.turns == "stream":
            print(f"turn notices (a move's answer to the next mover's legal_moves frame): p50 "
                  f"{r['notice_p50_ms']:.1f} ms, p99 {r['notice_p99_ms']:.1f} ms")
        if args.timeouts:
            print(f"{args.timeouts} idle clocked matches: {r['timeouts']} timeouts fired, late by p50 "
                  f"{r['timeout_late_p50_ms']:.0f} ms, p99 {r['timeout_late_p99_ms']:.0f} ms "
                  f"(max {r['timeout_late_max_ms']:.0f} ms) after their deadline")
    return 0
