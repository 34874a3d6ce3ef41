"""mkdocs hook: each of the referee's own games keeps its rules page in its package (``rules.md``, its Plugin's
``docs``); the site publishes it as ``games/<game>.md``, where the nav and the other pages link to it, so the
page is written once, beside the code it rules (mkdocs.yml names this file under ``hooks``)."""

from __future__ import annotations

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.livereload import LiveReloadServer
from mkdocs.structure.files import File, Files

from service.games.plugin import discover


def pages() -> dict[str, str]:
    """The site's path of each own game's rules page -> the file in its package."""
    return {f"games/{name}.md": str(plugin.docs_file()) for name, plugin in discover("own").items()
            if plugin.docs is not None}


def on_files(files: Files, config: MkDocsConfig) -> Files:
    for uri, path in pages().items():
        files.append(File.generated(config, uri, abs_src_path=path))
    return files


def on_serve(server: LiveReloadServer, config: MkDocsConfig, builder) -> LiveReloadServer:
    """``mkdocs serve`` rebuilds when a rules page in a package changes, as for a page under docs/."""
    for path in pages().values():
        server.watch(path)
    return server
