"""The documentation site (docs/, mkdocs.yml) builds, and every reference to a rules or design document
points at a page of it that says what is cited: no reference leaves the repository."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TEXT = {".py", ".js", ".ts", ".md", ".html", ".css", ".yaml", ".yml", ".toml", ".txt", ".cfg", ".ini", ".sh", ""}
#: documents that live outside the repository (the steering folder's rulings, design and rulebook files)
OUTSIDE = re.compile("|".join([r"RULINGS", r"design\.md", r"(?<![\w-])shared/", r"\b[a-z_]+(?:\.de)?\.txt\b"]))
#: the dated benchmark log is kept verbatim: it names where the peer it measured against lived then
VERBATIM = {("docs/benchmarks.md", "../shared/peers/bgio-super-blatt")}
#: "service/games/paparazzo/rules.md, "The penalty"" (a game's rules page, in its package) or "docs/api.md#errors",
#: titles joined by commas or "and"
REFERENCE = re.compile(r'((?:docs/[\w/.-]+?|service/games/\w+/rules)\.md)(?:#([\w-]+))?'
                       r'((?:,?\s*(?:and\s+)?(?:rulings?\s+)?"[^"\n]+")*)')


def repository_files() -> list[Path]:
    """The files of the work tree that git tracks or would track (new files included)."""
    out = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"], cwd=ROOT,
                         capture_output=True, text=True, check=True).stdout
    files = [ROOT / name for name in out.split("\0") if name]
    return [f for f in files if f.is_file() and f.suffix in TEXT and "static/vendor" not in f.as_posix()
            and f.name != "package-lock.json"]


def test_mkdocs_build_strict(tmp_path):
    """`mkdocs build --strict`: every page in the nav, every link and anchor between pages resolves."""
    if importlib.util.find_spec("mkdocs") is None:
        if os.environ.get("CI"):
            pytest.fail("mkdocs is not installed: the dev extra installs it (pip install -e '.[dev]')")
        pytest.skip("mkdocs is not installed (pip install -e '.[docs]')")
    out = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
                         cwd=ROOT, capture_output=True, text=True, timeout=300,
                         env=dict(os.environ, NO_MKDOCS_2_WARNING="1"))
    assert out.returncode == 0, out.stdout + out.stderr


def test_no_reference_leaves_the_repository():
    """Rulings, the design and the rulebooks are cited through docs/ (a rulebook by its name and section
    title), never by a path to a file that is not in the repository."""
    me = Path(__file__).resolve()
    found = []
    for f in repository_files():
        if f.resolve() == me:
            continue
        rel = f.relative_to(ROOT).as_posix()
        for n, line in enumerate(f.read_text(errors="replace").splitlines(), 1):
            for m in OUTSIDE.finditer(line):
                if not any(rel == path and quote in line for path, quote in VERBATIM):
                    found.append(f"{rel}:{n}: {m.group(0)!r} in {line.strip()[:100]}")
    assert not found, "references to documents outside the repository:\n" + "\n".join(found)


def headings(page: Path) -> set[str]:
    return {re.sub(r"\s+", " ", h).strip() for h in re.findall(r"^#{1,6}\s+(.+?)\s*$", page.read_text(), re.M)}


def anchors(page: Path) -> set[str]:
    return {re.sub(r"[^\w\- ]", "", h.lower()).strip().replace(" ", "-") for h in headings(page)}


def test_every_reference_to_the_docs_names_a_page_and_a_ruling_it_holds():
    """A reference such as service/games/paparazzo/rules.md, "The penalty" names a page that exists and a heading of
    it; this is how the code and the tests cite the rulings they follow."""
    bad, count = [], 0
    for f in repository_files():
        if f.resolve() == Path(__file__).resolve():
            continue
        rel = f.relative_to(ROOT).as_posix()
        # one line of text however a docstring or comment wraps it
        text = re.sub(r"\n\s*(?:#:?\s*)?", " ", f.read_text(errors="replace"))
        for m in REFERENCE.finditer(text):
            path, anchor, titles = m.group(1), m.group(2), re.findall(r'"([^"]+)"', m.group(3) or "")
            page = ROOT / path
            count += 1
            if not page.is_file():
                bad.append(f"{rel}: {path} does not exist")
                continue
            if anchor and anchor not in anchors(page):
                bad.append(f"{rel}: {path} has no heading for #{anchor}")
            for title in titles:
                if title not in headings(page):
                    bad.append(f"{rel}: {path} has no heading {title!r}")
    assert count > 100, count  # the code and the tests cite the docs
    assert not bad, "\n".join(bad)


def test_each_game_page_states_its_rulings():
    """Every installed game's page (its Plugin's ``docs``, rules.md in its package; the docs site publishes the
    referee's own as games/<game>.md)."""
    from service.games import OWN, PLUGINS

    for name, plugin in PLUGINS.items():
        page = plugin.docs_file()
        assert page is not None and page.is_file(), name
        if name not in OWN:
            assert "## Rulings" in page.read_text(), name
            continue
        text = page.read_text()
        assert "## Rulings" in text and "## Moves" in text and "## What each seat sees" in text, name
        assert len(re.findall(r"^### ", text, re.M)) >= 8, name


def test_every_error_code_is_in_the_api_guide():
    from service.infra.problems import CODES

    guide = (ROOT / "docs" / "api.md").read_text()
    missing = [code for code in CODES if f"`{code}`" not in guide]
    assert not missing, missing
