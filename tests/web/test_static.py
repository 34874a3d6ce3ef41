"""The web table's files: every event has words, nothing comes from elsewhere, the page stays small."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import pytest

from service.api.web import PAGES
from service.games import GAMES, OWN, PLUGINS

ROOT = Path(__file__).resolve().parents[2]
JS = PAGES / "js"
#: each game's renderer (in the game's package, Plugin.table), and with the pages' own modules
RENDERERS = [plugin.table_file() for plugin in PLUGINS.values() if plugin.table]
SCRIPTS = [*JS.rglob("*.js"), *RENDERERS]
# bytes of HTML, CSS, JS and JSON for one game's table page (the page's catalogue and the game's own words) as they
# travel: gzip at the level the serving front compresses fixed answers with (service/serving/front.py), so a comment
# that explains the code costs what it costs a browser, not its raw length
TABLE_PAGE_BUDGET = 39_000
# the same, that a finished match's table page loads besides for its analysis (js/analysis.js loads them)
ANALYSIS_PARTS = ["js/analysis.js", "css/analysis.css", "i18n/analysis/de.json"]
ANALYSIS_BUDGET = 7_000


def sentence_keys(path: Path, block: str) -> set[str]:
    text = path.read_text()
    body = text[text.index(f"export const {block} = {{"):]
    body = body[:body.index("\n};")]
    return set(re.findall(r"^  (\w+): \(", body, re.M))


def emitted(game: str) -> set[str]:
    sources = PLUGINS[game].folder().glob("*.py")
    return {t for src in sources for t in re.findall(r'event\("(\w+)"', src.read_text())}


def test_the_referees_own_events_have_words():
    core = (ROOT / "service" / "core").glob("*.py")  # the referee's parts
    made = {t for src in core for t in re.findall(r'"type": "(\w+)"', src.read_text())}
    assert made <= sentence_keys(JS / "log.js", "COMMON")


@pytest.mark.parametrize("game", sorted(OWN))
def test_every_event_a_game_emits_has_a_sentence(game):
    """The live stream names each event by its type, and the page listens to the types it knows."""
    assert emitted(game) and emitted(game) <= sentence_keys(PLUGINS[game].table_file(), "SENTENCES")


def test_the_pages_load_nothing_from_elsewhere_and_stay_small(http):
    files = [*(p for p in PAGES.rglob("*") if p.is_file()), *RENDERERS]
    for path in files:
        text = path.read_text().replace('xmlns="http://www.w3.org/2000/svg"', "")  # a name, never fetched
        assert not re.search(r"https?://", text), path
    page = http.get("/matches/abc/table")
    assert page.status_code == 200 and page.headers["Content-Security-Policy"].startswith("default-src 'self'")
    shared = ["table.html", "css/referee.css", "js/table.js", "js/api.js", "js/dom.js", "js/live.js", "js/log.js",
              "js/moves.js", "js/i18n.js", "i18n/de.json"]  # one language is loaded: the longer one
    for game in GAMES:  # its own renderer, or the generic table, and the game's own words
        renderer = f"/games/{game}/table.js" if PLUGINS[game].table else "/static/web/js/generic.js"
        paths = [*(f"/static/web/{p}" for p in shared), renderer]
        paths += [f"/games/{game}/words/de"] if "de" in PLUGINS[game].words_files() else []
        sizes = [len(gzip.compress(http.get(p).data, 6, mtime=0)) for p in paths]
        assert all(sizes) and sum(sizes) < TABLE_PAGE_BUDGET, (game, sum(sizes))
    # what a finished match's page loads besides: the analysis's module, style and words
    more = [len(gzip.compress(http.get(f"/static/web/{p}").data, 6, mtime=0)) for p in ANALYSIS_PARTS]
    assert all(more) and sum(more) < ANALYSIS_BUDGET, sum(more)


def _catalogues() -> dict[str, dict]:
    """Per language, the page's words and every built-in game's (each game's package gives its own, Plugin.words)."""
    merged = {path.stem: json.loads(path.read_text()) for path in (PAGES / "i18n").glob("*.json")}
    for path in (PAGES / "i18n").glob("*/*.json"):  # a part's words, loaded where it is used (the analysis)
        words = json.loads(path.read_text())
        assert not set(words) & set(merged[path.stem]), (path, set(words) & set(merged[path.stem]))
        merged[path.stem].update(words)
    for game in sorted(OWN):
        for lang, path in PLUGINS[game].words_files().items():
            words = json.loads(path.read_text())
            assert not set(words) & set(merged[lang]), (game, lang, set(words) & set(merged[lang]))
            merged[lang].update(words)
    return merged


CATALOGUES = _catalogues()


def test_every_word_the_pages_use_is_in_every_catalogue_with_the_same_blanks():
    """Every string comes from one catalogue per language: a key the code names is in English and German,
    each language has the same keys, the same {blanks} and the same plural forms (a third language is
    one more file with these keys)."""
    assert set(CATALOGUES) >= {"en", "de"}
    used = set()
    for path in SCRIPTS:
        used |= set(re.findall(r"""\bt\(\s*"([\w.]+)\"""", path.read_text()))
    assert used and used <= set(CATALOGUES["en"]), sorted(used - set(CATALOGUES["en"]))

    def blanks(text) -> set[str]:
        parts = text.values() if isinstance(text, dict) else [text]
        return {b for part in parts for b in re.findall(r"\{([\w.]+)(?:\|[@\w.]+)?\}", part)}

    def nouns(text) -> set[str]:  # {n|@n.cards}: a count with its noun from a plural entry
        parts = text.values() if isinstance(text, dict) else [text]
        return {b for part in parts for b in re.findall(r"\{[\w.]+\|@([\w.]+)\}", part)}

    english = CATALOGUES["en"]
    for lang, words in CATALOGUES.items():
        assert set(words) == set(english), (lang, set(words) ^ set(english))
        for key, text in words.items():
            assert type(text) is type(english[key]), (lang, key)
            if isinstance(text, dict):  # Intl.PluralRules' forms, and an optional "zero"
                assert {"one", "other"} <= set(text) <= {"zero", "one", "two", "few", "many", "other"}, (lang, key)
            for noun in nouns(text):
                assert isinstance(words.get(noun), dict), (lang, key, noun)
            assert blanks(text) <= blanks(english[key]) | {"n"}, (lang, key)
            assert blanks(text) >= blanks(english[key]) - {"n"}, (lang, key)


def test_dice_party_speaks_its_german_rulebook_and_the_pages_say_nothing_in_code():
    """Dice Party's terms are the German rulebook's (Partylöwe, Party-People, Eskalation); no page module
    carries an English sentence of its own (texts are the catalogue's)."""
    de = CATALOGUES["de"]
    assert de["dp.kind.party_people"] == "Party-People" and "Partylöwe" in de["dp.bd.crowned"]
    assert "Eskalation" in de["dp.bd.escalations"]["one"] and "Brieftaschen klauen" in de["phase.dice_party.steal"]
    for path in SCRIPTS:
        code = re.sub(r"^\s*//.*|//\s.*$|/\*[\s\S]*?\*/", "", path.read_text(), flags=re.M)
        prose = re.findall(r"""["`]([A-Z][a-z]+(?: [a-z',]+){2,}[^"`]*)["`]""", code)
        assert not prose, (path.name, prose)
