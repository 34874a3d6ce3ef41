"""Liveness and readiness."""

from __future__ import annotations

import redis
from flask.views import MethodView
from marshmallow import Schema, fields
from rq import Worker

from service.api import Blueprint, integer, problem_responses, problems, referee

blp = Blueprint("health", __name__, description="Liveness and readiness")


class HealthSchema(Schema):
    status = fields.String(required=True, metadata={"example": "ok"})


class StoreRoomSchema(Schema):
    used_bytes = integer(required=True, metadata={"description": "Memory the store's fullest server uses."})
    max_bytes = integer(required=True, metadata={"description": "That server's maxmemory (0: no bound)."})
    reserved_bytes = integer(required=True, metadata={
        "description": "Room kept for the admitted matches not yet over (what each may still write, by game and "
                       "player count)."})
    state = fields.String(required=True, metadata={
        "enum": ["room", "full", "at_bound"],
        "description": "`room`: new matches are admitted. `full`: used and kept room reach REFEREE_STORE_FULL_AT "
                       "of the bound, so new matches and rematches are refused (503 `store_full`) while the "
                       "admitted ones play on, are scored and compacted (the service stays ready). `at_bound`: "
                       "the store itself refuses writes (not ready) until memory is freed."})
    full = fields.Boolean(required=True, metadata={"description": "The state is not `room`: new matches are "
                                                                  "refused until admitted ones are over."})


class ReadySchema(Schema):
    status = fields.String(required=True, metadata={"enum": ["ready", "not ready"]})
    redis = fields.Boolean(required=True)
    workers = integer(required=True, metadata={"description": "Live RQ workers on the referee queue."})
    store = fields.Nested(StoreRoomSchema, metadata={"description": "The store's room (absent when unreachable)."})


@blp.route("/healthz")
class Health(MethodView):
    @blp.response(200, HealthSchema)
    @blp.doc(operationId="healthz")
    @problems(blp)
    def get(self):
        """The process answers."""
        return {"status": "ok"}


@blp.route("/readyz")
class Ready(MethodView):
    @blp.response(200, ReadySchema)
    @blp.alt_response(503, schema=ReadySchema, description="Redis is unreachable, no worker is alive, or the store "
                                                           "refuses writes at its bound.")
    @blp.doc(operationId="readyz")
    @problem_responses(blp, {400: ["malformed_request"], 408: ["body_timeout"]})  # its 503 is the answer above
    def get(self):
        """Redis answers, at least one worker is alive, and the store takes writes.

        A full store, which refuses new matches but keeps room for the matches in play, is ready."""
        ref = referee()
        store = None
        try:
            ref.queue.connection.ping()
            store = ref.store_room()
            # every worker takes the people's queue (search workers too), not every one the main queue
            workers = Worker.count(connection=ref.queue.connection, queue=ref.people_queue)
            up = True
        except redis.RedisError:
            up, workers = False, 0
        ready = up and bool(workers) and (store is None or store["state"] != "at_bound")
        body = {"status": "ready" if ready else "not ready", "redis": up, "workers": workers}
        if store is not None:
            body["store"] = store
        return body, (200 if ready else 503)
