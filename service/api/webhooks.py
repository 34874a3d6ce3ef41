"""A match's webhook: its deliveries, and a new signing secret (the host's; set with ``POST /matches``).

How messages are made, signed (Standard Webhooks) and sent: ``service/webhooks.py``.
"""

from __future__ import annotations

from flask.views import MethodView
from marshmallow import Schema, fields, validate

from service.api import BEARER, Blueprint, bearer, problems, referee
from service.webhooks import EVENT_TYPES

blp = Blueprint("webhooks", __name__, url_prefix="/matches",
                description="A match's webhook (Standard Webhooks): deliveries and its secret")

EVENTS = fields.List(fields.String(validate=validate.OneOf(EVENT_TYPES)), validate=validate.Length(min=1, max=10),
                     metadata={"description": f"What to send; all of them by default: {', '.join(EVENT_TYPES)}."})


class WebhookSpecSchema(Schema):
    """In ``POST /matches``: where to send the match's events."""

    url = fields.String(required=True, validate=validate.Length(min=1, max=2000), metadata={
        "format": "uri", "description": "An http or https URL without credentials; loopback, private and link-local "
        "hosts are refused unless REFEREE_WEBHOOK_ALLOW lists them. A refused URL is a 422 `webhook_refused` that "
        "says why."})
    events = EVENTS


class WebhookCreatedSchema(Schema):
    url = fields.String(required=True)
    events = fields.List(fields.String(), required=True)
    secret = fields.String(required=True, metadata={
        "description": "`whsec_...`: verifies the `webhook-signature` of each delivery. Shown once, here."})


class DeliverySchema(Schema):
    id = fields.String(required=True, metadata={"description": "The message's `webhook-id`: stable across retries."})
    type = fields.String(required=True, metadata={"enum": list(EVENT_TYPES)})
    outcome = fields.String(required=True, metadata={"enum": ["delivered", "retrying", "given up"]})
    status = fields.Integer(allow_none=True, metadata={"description": "The target's HTTP status, if it answered."})
    error = fields.String(allow_none=True, metadata={"description": "Why it was not answered, if it was not."})
    at = fields.Float(required=True, metadata={"description": "Server time (Unix seconds) of the attempt."})


class WebhookSchema(Schema):
    url = fields.String(required=True)
    events = fields.List(fields.String(), required=True)
    deliveries = fields.List(fields.Nested(DeliverySchema), required=True,
                             metadata={"description": "The latest attempts (up to 200), newest first."})


class SecretSchema(Schema):
    secret = fields.String(required=True, metadata={"description": "The new `whsec_...` secret, shown once."})


@blp.route("/<string:match_id>/webhooks")
class Webhook(MethodView):
    @blp.response(200, WebhookSchema)
    @blp.doc(security=BEARER)
    @problems(blp, "unknown_match", "bad_token", "not_host", "not_found")
    def get(self, match_id: str):
        """The match's webhook and its latest delivery attempts (host token)."""
        return referee().webhook(match_id, bearer())


@blp.route("/<string:match_id>/webhooks/secret")
class Secret(MethodView):
    @blp.response(200, SecretSchema)
    @blp.doc(security=BEARER)
    @problems(blp, "unknown_match", "bad_token", "not_host", "not_found")
    def post(self, match_id: str):
        """Rotate the signing secret (host token): every delivery from now on is signed with the new one."""
        return referee().rotate_webhook_secret(match_id, bearer())
