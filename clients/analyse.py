"""``referee analyse MATCH_OR_RECORD_FILE``: a finished match's analysis, offline (workers/analysis.py).

The record is read from a file (``referee export``'s) or, given a match id, fetched from the service.  The
analysis runs here, at ``--budget`` per decision, with a progress bar on stderr (a line count where stderr
is not a terminal).  The text report names the turning points: per seat its summary, then the decisive
moments in words; ``--json`` prints the analysis as the API gives it (docs/analysis.md).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable
from typing import TextIO

from clients.client import DEFAULT_URL, Referee, RefereeError
from workers.analysis import BUDGET_ENV, LABELS, analyse, budget_from_env
from workers.bots.search import Budget

BAR = 30
PLURAL = {"inaccuracy": "inaccuracies", "mistake": "mistakes", "blunder": "blunders"}


def load(source: str, url: str, token: str | None) -> dict:
    """A record from a file, else from the service as the match id's record."""
    if os.path.exists(source):
        with open(source) as fh:
            return json.load(fh)
    return Referee(url).record(source, token)


def progress_bar(out: TextIO) -> Callable[[int, int], None]:
    """A bar redrawn in place on a terminal; elsewhere a line at every tenth of the way."""
    tty = out.isatty()
    start = time.monotonic()
    shown = [-1]

    def show(done: int, total: int) -> None:
        if tty:
            filled = BAR * done // max(total, 1)
            out.write(f"\r[{'#' * filled}{'.' * (BAR - filled)}] {done}/{total} decisions "
                      f"{time.monotonic() - start:5.1f} s")
            if done == total:
                out.write("\n")
        elif done * 10 // max(total, 1) != shown[0]:
            shown[0] = done * 10 // max(total, 1)
            out.write(f"analysed {done}/{total} decisions ({time.monotonic() - start:.1f} s)\n")
        out.flush()

    return show


def _move(move: dict | None) -> str:
    if move is None:
        return "(not kept)"
    body = " ".join(f"{k}={v}" for k, v in move.items() if k != "type")
    return f"{move['type']} {body}".rstrip()


def report(record: dict, analysis: dict) -> str:
    """The turning points in words: per seat its summary, then each seat's decisive moments by move number."""
    names = {s["seat"]: s.get("name") or f"seat {s['seat']}" for s in record.get("seats", [])}
    winners = record.get("result", {}).get("winners", [])
    t = analysis["thresholds"]
    lines = [f"{record['game']}, {record['players']} players, {len(record['moves'])} moves; "
             f"{len(analysis['decisions'])} decisions analysed at budget {analysis['budget']} "
             f"(loss in win chance: inaccuracy >= {t['inaccuracy']}, mistake >= {t['mistake']}, "
             f"blunder >= {t['blunder']})", ""]
    for s in analysis["summary"]:
        mine = [d for d in analysis["decisions"] if d["seat"] == s["seat"]]
        first = f"{mine[0]['win']:.0%}" if mine else "-"
        last = f"{mine[-1]['win']:.0%}" if mine else "-"
        counts = ", ".join(f"{s['labels'][name]} {name if s['labels'][name] == 1 else PLURAL[name]}"
                           for name in LABELS[1:])
        won = " (won)" if s["seat"] in winners else ""
        lines.append(f"seat {s['seat']} {names.get(s['seat'], '')}{won}: {s['decisions']} decisions, average loss "
                     f"{s['average_loss']:.3f}; {counts}; chance to win {first} at its first decision, "
                     f"{last} at its last")
    moments = sorted((analysis["decisions"][i] for s in analysis["summary"] for i in s["decisive"]),
                     key=lambda d: d["index"])
    lines += ["", "Decisive moments:" if moments else "No decisive moments (no mistake or blunder)."]
    for d in moments:
        played = record["moves"][d["index"]]["move"]
        better = d["best"][0] if d["best"] else {"move": None, "win": d["win"] + d["loss"]}
        lines.append(f"  move {d['index'] + 1} (version {d['version']}), seat {d['seat']}: {d['label']}: played "
                     f"{_move(played)} (chance to win {d['win']:.0%}); better {_move(better['move'])} "
                     f"({better['win']:.0%}); lost {d['loss']:.0%}")
    return "\n".join(lines)


def cmd_analyse(args) -> int:
    try:
        record = load(args.source, args.url, args.token or os.environ.get("REFEREE_TOKEN"))
    except RefereeError as exc:
        print(json.dumps(exc.problem, indent=2), file=sys.stderr)
        return 1
    except (OSError, ValueError) as exc:
        print(f"referee analyse: {exc}", file=sys.stderr)
        return 1
    budget = Budget.parse(args.budget) if args.budget else budget_from_env()
    # the report names every better move: the analysis in full, not fitted into the record's size as kept
    result = analyse(record, budget, progress_bar(sys.stderr), processes=args.processes, fit=args.json)
    print(json.dumps(result) if args.json else report(record, result))
    return 0


def add_parser(sub) -> None:
    a = sub.add_parser("analyse", help="a finished match's analysis: each seat's chances, mistakes and blunders",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    a.add_argument("source", metavar="MATCH_OR_RECORD_FILE", help="a record file (referee export) or a match id")
    a.add_argument("--budget", help=f"per decision: N playouts, Nms, or N/Nms (default ${BUDGET_ENV}, else "
                                    f"{budget_from_env()})")
    a.add_argument("--json", action="store_true", help="the analysis as JSON (as the API gives it)")
    a.add_argument("--processes", type=int, default=1, help="judge decisions in this many processes")
    a.add_argument("--url", default=os.environ.get("REFEREE_URL", DEFAULT_URL))
    a.add_argument("--token", help="seat or host token (default: $REFEREE_TOKEN)")
    a.set_defaults(func=cmd_analyse)
