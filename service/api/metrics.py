"""GET /metrics: Prometheus exposition of every process of the service (service/integrations/metrics.py)."""

from __future__ import annotations

import os

from flask import Response, request
from flask.views import MethodView

from service.api import BEARER, Blueprint, problems, referee
from service.core.gauges import StoreGauges
from service.infra.problems import Problem
from service.integrations import metrics

blp = Blueprint("metrics", __name__, description="Prometheus metrics")


@blp.route("/metrics")
class Metrics(MethodView):
    @blp.doc(operationId="getMetrics", security=[{}, *BEARER], responses={"200": {
        "description": "Prometheus text exposition (version 0.0.4) of the front's, the app processes' and the "
                       "workers' metrics, and the store's (queue depths, matches by status, memory) read now. "
                       "See docs/metrics-and-logs.md.",
        "content": {"text/plain": {"schema": {"type": "string"}}}}})
    @problems(blp, "bad_token")
    def get(self):
        """Metrics for Prometheus; behind a bearer token when the server sets REFEREE_METRICS_TOKEN."""
        if os.environ.get("REFEREE_METRICS_TOKEN") and not metrics.token_ok(request.headers.get("Authorization")):
            raise Problem("bad_token", metrics.BAD_METRICS_TOKEN)
        return Response(metrics.render(StoreGauges(referee())), content_type=metrics.CONTENT_TYPE)
