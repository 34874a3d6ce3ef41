"""The README's curl walkthrough and Python client, and each game page's curl example (its package's rules.md),
run as they stand against a real server."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from service.games import OWN, PLUGINS

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
#: the rules page of each of the referee's own games (its Plugin's ``docs``, published as docs/games/<game>.md)
GAME_PAGES = {name: PLUGINS[name].docs_file() for name in sorted(OWN)}


def walkthrough() -> str:
    text = README.read_text()
    block = re.search(r"<!-- walkthrough -->\s*```sh\n(.*?)```\s*<!-- /walkthrough -->", text, re.S)
    assert block, "README lost its walkthrough"
    return block.group(1)


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
def test_readme_curl_walkthrough(server, tmp_path):
    out = subprocess.run(["bash", "-euo", "pipefail", "-c", walkthrough()], cwd=tmp_path, capture_output=True,
                         text=True, timeout=180, env=dict(os.environ, URL=server.url))
    assert out.returncode == 0, out.stderr
    last = json.loads(out.stdout.strip().splitlines()[-1])
    assert last["status"] == "finished" and last["winners"]
    assert '"invalid_move"' in out.stdout
    events = json.loads((tmp_path / "events.json").read_text())
    assert any(e["type"] == "moved" for e in events["events"])


GAME_BLOCK = re.compile(r"<!-- game:(\w+) -->\s*```sh\n(.*?)```\s*<!-- /game:\1 -->", re.S)
GAME_BLOCKS = [block for page in GAME_PAGES.values() for block in GAME_BLOCK.findall(page.read_text())]


def test_every_game_has_a_page_with_a_tested_example():
    """Each game's rules page has its curl example (Das Super-Blatt's is the README's walkthrough)."""
    assert all(page is not None and page.is_file() for page in GAME_PAGES.values()), GAME_PAGES
    assert {name for name, _ in GAME_BLOCKS} == set(OWN) - {"super_blatt"}
    for name, _ in GAME_BLOCKS:
        assert f"<!-- game:{name} -->" in GAME_PAGES[name].read_text()


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
@pytest.mark.parametrize("name,block", GAME_BLOCKS, ids=[n for n, _ in GAME_BLOCKS])
def test_readme_game_examples(server, tmp_path, name, block):
    out = subprocess.run(["bash", "-euo", "pipefail", "-c", block], cwd=tmp_path, capture_output=True, text=True,
                         timeout=240, env=dict(os.environ, URL=server.url))
    assert out.returncode == 0, out.stderr
    assert 'urn:referee:problem' not in out.stdout, out.stdout[-2000:]  # no request in the example was refused
    if name != "paparazzo":
        result = json.loads(out.stdout.strip().splitlines()[-1])
        assert result["status"] == "finished"
    if name == "picture_perfect":
        assert (tmp_path / "photo.svg").read_text().lstrip().startswith("<")


def test_readme_python_client_plays_a_match_to_the_end(server):
    """The README's Python client example, as it stands (its URL pointed at the test server)."""
    block = re.search(r"## Python client\s*(?:<!--.*?-->\s*)?```python\n(.*?)```", README.read_text(), re.S)
    assert block, "README lost its Python client example"
    code = block.group(1).replace('"http://127.0.0.1:8000"', repr(server.url))
    out = subprocess.run([sys.executable, "-c", code], cwd=README.parent, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert "'status': 'finished'" in out.stdout and "'winners'" in out.stdout, out.stdout


def test_readme_python_stream_example_follows_the_match_it_played(server):
    """The README's stream example, run after its Python client example (it names that example's `ref` and `m`):
    every event the seat saw, then the end of the stream."""
    text = README.read_text()
    play = re.search(r"## Python client\s*(?:<!--.*?-->\s*)?```python\n(.*?)```", text, re.S)
    stream = re.search(r"resumes a dropped or server-ended stream.*?```python\n(.*?)```", text, re.S)
    assert play and stream, "README lost its Python client or stream example"
    code = play.group(1).replace('"http://127.0.0.1:8000"', repr(server.url)) + stream.group(1)
    out = subprocess.run([sys.executable, "-c", code], cwd=README.parent, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.strip().splitlines()
    assert any(line.startswith("moved ") for line in lines), out.stdout[-2000:]
    assert "'status': 'finished'" in lines[-1], out.stdout[-2000:]
