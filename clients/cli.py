"""The ``referee`` command: run the service, play from a shell, pit bots against each other.

    referee serve [--host H] [--port P] [--workers N] [--search-workers S]   API + workers (+ embedded Redis)
    referee api [--host H] [--port P] [--processes P]    the API only (an API host), against REDIS_URL
    referee worker [--workers N] [--search-workers S]    workers only, against REDIS_URL
    referee create GAME --players N --seat name:ann --seat bot:greedy
    referee join | show | legal | move | watch | result | abort | away | back | rematch ...
    referee export MATCH [--output FILE]                 the record of a finished match
    referee export --finished [--since T] [--data DIR]   every kept finished match, as JSON lines
    referee replay FILE [--json]                         replay a record; exit 1 if the result differs
    referee analyse MATCH_OR_FILE [--budget B] [--json]  a finished match's analysis: chances, mistakes, blunders
    referee arena ...     referee ladder [--game G]     referee loadtest ...     referee bench ...
    referee openapi                                      the OpenAPI document for the installed games
    referee conformance GAME_OR_PACKAGE [--players N] [--variant JSON] [--seed S]   check a game; exit 1 on failure
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import sys
import time
from typing import Any

from clients.client import DEFAULT_URL, Referee, RefereeError
from service.infra.config import Settings
from service.infra.processes import catch_stop_signals, stop_requested

SEARCH_WORKERS_HELP = "workers for the search bot's turns (they also help the others when idle)"
PROCESSES = 4
#: ``referee serve``'s workers (bot turns, scorings) run below the API on the host they share with it: under
#: load, a move's request comes first (docs/benchmarks.md)
WORKERS_NICE = 5
PROCESSES_HELP = ("API processes (granian's workers): each answers the connections it accepted, Flask on its event "
                  "loop, long-polls and streams held there")


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
def _connections_problem() -> str | None:
    """Why the configured store or queue cannot be used (said once here, not by every child), or None."""
    import redis

    from service.infra.connections import connect

    try:
        for client in connect(Settings.from_env()):
            client.ping()
    except (RuntimeError, redis.RedisError) as exc:
        return f"referee: {exc}"
    return None


class PortTaken(Exception):
    pass


def claim_port(host: str, port: int) -> socket.socket:
    """Refuse a port another server listens on, and keep other ``referee serve``s off it while we run.

    A plain bind of the port fails when something listens on it (SO_REUSEADDR only lets us past the
    TIME_WAITs a previous run left; with SO_REUSEPORT a second server would start and the kernel would split
    connections between two stores).  Two ``referee serve`` starting at once could both pass that check
    before either server binds: the abstract socket named after the port, ours for our whole life, makes the
    second one refuse.  (It lives in this network namespace, as the port.)
    """
    holder = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        holder.bind(f"\0referee-serve-port-{port}")
    except OSError:
        holder.close()
        raise PortTaken(f"port {port} is taken by another `referee serve`") from None
    try:
        for family, kind, proto, _, addr in socket.getaddrinfo(host, port, type=socket.SOCK_STREAM,
                                                               flags=socket.AI_PASSIVE):
            with socket.socket(family, kind, proto) as probe:
                probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                probe.bind(addr)
    except OSError as exc:
        holder.close()
        raise PortTaken(f"{host}:{port} is not free ({exc.strerror or exc})") from None
    # the claim is this process's alone: a forked worker (and the RQ work-horses it forks) lets go of it,
    # so a job process outliving a killed `referee serve` cannot keep its restart off the port
    os.register_at_fork(after_in_child=holder.close)
    return holder


def cmd_serve(args) -> int:
    from service.infra.embedded import EmbeddedRedis
    from service.serving.server import ApiProcesses
    from workers.run import replace_dead, start_workers, stop_workers

    catch_stop_signals()
    try:
        holder = claim_port(args.host, args.port)
    except PortTaken as exc:
        print(f"referee serve: {exc}; choose another --port", file=sys.stderr)
        return 1
    embedded = None
    url = os.environ.get("REDIS_URL")
    if not url:
        if Settings.from_env().queue_apart:
            print("REFEREE_REDIS_CLUSTER and REFEREE_QUEUE_URL need REDIS_URL (the embedded server is one "
                  "server for both)", file=sys.stderr)
            holder.close()
            return 2
        embedded = EmbeddedRedis(args.data, port=args.redis_port, maxmemory=Settings.from_env().store_max_memory)
        try:
            embedded.start()
            url = embedded.local_url  # every process of `referee serve` runs on this host
        except RuntimeError as exc:
            embedded.close()
            holder.close()
            print(f"referee serve: {exc}", file=sys.stderr)
            return 1
    os.environ["REDIS_URL"] = url
    if problem := _connections_problem():
        print(problem, file=sys.stderr)
        if embedded:
            embedded.close()
        holder.close()
        return 2
    raise_open_files()  # each held stream is a socket of an API process
    api = ApiProcesses(args.host, args.port, args.processes)
    workers = start_workers(args.workers, args.search_workers, WORKERS_NICE)
    where = (f"embedded server in {os.path.abspath(args.data)}, maxmemory {embedded.maxmemory / (1 << 30):.1f} GiB"
             if embedded else url)
    if queue_url := os.environ.get("REFEREE_QUEUE_URL"):
        where += f", queue: {queue_url}"
    scheme = Settings.from_env().scheme
    print(f"Referee on {scheme}://{args.host}:{args.port}  (Redis: {where}; {args.processes} API processes, "
          f"{args.workers} workers, {args.search_workers} search workers). Ctrl-C stops everything.", flush=True)

    def tend_the_rest() -> None:
        if embedded:
            tend(embedded)
        replace_dead(workers, args.workers, args.search_workers, WORKERS_NICE)

    try:
        status = _supervise(api, tend_the_rest)
    finally:  # in order: the API processes drain, the workers finish their jobs, the store last
        api.stop()
        stop_workers(workers)
        if embedded:
            embedded.close()
        holder.close()
    print("Referee stopped.", flush=True)
    return status


def _supervise(api, more=lambda: None) -> int:
    """Restart what dies until SIGINT or SIGTERM (0), or until the API server cannot start (1)."""
    while not stop_requested():
        try:
            api.replace_dead()
        except RuntimeError as exc:
            print(f"referee: {exc}", file=sys.stderr)
            return 1
        more()
        time.sleep(0.3)
    return 0


def cmd_api(args) -> int:
    """The API alone (granian and its API processes) against REDIS_URL: what an API host runs."""
    from service.serving.server import ApiProcesses

    if not os.environ.get("REDIS_URL"):
        print("referee api needs REDIS_URL (the Redis the workers use)", file=sys.stderr)
        return 2
    catch_stop_signals()
    try:
        holder = claim_port(args.host, args.port)
    except PortTaken as exc:
        print(f"referee api: {exc}; choose another --port", file=sys.stderr)
        return 1
    if problem := _connections_problem():
        print(problem, file=sys.stderr)
        holder.close()
        return 2
    raise_open_files()
    api = ApiProcesses(args.host, args.port, args.processes)
    print(f"Referee API on {Settings.from_env().scheme}://{args.host}:{args.port} ({args.processes} API processes). "
          "Ctrl-C stops it.", flush=True)
    try:
        status = _supervise(api)
    finally:
        api.stop()
        holder.close()
    print("Referee API stopped.", flush=True)
    return status


def tend(embedded) -> None:
    """Restart the embedded server if it died; keep its background rewrites below the requests."""
    if not embedded.alive():
        restart_embedded(embedded)
    embedded.lower_background()


def restart_embedded(embedded) -> None:
    """The embedded server died: start it again on its folder, port, password and append-only file.
    Meanwhile the API answers 503 ``redis_unavailable``; its clients reconnect by themselves."""
    print("the embedded Redis server is down; restarting it", file=sys.stderr, flush=True)
    try:
        embedded.start()
    except RuntimeError as exc:  # tried again on the next round
        print(f"referee serve: {exc}", file=sys.stderr, flush=True)


def raise_open_files() -> int:
    """Raise this process's open-files limit (inherited by the API processes) to the hard limit."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or hard > 1 << 20:
        hard = 1 << 20
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return hard


def cmd_worker(args) -> int:
    from workers.run import run_workers

    if not os.environ.get("REDIS_URL"):
        print("referee worker needs REDIS_URL (the Redis the API uses)", file=sys.stderr)
        return 2
    if problem := _connections_problem():
        print(problem, file=sys.stderr)
        return 2
    run_workers(args.workers, args.search_workers, args.metrics_port, args.metrics_host)
    print("Referee workers stopped.", flush=True)
    return 0


def cmd_openapi(args) -> int:
    from service.api.openapi import render

    text = render()
    if args.output == "-":
        sys.stdout.write(text)
    else:
        with open(args.output, "w") as fh:
            fh.write(text)
    return 0


def cmd_conformance(args) -> int:
    from clients import conformance

    try:
        failures = conformance.run(args.games, args.players, args.variant, args.seed, args.seeds)
    except LookupError as error:
        print(error, file=sys.stderr)
        return 2
    return 1 if failures else 0


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
    return ref.create_match(args.game, players, seats, options or None, _value(args.seed) if args.seed else None,
                            args.clock)


def cmd_export(args, ref: Referee) -> None:
    record = ref.record(args.match, _token(args))
    text = json.dumps(record, indent=2)
    if args.output == "-":
        print(text)
    else:
        with open(args.output, "w") as fh:
            fh.write(text + "\n")
        print(f"{args.output}: {record['game']}, {len(record['moves'])} moves")


def export_finished(args) -> int:
    """Every finished match the store keeps, finished at or after ``--since``, oldest first, as JSON lines of
    records (with ``finished_at``), read from the store itself: an operator's copy, kept wherever they like."""
    from datetime import UTC, datetime

    from service.core.referee import Referee as Engine
    from service.infra.connections import connect
    from service.infra.embedded import EmbeddedRedis
    from service.infra.problems import Problem

    if args.data:
        os.environ["REDIS_URL"] = EmbeddedRedis.url_of(args.data)
    elif not os.environ.get("REDIS_URL"):
        print("referee export --finished reads the store: set REDIS_URL, or give --data (the folder of "
              "`referee serve`'s embedded server)", file=sys.stderr)
        return 2
    settings = Settings.from_env()
    store, queue = connect(settings)
    engine = Engine(store, settings, queue)
    out = sys.stdout if args.output == "-" else open(args.output, "w")
    written, offset = 0, 0
    try:
        while page := engine.store.finished_since(args.since, offset):
            offset += len(page)
            for match_id, at in page:
                try:
                    record = engine.record(match_id, None)
                except Problem:  # expired since the page was read
                    continue
                record["finished_at"] = datetime.fromtimestamp(at, UTC).isoformat()
                out.write(json.dumps(record) + "\n")
                written += 1
    finally:
        if out is not sys.stdout:
            out.close()
    print(f"{written} finished matches", file=sys.stderr)
    return 0


def _when(text: str) -> float:
    """Unix seconds, or an ISO 8601 time (UTC unless it says otherwise)."""
    from datetime import UTC, datetime

    try:
        return float(text)
    except ValueError:
        when = datetime.fromisoformat(text)
        return (when if when.tzinfo else when.replace(tzinfo=UTC)).timestamp()


def cmd_replay(args) -> int:
    """Replay a record through the game modules; 0 when the result is the recorded one, else 1."""
    from service.core.record import ReplayError, replay

    with open(args.file) as fh:
        record = json.load(fh)

    def step(i: int, move: dict, events: list[dict]) -> None:
        if args.json:
            print(json.dumps({"step": i, **move, "events": [e["type"] for e in events]}))
        else:
            body = " ".join(f"{k}={v}" for k, v in move["move"].items() if k != "type")
            print(f"{i:4d} v{move['version']:<4d} seat {move['seat']}: {move['move']['type']} {body}".rstrip())

    try:
        result = replay(record, step)
    except ReplayError as exc:
        print(f"replay failed: {exc}", file=sys.stderr)
        return 1
    same = {k: result.get(k) for k in record["result"]} == record["result"]
    summary = {"same_result": same, "result": result, "recorded": record["result"]}
    if args.json:
        print(json.dumps(summary))
    else:
        print(f"result: scores {result['scores']}, winners {result['winners']} "
              f"({'same as recorded' if same else 'DIFFERS from the recorded ' + json.dumps(record['result'])})")
    return 0 if same else 1


def cmd_watch(args, ref: Referee) -> None:
    """Print events as they come; exit 0 once the match is over, 1 if the stream stops before."""
    stream = ref.stream(args.match, _token(args), args.after, args.wait)
    try:
        for event in stream:
            print(json.dumps(event), flush=True)
    except ConnectionError as exc:
        raise SystemExit(f"referee watch: {exc}") from None
    if stream.end is None:
        raise SystemExit(f"referee watch: stopped after {args.wait} s; the match is not over "
                         f"(resume with --after {stream.last_id})")
    print(f"the match is {stream.end['status']}", file=sys.stderr)


def cmd_ladder(args, ref: Referee) -> Any:
    """Each game's ratings as a table (best first), or the JSON of GET /ladder with --json."""
    games = ref.ladder(args.game)
    if args.json:
        return games
    lines = []
    for g in games:
        lines.append(f"{g['game']}\n{'entrant':32} {'rating':>7} {'mu':>6} {'sigma':>6} {'matches':>7} {'wins':>5} "
                     f"{'forfeits':>8}")
        for e in g["entrants"]:
            lines.append(f"{e['name'][:32]:32} {e['ordinal']:>7.2f} {e['mu']:>6.2f} {e['sigma']:>6.2f} "
                         f"{e['matches']:>7} {e['wins']:>5} {e['forfeits']:>8}")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n(rating = mu - 3 sigma; OpenSkill Plackett-Luce)"


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
    "away": lambda a, r: r.away(a.match, _token(a), a.bot),
    "back": lambda a, r: r.back(a.match, _token(a)),
    "rematch": lambda a, r: r.rematch(a.match, _token(a)),
    "export": cmd_export,
    "ladder": cmd_ladder,
}


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="referee", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)

    s = sub.add_parser("serve", help="run the API and workers (embedded Redis unless REDIS_URL is set)")
    s.add_argument("--host", default="127.0.0.1")
    s.add_argument("--port", type=int, default=8000)
    s.add_argument("--workers", type=int, default=2, help="RQ worker processes (bots, scoring)")
    s.add_argument("--search-workers", type=int, default=1, help=SEARCH_WORKERS_HELP)
    s.add_argument("--processes", type=int, default=PROCESSES, help=PROCESSES_HELP)
    s.add_argument("--data", default=".referee-data", help="folder of the embedded server's data")
    s.add_argument("--redis-port", type=int, default=None, help="port of the embedded server (default: free)")
    a = sub.add_parser("api", help="run the API alone against REDIS_URL (an API host; workers run elsewhere)")
    a.add_argument("--host", default="127.0.0.1")
    a.add_argument("--port", type=int, default=8000)
    a.add_argument("--processes", type=int, default=PROCESSES, help=PROCESSES_HELP)
    w = sub.add_parser("worker", help="run RQ workers, the sweeper and the dispatcher against REDIS_URL")
    w.add_argument("--workers", type=int, default=2)
    w.add_argument("--search-workers", type=int, default=1, help=SEARCH_WORKERS_HELP)
    w.add_argument("--metrics-port", type=int, default=None,
                   help="serve the workers' Prometheus metrics at http://HOST:PORT/metrics (REFEREE_METRICS_TOKEN "
                        "applies)")
    w.add_argument("--metrics-host", default="127.0.0.1", help="address of --metrics-port (0.0.0.0: every interface)")
    o = sub.add_parser("openapi", help="print the OpenAPI document generated from the code")
    o.add_argument("--output", default="-")
    o.add_argument("--games", help="the games to document, comma-separated, or `own`: the referee's own (as "
                                   "openapi.yaml); default every installed game")
    c = sub.add_parser("conformance", help="run the conformance suite on installed games; exit 1 if one fails")
    c.add_argument("games", nargs="+", metavar="GAME_OR_PACKAGE",
                   help="a game's name, or the package that installs it (all its games)")
    c.add_argument("--players", type=int, help="only this player count (default: every one)")
    c.add_argument("--variant", type=json.loads, help="only this variant, as JSON options (default: every one)")
    c.add_argument("--seed", type=int, help="only this seed (default: as many as the game asks for)")
    c.add_argument("--seeds", type=int, help="seeds per player count and variant (default: the game's)")
    c.set_defaults(func=cmd_conformance)

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
    c.add_argument("--clock", type=json.loads, help='JSON, e.g. \'{"move_seconds": 30, "on_timeout": "bot"}\'')
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
            e.add_argument("--wait", type=float, default=None, help="stop after this long (default: the end)")
    play("result", "final scores")
    play("abort", "abort (host token)")
    play("away", "hand your seat to a bot").add_argument("--bot", help="bot kind (default random)")
    play("back", "take your seat back from the bot")
    play("rematch", "play again (same game, options, clock and people; seats rotated)")
    ex = play("export", "save the record of a finished match, or (--finished) of every kept one", match=False)
    ex.add_argument("match", nargs="?")
    ex.add_argument("--output", default="-", help="file (default: stdout)")
    ex.add_argument("--finished", action="store_true",
                    help="every finished match the store keeps, as JSON lines, from the store (REDIS_URL or --data)")
    ex.add_argument("--since", type=_when, default=0.0,
                    help="with --finished: those finished at or after this time (ISO 8601 or Unix seconds)")
    ex.add_argument("--data", help="with --finished: the data folder of `referee serve`'s embedded server")
    rp = sub.add_parser("replay", help="replay a record through the game modules; exit 1 if the result differs")
    rp.add_argument("file")
    rp.add_argument("--json", action="store_true", help="one JSON line per step and a JSON summary")
    rp.set_defaults(func=cmd_replay)
    la = play("ladder", "per-game ratings from rated (arena) matches", match=False, token=False)
    la.add_argument("--game")
    la.add_argument("--json", action="store_true")

    from clients import analyse, arena, bench, botrun, loadtest

    analyse.add_parser(sub)
    arena.add_parser(sub)
    botrun.add_parser(sub)
    loadtest.add_parser(sub)
    b = sub.add_parser("bench", help="rules-engine and bot benchmarks (in-process; `bench bots-http` drives a "
                                     "running server's bot turns)", add_help=False)
    b.add_argument("rest", nargs=argparse.REMAINDER)
    b.set_defaults(func=lambda a: bench.main(a.rest) or 0)
    return p


SERVING = ("serve", "api", "worker")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["openapi"]:  # the games to document: the registry reads them once, when first used
        pre = argparse.ArgumentParser(add_help=False)
        pre.add_argument("--games")
        wanted = pre.parse_known_args(argv[1:])[0].games
        if wanted:
            os.environ["REFEREE_GAMES"] = wanted
    if argv[:1] and argv[0] in SERVING and "-h" not in argv and "--help" not in argv:
        return serving(argv)
    return run(argv)


def serving(argv: list[str]) -> int:
    """``serve``, ``api`` and ``worker`` in prometheus_client's multiprocess mode: a private folder for the metrics
    of their processes, set before anything imports prometheus_client or forks (service/integrations/multiproc.py), and
    removed at stop; and their log lines (service/integrations/logs.py)."""
    from service.integrations import logs, multiproc

    folder = multiproc.start()
    try:
        logs.setup()
        return run(argv)
    finally:
        multiproc.stop(folder)


def run(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "serve":
        return cmd_serve(args)
    if args.command == "worker":
        return cmd_worker(args)
    if args.command == "api":
        return cmd_api(args)
    if args.command == "openapi":
        return cmd_openapi(args)
    if args.command == "export" and (args.finished or not args.match):
        return export_finished(args) if args.finished else build_parser().error("export: give a MATCH, or --finished")
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
