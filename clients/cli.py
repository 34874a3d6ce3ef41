"""The ``referee`` command: run the service, play from a shell, pit bots against each other.

    referee serve [--host H] [--port P] [--workers N]    API + N workers (+ embedded Redis without REDIS_URL)
    referee worker [--workers N]                         workers only, against REDIS_URL
    referee create GAME --players N --seat name:ann --seat bot:greedy
    referee join | show | legal | move | watch | result | abort ...
    referee arena ...     referee loadtest ...     referee bench ...     referee openapi
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time
from typing import Any

from clients.client import Referee, RefereeError

DEFAULT_URL = "http://127.0.0.1:8000"


def _print(value: Any) -> None:
    print(json.dumps(value, indent=2) if not isinstance(value, str) else value)


def _token(args) -> str | None:
    return args.token or os.environ.get("REFEREE_TOKEN")


def _value(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text


def _seat_spec(text: str) -> dict:
    """``name:ann`` | ``bot:greedy`` | ``open``"""
    if text == "open":
        return {}
    kind, _, value = text.partition(":")
    if kind not in ("name", "bot") or not value:
        raise argparse.ArgumentTypeError(f"seat must be name:NAME, bot:KIND or open, not {text!r}")
    return {kind: value}


# -- server side ------------------------------------------------------------------------------------
def cmd_serve(args) -> int:
    from service.embedded import EmbeddedRedis
    from workers.run import die_with_parent, replace_dead, start_workers, stop_processes

    embedded = None
    url = os.environ.get("REDIS_URL")
    if not url:
        embedded = EmbeddedRedis(args.data, port=args.redis_port)
        url = embedded.start()
    env = dict(os.environ, REDIS_URL=url)
    os.environ["REDIS_URL"] = url
    # granian: its HTTP layer is Rust, so a request costs the API process less CPU than under gunicorn
    api = subprocess.Popen(
        [sys.executable, "-m", "granian", "--interface", "wsgi", "--factory", "service.app:create_app",
         "--host", args.host, "--port", str(args.port), "--workers", str(args.processes),
         "--blocking-threads", str(args.threads), "--workers-kill-timeout", "5", "--log-level", "error"],
        env=env, preexec_fn=die_with_parent)
    workers = start_workers(url, args.workers)
    where = f"embedded server in {os.path.abspath(args.data)}" if embedded else url
    print(f"Referee on http://{args.host}:{args.port}  (Redis: {where}; {args.processes} API processes, "
          f"{args.workers} workers). Ctrl-C stops everything.", flush=True)
    stop: list[int] = []
    signal.signal(signal.SIGINT, lambda s, f: stop.append(s))
    signal.signal(signal.SIGTERM, lambda s, f: stop.append(s))
    code = 0
    try:
        while not stop:
            if api.poll() is not None:
                print("the API server exited", file=sys.stderr)
                code = 1
                break
            replace_dead(workers, url, args.workers)
            time.sleep(0.3)
    finally:
        if api.poll() is None:
            api.terminate()
        stop_processes(workers)
        try:
            api.wait(10)
        except subprocess.TimeoutExpired:
            api.kill()
        if embedded:
            embedded.stop()
    return code


def cmd_worker(args) -> int:
    from workers.run import run_workers

    url = os.environ.get("REDIS_URL")
    if not url:
        print("referee worker needs REDIS_URL (the Redis the API uses)", file=sys.stderr)
        return 2
    run_workers(url, args.workers)
    return 0


def cmd_openapi(args) -> int:
    from service.openapi import render

    text = render()
    if args.output == "-":
        sys.stdout.write(text)
    else:
        with open(args.output, "w") as fh:
            fh.write(text)
    return 0


# -- scripted play --------------------------------------------------------------------------------------
def cmd_create(args, ref: Referee) -> Any:
    options = {}
    for item in args.option or []:
        key, _, value = item.partition("=")
        options[key] = _value(value)
    seats = args.seat or None
    players = args.players or (len(seats) if seats else None)
    if players is None:
        raise SystemExit("give --players or one --seat per player")
    return ref.create_match(args.game, players, seats, options or None, _value(args.seed) if args.seed else None)


def cmd_watch(args, ref: Referee) -> None:
    for event in ref.stream(args.match, _token(args), args.after, args.wait):
        print(json.dumps(event), flush=True)


PLAY = {
    "create": cmd_create,
    "join": lambda a, r: r.join(a.match, a.name, a.seat),
    "show": lambda a, r: r.match(a.match, _token(a), a.since, a.wait),
    "legal": lambda a, r: r.legal_moves(a.match, _token(a)),
    "move": lambda a, r: r.move(a.match, _token(a), json.loads(a.move), a.expected_version, a.idempotency_key),
    "events": lambda a, r: r.events(a.match, _token(a), a.after),
    "watch": cmd_watch,
    "result": lambda a, r: r.result(a.match, _token(a)),
    "abort": lambda a, r: r.abort(a.match, _token(a)),
}


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="referee", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)

    s = sub.add_parser("serve", help="run the API and workers (embedded Redis unless REDIS_URL is set)")
    s.add_argument("--host", default="127.0.0.1")
    s.add_argument("--port", type=int, default=8000)
    s.add_argument("--workers", type=int, default=2, help="RQ worker processes (bots, scoring)")
    s.add_argument("--processes", type=int, default=2, help="API processes")
    s.add_argument("--threads", type=int, default=16,
                   help="Python threads per API process; each long-poll or event stream holds one "
                        "(fewer threads: lower tail latency under load)")
    s.add_argument("--data", default=".referee-data", help="folder of the embedded server's data")
    s.add_argument("--redis-port", type=int, default=None, help="port of the embedded server (default: free)")
    w = sub.add_parser("worker", help="run RQ workers and the sweeper against REDIS_URL")
    w.add_argument("--workers", type=int, default=2)
    o = sub.add_parser("openapi", help="print the OpenAPI document generated from the code")
    o.add_argument("--output", default="-")

    def play(name: str, help_: str, match: bool = True, token: bool = True) -> argparse.ArgumentParser:
        q = sub.add_parser(name, help=help_)
        q.add_argument("--url", default=os.environ.get("REFEREE_URL", DEFAULT_URL))
        if match:
            q.add_argument("match")
        if token:
            q.add_argument("--token", help="seat or host token (default: $REFEREE_TOKEN)")
        return q

    c = play("create", "create a match", match=False, token=False)
    c.add_argument("game")
    c.add_argument("--players", type=int)
    c.add_argument("--seat", action="append", type=_seat_spec, help="name:NAME | bot:KIND | open (one per seat)")
    c.add_argument("--option", action="append", help="KEY=VALUE (JSON value)")
    c.add_argument("--seed")
    j = play("join", "take an open seat", token=False)
    j.add_argument("--name", required=True)
    j.add_argument("--seat", type=int)
    sh = play("show", "the match as your seat sees it")
    sh.add_argument("--since", type=int)
    sh.add_argument("--wait", type=float, default=0)
    play("legal", "your legal moves")
    mv = play("move", "submit a move")
    mv.add_argument("move", help='JSON, e.g. \'{"type": "take", "column": 2}\'')
    mv.add_argument("--expected-version", type=int)
    mv.add_argument("--idempotency-key")
    for name in ("events", "watch"):
        e = play(name, "events your seat may see" if name == "events" else "follow events as they happen")
        e.add_argument("--after", type=int, default=0)
        if name == "watch":
            e.add_argument("--wait", type=float, default=3600)
    play("result", "final scores")
    play("abort", "abort (host token)")

    from clients import arena, bench, loadtest

    arena.add_parser(sub)
    loadtest.add_parser(sub)
    b = sub.add_parser("bench", help="rules-engine and bot benchmarks (in-process)", add_help=False)
    b.add_argument("rest", nargs=argparse.REMAINDER)
    b.set_defaults(func=lambda a: bench.main(a.rest) or 0)
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "serve":
        return cmd_serve(args)
    if args.command == "worker":
        return cmd_worker(args)
    if args.command == "openapi":
        return cmd_openapi(args)
    if hasattr(args, "func"):
        return args.func(args)
    try:
        out = PLAY[args.command](args, Referee(args.url))
    except RefereeError as exc:
        print(json.dumps(exc.problem, indent=2), file=sys.stderr)
        return 1
    if out is not None:
        _print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
