"""The bot kinds are declared once in service.games.BOT_KINDS; workers.bots implements each for every game."""

from __future__ import annotations

import ast
import pathlib

from service.games import BOT_KINDS, GAMES
from workers.bots import BOTS


def test_every_game_has_every_bot_kind():
    assert set(BOTS) == set(GAMES)
    for name, bots in BOTS.items():
        assert set(bots) == set(BOT_KINDS), name
        assert all(callable(bot) for bot in bots.values())


def test_service_imports_nothing_from_workers():
    """docs/architecture.md, "Layout and imports": imports flow one way; the service never imports the workers."""
    root = pathlib.Path(__file__).resolve().parents[2] / "service"
    offenders = []
    for path in root.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            offenders += [f"{path.relative_to(root)}: {n}" for n in names if n.split(".")[0] == "workers"]
    assert offenders == []
