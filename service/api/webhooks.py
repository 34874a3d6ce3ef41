"""A match's webhook: its deliveries, and a new signing secret (the host's; set with ``POST /matches``).

How messages are made, signed (Standard Webhooks) and sent: ``service/integrations/webhooks.py``.
"""

from __future__ import annotations

from flask.views import MethodView
from marshmallow import Schema, fields, validate

from service.api import BEARER, Blueprint, bearer, integer, problems, referee
from service.api.contract import OUTCOMES, ForfeitData, TimeoutData, camel, const, ref
from service.integrations.webhooks import EVENT_TYPES

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


# -- the messages, in the document's `webhooks` (OpenAPI 3.1) ---------------------------------------------
class WebhookData(Schema):
    match_id = fields.String(required=True)


class WebhookStartedData(WebhookData):
    to_act = fields.List(integer(), required=True, metadata={"description": "The seats to act first."})


class WebhookTurnData(WebhookData):
    version = integer(required=True, metadata={"description": "The match's version now: the `expected_version` "
                                                              "of a move made on this turn."})
    to_act = fields.List(integer(), required=True)


class WebhookEventSchema(Schema):
    type = fields.String(required=True, metadata={"description": "The game's event type (GET /games/{game})."})
    data = fields.Dict(required=True)


class WebhookMoveData(WebhookData):
    version = integer(required=True, metadata={"description": "The version the move made, as its events and the "
                                                              "record say (docs/api.md)."})
    seat = integer(required=True)
    events = fields.List(fields.Nested(WebhookEventSchema), required=True,
                         metadata={"description": "The move's public events: what a spectator saw."})


class WebhookTimeoutData(WebhookData, TimeoutData):
    pass


class WebhookForfeitData(WebhookData, ForfeitData):
    pass


class WebhookFinishedData(WebhookData):
    result = fields.Dict(required=True, metadata={
        "description": "As GET /matches/{id}/result, without id, game and status: the match's <Game>Outcome.",
        "anyOf": [{"$ref": ref(schema.__name__)} for schema in OUTCOMES.values()]})


#: each message type: (what its ``data`` holds, when it is sent)
MESSAGES: dict[str, tuple[type[Schema], str]] = {
    "match.started": (WebhookStartedData, "The last seat was filled: the match is active."),
    "turn": (WebhookTurnData, "Seats are to act at this version (sent only while it is still the match's version)."),
    "move": (WebhookMoveData, "A move was applied."),
    "seat.timeout": (WebhookTimeoutData, "A turn clock ran out."),
    "seat.forfeit": (WebhookForfeitData, "A seat sent a move the rules refuse under a clock's `on_illegal: forfeit`."),
    "match.finished": (WebhookFinishedData, "The scoring is done."),
    "match.aborted": (WebhookData, "The host aborted the match."),
}
assert set(MESSAGES) == set(EVENT_TYPES)

SIGNATURE_HEADERS = [
    {"name": "webhook-id", "in": "header", "required": True, "schema": {"type": "string"},
     "description": "The message's id, stable across retries: drop a message whose id you have seen."},
    {"name": "webhook-timestamp", "in": "header", "required": True, "schema": {"type": "string", "pattern": "^[0-9]+$"},
     "description": "Unix seconds of this attempt; signed, so that a stale message is refused."},
    {"name": "webhook-signature", "in": "header", "required": True,
     "schema": {"type": "string", "pattern": "^v1,[A-Za-z0-9+/=]+( v1,[A-Za-z0-9+/=]+)*$"},
     "description": "`v1,<base64 HMAC-SHA256>` of `{webhook-id}.{webhook-timestamp}.{body}` with the secret's key "
                    "(Standard Webhooks); a receiver accepts any of several, space-separated."},
]


def message_schemas() -> dict[str, type[Schema]]:
    """``<Type>Message`` for each message type: ``{type, timestamp, data}``, with ``type`` fixed."""
    return {kind: type(f"{camel(kind.replace('.', '_'))}Message", (MessageSchema,),
                       {"type": const(kind), "data": fields.Nested(data, required=True)})
            for kind, (data, _) in MESSAGES.items()}


class MessageSchema(Schema):
    type = fields.String(required=True)
    timestamp = fields.String(required=True, metadata={"format": "date-time",
                                                       "description": "When this attempt was made (ISO 8601)."})
    data = fields.Dict(required=True)


def document_webhooks(spec) -> None:
    """The messages a match's webhook sends, as the document's ``webhooks`` (OpenAPI 3.1): each one's body, its
    signature headers, and what the receiver's answer means."""
    hooks = {}
    for kind, schema in message_schemas().items():
        name = schema.__name__
        spec.components.schema(name, schema=schema)
        body = {"required": True, "content": {"application/json": {"schema": {"$ref": ref(name)}}}}
        hooks[kind] = {"post": {
            "operationId": name[0].lower() + name[1:], "summary": f"`{kind}`",
            "description": MESSAGES[kind][1] + " Signed by Standard Webhooks.",
            "tags": ["webhooks"], "security": [], "parameters": SIGNATURE_HEADERS, "requestBody": body,
            "responses": {"2XX": {"description": "Received: the cursor moves on and the next message goes."},
                          "4XX": {"description": RETRIED}}}}
    spec.options["webhooks"] = hooks


RETRIED = ("Not received: retried with backoff (2, 4, 8... s, at most an hour apart) until the message is "
           "REFEREE_WEBHOOK_MAX_AGE seconds old, as any answer but a 2xx, a timeout or a refused connection is.")
