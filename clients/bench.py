"""Rules-engine and bot benchmarks, run as a user would: ``python -m clients.bench``.

``rules``  plays full random games in one process and prints games/s per player count.
``bots``   the win-rate matrix: per table size, one seat of a bot against another kind in every
           other seat, seats rotating (random / greedy / search, the search bot on an iteration
           budget), with 95 % confidence intervals and decision-time percentiles.
``memory`` plays full matches of random bots through the referee, its dispatcher and a worker into
           Redis (REDIS_URL, or an embedded server) and prints what a finished match takes there (all
           its keys, RQ's bookkeeping included: ``used_memory`` before and after), whole and compacted.
``watchers`` (clients/watchers.py) runs the load generator with and without thousands of idle
           event streams and long-polls on a ``referee serve`` of its own.
``digest`` plays thousands of seeded random games per configuration and prints a SHA-256 of
           what the rules answer: moves, events and results of every game, and in one game of ten
           also every seat's and the spectator's view and legal moves, refusals of fuzzed moves,
           sample_state round trips and greedy-bot play; so a refactoring can be shown to change
           no behaviour: run it on both checkouts
           (``PYTHONPATH=<checkout> python clients/bench.py digest``) and compare.
``api``    plays random moves through the WSGI app in this process (no HTTP server, no other
           load) and prints the CPU a GET /legal-moves and a POST /moves cost, and what the
           referee alone costs for the same calls.  ``--instructions`` counts instead the machine
           instructions a move costs through the app (valgrind's callgrind, two runs that differ by
           ``--moves`` warm moves), a figure that does not vary with the machine's load.
``bots-http`` drives a running server (``--url``, as ``referee loadtest`` does; it starts nothing) and
           prints what its bot turns cost: see ``referee bench bots-http --help``.
``analysis`` scores the analysis's estimated chances against all-bot matches' results (Brier score, reliability
           diagram): see ``referee bench analysis --help`` (clients/bench_analysis.py).
``tournament`` plays a Swiss tournament of connected bot accounts and built-in bots on a running server
           and prints its wall time, moves/s, the connected bots' decision latency and the standings: see
           ``referee bench tournament --help`` (clients/bench_tournament.py).
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import dataclasses
import hashlib
import io
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator

import orjson

from service.core.base import Actor
from service.games import GAMES
from service.games.base import GameError, concretize
from service.infra.config import Settings
from service.infra.connections import connect
from workers.bots import BOTS, Budget, make_bot


def play_random(game, players: int, options: dict, rng: random.Random) -> int:
    """One full random game in-process; returns the number of moves."""
    state = game.setup(players, game.load_options(players, options), rng)
    moves = 0
    while not game.is_over(state):
        seat = game.to_act(state)[0]
        game.apply(state, seat, concretize(rng.choice(game.legal_moves(state, seat)), rng), rng)
        moves += 1
    game.final_result(state)
    return moves


def bench_rules(game, seconds: float, seed: int) -> None:
    for players in range(game.min_players, game.max_players + 1):
        for options in game.variants:
            rng = random.Random(seed)
            games = moves = 0
            start = time.perf_counter()
            while time.perf_counter() - start < seconds:
                moves += play_random(game, players, dict(options), rng)
                games += 1
            elapsed = time.perf_counter() - start
            print(f"{game.name:16} players={players} options={options or '{}'}: "
                  f"{games / elapsed:8.1f} games/s  {moves / elapsed:9.0f} moves/s  ({games} games)")


def _refusal(game, state: dict, seat: int, move: dict) -> list:
    """What the rules answer to a move: refused (code, reason, message) or accepted; state untouched."""
    try:
        game.apply(copy.deepcopy(state), seat, game.parse_move(move), random.Random(0))
    except GameError as exc:
        return [exc.code, exc.reason, exc.message]
    return ["accepted"]


def digest_game(game, players: int, options: dict, seed: int, bots: bool, full: bool) -> tuple[bytes, bytes]:
    """One seeded game: (digest of every answer the rules give, digest of the refusal reasons alone).

    Refusals are recorded twice: whether a move is refused goes into the first digest, the code,
    reason and message only into the second, so a renamed reason shows apart from a changed rule.
    A game that is not ``full`` records only the acting seat's legal moves, the moves and events
    and the result (cheap, so that thousands of games fit in minutes).
    """
    rng = random.Random(seed)
    h, why = hashlib.sha256(), hashlib.sha256()

    def put(*items) -> None:
        h.update(orjson.dumps(items, option=orjson.OPT_SORT_KEYS))

    state, opening = game.opening(players, game.load_options(players, options), rng)
    put(opening)
    steps = 0
    while not game.is_over(state):
        to_act = game.to_act(state)
        if not full:
            seat = to_act[0]
            legal = game.legal_moves(state, seat)
            move = concretize(rng.choice(legal), rng)
            put(to_act, legal, move, game.apply(state, seat, move, rng))
            continue
        put(to_act, game.view(state, None))
        legal = {s: game.legal_moves(state, s) for s in range(players)}
        for s in range(players):
            view = game.view(state, s)
            put(s, view, legal[s])
            if steps % 7 == 0:
                put(game.view(game.sample_state(view, s, random.Random(steps)), s))
        seat = to_act[0] if bots else rng.choice(to_act)
        if bots:
            move = BOTS[game.name]["greedy"](game.view(state, seat), legal[seat], seat, rng)
        else:
            move = concretize(rng.choice(legal[seat]), rng)
        tries = [(s, move) for s in range(players) if s not in to_act]
        tries += [(seat, concretize(t, rng)) for s in range(players) if s != seat for t in legal[s][:3]]
        for s, m in tries:
            answer = _refusal(game, state, s, m)
            put(s, m, answer[0] == "accepted")
            why.update(orjson.dumps(answer))
        put(move, game.apply(state, seat, game.parse_move(move), rng))
        steps += 1
    put(game.final_result(state).as_dict())
    return h.digest(), why.digest()


def bench_digest(game, games: int, seed: int) -> None:
    for players in range(game.min_players, game.max_players + 1):
        for options in game.variants:
            h, why = hashlib.sha256(), hashlib.sha256()
            start = time.perf_counter()
            for i in range(games):
                answers, reasons = digest_game(game, players, dict(options), seed + i,
                                               bots=i % 40 == 39, full=i % 20 in (0, 19))
                h.update(answers)
                why.update(reasons)
            print(f"{game.name:16} players={players} options={orjson.dumps(options).decode():22} "
                  f"answers {h.hexdigest()[:16]}  reasons {why.hexdigest()[:16]}  "
                  f"({games} games, {time.perf_counter() - start:.0f} s)", flush=True)


def play_bots(game, players: int, kinds: list[str], seed: int, iterations: int) -> tuple[list[int], dict[str, list]]:
    """One match in-process between bot kinds (``kinds[seat]``); its winners and each kind's decision times.

    The search bot gets an iteration budget, so a match is a function of its seed.
    """
    rng = random.Random(seed)
    bots = {k: make_bot(game.name, k, Budget(iterations=iterations) if k == "search" else None) for k in set(kinds)}
    timings: dict[str, list[float]] = {k: [] for k in bots}
    state = game.setup(players, game.load_options(players, {}), rng)
    while not game.is_over(state):
        seat = game.to_act(state)[0]
        view, moves = game.view(state, seat), game.legal_moves(state, seat)
        start = time.perf_counter()
        move = bots[kinds[seat]](view, moves, seat, rng)
        timings[kinds[seat]].append(time.perf_counter() - start)
        game.apply(state, seat, move, rng)
    return game.final_result(state).winners, timings


def _cell_match(job: tuple) -> tuple[float, list[float]]:
    """Match ``m`` of a cell: the tested bot at seat m % players, the others of one kind; its win share."""
    name, players, bot, against, m, seed, iterations = job
    seat = m % players
    kinds = [bot if s == seat else against for s in range(players)]
    winners, timings = play_bots(GAMES[name], players, kinds, seed + m, iterations)
    return (1 / len(winners) if seat in winners else 0.0), timings[bot]


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """95 % Wilson score interval of a win rate (a shared win counts as its share)."""
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * (p * (1 - p) / n + z * z / (4 * n * n)) ** 0.5
    return max(0.0, centre - half), min(1.0, centre + half)


def percentile(sorted_values: list[float], q: float) -> float:
    return sorted_values[min(len(sorted_values) - 1, int(len(sorted_values) * q))]


def bench_bots(game, pairs: list[tuple[str, str]], matches: int, larger: int, seed: int, iterations: int,
               jobs: int, sizes: list[int] | None) -> None:
    """The win-rate matrix: for each table size and each pair, one seat of the first kind against the
    second kind in every other seat, the seat rotating; the rate with its 95 % interval and the first
    kind's decision time p50/p99."""
    import multiprocessing as mp

    with mp.get_context("fork").Pool(jobs) as pool:
        for players in sizes or range(game.min_players, game.max_players + 1):
            if not game.min_players <= players <= game.max_players:
                continue
            count = matches if players == game.min_players else larger
            for bot, against in pairs if count else ():
                start = time.perf_counter()
                out = pool.map(_cell_match, [(game.name, players, bot, against, m, seed, iterations)
                                             for m in range(count)], chunksize=1)
                wins = sum(w for w, _ in out)
                lo, hi = wilson(wins, count)
                t = sorted(x for _, ts in out for x in ts)
                print(f"{game.name:16} players={players} {bot:>6} vs {against:<6}: {wins / count:6.1%} "
                      f"[{lo:6.1%}, {hi:6.1%}] of {count} (fair {1 / players:4.0%}); decision p50 "
                      f"{percentile(t, 0.5) * 1e3:7.2f} ms, p99 {percentile(t, 0.99) * 1e3:7.2f} ms; "
                      f"{time.perf_counter() - start:.0f} s", flush=True)


@contextlib.contextmanager
def redis_url() -> Iterator[str]:
    """REDIS_URL, or a throwaway embedded server for the length of the benchmark."""
    from service.infra.embedded import EmbeddedRedis

    if os.environ.get("REDIS_URL"):
        yield os.environ["REDIS_URL"]
        return
    embedded = EmbeddedRedis(tempfile.mkdtemp(prefix="referee-bench-"), persist=False)
    try:
        yield embedded.start()
    finally:
        embedded.close()


def bench_memory(game, matches: int, seed: int) -> None:
    """What a finished match of random bots costs the store, all its keys and RQ's bookkeeping for it
    included: Valkey's ``used_memory`` before and after ``matches`` of them, per match, as they finished
    (kept whole for ``REFEREE_COMPACT_AFTER``) and once compacted."""
    from service.core.keys import match_key
    from service.core.referee import Referee
    from service.infra.embedded import EmbeddedRedis
    from workers.dispatch import until_idle
    from workers.jobs import sweep

    # a server of its own: used_memory measures only these matches; the jobs read the same settings
    os.environ.update(REFEREE_QUEUE=f"bench-{os.getpid()}", REFEREE_COMPACT_AFTER="3600")
    embedded = EmbeddedRedis(tempfile.mkdtemp(prefix="referee-bench-"), persist=False)
    try:
        settings = dataclasses.replace(Settings.from_env(), redis_url=embedded.start())
        client, queue = connect(settings)
        ref = Referee(client, settings, queue)
        for players in range(game.min_players, game.max_players + 1):
            def used() -> int:
                client.execute_command("MEMORY", "PURGE")
                return client.info("memory")["used_memory"]

            def play(count: int, offset: int, players: int = players) -> list[str]:
                ids = [ref.create_match(game.name, players, {}, seed + offset + i,
                                        [{"bot": "random"} for _ in range(players)])["id"] for i in range(count)]
                until_idle(ref)
                assert all(ref.store.load(i).status == "finished" for i in ids)
                return ids

            def compact_now() -> None:
                """Their compactions come due now (as after REFEREE_COMPACT_AFTER), and the sweeper forgets them."""
                while ref.compact_due(float("inf")):
                    pass
                sweep(ref, older_than=0)

            play(2, 10_000)  # the server's structures for such matches exist before the measure
            compact_now()
            before = used()
            ids = play(matches, 0)
            whole = used()
            compact_now()
            assert all(client.hexists(match_key(i), "log") for i in ids)  # (a load would refill its cache)
            compacted = used()
            print(f"{game.name:16} players={players}: a finished match of random bots takes "
                  f"{(whole - before) / matches / 1024:.2f} KiB of the store as it finishes, "
                  f"{(compacted - before) / matches / 1024:.2f} KiB compacted "
                  f"(used_memory over {matches} matches, all keys)")
            client.flushall()
    finally:
        embedded.close()


def bench_webhooks(game, matches: int, seed: int) -> None:
    """Webhook messages one worker sends per second to a receiver on loopback that answers at once: the
    matches are played in-process first, then their deliveries are timed, one match after another."""
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from service.core.referee import Referee
    from service.integrations import webhooks

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as a real receiver does

        def do_POST(self):  # noqa: N802 - http.server's name
            self.rfile.read(int(self.headers["content-length"]))
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args):
            pass

    receiver = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    target = f"http://127.0.0.1:{receiver.server_address[1]}/hook"
    with redis_url() as url:
        settings = dataclasses.replace(Settings.from_env(), redis_url=url, webhook_allow="127.0.0.1")
        client, queue = connect(settings)
        ref = Referee(client, settings, queue)
        rng, ids = random.Random(seed), []
        for i in range(matches):
            m = ref.create_match(game.name, game.min_players, {}, seed + i,
                                 [{"name": f"p{s}"} for s in range(game.min_players)], webhook={"url": target})
            match = ref.store.load(m["id"])
            while match.status == "active":
                seat = game.to_act(match.state)[0]
                ref.apply_move(m["id"], Actor.playing(seat), concretize(rng.choice(game.legal_moves(match.state, seat)),
                                                                        rng))
                match = ref.store.load(m["id"])
            ids.append(m["id"])
        ref.queue.empty()
        start = time.perf_counter()
        for match_id in ids:
            webhooks.deliver(ref.store, queue, settings, match_id, lambda seconds: None)
        took = time.perf_counter() - start
        sent = sum(client.llen(webhooks.log_key(i)) for i in ids)
        print(f"{game.name:16} {sent} webhook messages of {matches} matches in {took:.2f} s: "
              f"{sent / took:,.0f} deliveries/s by one worker (signed, to a keep-alive receiver on loopback)")
    receiver.shutdown()


def _environ(method: str, path: str, token: str, body: dict | None = None) -> dict:
    data = orjson.dumps(body) if body is not None else b""
    env = {"REQUEST_METHOD": method, "PATH_INFO": path, "QUERY_STRING": "", "SERVER_NAME": "127.0.0.1",
           "SERVER_PORT": "8000", "SERVER_PROTOCOL": "HTTP/1.1", "HTTP_HOST": "127.0.0.1:8000",
           "wsgi.url_scheme": "http", "wsgi.input": io.BytesIO(data), "wsgi.errors": sys.stderr,
           "wsgi.version": (1, 0), "wsgi.multithread": True, "wsgi.multiprocess": True, "wsgi.run_once": False,
           "HTTP_AUTHORIZATION": f"Bearer {token}", "CONTENT_LENGTH": str(len(data))}
    if body is not None:
        env["CONTENT_TYPE"] = "application/json"
    return env


def bench_api(game, moves: int, seed: int, repeat: int | None = None, layer: str = "app") -> None:
    """``repeat``: only play through ``layer`` (the app, or the referee alone), once to warm up and ``repeat``
    more times (for callgrind)."""
    from service.api.app import create_app

    with redis_url() as url:
        app = create_app(dataclasses.replace(Settings.from_env(), redis_url=url))
        ref = app.extensions["referee"]
        players = game.min_players

        def via_app(mid: str, token: str, body: dict | None = None) -> tuple[float, dict]:
            """One request through the WSGI app (GET legal-moves, or POST moves with a body); its CPU."""
            env = (_environ("GET", f"/matches/{mid}/legal-moves", token) if body is None
                   else _environ("POST", f"/matches/{mid}/moves", token, body))
            t0 = time.process_time()
            raw = b"".join(app(env, lambda status, headers, exc_info=None: None))
            return time.process_time() - t0, orjson.loads(raw)

        def via_referee(mid: str, token: str, body: dict | None = None) -> tuple[float, dict]:
            """The same call made on the referee directly; its CPU."""
            t0 = time.process_time()
            out = (ref.legal_moves(mid, token) if body is None
                   else ref.apply_move(mid, Actor.of(token), body["move"], body["expected_version"]))
            return time.process_time() - t0, out

        def play(call) -> tuple[float, float]:
            rng = random.Random(seed)
            get = post = 0.0
            to_act: list[int] = []
            for i in range(moves):
                if not to_act:
                    m = ref.create_match(game.name, players, {}, seed + i, [{"name": f"p{s}"} for s in range(players)])
                    mid, tokens = m["id"], {s["seat"]: s["token"] for s in m["seats"]}
                    to_act = ref.snapshot(mid, tokens[0])["to_act"]
                token = tokens[to_act[0]]
                spent, legal = call(mid, token)
                get += spent
                move = concretize(rng.choice(legal["moves"]), rng)
                spent, answer = call(mid, token, {"move": move, "expected_version": legal["version"]})
                post += spent
                to_act = answer["to_act"]
            return get / moves * 1000, post / moves * 1000

        if repeat is not None:
            call = via_app if layer == "app" else via_referee
            for _ in range(repeat + 1):  # the first round warms up: imports, caches, connections
                play(call)
            return
        play(via_app)
        for label, call in (("through the app", via_app), ("the referee alone", via_referee)):
            get, post = play(call)
            print(f"{game.name:16} {label:17}: GET legal-moves {get:.3f} ms + POST moves {post:.3f} ms "
                  f"= {get + post:.3f} ms of CPU per move ({moves} moves)")


def instructions_per_move(game, moves: int, seed: int) -> None:
    """Instructions per warm move through the app, and through the referee alone (what the HTTP layer adds is
    the difference): callgrind counts a run with one extra round of ``moves`` moves and one without; the
    difference excludes start-up, imports and the warm-up round."""
    per_move = {}
    for layer in ("app", "referee"):
        counts = []
        for repeat in (0, 1):
            with tempfile.TemporaryDirectory() as tmp:
                out = os.path.join(tmp, "callgrind.out")
                subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable,
                                "-m", "clients.bench", "api", "--game", game.name, "--moves", str(moves),
                                "--seed", str(seed), "--repeat", str(repeat), "--layer", layer],
                               check=True, capture_output=True)
                with open(out) as f:
                    counts.append(next(int(line.split()[1]) for line in f if line.startswith(("summary:", "totals:"))))
        per_move[layer] = (counts[1] - counts[0]) / moves
    app, alone = per_move["app"], per_move["referee"]
    print(f"{game.name:16} through the app: {app / 1e6:.2f} M instructions per move (GET legal-moves + POST moves; "
          f"callgrind, {moves} warm moves), of which the referee alone {alone / 1e6:.2f} M "
          f"and the HTTP layer {(app - alone) / 1e6:.2f} M")


BOTS_HTTP_DOC = """Bot turns over HTTP, against a running server (``--url``; nothing is started here).

1. one all-bot match's wall time: create it, follow its event stream until ``match_finished``
   (median and best of ``--runs``, one match at a time);
2. arena throughput: ``referee arena`` with the two bots, ``--matches`` matches ``--concurrency`` at a
   time (matches/s, and bot moves/s counted from the matches' records);
3. under load: ``--background`` all-bot matches kept running (each finished one replaced), while a
   person plays a match against a greedy bot here: ``bot start`` is the bot's move's time (its
   ``moved`` event's ``at``) minus the person's move's; ``turn notice`` is the time from the answer to
   the person's move until a long-poll (``since``) shows it the bot's move, its turn again.  p50/p99
   over ``--samples`` bot turns.  The server and this client share the machine: figures are noisy.
"""


def _pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))] if ordered else float("nan")


def _all_bot_match(ref, game: str, bots: list[str], seed: int) -> float:
    """Seconds from asking for an all-bot match to its ``match_finished`` event."""
    start = time.perf_counter()
    created = ref.create_match(game, len(bots), [{"bot": b} for b in bots], None, seed)
    for event in ref.stream(created["id"], wait=120):
        if event["type"] == "match_finished":
            return time.perf_counter() - start
    raise RuntimeError(f"match {created['id']} did not finish within 120 s")


def _person_turns(url: str, game: str, samples: int, seed: int) -> tuple[list[float], list[float]]:
    """A person (seat 0, random moves) against a greedy bot until ``samples`` bot turns have followed
    its moves: (bot start seconds, turn notice seconds)."""
    from clients.client import Referee as Client

    ref, rng = Client(url), random.Random(seed)
    starts: list[float] = []
    notices: list[float] = []
    while len(notices) < samples:
        m = ref.create_match(game, 2, [{"name": "person"}, {"bot": "greedy"}], {"first_seat": 0}, seed)
        seed += 1
        token = m["seats"][0]["token"]
        snap = ref.match(m["id"], token, legal_moves=True)
        while snap["status"] == "active" and len(notices) < samples:
            if 0 not in snap["to_act"]:
                snap = ref.match(m["id"], token, snap["version"], 30, legal_moves=True)
                continue
            answer = ref.move(m["id"], token, concretize(rng.choice(snap["legal_moves"]), rng))
            sent = time.perf_counter()
            if answer["to_act"] == [0] or answer["status"] != "active":
                snap = ref.match(m["id"], token, legal_moves=True)
                continue
            snap = ref.match(m["id"], token, answer["version"], 30, legal_moves=True)
            notices.append(time.perf_counter() - sent)
        if snap["status"] == "active":
            ref.abort(m["id"], m["host_token"])
            continue
        wait_until = time.monotonic() + 30
        while ref.match(m["id"])["status"] != "finished" and time.monotonic() < wait_until:
            time.sleep(0.05)
        moves = ref.record(m["id"])["moves"]
        starts += [b["at"] - a["at"] for a, b in zip(moves, moves[1:]) if a["seat"] == 0 and b["seat"] == 1]
    return starts, notices


def bench_bots_http(argv: list[str]) -> None:
    import threading

    from clients import arena
    from clients.client import Referee as Client

    parser = argparse.ArgumentParser(prog="referee bench bots-http", description=BOTS_HTTP_DOC,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", default=os.environ.get("REFEREE_URL", "http://127.0.0.1:8000"),
                        help="the server to drive (default $REFEREE_URL)")
    parser.add_argument("--game", default="super_blatt")
    parser.add_argument("--bot", action="append", dest="bots", help="a seat's bot (repeat; default greedy, random)")
    parser.add_argument("--runs", type=int, default=11, help="1: single all-bot matches (median of these)")
    parser.add_argument("--matches", type=int, default=200, help="2: arena matches (0: skip)")
    parser.add_argument("--concurrency", type=int, default=16, help="2: arena matches at a time")
    parser.add_argument("--background", type=int, action="append",
                        help="3: all-bot matches running meanwhile (repeat for several; default 16)")
    parser.add_argument("--samples", type=int, default=200, help="3: bot turns after a person's move")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    bots = args.bots or ["greedy", "random"]
    ref = Client(args.url)
    label = f"{args.game} {' vs '.join(bots)}"

    walls = [_all_bot_match(ref, args.game, bots, args.seed + i) for i in range(args.runs)]
    print(f"all-bot match ({label}): median {statistics.median(walls) * 1000:.0f} ms, "
          f"best {min(walls) * 1000:.0f} ms, worst {max(walls) * 1000:.0f} ms ({args.runs} matches, one at a time)")

    if args.matches:
        records: list[dict] = []
        start = time.perf_counter()
        arena.run(args.url, args.game, bots, args.matches, {}, args.concurrency, args.seed, quiet=True,
                  ladder=False, records=records)
        elapsed = time.perf_counter() - start
        moves = sum(len(ref.record(r["id"])["moves"]) for r in records)
        print(f"arena ({label}, {args.matches} matches, concurrency {args.concurrency}): {elapsed:.1f} s, "
              f"{args.matches / elapsed:.2f} matches/s, {moves / elapsed:.0f} bot moves/s")

    for k in args.background or [16]:
        stop = threading.Event()
        finished = [0]

        def background(i: int, stop=stop, finished=finished) -> None:
            client = Client(args.url)
            n = 0
            while not stop.is_set():
                _all_bot_match(client, args.game, bots, args.seed + 1_000_000 * (i + 1) + n)
                finished[0] += 1
                n += 1

        threads = [threading.Thread(target=background, args=(i,), daemon=True) for i in range(k)]
        for t in threads:
            t.start()
        time.sleep(1.0 if k else 0)  # the background is under way
        start = time.perf_counter()
        starts, notices = _person_turns(args.url, args.game, args.samples, args.seed)
        elapsed = time.perf_counter() - start
        stop.set()
        done = finished[0]
        for t in threads:
            t.join(120)
        print(f"person vs greedy with {k} all-bot matches running ({done} finished meanwhile, "
              f"{done / elapsed:.1f}/s): bot start p50 {_pct(starts, 50) * 1000:.1f} ms "
              f"p99 {_pct(starts, 99) * 1000:.1f} ms ({len(starts)}); turn notice p50 "
              f"{_pct(notices, 50) * 1000:.1f} ms p99 {_pct(notices, 99) * 1000:.1f} ms ({len(notices)})")


def main(argv: list[str] | None = None) -> None:
    if argv and argv[0] == "bots-http":  # against a running server: see BOTS_HTTP_DOC
        bench_bots_http(argv[1:])
        return
    if argv and argv[0] == "tournament":  # against a running server: see clients/bench_tournament.py
        from clients import bench_tournament

        bench_tournament.main(argv[1:])
        return
    if argv and argv[0] == "serving":  # servers of its own, beside boardgame.io: see clients/bench_serving.py
        from clients import bench_serving

        bench_serving.main(argv[1:])
        return
    if argv and argv[0] == "analysis":  # the analysis's chances against the results: clients/bench_analysis.py
        from clients import bench_analysis

        bench_analysis.main(argv[1:])
        return
    if argv and argv[0] == "watchers":  # against a server of its own: see clients/watchers.py
        from clients import watchers

        watchers.main(argv[1:])
        return
    parser = argparse.ArgumentParser(prog="referee bench", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", choices=["rules", "bots", "memory", "api", "digest", "watchers", "bots-http",
                                         "webhooks", "serving"],
                        help="watchers, bots-http, serving: see `referee bench watchers --help`, `referee bench "
                             "bots-http --help`, `referee bench serving --help`")
    parser.add_argument("--game", action="append", choices=sorted(GAMES),
                        help="game to measure (repeatable; default all)")
    parser.add_argument("--seconds", type=float, default=3.0, help="rules: seconds per configuration")
    parser.add_argument("--matches", type=int, default=200, help="bots: matches per cell at the smallest table")
    parser.add_argument("--moves", type=int, default=2000, help="api: moves to time")
    parser.add_argument("--pair", action="append", dest="pairs", metavar="BOT:AGAINST",
                        help="bots: a cell of the matrix (repeatable; default greedy:random, search:random, "
                             "search:greedy)")
    parser.add_argument("--larger", type=int, default=50, help="bots: matches per cell above the smallest table")
    parser.add_argument("--players", type=int, action="append", help="bots: table sizes (default all)")
    parser.add_argument("--iterations", type=int, default=100, help="bots: the search bot's iterations per decision")
    parser.add_argument("--jobs", type=int, default=2, help="bots: processes playing matches")
    parser.add_argument("--games", type=int, default=1000, help="digest: games per configuration "
                        "(one in ten records every seat's view and fuzzed refusals)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--instructions", action="store_true",
                        help="api: count instructions per move under valgrind's callgrind (about 2 min per 500 "
                             "moves; use at least 500: fewer give lumpy figures, a match's setup and the "
                             "garbage collector landing in one run and not the other)")
    parser.add_argument("--repeat", type=int, default=None, help=argparse.SUPPRESS)  # one callgrind run
    parser.add_argument("--layer", choices=("app", "referee"), default="app", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    for name in args.game or sorted(GAMES):
        if args.what == "rules":
            bench_rules(GAMES[name], args.seconds, args.seed)
        elif args.what == "memory":
            bench_memory(GAMES[name], min(args.matches, 40), args.seed)
        elif args.what == "webhooks":
            bench_webhooks(GAMES[name], min(args.matches, 20), args.seed)
        elif args.what == "api" and args.instructions:
            instructions_per_move(GAMES[name], args.moves, args.seed)
        elif args.what == "api":
            bench_api(GAMES[name], args.moves, args.seed, args.repeat, args.layer)
        elif args.what == "digest":
            bench_digest(GAMES[name], args.games, args.seed)
        else:
            pairs = [tuple(p.split(":")) for p in args.pairs or ("greedy:random", "search:random", "search:greedy")]
            bench_bots(GAMES[name], pairs, args.matches, args.larger, args.seed, args.iterations, args.jobs,
                       args.players)


if __name__ == "__main__":
    main()
