"""A game installed from another package (examples/liars_dice) is served with no edit here: GET /games, the
OpenAPI document, matches played by every bot kind over REST, and the arena."""

from __future__ import annotations

import pytest

from clients import arena
from service.api.openapi import spec_dict
from service.games import OWN, PLUGINS
from tests.conftest import wait_for
from tests.plugin import PLUGIN_GAME, needs_plugin

pytestmark = needs_plugin()


def test_the_plugin_is_listed_with_the_generic_table(http):
    games = {g["name"]: g for g in http.get("/games").json["games"]}
    info = games[PLUGIN_GAME]
    assert PLUGIN_GAME not in OWN and info["title"] == "Liar's Dice" and info["min_players"] == 2
    assert info["table"] is None, "no renderer of its own: the page draws the generic table"
    assert info["summary"] and info["help"]["bidding"] and "challenged" in info["events"]
    assert games["super_blatt"]["table"] == "/games/super_blatt/table.js", "served from the game's package"
    assert http.get(f"/games/{PLUGIN_GAME}/table.js").json["code"] == "not_found"
    assert http.get("/games/chess/table.js").json["code"] == "unknown_game"
    assert http.get("/games/super_blatt/table.js").status_code == 200


def test_the_document_types_the_installed_game():
    schemas = spec_dict()["components"]["schemas"]
    assert {"LiarsDiceView", "LiarsDiceBidLegalMove", "LiarsDiceChallengedEvent", "LiarsDiceOutcome"} <= set(schemas)
    view = schemas["LiarsDiceView"]
    assert {"cup", "cup_sizes", "bid", "bids", "to_act", "you"} <= set(view["required"])
    assert "cups" not in view["required"], "the cups show only at the end"
    assert schemas["LiarsDiceBidLegalMove"]["properties"]["quantity"]["$ref"].endswith("/Span")


@pytest.mark.parametrize("bots", [("random", "greedy"), ("search", "greedy", "random")])
def test_bots_play_it_to_the_end_over_rest(ref, bots):
    m = ref.create_match(PLUGIN_GAME, len(bots), [{"bot": b} for b in bots], options={"dice": 2}, seed=3)
    done = wait_for(lambda: (s := ref.match(m["id"]))["status"] == "finished" and s, timeout=120)
    assert sorted(s for place in done["result"]["ranking"] for s in place) == list(range(len(bots)))
    assert done["view"]["cups"] is not None, "everything shows once the match is over"
    assert PLUGINS[PLUGIN_GAME].game.name == done["game"]


def test_the_arena_plays_it(server):
    tallies = arena.run(server.url, PLUGIN_GAME, ["greedy", "random"], matches=2, options={"dice": 1},
                        concurrency=2, seed=5, quiet=True, ladder=False)
    assert sum(t.matches for t in tallies.values()) == 4
