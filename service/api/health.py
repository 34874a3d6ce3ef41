"""Liveness and readiness."""

from __future__ import annotations

import redis
from flask.views import MethodView
from marshmallow import Schema, fields
from rq import Worker

from service.api import Blueprint, referee

blp = Blueprint("health", __name__, description="Liveness and readiness")


class HealthSchema(Schema):
    status = fields.String(metadata={"example": "ok"})


class ReadySchema(Schema):
    status = fields.String(metadata={"enum": ["ready", "not ready"]})
    redis = fields.Boolean()
    workers = fields.Integer(metadata={"description": "Live RQ workers on the referee queue."})


@blp.route("/healthz")
class Health(MethodView):
    @blp.response(200, HealthSchema)
    def get(self):
        """The process answers."""
        return {"status": "ok"}


@blp.route("/readyz")
class Ready(MethodView):
    @blp.response(200, ReadySchema)
    @blp.alt_response(503, schema=ReadySchema, description="Redis is unreachable or no worker is alive.")
    def get(self):
        """Redis answers and at least one worker is alive (bots and scoring need one)."""
        ref = referee()
        try:
            ref.redis.ping()
            workers = Worker.count(connection=ref.redis, queue=ref.queue)
            up = True
        except redis.RedisError:
            up, workers = False, 0
        body = {"status": "ready" if up and workers else "not ready", "redis": up, "workers": workers}
        return body, (200 if up and workers else 503)
