"""Rules-engine and bot benchmarks, run as a user would: ``python -m clients.bench``.

``rules``  plays full random games in one process and prints games/s per player count.
``bots``   seats one greedy bot against random bots, rotating its seat, and prints the win
           rate per table size and the greedy bot's decision time.
``memory`` plays full matches through the referee into Redis (REDIS_URL, or an embedded server)
           and prints the memory a finished match takes there, events included.
``api``    plays random moves through the WSGI app in this process (no HTTP server, no other
           load) and prints the CPU a GET /legal-moves and a POST /moves cost, and what the
           referee alone costs for the same calls.  Run it under ``valgrind --tool=callgrind``
           for instruction counts, which do not vary with the machine's load.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator

import orjson

from service.games import GAMES
from service.games.base import concretize
from workers.bots import BOTS


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


def play_bots(game, players: int, options: dict, kinds: list[str], rng: random.Random,
              timings: dict[str, list[float]]) -> list[int]:
    state = game.setup(players, game.load_options(players, options), rng)
    while not game.is_over(state):
        seat = game.to_act(state)[0]
        view, moves = game.view(state, seat), game.legal_moves(state, seat)
        start = time.perf_counter()
        move = BOTS[game.name][kinds[seat]](view, moves, seat, rng)
        timings[kinds[seat]].append(time.perf_counter() - start)
        game.apply(state, seat, move, rng)
    return game.final_result(state).winners


def bench_bots(game, matches: int, bot: str, against: str, seed: int, options: dict) -> None:
    for players in range(game.min_players, game.max_players + 1):
        rng = random.Random(seed)
        timings: dict[str, list[float]] = {bot: [], against: []}
        wins = shared = 0
        start = time.perf_counter()
        for m in range(matches):
            seat = m % players
            kinds = [bot if s == seat else against for s in range(players)]
            winners = play_bots(game, players, options, kinds, rng, timings)
            wins += seat in winners
            shared += seat in winners and len(winners) > 1
        t = sorted(timings[bot])
        print(f"{game.name:16} players={players}: {bot} won {wins}/{matches} = {wins / matches:6.1%} "
              f"(shared {shared}); fair share {1 / players:.0%}; decision mean "
              f"{statistics.fmean(t) * 1e3:.2f} ms, p99 {t[int(len(t) * 0.99)] * 1e3:.2f} ms, "
              f"max {t[-1] * 1e3:.2f} ms; {time.perf_counter() - start:.1f} s")


@contextlib.contextmanager
def redis_url() -> Iterator[str]:
    """REDIS_URL, or a throwaway embedded server for the length of the benchmark."""
    from service.embedded import EmbeddedRedis

    if os.environ.get("REDIS_URL"):
        yield os.environ["REDIS_URL"]
        return
    embedded = EmbeddedRedis(tempfile.mkdtemp(prefix="referee-bench-"), persist=False)
    try:
        yield embedded.start()
    finally:
        embedded.stop()


def bench_memory(game, matches: int, seed: int) -> None:
    import redis

    from service.config import Settings
    from service.referee import Referee
    from service.store import events_key, match_key

    with redis_url() as url:
        client = redis.Redis.from_url(url)
        ref = Referee(client, Settings.from_env())
        for players in range(game.min_players, game.max_players + 1):
            sizes, events = [], []
            rng = random.Random(seed)
            for i in range(matches):
                m = ref.create_match(game.name, players, {}, seed + i, [{"name": f"p{s}"} for s in range(players)])
                match = ref.store.load(m["id"])
                while match.status == "active":
                    seat = game.to_act(match.state)[0]
                    move = concretize(rng.choice(game.legal_moves(match.state, seat)), rng)
                    ref.apply_move(m["id"], None, seat, move)
                    match = ref.store.load(m["id"])
                ref.score(m["id"])
                sizes.append(sum(client.memory_usage(k, samples=0) or 0
                                 for k in (match_key(m["id"]), events_key(m["id"]))))
                events.append(client.xlen(events_key(m["id"])))
                client.delete(match_key(m["id"]), events_key(m["id"]))
            ref.queue.empty()
            print(f"{game.name:16} players={players}: finished match in Redis mean "
                  f"{statistics.fmean(sizes) / 1024:.1f} KB, max {max(sizes) / 1024:.1f} KB "
                  f"({statistics.fmean(events):.0f} events; {matches} matches)")


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


def bench_api(game, moves: int, seed: int) -> None:
    import redis

    from service.app import create_app
    from service.config import Settings

    with redis_url() as url:
        app = create_app(Settings.from_env(), client=redis.Redis.from_url(url))
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
                   else ref.apply_move(mid, token, None, body["move"], body["expected_version"]))
            return time.process_time() - t0, out

        def play(call) -> tuple[float, float]:
            rng = random.Random(seed)
            get = post = 0.0
            to_act: list[int] = []
            for i in range(moves):
                if not to_act:
                    m = ref.create_match(game.name, players, {}, seed + i, [{"name": f"p{s}"} for s in range(players)])
                    mid, tokens = m["id"], {s["seat"]: s["token"] for s in m["seats"]}
                    to_act = ref.snapshot(mid, tokens[0], None, 0)["to_act"]
                token = tokens[to_act[0]]
                spent, legal = call(mid, token)
                get += spent
                move = concretize(rng.choice(legal["moves"]), rng)
                spent, answer = call(mid, token, {"move": move, "expected_version": legal["version"]})
                post += spent
                to_act = answer["to_act"]
            return get / moves * 1000, post / moves * 1000

        play(via_app)  # warm up: imports, caches, connections
        for label, call in (("through the app", via_app), ("the referee alone", via_referee)):
            get, post = play(call)
            print(f"{game.name:16} {label:17}: GET legal-moves {get:.3f} ms + POST moves {post:.3f} ms "
                  f"= {get + post:.3f} ms of CPU per move ({moves} moves)")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="referee bench", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", choices=["rules", "bots", "memory", "api"])
    parser.add_argument("--game", action="append", choices=sorted(GAMES),
                        help="game to measure (repeatable; default all)")
    parser.add_argument("--seconds", type=float, default=3.0, help="rules: seconds per configuration")
    parser.add_argument("--matches", type=int, default=200, help="bots: matches per table size")
    parser.add_argument("--moves", type=int, default=2000, help="api: moves to time")
    parser.add_argument("--bot", default="greedy")
    parser.add_argument("--against", default="random")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    for name in args.game or sorted(GAMES):
        if args.what == "rules":
            bench_rules(GAMES[name], args.seconds, args.seed)
        elif args.what == "memory":
            bench_memory(GAMES[name], min(args.matches, 50), args.seed)
        elif args.what == "api":
            bench_api(GAMES[name], args.moves, args.seed)
        else:
            bench_bots(GAMES[name], args.matches, args.bot, args.against, args.seed, {})


if __name__ == "__main__":
    main()
