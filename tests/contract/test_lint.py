"""openapi.yaml passes Redocly's linter (pinned in tests/contract/package.json) with its recommended rules: no
error and no warning.  CI installs it (`npm ci` in .ci/run); there a linter that cannot run fails the test."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
REDOCLY = HERE / "node_modules" / ".bin" / "redocly"


def test_openapi_yaml_is_clean_under_the_recommended_rules(tmp_path):
    if not REDOCLY.exists():
        message = "the linter is not installed: run `npm ci` in tests/contract"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    report = tmp_path / "lint.json"
    done = subprocess.run([str(REDOCLY), "lint", str(ROOT / "openapi.yaml"), "--config", str(HERE / "redocly.yaml"),
                           "--format", "json"], capture_output=True, text=True, cwd=HERE, timeout=300,
                          env={**os.environ, "REDOCLY_TELEMETRY": "off", "REDOCLY_SUPPRESS_UPDATE_NOTICE": "true"})
    out = done.stdout[done.stdout.index("{"):]  # (the JSON report; the banner goes first on some versions)
    report.write_text(out)
    problems = json.loads(out)["problems"]
    found = [f"{p['severity']} {p['ruleId']}: {p['message']} at {p['location'][0]['pointer']}" for p in problems]
    assert not found, "\n".join(found[:30])
    assert done.returncode == 0, done.stderr[-2000:]
