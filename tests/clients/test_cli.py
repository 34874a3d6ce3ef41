"""The referee CLI for scripted play, the arena and the load generator, against a real server."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from clients import arena, loadtest
from service.games import GAMES
from tests.conftest import ROOT


def cli(server, *args, token=None, check=True):
    cmd = [sys.executable, "-m", "clients.cli", *args]
    if args[0] not in ("arena", "loadtest", "bench"):
        cmd += ["--url", server.url]
    if token:
        cmd += ["--token", token]
    out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=120)
    if check:
        assert out.returncode == 0, out.stderr
    return out


def test_scripted_play_create_join_show_legal_move_result(server):
    created = json.loads(cli(server, "create", "super_blatt", "--seat", "name:ann", "--seat", "open",
                             "--option", "first_seat=0", "--seed", "42").stdout)
    mid, ann = created["id"], created["seats"][0]["token"]
    assert created["status"] == "waiting"
    joined = json.loads(cli(server, "join", mid, "--name", "bob").stdout)
    assert joined["seat"] == 1 and joined["status"] == "active"
    show = json.loads(cli(server, "show", mid, token=ann).stdout)
    assert show["to_act"] == [0] and show["seat"] == 0
    legal = json.loads(cli(server, "legal", mid, token=ann).stdout)
    moved = json.loads(cli(server, "move", mid, json.dumps(legal["moves"][0]), "--expected-version",
                           str(legal["version"]), token=ann).stdout)
    assert moved["version"] == legal["version"] + 1
    refused = cli(server, "move", mid, '{"type": "take", "column": 0}', "--expected-version", "1", token=ann,
                  check=False)
    assert refused.returncode == 1 and json.loads(refused.stderr)["code"] == "stale_version"
    events = json.loads(cli(server, "events", mid, token=ann).stdout)
    assert any(e["type"] == "moved" for e in events["events"])
    not_ready = cli(server, "result", mid, check=False)
    assert json.loads(not_ready.stderr)["code"] == "result_not_ready"
    aborted = json.loads(cli(server, "abort", mid, token=created["host_token"]).stdout)
    assert aborted["status"] == "aborted"
    watched = cli(server, "watch", mid, "--wait", "5")
    assert json.loads(watched.stdout.splitlines()[-1])["type"] == "match_aborted"


def first_legal(view, moves, seat, rng):
    return moves[0]


def test_arena_rotates_seats_with_server_and_client_bots(server, tmp_path):
    prog = tmp_path / "bot.py"
    prog.write_text(textwrap.dedent("""
        import json, sys
        print(json.dumps(json.load(sys.stdin)["moves"][-1]))
    """))
    tallies = arena.run(server.url, "super_blatt",
                        ["greedy", "py:tests.clients.test_cli:first_legal", f"cmd:{sys.executable} {prog}"],
                        matches=3, options={}, concurrency=3, seed=1, quiet=True)
    assert set(tallies) == {"greedy", "py:tests.clients.test_cli:first_legal", f"cmd:{sys.executable} {prog}"}
    for t in tallies.values():
        assert t.matches == 3 and dict(t.seat_games) == {0: 1, 1: 1, 2: 1}  # each sat in each seat once
    assert sum(t.wins for t in tallies.values()) >= 3
    table = arena.table(tallies, 3)
    assert "win %" in table and "greedy" in table


def test_arena_command_prints_the_results_table(server):
    out = cli(server, "arena", "--url", server.url, "--game", "super_blatt", "--bot", "greedy", "--bot", "random",
              "--matches", "2")
    assert "participant" in out.stdout and "2 matches of super_blatt" in out.stdout
    assert "2/2" in out.stderr  # the progress bar


def test_loadtest_prints_figures(server):
    out = cli(server, "loadtest", "--url", server.url, "--matches", "2", "--duration", "2", "--procs", "1",
              "--json")
    figures = json.loads(out.stdout)
    assert figures["moves"] > 0 and figures["errors"] == 0 and figures["p99_ms"] >= figures["p50_ms"]


def test_loadtest_refuses_non_loopback_targets(server):
    out = cli(server, "loadtest", "--url", "http://10.0.0.1:8000", "--duration", "1", check=False)
    assert out.returncode != 0 and "loopback" in out.stderr


def test_bench_prints_rules_figures(server):
    out = cli(server, "bench", "rules", "--game", "super_blatt", "--seconds", "0.2")
    assert out.stdout.count("games/s") == 3


def test_bench_api_prints_cpu_per_move_through_the_app_and_for_the_referee_alone(server):
    out = cli(server, "bench", "api", "--game", "super_blatt", "--moves", "60").stdout.splitlines()
    assert len(out) == 2 and "through the app" in out[0] and "the referee alone" in out[1]
    per_move = [float(line.split("= ")[1].split(" ms")[0]) for line in out]
    assert per_move[0] > per_move[1] > 0  # the app does the referee's work and more


@pytest.mark.parametrize("game", sorted(GAMES))
def test_arena_and_loadtest_play_every_game(server, game):
    players = max(GAMES[game].min_players, 3)
    tallies = arena.run(server.url, game, ["greedy"] + ["random"] * (players - 1), matches=1, options={},
                        concurrency=1, seed=2, quiet=True)
    assert tallies["greedy"].matches == 1 and tallies["random"].matches == players - 1
    figures = loadtest.run(server.url, game, players, matches=2, duration=1.5, procs=1, seed=3)
    assert figures["moves"] > 0 and figures["errors"] == 0
