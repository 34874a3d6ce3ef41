"""``referee bot run``: a bot account that connects from anywhere and plays what it is offered.

It registers the bot (or reuses it: the token is kept in a file, or given), holds the bot's event stream
(``GET /bots/me/events``, resumed with ``Last-Event-ID`` after any drop), accepts the challenges of the games
it plays (declines the others), and answers every ``turn`` of its matches, challenges and tournaments alike,
with a move of its player:

  random, greedy, search    a built-in bot's code, run here (search@300ms, search@200: its budget)
  cmd:PROGRAM ARGS          any program, as in ``referee arena``: one JSON line {"match", "seat", "view",
                            "moves"} on its stdin per decision, one JSON line (the move) back

A move the referee refuses as illegal is not retried: the bot's clock runs on and, in a tournament, the
seat forfeits that match when it runs out.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import urlsplit

import requests

from clients.arena import Forfeit, Program
from clients.client import DEFAULT_URL, Referee, RefereeError, sse_frames

RETRY_S = 1.0  # the first pause before a reconnect (doubling up to RETRY_MAX_S while the server is away)
RETRY_MAX_S = 10.0
#: refusals that mean the turn is no longer ours (the match moved on): nothing to do
MOVED_ON = ("stale_version", "not_your_turn", "match_over", "unknown_match")


def token_path(url: str, name: str) -> Path:
    """Where a bot's token is kept between runs: one file per server and bot."""
    base = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config") / "referee" / "bots"
    host = urlsplit(url).netloc.replace(":", "_") or "local"
    return base / f"{host}-{name}.token"


def chooser(play: str, timeout: float) -> Callable[[str, str, int, dict, list], dict]:
    """The player: a function (game, match id, seat, view, moves) -> move."""
    if play.startswith("cmd:"):
        program = Program(play[4:], timeout)

        def ask(game: str, match_id: str, seat: int, view: dict, moves: list) -> dict:
            return program.ask({"match": match_id, "seat": seat, "view": view, "moves": moves})
        ask.program = program  # type: ignore[attr-defined]
        return ask
    from workers.bots import Budget, make_bot

    kind, _, budget = play.partition("@")
    if kind not in ("random", "greedy", "search", "first"):
        raise SystemExit(f"--play is random, greedy, search[@N|@Nms] or cmd:PROGRAM, not {play!r}")
    spend = Budget.parse(budget) if budget else None
    rng = random.Random()

    def decide(game: str, match_id: str, seat: int, view: dict, moves: list) -> dict:
        return make_bot(game, kind, spend)(view, moves, seat, rng)
    return decide


class BotRunner:
    """One bot account, online while :meth:`run` runs."""

    def __init__(self, url: str, name: str, play: str, games: list[str] | None = None, token: str | None = None,
                 token_file: str | Path | None = None, timeout: float = 10.0, workers: int = 8,
                 log: Callable[[str], None] | None = None) -> None:
        self.ref = Referee(url)
        self.url, self.name, self.play = url.rstrip("/"), name, play
        self.games = games
        self.token = token
        self.token_file = Path(token_file) if token_file else token_path(url, name)
        self.decide = chooser(play, timeout)
        self.pool = ThreadPoolExecutor(workers, thread_name_prefix=f"bot-{name}")
        self.seats: dict[str, dict] = {}  # match id -> {seat, token} (from match.started)
        self.early: dict[str, tuple] = {}  # match id -> its latest turn that came before its match.started
        self.last_id = 0
        self.stopping = threading.Event()
        self.response: requests.Response | None = None
        self.log = log or (lambda line: print(line, file=sys.stderr, flush=True))
        self.latencies: list[float] = []  # seconds from a turn's arrival to its move's answer
        self.delays: list[float] = []  # seconds from the commit that made a turn owed to its arrival (clocked)
        self.moves = 0
        self.finished: list[dict] = []
        self.lock = threading.Lock()

    # -- the account ---------------------------------------------------------------------------------
    def account(self) -> str:
        """The bot's token: given, kept from an earlier run, or a new registration (kept for the next)."""
        if self.token:
            return self.token
        if self.token_file.exists():
            self.token = self.token_file.read_text().strip()
            return self.token
        body: dict = {"name": self.name}
        if self.games:
            body["games"] = self.games
        out = self.ref.request("POST", "/bots", json=body)
        self.token = out["token"]
        self.token_file.parent.mkdir(parents=True, exist_ok=True)
        self.token_file.touch(mode=0o600)
        self.token_file.write_text(self.token + "\n")
        self.log(f"registered bot {self.name!r} (token kept in {self.token_file})")
        return self.token

    # -- the stream ----------------------------------------------------------------------------------
    def run(self) -> None:
        """Hold the event stream and play, reconnecting after any drop, until :meth:`stop`."""
        self.account()
        pause = RETRY_S
        while not self.stopping.is_set():
            try:
                for event in self._events():
                    pause = RETRY_S
                    self.handle(event)
            except RefereeError as exc:
                if not exc.transient:
                    raise
                self.log(f"event stream refused ({exc.problem.get('code')}); reconnecting")
            except (requests.RequestException, OSError) as exc:
                if self.stopping.is_set():
                    break
                self.log(f"event stream dropped ({type(exc).__name__}); reconnecting")
            if self.stopping.wait(pause):
                break
            pause = min(pause * 2, RETRY_MAX_S)
        self.pool.shutdown(wait=True)

    def stop(self) -> None:
        self.stopping.set()
        response = self.response
        if response is not None:  # wake the thread reading it (shutting the socket down ends its read)
            try:
                response.raw.connection.sock.shutdown(socket.SHUT_RDWR)
            except Exception:  # noqa: BLE001 - closed already
                pass
        program = getattr(self.decide, "program", None)
        if program is not None:
            program.stop()

    def _events(self) -> Iterator[dict]:
        headers = {"Accept": "text/event-stream", "Authorization": f"Bearer {self.token}",
                   "Last-Event-ID": str(self.last_id)}
        with requests.get(f"{self.url}/bots/me/events", headers=headers, stream=True, timeout=(10, 60)) as resp:
            if resp.status_code >= 400:
                raise RefereeError.of(resp)
            self.response = resp
            for frame in sse_frames(resp):
                if "data" in frame and frame.get("event") != "end":
                    self.last_id = int(frame["id"])
                    event = json.loads(frame["data"])
                    event["received"] = time.monotonic()
                    if event["type"] == "turn" and event["data"].get("since"):
                        with self.lock:
                            self.delays.append(time.time() - event["data"]["since"])
                    yield event
                if self.stopping.is_set():
                    return

    # -- what comes -----------------------------------------------------------------------------------
    def handle(self, event: dict) -> None:
        kind, data = event["type"], event["data"]
        if kind == "challenge":
            self.pool.submit(self._answer, data)
        elif kind == "match.started":
            self.seats[data["match_id"]] = {"seat": data["seat"], "token": data["token"]}
            early = self.early.pop(data["match_id"], None)
            if early is not None:  # a turn that came first (a stream resumed mid-way)
                self.pool.submit(self._turn, *early)
        elif kind == "turn":
            if data["match_id"] in self.seats:
                self.pool.submit(self._turn, data, event["received"])
            else:
                self.early[data["match_id"]] = (data, event["received"])
        elif kind == "match.finished":
            self.seats.pop(data["match_id"], None)
            self.early.pop(data["match_id"], None)
            with self.lock:
                self.finished.append(data)

    def _answer(self, challenge: dict) -> None:
        path = f"/bots/me/challenges/{challenge['id']}"
        try:
            if challenge["expires_at"] < time.time():
                return
            if self.games and challenge["game"] not in self.games:
                self.ref.request("POST", f"{path}/decline", token=self.token,
                                 json={"reason": f"{self.name} plays {', '.join(self.games)}"})
                return
            out = self.ref.request("POST", f"{path}/accept", token=self.token)
            self.log(f"accepted challenge {challenge['id']}: match {out['match_id']}")
        except RefereeError as exc:
            self.log(f"challenge {challenge['id']}: {exc.problem.get('code')}")

    def _turn(self, turn: dict, received: float) -> None:
        seat = self.seats.get(turn["match_id"])
        if seat is None:  # a turn of a match this run never saw start (an old one, replayed): no token
            return
        try:
            move = self.decide(turn["game"], turn["match_id"], turn["seat"], turn["view"], turn["moves"])
        except Forfeit as exc:
            self.log(f"{turn['match_id']}: no move ({exc})")
            return
        try:
            self.ref.move(turn["match_id"], seat["token"], move, expected_version=turn["version"])
        except RefereeError as exc:
            if exc.problem.get("code") not in MOVED_ON:
                self.log(f"{turn['match_id']}: move refused ({exc.problem.get('code')}: {exc.problem.get('detail')})")
            return
        with self.lock:
            self.latencies.append(time.monotonic() - received)
            self.moves += 1


def add_parser(sub) -> None:
    b = sub.add_parser("bot", help="a bot account that connects from anywhere (`referee bot run --help`)")
    bs = b.add_subparsers(dest="bot_command", required=True)
    r = bs.add_parser("run", help="register (or reuse) a bot account and play its challenges and tournaments",
                      description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    r.add_argument("--url", default=os.environ.get("REFEREE_URL", DEFAULT_URL))
    r.add_argument("--name", required=True, help="the bot's name (2-32 of a-z 0-9 _ -)")
    r.add_argument("--play", default="random", help="random | greedy | search[@N|@Nms] | cmd:PROGRAM ARGS")
    r.add_argument("--games", help="comma-separated games it plays, at registration (default: all)")
    r.add_argument("--token", default=os.environ.get("REFEREE_BOT_TOKEN"), help="the bot's token (else the file)")
    r.add_argument("--token-file", help="where the token is kept (default ~/.config/referee/bots/HOST-NAME.token)")
    r.add_argument("--timeout", type=float, default=10.0, help="cmd: seconds a program has per decision")
    r.set_defaults(func=main)


def main(args) -> int:
    games = [g for g in (args.games or "").split(",") if g] or None
    runner = BotRunner(args.url, args.name, args.play, games, args.token, args.token_file, args.timeout)

    def stop(*_: object) -> None:  # on the main thread, inside its read: leave it by the exception
        runner.stopping.set()
        raise SystemExit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    try:
        runner.account()
    except RefereeError as exc:
        print(json.dumps(exc.problem, indent=2), file=sys.stderr)
        return 1
    runner.log(f"bot {args.name!r} online at {args.url}, playing {args.play}")
    try:
        runner.run()
    except SystemExit:
        runner.pool.shutdown(wait=False, cancel_futures=True)
    program = getattr(runner.decide, "program", None)
    if program is not None:
        program.stop()
    return 0
