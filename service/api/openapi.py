"""openapi.yaml, generated from the code (``referee openapi --output openapi.yaml``)."""

from __future__ import annotations

import yaml

from service.api.app import create_app
from service.infra.config import Settings


def spec_dict() -> dict:
    """The OpenAPI document; building it needs no Redis (the client connects lazily)."""
    import redis

    settings = Settings.from_env()
    app = create_app(settings, client=redis.Redis())
    with app.app_context():
        return app.extensions["referee_api"].spec.to_dict()


def render() -> str:
    return yaml.safe_dump(spec_dict(), sort_keys=False, allow_unicode=True)
