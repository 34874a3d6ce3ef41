"""The example plugin game (examples/liars_dice) in the suite: CI installs it (.ci/run) and its tests must run
there; elsewhere they skip until it is installed (``pip install -e examples/liars_dice``)."""

from __future__ import annotations

import os

import pytest

from service.games import GAMES

PLUGIN_GAME = "liars_dice"


def needs_plugin() -> pytest.MarkDecorator:
    installed = PLUGIN_GAME in GAMES
    return pytest.mark.skipif(not installed and not os.environ.get("CI"),
                              reason="pip install -e examples/liars_dice (CI installs it)")
