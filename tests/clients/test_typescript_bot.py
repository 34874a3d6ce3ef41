"""The TypeScript bot of docs/bot-accounts-js.md (clients/typescript/bot.ts, on the client generated from
openapi.yaml, compiled with tsc --strict) registers, holds its event stream, is seated in a match and plays
it to the end against a real `referee serve`."""

from __future__ import annotations

import os
import shutil
import subprocess
import uuid

import pytest
import requests

from tests.clients.test_generated_clients import ROOT, TYPESCRIPT, run
from tests.conftest import wait_for


def test_the_typescript_bot_plays_a_match_it_is_seated_in(server, tmp_path):
    bin_ = TYPESCRIPT / "node_modules" / ".bin"
    if not (bin_ / "tsc").exists() or shutil.which("node") is None:
        message = "the TypeScript client needs node and `npm ci` in clients/typescript"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    for name in ("package.json", "tsconfig.json", "play.ts", "bot.ts"):
        shutil.copy(TYPESCRIPT / name, tmp_path / name)
    (tmp_path / "node_modules").symlink_to(TYPESCRIPT / "node_modules")
    run([str(bin_ / "openapi-typescript"), str(ROOT / "openapi.yaml"), "--default-non-nullable", "false",
         "--output", "schema.d.ts"], tmp_path, 120)
    run([str(bin_ / "tsc"), "--strict", "--project", "tsconfig.json"], tmp_path, 180)
    name = f"ts-{uuid.uuid4().hex[:6]}"
    bot = subprocess.Popen(["node", "dist/bot.js", server.url, name, "1"], cwd=tmp_path, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
    try:
        wait_for(lambda: any(b["name"] == name and b["online"]
                             for b in requests.get(f"{server.url}/bots", timeout=10).json()["bots"]), 30)
        created = requests.post(f"{server.url}/matches", timeout=10, json={
            "game": "super_blatt", "players": 2, "seats": [{"bot_account": name}, {"bot": "random"}],
            "clock": {"move_seconds": 20, "on_timeout": "forfeit"}})
        assert created.status_code == 201, created.text
        out, _ = bot.communicate(timeout=120)  # it leaves once the match is finished
    finally:
        if bot.poll() is None:
            bot.kill()
            bot.wait()
    assert bot.returncode == 0, out
    match_id = created.json()["id"]
    assert f"finished {match_id}: finished" in out, out
    record = requests.get(f"{server.url}/matches/{match_id}/record", timeout=10).json()
    assert record["seats"][0] == {"seat": 0, "name": name, "bot": None, "forfeited": False}
    assert sum(m["seat"] == 0 for m in record["moves"]) >= 10  # its seat was played by the bot, to the end
