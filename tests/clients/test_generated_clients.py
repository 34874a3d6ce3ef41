"""Clients generated from openapi.yaml by the tools integrators use play a full match of every game against a
real `referee serve`: openapi-python-client, and openapi-typescript + openapi-fetch compiled with tsc --strict."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from service.games import OWN

ROOT = Path(__file__).resolve().parents[2]
TYPESCRIPT = ROOT / "clients" / "typescript"
BIN = Path(sys.executable).parent


def run(args: list[str], cwd: Path, timeout: float, **env: str) -> str:
    done = subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}", **env})
    assert done.returncode == 0, f"{' '.join(args)}:\n{done.stdout}\n{done.stderr}"
    return done.stdout


def finished(output: str) -> set[str]:
    return {game for game in OWN if re.search(rf"\b{game}\b.*\bwinners\b", output)}


def test_python_client_generated_from_the_document_plays_every_game(server, tmp_path):
    run([str(BIN / "openapi-python-client"), "generate", "--path", str(ROOT / "openapi.yaml"), "--meta", "none",
         "--output-path", str(tmp_path / "referee_client")], tmp_path, 180)
    out = run([sys.executable, str(ROOT / "clients" / "generated_python_play.py"), server.url, *OWN], tmp_path, 300,
              PYTHONPATH=str(tmp_path))
    assert finished(out) == set(OWN), out


def test_typescript_client_generated_from_the_document_plays_every_game(server, tmp_path):
    tsc = TYPESCRIPT / "node_modules" / ".bin" / "tsc"
    if not tsc.exists() and shutil.which("npm") is not None:  # the README's test command alone installs them too
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=TYPESCRIPT, capture_output=True, timeout=600)
    if not tsc.exists() or shutil.which("node") is None:
        message = "the TypeScript client needs node and npm (`npm ci` in clients/typescript did not install it)"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    source = (TYPESCRIPT / "play.ts").read_text()
    code = re.sub(r"//.*", "", source)
    assert not re.search(r"\bany\b|\bas\s+[A-Za-z{(\[]|<[A-Za-z]+>\s*\w", code), "a cast escapes the types"
    for name in ("package.json", "tsconfig.json", "play.ts", "bot.ts"):
        shutil.copy(TYPESCRIPT / name, tmp_path / name)
    (tmp_path / "node_modules").symlink_to(TYPESCRIPT / "node_modules")
    bin_ = tmp_path / "node_modules" / ".bin"
    # a field with a server-side default is one a client may leave out, in a request as in package.json
    run([str(bin_ / "openapi-typescript"), str(ROOT / "openapi.yaml"), "--default-non-nullable", "false",
         "--output", "schema.d.ts"], tmp_path, 120)
    run([str(bin_ / "tsc"), "--strict", "--project", "tsconfig.json"], tmp_path, 180)
    out = run(["node", "dist/play.js", server.url, *OWN], tmp_path, 300)
    assert finished(out) == set(OWN), out
