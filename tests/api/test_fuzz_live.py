"""Schemathesis's own runner against a live `referee serve`, from the document it serves: examples, coverage
(every boundary and every wrong type the schemas imply, systematically), fuzzing and the stateful phase, with every
check but one: no 5xx, every status and content type documented, every answer and its headers valid against its
schema, every request the document refuses refused (negative data rejection), every operation that needs a token
refusing a request without one, and so on.  The one left out, positive data acceptance, counts any 422 as a
refusal of valid data; here a 422 is also a refusal by the rules (`illegal_move`, `invalid_options`...), which no
schema can say.  Bounded: about 20 examples an operation, well under two minutes (``REFEREE_MAX_WAIT=0``: a
long-poll answers at once)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from tests.conftest import Server

ST = Path(sys.executable).parent / "st"


def test_the_live_server_keeps_every_promise_of_its_document(redis_url, tmp_path):
    server = Server(redis_url, env={"REFEREE_MAX_WAIT": "0"})
    try:
        done = subprocess.run(
            [str(ST), "run", f"{server.url}/openapi.json", "--checks", "all", "--exclude-checks",
             "positive_data_acceptance", "--phases", "examples,coverage,fuzzing,stateful", "--max-examples", "20",
             "--generation-deterministic", "--suppress-health-check", "all", "--request-timeout", "20",
             "--max-failures", "20", "--workers", "1", "--no-color"],
            cwd=tmp_path, capture_output=True, text=True, timeout=300)
    finally:
        server.stop()
    summary = done.stdout[-6000:]
    assert done.returncode == 0, summary
    counts = re.search(r"(\d+) generated, (\d+) passed", summary)
    assert counts and counts[1] == counts[2] and int(counts[1]) >= 2000, summary  # every case passed every check
    print(f"\nschemathesis against a live server: {counts[1]} cases")
