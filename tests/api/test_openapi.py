"""openapi.yaml is generated from the code, valid, complete, and the app keeps its promises."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import schemathesis
import yaml
from hypothesis import HealthCheck, given, settings
from openapi_spec_validator import validate

from service.api.openapi import render
from service.games import GAMES, OWN
from service.infra.problems import CODES

ROOT = Path(__file__).resolve().parents[2]


def test_committed_openapi_matches_the_code():
    """openapi.yaml documents the referee's own games, whatever else is installed (a process of its own: the
    registry reads which games to serve once)."""
    committed = (ROOT / "openapi.yaml").read_text()
    done = subprocess.run([sys.executable, "-c", "from clients.cli import main; main(['openapi', '--games', 'own'])"],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    assert committed == done.stdout, "openapi.yaml is stale: run `referee openapi --games own --output openapi.yaml`"
    if set(GAMES) == set(OWN):
        assert committed == render()


def test_spec_is_valid_and_documents_every_game_and_error():
    spec = yaml.safe_load(render())
    validate(spec)
    schemas = spec["components"]["schemas"]
    for name in GAMES:
        camel = "".join(p.title() for p in name.split("_"))
        assert f"{camel}Options" in schemas and f"{camel}Move" in schemas
        for kind in GAMES[name].moves:
            assert schemas[f"{camel}Move"]["discriminator"]["mapping"][kind]
    move_op = spec["paths"]["/matches/{match_id}/moves"]["post"]
    documented = " ".join(r.get("description", "") for r in move_op["responses"].values())
    for code in ("not_your_turn", "illegal_move", "invalid_move", "stale_version", "match_over", "unknown_match",
                 "bad_token", "invalid_body", "body_too_large"):
        assert f"`{code}`" in documented
    operations = [op for p in spec["paths"].values() for op in p.values() if isinstance(op, dict)]
    every = " ".join(r.get("description", "") for op in operations for r in op.get("responses", {}).values())
    missing = {c for c in CODES if f"`{c}`" not in every} - {"method_not_allowed"}
    assert not missing, f"codes no route documents: {missing}"


def operations():
    import redis

    from service.api.app import create_app
    from service.infra.config import Settings

    spec_app = create_app(Settings.from_env(), client=redis.Redis())  # only to read the document
    schema = schemathesis.openapi.from_dict(spec_app.test_client().get("/openapi.json").json)
    return [result.ok() for result in schema.get_all_operations()]


OPERATIONS = operations()


@pytest.mark.parametrize("operation", OPERATIONS, ids=[op.label for op in OPERATIONS])
def test_no_5xx_and_responses_match_their_schema(app, operation):
    """schemathesis: generated requests (valid and not) never get a 5xx or an answer off its own schema."""
    from schemathesis.checks import not_a_server_error
    from schemathesis.specs.openapi.checks import (
        content_type_conformance,
        response_schema_conformance,
        status_code_conformance,
    )

    checks = [response_schema_conformance, status_code_conformance, content_type_conformance]
    if operation.label != "GET /readyz":  # its documented 503 means "no worker alive" (none in this app)
        checks.append(not_a_server_error)

    @given(case=operation.as_strategy())
    @settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
    def run(case):
        case.call_and_validate(app=app, checks=checks)

    run()
