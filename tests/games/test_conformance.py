"""The conformance kit (clients/conformance.py, ``referee conformance``) on every installed game: every
player count x variant x the seeds its Plugin asks for.  The checks and the hooks are described there."""

from __future__ import annotations

import json

import pytest

from clients import conformance
from service.games import PLUGINS

CASES = [case for plugin in PLUGINS.values() for case in conformance.cases(plugin)]


@pytest.mark.parametrize("name", sorted(PLUGINS))
def test_phases_are_declared_as_data(name):
    conformance.check_phases(PLUGINS[name].game)


@pytest.mark.parametrize("case", CASES, ids=[f"{c.game}-{c.players}p-{json.dumps(c.variant)}-{c.seed}" for c in CASES])
def test_conformance(case):
    conformance.play(PLUGINS[case.game], case.players, case.variant, case.seed)


def test_the_kit_reports_a_broken_rule_with_a_seed_to_reproduce_it(monkeypatch, capsys):
    """A game whose view leaks what another seat holds fails, and the report names the command to rerun."""
    plugin = PLUGINS["super_blatt"]
    game = plugin.game
    honest = type(game).legal_moves

    def leaky(self, state, seat):  # a legal-move list that depends on the hidden deck
        moves = honest(self, state, seat)
        return moves[:1] if moves and state["deck"] and state["deck"][0] % 2 else moves

    monkeypatch.setattr(type(game), "legal_moves", leaky)
    failures = conformance.run(["super_blatt"], players=3, variant={}, seed=0)
    out = capsys.readouterr().out
    assert failures >= 1
    assert "FAIL super_blatt 3 players" in out and "reproduce: referee conformance super_blatt --players 3" in out
