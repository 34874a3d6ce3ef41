"""Every fenced code block of the docs (README.md, docs/**/*.md, each game's rules page, the example game's README)
says how it is kept true, in an HTML comment on the line before its fence (invisible on the site), and this test
holds it to that (docs/writing-a-game.md, "Code examples in the docs", says the same for writers):

    <!-- run -->                         run here against the docs' own server (sh/bash with bash, python with
                                         Python; the docs' local address and $URL point at it, $PORT is free)
    <!-- output -->                      a ```text block right after a run block: each non-blank line is one
                                         the run printed (``...`` stands for anything)
    <!-- file: my_bot.py -->             a program a later run block of the page uses, written under that name
    <!-- tested-by: tests/x.py::test_y -->  another test runs exactly this block (the test must exist)
    <!-- excerpt: path/in/the/repo -->   a quotation of our code or configuration: every non-blank line of the
                                         block is a line of that file (``...`` stands for anything)
    <!-- schema: Name -->                JSON (one document, or one per line; ``Name[]``: a list) valid against
                                         Name in openapi.yaml (or in the installed games' document)
    <!-- needs: reason -->               needs what a test does not have (a real DNS name, other hosts, systemd,
                                         minutes): the page's next block that is not ``needs`` or ``file`` is
                                         its local variant, ``run`` or ``tested-by``

A ```text block (a drawing, a tree, printed output) needs no marker.  Whatever its marker, every ``referee`` command
of a shell block parses with the CLI's own argparse parsers (clients/cli.py, and the bench's below it).
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import io
import json
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest
import yaml
from jsonschema import Draft202012Validator

from service.infra.embedded import EmbeddedRedis

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted([ROOT / "README.md", *(ROOT / "docs").rglob("*.md"), *(ROOT / "service" / "games").glob("*/rules.md"),
                *(ROOT / "examples").glob("*/README.md"), *(ROOT / "examples").glob("*/*/rules.md")])
KINDS = ("run", "output", "file", "tested-by", "excerpt", "schema", "needs")
MARKER = re.compile(r"<!--\s*(" + "|".join(KINDS) + r")\s*(?::\s*(.*?))?\s*-->")
FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*([\w+-]*)[^`]*$")  # a backtick fence's info string has no backtick
SHELL = {"sh", "bash", "shell", "console"}
#: the address the docs give for a local `referee serve`; a run block talks to the test's server instead
LOCAL = re.compile(r"http://(?:127\.0\.0\.1|localhost):8000|(?<![\w/.])localhost:8000")


@dataclass(frozen=True)
class Block:
    page: Path
    line: int  # of the opening fence, 1-based
    lang: str
    kind: str | None
    arg: str
    text: str
    index: int  # among the page's blocks

    @property
    def id(self) -> str:
        return f"{self.page.relative_to(ROOT).as_posix()}:{self.line}"


def blocks(page: Path) -> list[Block]:
    """The page's fenced blocks, each with the marker among the HTML comments right above its fence."""
    lines, found, i = page.read_text().splitlines(), [], 0
    while i < len(lines):
        fence = FENCE.match(lines[i])
        if not fence:
            i += 1
            continue
        end = next((j for j in range(i + 1, len(lines)) if lines[j].strip().startswith(fence.group(2))), len(lines))
        kind, arg, k = None, "", i - 1
        while k >= 0 and lines[k].strip().startswith("<!--"):
            if m := MARKER.fullmatch(lines[k].strip()):
                kind, arg = m.group(1), m.group(2) or ""
            k -= 1
        indent = len(fence.group(1))
        text = "\n".join(line[indent:] for line in lines[i + 1:end]) + "\n"
        found.append(Block(page, i + 1, fence.group(3).lower(), kind, arg, text, len(found)))
        i = end + 1
    return found


ALL = [b for page in PAGES for b in blocks(page)]
CHECKED = [b for b in ALL if b.lang != "text" or b.kind == "output"]


def following(block: Block) -> Block | None:
    """The page's next block that is not a ```text one (an output block is only ever a run block's)."""
    return next((b for b in ALL if b.page == block.page and b.index > block.index and b.lang != "text"), None)


# -- the `referee` commands of a shell block ----------------------------------------------------------------------
class Parsed(Exception):
    """Raised by parse_args in place of returning: the command's flags parsed, nothing is run."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.namespace = args


def referee_commands(script: str) -> list[list[str]]:
    """Each ``referee ...`` (or ``.venv/bin/referee``) simple command of a shell script, as argv after `referee`.
    A placeholder the docs write in capitals (MATCH, PORT, V) or a shell variable stands for a value: ``1``."""
    joined = re.sub(r"\\\n", " ", script)
    commands = []
    for line in joined.splitlines():
        lexer = shlex.shlex(line, posix=True, punctuation_chars=";&|<>()")
        lexer.whitespace_split = True
        try:
            words = list(lexer)
        except ValueError:  # a quote closed on a later line: not a command line of ours
            continue
        words = [w for w in words if w not in ("[", "]")]
        command: list[str] = []
        for word in [*words, ";"]:
            if set(word) <= set(";&|<>()"):
                if command and (command[0] == "referee" or command[0].endswith("/referee")):
                    commands.append(command[1:])
                command = [] if word not in (">", "<") else ["<redirect>"]
            elif command == ["<redirect>"]:
                command = []
            else:
                command.append(word)
    placeholder = re.compile(r"\$\{?\w+(?::-[^}]*)?\}?|\b[A-Z][A-Z_]*\b")
    return [[w if "{" in w and '"' in w else placeholder.sub("1", w.strip("[]")) for w in c] for c in commands]


def parse_cli(argv: list[str]) -> str | None:
    """Why ``referee`` + argv does not parse, or None: the real parsers, stopped as each one returns."""
    from clients import bench, cli

    def stop(self, args=None, namespace=None):
        raise Parsed(original(self, args, namespace))

    original = argparse.ArgumentParser.parse_args
    err = io.StringIO()
    try:
        argparse.ArgumentParser.parse_args = stop
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            try:
                cli.build_parser().parse_args(argv)
            except Parsed as done:
                if done.namespace.command != "bench":
                    return None
                bench.main(done.namespace.rest)
                return "`referee bench` ran past its parser"
    except Parsed:
        return None
    except SystemExit as exc:
        return None if exc.code == 0 else err.getvalue().strip() or f"exit {exc.code}"
    finally:
        argparse.ArgumentParser.parse_args = original


# -- what each marker checks ----------------------------------------------------------------------------------------
def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_block(block: Block, server, tmp_path: Path) -> str:
    """The block as it stands, its local address pointed at the test's server, in a folder that sees the
    repository's files (its writes stay there); a block that starts a server of its own gets a free $PORT."""
    for entry in ROOT.iterdir():
        if entry.name not in (".git", ".referee-data"):
            (tmp_path / entry.name).symlink_to(entry)
    for earlier in ALL:
        if earlier.page == block.page and earlier.index < block.index and earlier.kind == "file":
            (tmp_path / earlier.arg).write_text(LOCAL.sub(server.url, earlier.text))
    code = LOCAL.sub(server.url, block.text)
    # one home for every block this worker runs against its server: a bot account's token file (per host and
    # name) is found by any page that runs the same bot again, as on one reader's machine
    home = tmp_path.parent / "docs-home"
    home.mkdir(exist_ok=True)
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}  # a server it starts keeps a store of its own
    env.update(URL=server.url, REFEREE_URL=server.url, PORT=str(free_port()), PYTHONPATH=str(ROOT), HOME=str(home),
               PATH=f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}")
    if block.lang in SHELL:
        argv = ["bash", "-euo", "pipefail", "-c", code]
    elif block.lang == "python":
        argv = [sys.executable, "-c", code]
    else:
        pytest.fail(f"{block.id}: a {block.lang or 'plain'} block cannot be run; mark it another way")
    proc = subprocess.Popen(argv, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        stdout, stderr = proc.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        # the whole group: a child left in the background (a bot, a server) holds the pipes open
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        try:
            stdout, stderr = proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:  # a grandchild that left the group still holds them
            stdout, stderr = "", "(its output is held by a process outside its group)"
        pytest.fail(f"{block.id} ran past 120 s:\n{stdout[-3000:]}\n{stderr[-3000:]}")
    finally:
        stop_what_it_started(proc.pid, tmp_path)
    assert proc.returncode == 0, f"{block.id} failed:\n{stdout[-3000:]}\n{stderr[-3000:]}"
    return stdout


def stop_what_it_started(group: int, folder: Path) -> None:
    """What a block left running, if it failed half-way: its process group (a `referee serve` stops its own
    children on SIGTERM), and the daemons it wrote a pid file for."""
    for pidfile in folder.glob("*.pid"):
        with contextlib.suppress(ValueError, ProcessLookupError, PermissionError):
            os.kill(int(pidfile.read_text().split()[0]), signal.SIGTERM)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(group, signal.SIGTERM)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            os.killpg(group, 0)
            time.sleep(0.1)
        os.killpg(group, signal.SIGKILL)


def wildcard(line: str) -> re.Pattern:
    return re.compile(".*".join(re.escape(part) for part in line.strip().split("...")))


def unknown_test(target: str) -> str | None:
    """Why `tests/x.py::test_y` (or ::Class::test_y, [id] allowed) names no test, or None."""
    path, _, name = target.partition("::")
    file = ROOT / path
    if not (path.startswith("tests/") and file.is_file() and name):
        return f"{target!r} is not tests/<file>.py::<test>"
    parts = re.sub(r"\[.*\]$", "", name).split("::")
    scope: list[ast.stmt] = ast.parse(file.read_text()).body
    for part in parts:
        node = next((n for n in scope if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                     and n.name == part), None)
        if node is None:
            return f"{path} has no {part}"
        scope = node.body
    return None if parts[-1].startswith("test") else f"{parts[-1]} is not a test"


@cache
def openapi() -> dict:
    return yaml.safe_load((ROOT / "openapi.yaml").read_text())


@cache
def installed() -> dict:
    """The document of every installed game (openapi.yaml has the referee's own; Liar's Dice's are here)."""
    from service.api.openapi import spec_dict

    return spec_dict()


def json_documents(text: str) -> list:
    """The block as one JSON document, or else one per line."""
    try:
        return [json.loads(text)]
    except ValueError:
        return [json.loads(line) for line in text.splitlines() if line.strip()]


@pytest.fixture(scope="session")
def docs_server(tmp_path_factory):
    """The docs' server, on a store of its own: a page's example starts where a reader's fresh server does.  On
    the tests' shared store another test's data may take a name an example registers (the live contract run
    posts the document's example bot name, `alpha`, which docs/bot-accounts.md registers too)."""
    from tests.conftest import Server

    store = EmbeddedRedis(tmp_path_factory.mktemp("docs-redis"), persist=False)
    server = Server(store.start())
    yield server
    server.stop()
    store.close()


@pytest.mark.parametrize("block", CHECKED, ids=[b.id for b in CHECKED])
def test_doc_example(block: Block, request, tmp_path):
    problems = [f"`referee {shlex.join(argv)}`: {why}" for argv in referee_commands(block.text)
                if block.lang in SHELL | {""} and (why := parse_cli(argv))]
    assert not problems, "\n".join(problems)
    if block.kind is None:
        pytest.fail(f"{block.id}: a ```{block.lang} block with no marker: say how it is kept true (this file's "
                    f"docstring, or docs/writing-a-game.md, 'Code examples in the docs'), or make it ```text")
    if block.kind == "run":
        stdout = run_block(block, request.getfixturevalue("docs_server"), tmp_path)
        shown = next((b for b in ALL if b.page == block.page and b.index == block.index + 1), None)
        if shown is not None and shown.kind == "output":
            missing = [line for line in shown.text.splitlines()
                       if line.strip() and not any(wildcard(line).fullmatch(got.strip())
                                                   for got in stdout.splitlines())]
            assert not missing, f"printed:\n{stdout[-3000:]}\nnot printed: {missing}"
    elif block.kind == "file":
        assert any(b.page == block.page and b.index > block.index and b.kind == "run" and block.arg in b.text
                   for b in ALL), f"{block.id}: no later run block of the page uses {block.arg}"
    elif block.kind == "output":
        before = next(b for b in ALL if b.page == block.page and b.index == block.index - 1)
        assert block.lang == "text" and before.kind == "run", f"{block.id}: output follows a run block, as ```text"
    elif block.kind == "tested-by":
        assert (why := unknown_test(block.arg)) is None, why
    elif block.kind == "excerpt":
        source = ROOT / block.arg
        assert source.is_file(), f"{block.id}: {block.arg} is not a file of the repository"
        have = [line.strip() for line in source.read_text().splitlines()]
        missing = [line for line in block.text.splitlines() if line.strip()
                   and not any(wildcard(line).fullmatch(h) for h in have)]
        assert not missing, f"{block.id}: not in {block.arg}: {missing}"
    elif block.kind == "schema":
        name = block.arg.removesuffix("[]")
        document = openapi() if name in openapi()["components"]["schemas"] else installed()
        assert name in document["components"]["schemas"], f"{block.id}: the document has no schema {name!r}"
        ref = {"$ref": f"#/components/schemas/{name}"}
        schema = {"type": "array", "items": ref} if block.arg.endswith("[]") else ref
        validator = Draft202012Validator({**schema, "components": document["components"]})
        for doc in json_documents(block.text):
            errors = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(doc)]
            assert not errors, f"{block.id}: {doc} is not a {block.arg}: {errors}"
    elif block.kind == "needs":
        assert block.arg.strip(), f"{block.id}: say what it needs (<!-- needs: reason -->)"
        variant = following(block)
        while variant is not None and variant.kind in ("needs", "file"):  # blocks in a row share one variant
            variant = following(variant)
        assert variant is not None and variant.kind in ("run", "tested-by"), \
            f"{block.id} needs {block.arg}: the next block must be its local variant, marked run or tested-by"


def test_the_walk_finds_every_page_and_kind():
    """The walk sees the pages the site publishes and every kind of marker in use (a changed fence or comment
    syntax would otherwise let blocks slip past unchecked)."""
    folders = {p.relative_to(ROOT).parts[0] for p in PAGES}
    assert folders == {"README.md", "docs", "service", "examples"}, folders
    assert sum(p.name == "rules.md" for p in PAGES) == len(list((ROOT / "service" / "games").glob("*/rules.md"))) + 1
    assert {b.kind for b in ALL} >= {"run", "tested-by", "excerpt", "schema", "needs"}
    assert len(CHECKED) > 50, len(CHECKED)


def test_a_wrong_flag_is_caught():
    """The CLI check refuses what argparse refuses, at every level (the bench's own parsers included)."""
    assert parse_cli(["arena", "--game", "super_blatt", "--bot", "greedy"]) is None
    assert parse_cli(["bench", "bots-http", "--runs", "3"]) is None
    assert "--nope" in parse_cli(["arena", "--game", "super_blatt", "--bot", "greedy", "--nope"])
    assert "--nope" in parse_cli(["bench", "bots-http", "--nope"])
    assert referee_commands("a && .venv/bin/referee show MATCH [--since V] > x # note\n") == [
        ["show", "1", "--since", "1"]]


def test_an_ellipsis_stands_for_anything_and_nothing_else_does():
    """How output and excerpt lines are matched: ``...`` is a wildcard, the rest literal (regex signs included)."""
    assert wildcard("liars_dice: ... matches, ... s").fullmatch("liars_dice: 2 matches, 0.1 s")
    assert not wildcard("liars_dice: ... matches").fullmatch("liars_dice: 2 moves")
    assert wildcard("store_kib={2: 12.2}").fullmatch("store_kib={2: 12.2}")
    assert not wildcard("a.b").fullmatch("axb")
