"""Rules-engine and bot benchmarks, run as a user would: ``python -m clients.bench``.

``rules``  plays full random games in one process and prints games/s per player count.
``bots``   seats one greedy bot against random bots, rotating its seat, and prints the win
           rate per table size and the greedy bot's decision time.
``memory`` plays full matches through the referee into Redis (REDIS_URL, or an embedded server)
           and prints the memory a finished match takes there, events included.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

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


def bench_memory(game, matches: int, seed: int) -> None:
    import os
    import tempfile

    import redis

    from service.config import Settings
    from service.embedded import EmbeddedRedis
    from service.referee import Referee
    from service.store import events_key, match_key

    embedded = None
    url = os.environ.get("REDIS_URL")
    if not url:
        embedded = EmbeddedRedis(tempfile.mkdtemp(prefix="referee-mem-"), persist=False)
        url = embedded.start()
    try:
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
    finally:
        if embedded:
            embedded.stop()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="referee bench", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", choices=["rules", "bots", "memory"])
    parser.add_argument("--game", action="append", choices=sorted(GAMES),
                        help="game to measure (repeatable; default all)")
    parser.add_argument("--seconds", type=float, default=3.0, help="rules: seconds per configuration")
    parser.add_argument("--matches", type=int, default=200, help="bots: matches per table size")
    parser.add_argument("--bot", default="greedy")
    parser.add_argument("--against", default="random")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    for name in args.game or sorted(GAMES):
        if args.what == "rules":
            bench_rules(GAMES[name], args.seconds, args.seed)
        elif args.what == "memory":
            bench_memory(GAMES[name], min(args.matches, 50), args.seed)
        else:
            bench_bots(GAMES[name], args.matches, args.bot, args.against, args.seed, {})


if __name__ == "__main__":
    main()
