"""A match's webhook as its host sees it: the target and events asked for at creation, its recent
deliveries, its signing secret and the rotation of that secret.

Apart from service/integrations/webhooks.py, which delivers the messages from a worker: this part only keeps the hash of
fields a delivery reads (``hook_key``); the messages owed are noted by the jobs part (``webhook_ops``).
"""

from __future__ import annotations

import time

import orjson

from service.core.base import RefereeBase
from service.infra.problems import Problem
from service.integrations.webhooks import (
    EVENT_TYPES,
    Allowed,
    TargetRefused,
    check_target,
    hook_key,
    log_key,
    new_secret,
)


class Hooks(RefereeBase):
    """The webhook a match is created with, and what its host may read and change of it."""

    def _checked_hook(self, webhook: dict) -> dict:
        """A creation's webhook with its events (all by default), if its target is one ``webhook_allow`` allows."""
        webhook = {"url": webhook["url"], "events": sorted(set(webhook.get("events") or EVENT_TYPES))}
        try:
            check_target(webhook["url"], Allowed.parse(self.settings.webhook_allow))
        except TargetRefused as exc:
            raise Problem("webhook_refused", str(exc)) from None
        return webhook

    def _new_hook(self, match_id: str, webhook: dict) -> dict:
        """Keep a new match's checked webhook with a new signing secret; what the creator is told of it."""
        webhook["secret"] = new_secret()
        self._hook(match_id, {**webhook, "events": orjson.dumps(webhook["events"]), "cursor": 0, "turn": 0})
        return {"url": webhook["url"], "events": webhook["events"], "secret": webhook["secret"]}

    def _hook(self, match_id: str, fields: dict) -> None:
        """Write fields of the match's webhook; its keys live as long as a match can."""
        pipe = self.store.redis.pipeline(transaction=False)
        pipe.hset(hook_key(match_id), mapping=fields)
        pipe.expire(hook_key(match_id), self.settings.abandoned_ttl + self.settings.finished_ttl)
        pipe.execute()

    def webhook(self, match_id: str, token: str | None) -> dict:
        """The match's webhook and its latest delivery attempts, newest first (host token)."""
        hook = self._hosts_hook(match_id, token, "see its webhook")
        return {"url": hook[b"url"].decode(), "events": orjson.loads(hook[b"events"]),
                "deliveries": [orjson.loads(e) for e in self.store.redis.lrange(log_key(match_id), 0, -1)]}

    def rotate_webhook_secret(self, match_id: str, token: str | None) -> dict:
        """A new signing secret, used from the next delivery on; the one before it signs each delivery too for
        ``webhook_secret_grace`` seconds (a receiver switches at its own pace), then nothing more."""
        old = self._hosts_hook(match_id, token, "rotate its webhook's secret").get(b"secret")
        secret = new_secret()
        self._hook(match_id, {"secret": secret, "old_secret": old or b"",
                              "old_secret_until": time.time() + self.settings.webhook_secret_grace})
        return {"secret": secret}

    def _hosts_hook(self, match_id: str, token: str | None, what: str) -> dict[bytes, bytes]:
        """The fields of the match's webhook, for its host token alone (``what``: what the host asks to do)."""
        self._host(self._load(match_id), token, what)
        hook = self.store.redis.hgetall(hook_key(match_id))
        if not hook:
            raise Problem("not_found", "This match has no webhook.")
        return hook
