"""Webhooks by the Standard Webhooks specification: what a match's host is told, and how it is sent.

A match created with ``"webhook": {"url", "events"}`` has its deliveries made by RQ workers
(``workers.jobs.deliver_webhooks``), in the order of the match's event log, from a cursor kept
with the hook: every commit of such a match notes it in a set on the queue's server (in the
commit's own transaction) and enqueues its delivery job; the job sends what lies past the cursor,
advancing it only after a 2xx, so each message goes at least once, in order, with a stable id.
A failing target is retried with exponential backoff, up to ``REFEREE_WEBHOOK_MAX_AGE`` seconds
per message (then that message is given up, noted, and the next goes). Nothing of this is on a
move's path but the note and the enqueue.

What is sent is what a spectator sees: a move's public events, never a seat's private ones.

- ``match.started``: ``{to_act}``
- ``turn``: ``{version, to_act}``, for the version current when the delivery runs (a turn already
  over by then is not sent: it cannot be acted on)
- ``move``: ``{version, seat, events}``, the public events of that version
- ``seat.timeout``: the timeout's ``{seat, action, deadline, at}``
- ``match.finished``: ``{result}``;  ``match.aborted``: ``{}``

Targets are checked when the match is created and again before each send: a URL with credentials, and
a host that resolves to a loopback, private, link-local or otherwise non-global address, are refused
(the latter unless ``REFEREE_WEBHOOK_ALLOW`` lists it: host names or CIDRs, comma-separated). Redirects
are not followed; each send has a response timeout.

A delivery job keeps to a deadline of its own, looked at before each message: past it, the job hands
the rest to a new job and ends, so RQ's job timeout (which is longer by two sends) never cuts a send.
A rotated secret keeps signing, next to the new one, for ``REFEREE_WEBHOOK_SECRET_GRACE`` seconds
(the specification allows several signatures in ``webhook-signature``).
"""

from __future__ import annotations

import base64
import ipaddress
import os
import secrets
import socket
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from urllib.parse import urlsplit

import orjson
import requests
from standardwebhooks import Webhook

from service.integrations.metrics import WEBHOOK_DELIVERIES

#: seconds a delivery job waits for the match's lock, held by another one, before it leaves it to that one
HANDOFF_S = 0.1
#: seconds a retry may come before its ``retry_at`` and still be sent (clocks of two hosts, the dispatcher's round)
RETRY_SLACK = 0.5
EVENT_TYPES = ("match.started", "turn", "move", "seat.timeout", "seat.forfeit", "match.finished", "match.aborted")
#: the event log's types that become a message of their own (a move is built from ``moved``)
FROM_LOG = {"match_started": "match.started", "timeout": "seat.timeout", "forfeit": "seat.forfeit",
            "match_finished": "match.finished", "match_aborted": "match.aborted"}


def hook_key(match_id: str) -> str:
    """hash of a match's webhook: url, events, secret, cursor (last event seq sent), turn (last version sent)."""
    return f"ref:{{m:{match_id}}}:hook"


def log_key(match_id: str) -> str:
    """list of the latest delivery attempts, newest first."""
    return f"ref:{{m:{match_id}}}:hook:log"


def lock_key(match_id: str) -> str:
    return f"ref:{{m:{match_id}}}:hook:lock"


def due_key(queue: str) -> str:
    """zset on the queue's server of the matches whose webhook has messages to send, scored by the last
    event seq noted; a delivery that caught up removes its match only if no later commit noted it again."""
    return f"ref:hooks:{queue}"


def new_secret() -> str:
    return "whsec_" + base64.b64encode(secrets.token_bytes(24)).decode()


class TargetRefused(ValueError):
    """The webhook's URL may not be sent to (its reason is the message)."""


@dataclass(frozen=True)
class Allowed:
    """``REFEREE_WEBHOOK_ALLOW``: hosts and networks that may be sent to although they are not global."""

    hosts: frozenset[str]
    networks: tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]

    @classmethod
    def parse(cls, text: str) -> Allowed:
        hosts, networks = set(), []
        for item in (i.strip() for i in text.split(",")):
            if not item:
                continue
            try:
                networks.append(ipaddress.ip_network(item, strict=False))
            except ValueError:
                hosts.add(item.lower())
        return cls(frozenset(hosts), tuple(networks))

    def admits(self, address: str) -> bool:
        ip = ipaddress.ip_address(address)
        return ip.is_global or any(ip in net for net in self.networks)


def check_target(url: str, allowed: Allowed) -> None:
    """Refuse (``TargetRefused``, saying why) a URL that is not http(s), that carries credentials, or whose host
    resolves to an address that is not global (loopback, private, link-local, ...) and is not allowed."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises on a port that is not a number
    except ValueError:
        raise TargetRefused("The webhook URL cannot be read as a URL.") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise TargetRefused("The webhook URL must be an http or https URL with a host.")
    if parts.username is not None or parts.password is not None:
        raise TargetRefused("The webhook URL must not carry credentials (user:password@): they would be sent to "
                            "the target and shown in the webhook's log. Put a token in the URL's path instead.")
    host = parts.hostname.lower()
    if host in allowed.hosts:
        return
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
        found = {info[4][0] for info in socket.getaddrinfo(host, port, proto=socket.IPPROTO_TCP)}
    except (OSError, ValueError):
        raise TargetRefused(f"The webhook host {host!r} cannot be resolved.") from None
    refused = sorted(a for a in found if not allowed.admits(a.split("%")[0]))
    if refused:
        raise TargetRefused(f"The webhook host {host!r} resolves to {', '.join(refused)}, which is not a public "
                            "address (REFEREE_WEBHOOK_ALLOW lists the hosts and networks allowed besides).")


@dataclass
class Message:
    id: str
    type: str
    seq: int  # the last event of the log it covers (the cursor moves there once it is sent)
    data: dict
    version: int | None = None  # for a turn: the version it is of

    def body(self, match_id: str, now: datetime) -> str:
        return orjson.dumps({"type": self.type, "timestamp": now.isoformat(),
                             "data": {"match_id": match_id, **self.data}}).decode()


def messages(match_id: str, events: list[dict], head: tuple[str, int, list[int]] | None, cursor: int,
             last_turn: int) -> Iterator[Message]:
    """The messages of the event log past ``cursor`` (``events``, in order), then the turn of ``head``
    (status, version, to_act) unless sent already.  Ids are stable: the seq of the event a message stands
    for (a turn: its version)."""
    pending: Message | None = None  # a move gathers the public events of its version
    for e in events:
        if pending is not None and e["v"] != pending.data["version"]:
            yield pending
            pending = None
        if e["type"] == "moved":
            if pending is not None:
                yield pending
            pending = Message(f"msg_{match_id}_{e['seq']}", "move", e["seq"],
                              {"version": e["v"], "seat": e["data"]["seat"], "events": []})
        elif pending is not None and e["to"] == "all":
            pending.data["events"].append({"type": e["type"], "data": e["data"]})
            pending.seq = e["seq"]
        if e["type"] in FROM_LOG:
            if pending is not None:
                yield pending
                pending = None
            data = {"result": e["data"]} if e["type"] == "match_finished" else dict(e["data"])
            yield Message(f"msg_{match_id}_{e['seq']}", FROM_LOG[e["type"]], e["seq"], data)
    if pending is not None:
        yield pending
    if head is not None:
        status, version, to_act = head
        if status == "active" and to_act and version > last_turn:
            seq = events[-1]["seq"] if events else cursor
            yield Message(f"msg_{match_id}_turn_{version}", "turn", seq, {"version": version, "to_act": to_act},
                          version)


_sessions: dict[int, requests.Session] = {}


def _session() -> requests.Session:
    """One session per process (a worker sends one message at a time): the target's connection is kept alive."""
    session = _sessions.get(os.getpid())
    if session is None:
        session = _sessions[os.getpid()] = requests.Session()
        session.trust_env = False  # no proxy from the environment: the target checked is the target reached
    return session


def secrets_of(hook: dict, now: float) -> list[str]:
    """The secrets a delivery is signed with: the current one, and the one before it during its grace."""
    found = [hook["secret"]]
    if hook.get("old_secret") and float(hook.get("old_secret_until") or 0) > now:
        found.append(hook["old_secret"])
    return found


def job_timeout(settings) -> int:
    """RQ's timeout of a delivery job: its own deadline (half the job timeout, looked at before each message),
    then one more send (a connect and a read timeout) and some bookkeeping."""
    return int(settings.job_timeout + 2 * settings.webhook_timeout + 5)


def send(url: str, secret: str | list[str], message: Message, match_id: str, timeout: float,
         allowed: Allowed) -> tuple[bool, int | None, str | None]:
    """POST one message, signed with each of ``secret`` (space-separated signatures, as the specification
    allows); (delivered, HTTP status, error).  Redirects are not followed."""
    try:
        check_target(url, allowed)
    except TargetRefused as exc:
        return False, None, str(exc)
    now = datetime.now(UTC)
    body = message.body(match_id, now)
    headers = {"content-type": "application/json", "webhook-id": message.id,
               "webhook-timestamp": str(int(now.timestamp())),
               "webhook-signature": " ".join(Webhook(one).sign(message.id, now, body)
                                             for one in ([secret] if isinstance(secret, str) else secret))}
    try:
        answer = _session().post(url, data=body.encode(), headers=headers, timeout=timeout, allow_redirects=False)
    except requests.RequestException as exc:
        return False, None, type(exc).__name__
    return 200 <= answer.status_code < 300, answer.status_code, None


# Let go of a match's due note once its delivery caught up, unless a commit noted a later event since.
CAUGHT_UP = """
local noted = redis.call('ZSCORE', KEYS[1], ARGV[1])
if noted and tonumber(noted) > tonumber(ARGV[2]) then return 0 end
redis.call('ZREM', KEYS[1], ARGV[1])
return 1
"""
RELEASE = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0"
PAGE = 200  # events read per round
LOG = 200  # delivery attempts kept per match
RETRY_CAP = 3600  # seconds: the longest wait between two attempts of one message


def deliver(store, queue, settings, match_id: str, again_in: Callable[[float], None],
            due_at: float | None = None) -> str:
    """Send what is due of one match's webhook, in order, advancing its cursor after each 2xx.

    ``store``: the referee's :class:`service.core.store.Store`; ``queue``: the queue's server (the due set);
    ``again_in(seconds)``: schedule this again (a failed send's backoff; 0: a long backlog's next slice);
    ``due_at``: this job is such a scheduled retry (one that finds its retry still ahead goes again at its
    time rather than leaving it; a job a commit woke leaves it to the retry scheduled).
    The job's deadline (half the job timeout) is looked at before each message, so a slow target never
    brings it near RQ's timeout of the job (:func:`job_timeout`).
    One delivery per match at a time: a second one waits up to ``HANDOFF_S`` for the lock and then leaves,
    as the holder reads the log again before it lets go of the match (the wait covers a holder that has
    read it for the last time and is about to let go).  The lock outlives one send by a few seconds and is
    renewed with each, so a killed worker's lock lapses soon after the sweeper re-enqueues its job."""
    from service.games import GAMES

    client = store.redis
    token = secrets.token_hex(8)
    lease = int((2 * settings.webhook_timeout + 5) * 1000)
    waited_until = time.monotonic() + HANDOFF_S
    while not client.set(lock_key(match_id), token, nx=True, px=lease):
        if time.monotonic() > waited_until:
            return "busy"
        time.sleep(0.005)
    allowed, due = Allowed.parse(settings.webhook_allow), due_key(settings.queue)
    until = time.monotonic() + settings.job_timeout / 2  # well within RQ's timeout of the job (job_timeout)
    try:
        while True:
            if time.monotonic() > until:
                again_in(0)
                return "continued"
            client.pexpire(lock_key(match_id), lease)
            hook = {k.decode(): v.decode() for k, v in client.hgetall(hook_key(match_id)).items()}
            retry_at = float(hook.get("retry_at") or 0)
            if retry_at > time.time() + RETRY_SLACK:
                if due_at is not None:  # a scheduled retry that came early: it goes again at its time
                    again_in(retry_at - time.time())
                    return "rescheduled"
                return "backing off"  # a commit woke it early: the scheduled retry comes at its time
            found = store.page(match_id, int(hook["cursor"]), PAGE, state=True) if hook else None
            if found is None:  # no webhook, or the match expired
                queue.zrem(due, match_id)
                return "gone"
            (status, version, game, state), events = found
            whole = len(events) < PAGE  # the log's end: the head's turn comes after it
            if not whole:  # a version's events are one message: leave a version cut by the page for the next round
                events = [e for e in events if e["v"] < events[-1]["v"]] or events
            head = None
            if whole:
                status = status.decode()
                to_act = GAMES[game.decode()].to_act(orjson.loads(state)) if status == "active" else []
                head = status, int(version), to_act
            cursor, wanted = int(hook["cursor"]), set(orjson.loads(hook["events"]))
            advance: dict = {}  # where the cursor stands: written with the next attempt's note, or at the end
            for message in messages(match_id, events, head, cursor, int(hook["turn"])):
                if message.type in wanted:
                    if time.monotonic() > until:  # the deadline, before each send: the rest goes in a new job
                        if advance:
                            client.hset(hook_key(match_id), mapping=advance)
                        again_in(0)
                        return "continued"
                    client.pexpire(lock_key(match_id), lease)
                    sent, code, error = send(hook["url"], secrets_of(hook, time.time()), message, match_id,
                                             settings.webhook_timeout, allowed)
                    since = float(hook.get("failing_since") or time.time())
                    if not sent and time.time() - since <= settings.webhook_max_age:
                        attempts = int(hook.get("attempts") or 0) + 1
                        wait = min(2 ** attempts, RETRY_CAP)
                        _note(client, settings, match_id, message, "retrying", code, error,
                              {**advance, "attempts": attempts, "failing_since": since,
                               "retry_at": time.time() + wait})
                        again_in(wait)
                        return "retrying"
                    advance.update(cursor=message.seq, **({"turn": message.version} if message.version else {}))
                    _note(client, settings, match_id, message, "delivered" if sent else "given up", code, error,
                          advance, clear="failing_since" in hook)
                    for field in ("attempts", "failing_since", "retry_at"):
                        hook.pop(field, None)
                    advance = {}
                else:
                    advance.update(cursor=message.seq, **({"turn": message.version} if message.version else {}))
            last = events[-1]["seq"] if events else cursor
            if last > cursor or advance:  # (and the tail of the log that no message stands for)
                client.hset(hook_key(match_id), mapping={**advance, "cursor": max(last, advance.get("cursor", 0))})
            if whole and queue.eval(CAUGHT_UP, 1, due, match_id, last):
                return "delivered"
    finally:
        client.eval(RELEASE, 1, lock_key(match_id), token)


def _note(client, settings, match_id: str, message: Message, outcome: str, code: int | None,
          error: str | None, fields: dict, clear: bool = False) -> None:
    """One delivery attempt in the match's log (``GET /matches/{id}/webhooks``), with the hook's ``fields``
    (its cursor, or its retry), in one round trip; ``clear``: the retry of a failing message is over."""
    WEBHOOK_DELIVERIES.labels(outcome).inc()
    pipe = client.pipeline(transaction=False)
    if fields:
        pipe.hset(hook_key(match_id), mapping=fields)
    if clear:
        pipe.hdel(hook_key(match_id), "attempts", "failing_since", "retry_at")
    pipe.lpush(log_key(match_id), orjson.dumps({"id": message.id, "type": message.type, "outcome": outcome,
                                                "status": code, "error": error, "at": time.time()}))
    pipe.ltrim(log_key(match_id), 0, LOG - 1)
    pipe.expire(log_key(match_id), settings.abandoned_ttl + settings.finished_ttl)
    pipe.execute()
