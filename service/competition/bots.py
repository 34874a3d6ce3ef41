"""Bot accounts: a bot registered once, online while it holds its event stream, challenged, seated in matches.

A bot's event stream carries ``challenge`` events and, for every match it plays, ``match.started`` (with its
seat token), ``turn`` (its seat's view and legal moves at that version) and ``match.finished``.  It is kept
in the shape of a match's event log, under a key prefix of its own, so that the front (service/front.py)
holds it exactly as a seat's stream: the same page script, pub/sub channel, heartbeats, ``Last-Event-ID``
and per-token stream limit, with no line of the front changed.

Keys of one bot, all under the hash tag ``{m:bot:<name>}`` (one Redis Cluster slot per bot):

- ``ref:{m:bot:<name>}``          hash: ``name``, ``games`` (JSON), ``token`` (its hash), ``away`` (the bot
  kind that plays its seats while it is offline), ``created``, ``status`` ("active", read by the page
  script), ``version`` (the seq of its last event), and while it plays a match: ``seat:<match>`` (JSON
  ``{seat, token}``), ``started:<match>`` (``match.started`` was sent), ``sent:<match>:<seat>`` (the last
  version whose turn was sent) and ``away:<match>`` (the seat was handed to a bot because the bot was
  offline); the match's end removes them with the ``match.finished`` event, in one step, so a bot's hash
  holds only the matches it plays now.  It has no ``game`` field, so the match store (``Store.load``) and
  every match route never take it for a match.
- ``ref:{m:bot:<name>}:events``   stream of its events, entry ``0-<seq>`` (``{seq, v, type, data, to}``),
  capped at ``INBOX_LEN`` entries
- ``ref:{m:bot:<name>}:streams:0`` its open event streams (leases): the bot is online while one is live
- ``ref:{m:bot:<name>}:notify``   channel: every event publishes its seq (the front's streams wake)
- ``ref:{m:bot:<name>}:challenge:<id>`` hash of one challenge, expiring ``CHALLENGE_KEEP`` s after its deadline

Global keys (single-key commands, each in a slot of its own): ``ref:bots`` (zset of the names, by
registration time), ``ref:bot-token:<sha256>`` (a token's bot), ``ref:bots:playing`` (zset of the matches
bot accounts play), ``ref:bots:relayed`` (hash: the last version relayed of each) and ``ref:bots:sweep:<queue>``
(the lease of the sweep's chain of jobs on that queue).

The referee sends a bot its turns from the same place as a match's webhook messages: a match with a bot
account's seat (or in a tournament) is created with ``meta["webhook"]`` set, so each of its commits
enqueues ``workers.jobs.deliver_webhooks``, which calls :func:`relay` first.  The relay is idempotent
(a turn is sent once per version, ``match.finished`` once), so duplicated or re-run jobs send nothing twice;
and every ``REFEREE_RELAY_SWEEP`` seconds a sweep relays every match bot accounts play, so a lost job
delays a turn by that much at most.
"""

from __future__ import annotations

import re
import secrets
import time
from typing import Any

import orjson

from service.core.base import new_token, player_of, token_hash
from service.core.keys import events_key, match_key, streams_key
from service.core.referee import Referee
from service.core.store import Status
from service.games import BOT_KINDS, GAMES
from service.infra.problems import Problem, wrong_shape

NAME = re.compile(r"[a-z0-9][a-z0-9_-]{1,31}")
BOTS = "ref:bots"
INBOX_LEN = 10_000  # events kept per bot: a stream resumed from further back misses the oldest
CHALLENGE_KEEP = 3600  # seconds a challenge is kept after its deadline (its challenger reads the outcome)
HOLDER = 0  # the "seat" a bot's streams count under (the bot is its inbox's only reader)
PLAYING = "ref:bots:playing"  # zset of the matches bot accounts play, by start (the sweep's list)
RELAYED = "ref:bots:relayed"  # hash: match id -> the last version relayed whole (the sweep skips those)
def sweep_lease(ref: Referee) -> str:
    """Set while the sweep's chain of jobs runs on the referee's queue (one chain per queue: per deployment)."""
    return f"ref:bots:sweep:{ref.settings.queue}"
RELAY_ROUNDS = 5

# Append one event to a bot's inbox unless it was sent already: KEYS hash, events;
# ARGV dedup field ('' for none), dedup value, type, data (JSON), maxlen[, field, value to set with it].
# -1: no such bot (retired).
PUSH = """
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
if ARGV[1] ~= '' then
  local last = redis.call('HGET', KEYS[1], ARGV[1])
  if last and tonumber(last) >= tonumber(ARGV[2]) then return 0 end
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
end
local seq = redis.call('HINCRBY', KEYS[1], 'version', 1)
local e = '{"seq":' .. seq .. ',"v":' .. seq .. ',"to":[0],"type":"' .. ARGV[3] .. '","data":' .. ARGV[4] .. '}'
redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[5], '0-' .. seq, 'e', e)
if ARGV[6] then redis.call('HSET', KEYS[1], ARGV[6], ARGV[7]) end
redis.call('PUBLISH', KEYS[1] .. ':notify', seq)
return seq
"""
# The end of a match, once: KEYS hash, events; ARGV match id, data (JSON), maxlen.  When the bot still holds
# its seat there (``seat:<match>``), removes every field of that match and appends ``match.finished``;
# 0 when it does not (sent already), -1 when there is no such bot (retired).
FINISH = """
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
if redis.call('HEXISTS', KEYS[1], 'seat:' .. ARGV[1]) == 0 then return 0 end
for _, field in ipairs(redis.call('HKEYS', KEYS[1])) do
  if string.find(field, ':' .. ARGV[1], 1, true) then redis.call('HDEL', KEYS[1], field) end
end
local seq = redis.call('HINCRBY', KEYS[1], 'version', 1)
local e = '{"seq":' .. seq .. ',"v":' .. seq .. ',"to":[0],"type":"match.finished","data":' .. ARGV[2] .. '}'
redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[3], '0-' .. seq, 'e', e)
redis.call('PUBLISH', KEYS[1] .. ':notify', seq)
return seq
"""
# Answer a pending challenge: KEYS challenge; ARGV now, new status.  1 done, 0 no such challenge,
# or the status it has (answered already, or lapsed).
ANSWER = """
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return 0 end
if status ~= 'pending' then return status end
if tonumber(redis.call('HGET', KEYS[1], 'expires_at')) < tonumber(ARGV[1]) then return 'lapsed' end
redis.call('HSET', KEYS[1], 'status', ARGV[2], 'answered_at', ARGV[1])
return 1
"""


def inbox_id(name: str) -> str:
    """The id a bot's event stream goes by in the match-shaped keys (never a match's: those are hex)."""
    return f"bot:{name}"


def bot_key(name: str) -> str:
    return match_key(inbox_id(name))


def token_key(token: str) -> str:
    return f"ref:bot-token:{token_hash(token)}"


def challenge_key(name: str, challenge_id: str) -> str:
    return f"{bot_key(name)}:challenge:{challenge_id}"


def builtin(participant: str) -> str | None:
    """The bot kind of a ``builtin:KIND`` participant, else None."""
    return participant.removeprefix("builtin:") if participant.startswith("builtin:") else None


class Bots:
    """Bot accounts over one referee's store (stateless: everything is in Redis)."""

    def __init__(self, ref: Referee) -> None:
        self.ref = ref
        self.redis = ref.store.redis

    # -- accounts ---------------------------------------------------------------------------------
    def register(self, name: str, games: list[str] | None, away: str = "random") -> dict:
        if not NAME.fullmatch(name) or name == "me":
            raise wrong_shape("A bot's name is 2 to 32 characters: a-z, 0-9, '_' and '-', "
                                          "starting with a letter or digit; not 'me'.")
        games = sorted(set(games or GAMES))
        unknown = [g for g in games if g not in GAMES]
        if unknown:
            raise Problem("unknown_game", f"There is no game {unknown[0]!r}; see GET /games.")
        if away not in BOT_KINDS:
            raise Problem("unknown_bot", f"The bots are {sorted(BOT_KINDS)}, not {away!r}.")
        token = new_token()
        key = bot_key(name)
        fields = {"name": name, "games": orjson.dumps(games), "token": token_hash(token), "away": away,
                  "created": time.time(), "status": Status.ACTIVE.value, "version": 0}
        if not self.redis.hsetnx(key, "name", name):
            raise Problem("bot_exists", f"There is already a bot named {name!r}.")
        self.redis.hset(key, mapping=fields)
        self.redis.set(token_key(token), name)
        self.redis.zadd(BOTS, {name: time.time()})
        return {"name": name, "games": games, "away": away, "token": token}

    def me(self, token: str | None) -> str:
        """The bot a token belongs to."""
        if token is None:
            raise Problem("bad_token", "Send your bot token as 'Authorization: Bearer <token>'.")
        name = self.redis.get(token_key(token))
        if name is None:
            raise Problem("bad_token", "That token belongs to no bot.")
        return name.decode()

    def account(self, name: str) -> dict:
        raw = self.redis.hmget(bot_key(name), "name", "games", "away", "created")
        if raw[0] is None:
            raise Problem("unknown_bot_account", f"There is no bot {name!r}; see GET /bots.")
        return {"name": name, "games": orjson.loads(raw[1]), "away": raw[2].decode(), "created": float(raw[3])}

    def retire(self, name: str, token: str | None) -> dict:
        """Retire a bot: its seats in matches still running are handed to its away bot, which plays them to
        the end (as if it were offline for good), then its keys go."""
        if self.me(token) != name:
            raise Problem("not_your_bot", f"That token is not {name!r}'s.")
        key = bot_key(name)
        away = self.redis.hget(key, "away")
        for field, seat in self.redis.hgetall(key).items():
            if field.startswith(b"seat:"):
                try:
                    self.ref.away(field[5:].decode(), orjson.loads(seat)["token"], away.decode() if away else None)
                except Problem:  # over, or away already
                    pass
        self.redis.delete(key, events_key(inbox_id(name)))
        self.redis.delete(token_key(token))
        self.redis.zrem(BOTS, name)
        return {"name": name, "retired": True}

    def online(self, name: str) -> bool:
        return bool(self.redis.zcount(streams_key(inbox_id(name), HOLDER), time.time(), "+inf"))

    def listing(self, online: bool | None = None, game: str | None = None) -> dict:
        from service.competition.ladder import MODEL, ladder_key

        names = [n.decode() for n in self.redis.zrange(BOTS, 0, -1)]
        out = []
        for name in names:
            try:
                account = self.account(name)
            except Problem:  # retired meanwhile
                continue
            is_online = self.online(name)
            if (online is not None and is_online != online) or (game is not None and game not in account["games"]):
                continue
            ratings = {}
            for g in account["games"]:
                raw = self.redis.hget(ladder_key(g), name)
                if raw is not None:
                    e = orjson.loads(raw)
                    ratings[g] = {"mu": e["mu"], "sigma": e["sigma"], "matches": e["matches"],
                                  "ordinal": MODEL.rating(mu=e["mu"], sigma=e["sigma"]).ordinal()}
            out.append({"name": name, "games": account["games"], "online": is_online, "ratings": ratings})
        return {"bots": out}

    # -- the event stream -------------------------------------------------------------------------
    def push(self, name: str, kind: str, data: dict, dedup: str = "", value: int = 1,
             also: tuple[str, bytes] | None = None) -> int:
        """Append one event to the bot's stream (0: sent already under ``dedup``; -1: no such bot), and set
        the field ``also`` of its hash in the same step."""
        return int(self.ref.store.redis.eval(PUSH, 2, bot_key(name), events_key(inbox_id(name)), dedup, value,
                                             kind, orjson.dumps(data), INBOX_LEN, *(also or ())))

    def finish(self, name: str, data: dict) -> int:
        """Send ``match.finished`` once and forget the match (its seat, token and marks), in one step."""
        return int(self.redis.eval(FINISH, 2, bot_key(name), events_key(inbox_id(name)), data["match_id"],
                                   orjson.dumps(data), INBOX_LEN))

    def open_stream(self, token: str | None):
        """Check a bot's event stream request and count it against the bot's open streams; a bot coming back
        takes back the seats handed to its away bot while it was offline."""
        from service.core.views import Stream

        name = self.me(token)
        inbox = inbox_id(name)
        settings = self.ref.settings
        stream = Stream(inbox, HOLDER, HOLDER, secrets.token_hex(8), 3 * settings.heartbeat)
        if not self.ref.store.open_stream(inbox, HOLDER, stream.id, settings.max_streams, stream.lease):
            raise Problem("too_many_streams", f"This bot already holds {settings.max_streams} open event streams; "
                                              "close one.", retry_after=max(1, round(settings.heartbeat)))
        self.come_back(name)
        return stream

    def come_back(self, name: str) -> None:
        key = bot_key(name)
        for field in self.redis.hkeys(key):
            if not field.startswith(b"away:"):
                continue
            match_id = field[5:].decode()
            seat = self.redis.hget(key, f"seat:{match_id}")
            self.redis.hdel(key, field)
            if seat is None:
                continue
            try:
                self.ref.back(match_id, orjson.loads(seat)["token"])
            except Problem:  # over meanwhile, or already back
                pass

    # -- seats in matches ----------------------------------------------------------------------------
    def seat_specs(self, game: str, seats: list[dict] | None) -> list[dict] | None:
        """POST /matches' seats with ``{"bot_account": name}`` made into the referee's account seats."""
        if seats is None:
            return None
        out = []
        for s in seats:
            name = s.get("bot_account")
            if name is None:
                out.append(s)
                continue
            if s.get("name") or s.get("bot"):
                raise wrong_shape("A seat is a name, a bot or a bot_account, one of them.")
            account = self.account(name)
            if game not in account["games"]:
                raise Problem("game_not_played", f"The bot {name!r} plays {account['games']}, not {game!r}.")
            out.append({"name": name, "account": name})
        return out

    def create_match(self, game: str, players: int, options: dict | None, seed: Any, seats: list[dict] | None,
                     clock_request: dict | None = None, listed: bool = True, webhook: dict | None = None,
                     tags: dict | None = None) -> dict:
        """``Referee.create_match`` with bot accounts seated: each gets ``match.started`` with its seat token,
        which the answer leaves out (the host does not play for a bot)."""
        specs = self.seat_specs(game, seats)
        created = self.ref.create_match(game, players, options, seed, specs, clock_request, listed, webhook, tags)
        accounts = {i: s["account"] for i, s in enumerate(specs or []) if s.get("account")}
        for seat in created["seats"]:
            if seat["seat"] in accounts:
                self.announce(accounts[seat["seat"]], created, seat["seat"], seat["token"], tags)
                seat["token"] = None
                seat["bot_account"] = accounts[seat["seat"]]
        if accounts:
            relay(self.ref, created["id"])  # the first turn, if its worker job ran before the announcement
        return created

    def announce(self, name: str, created: dict, seat: int, token: str, tags: dict | None = None) -> None:
        """Tell the bot its seat and token (``match.started``); its turns are relayed from then on (the seat's
        note is written with the event, in one step: no turn can come before it)."""
        self.push(name, "match.started", {"match_id": created["id"], "game": created["game"], "seat": seat,
                                          "token": token, "players": len(created["seats"]),
                                          "seats": [{"seat": s["seat"], "name": s["name"]} for s in created["seats"]],
                                          **(tags or {})},
                  f"started:{created['id']}", 1,
                  also=(f"seat:{created['id']}", orjson.dumps({"seat": seat, "token": token})))
        self.redis.zadd(PLAYING, {created["id"]: time.time()})
        ensure_sweep(self.ref)

    def seat_rematch(self, match_id: str) -> None:
        """Tell the bot accounts of a finished match of its rematch (once each: ``started:<id>``), with their
        seat and token there, planned by ``Referee.rematch``."""
        old = self.ref.store.load(match_id)
        plan = old.meta.get("rematch") if old is not None else None
        new = self.ref.store.load(plan["id"]) if plan else None
        if new is None:
            return
        accounts = [(i, s["account"]) for i, s in enumerate(old.meta["seats"]) if s.get("account")]
        created = {"id": new.id, "game": new.game,
                   "seats": [{"seat": i, "name": s["name"]} for i, s in enumerate(new.meta["seats"])]}
        for i, name in accounts:
            mine = plan["seats"][str(i)]
            self.announce(name, created, mine["seat"], mine["token"])
        if accounts:
            relay(self.ref, new.id)

    # -- challenges ----------------------------------------------------------------------------------
    def challenge(self, name: str, game: str, players: int, options: dict, seats: list[dict] | None,
                  seconds: float | None, clock_request: dict | None) -> dict:
        account = self.account(name)
        if game not in GAMES:
            raise Problem("unknown_game", f"There is no game {game!r}; see GET /games.")
        if game not in account["games"]:
            raise Problem("game_not_played", f"The bot {name!r} plays {account['games']}, not {game!r}.")
        if not self.online(name):
            raise Problem("bot_offline", f"The bot {name!r} is not online; see GET /bots?online=true.")
        seats = [dict(s) for s in seats] if seats is not None else [{} for _ in range(players)]
        if len(seats) != players:
            raise Problem("invalid_options", f"'seats' lists {len(seats)} seats for {players} players.")
        mine = [i for i, s in enumerate(seats) if s.get("bot_account") == name]
        if not mine:
            open_ = [i for i, s in enumerate(seats) if not s]
            if not open_:
                raise wrong_shape(f"Leave a seat open ({{}}) or mark the bot's with "
                                              f"{{\"bot_account\": \"{name}\"}}.")
            seats[open_[0]] = {"bot_account": name}
            mine = open_[:1]
        self.seat_specs(game, seats)  # refuse now what the match would refuse later
        try:
            GAMES[game].load_options(players, options)
        except Exception as exc:  # noqa: BLE001 - the game's own error, said to the challenger
            raise Problem("invalid_options", getattr(exc, "message", str(exc))) from None
        challenge_id = secrets.token_hex(8)
        token = new_token()
        now = time.time()
        expires = now + (seconds or self.ref.settings.challenge_seconds)
        spec = {"game": game, "players": players, "options": options, "seats": seats, "clock": clock_request}
        key = challenge_key(name, challenge_id)
        self.redis.hset(key, mapping={"status": "pending", "spec": orjson.dumps(spec), "token": token_hash(token),
                                      "created": now, "expires_at": expires})
        self.redis.expireat(key, int(expires + CHALLENGE_KEEP))
        self.push(name, "challenge", {"id": challenge_id, "game": game, "players": players, "options": options,
                                      "seats": seats, "seat": mine[0], "clock": clock_request, "expires_at": expires})
        return {"id": challenge_id, "bot": name, "status": "pending", "token": token, "expires_at": expires}

    def challenge_status(self, name: str, challenge_id: str, token: str | None) -> dict:
        """A challenge as its challenger (its token) or its bot (the bot's token) sees it; once accepted, the
        challenger also gets the match's host token and its seats' tokens."""
        raw = {k.decode(): v for k, v in self.redis.hgetall(challenge_key(name, challenge_id)).items()}
        if not raw:
            raise Problem("unknown_challenge", f"The bot {name!r} has no challenge {challenge_id!r}.")
        challenger = token is not None and token_hash(token) == raw["token"].decode()
        if not challenger and not (token is not None and self._owns(name, token)):
            raise Problem("bad_token", "Send the challenge's token (or the bot's).")
        status = raw["status"].decode()
        expires = float(raw["expires_at"])
        if status == "pending" and expires < time.time():
            status = "lapsed"
        out = {"id": challenge_id, "bot": name, "status": status, "expires_at": expires,
               **orjson.loads(raw["spec"])}
        if "reason" in raw:
            out["reason"] = raw["reason"].decode()
        if "match" in raw:
            match = orjson.loads(raw["match"])
            out["match_id"] = match["id"]
            if challenger:
                out["match"] = match
        return out

    def _owns(self, name: str, token: str) -> bool:
        found = self.redis.get(token_key(token))
        return found is not None and found.decode() == name

    def answer(self, token: str | None, challenge_id: str, accept: bool, reason: str | None = None) -> dict:
        name = self.me(token)
        key = challenge_key(name, challenge_id)
        done = self.redis.eval(ANSWER, 1, key, time.time(), "accepting" if accept else "declined")
        if done == 0:
            raise Problem("unknown_challenge", f"You have no challenge {challenge_id!r}.")
        if done != 1:
            raise Problem("challenge_closed", f"This challenge is {done.decode()}.")
        if not accept:
            if reason:
                self.redis.hset(key, "reason", reason)
            return {"id": challenge_id, "status": "declined"}
        spec = orjson.loads(self.redis.hget(key, "spec"))
        try:
            created = self.create_match(spec["game"], spec["players"], spec["options"], None, spec["seats"],
                                        spec["clock"])
        except Problem as problem:  # the match could not be made (the store is full, say): the challenge fails
            self.redis.hset(key, mapping={"status": "failed", "reason": problem.detail})
            raise
        self.redis.hset(key, mapping={"status": "accepted", "match": orjson.dumps(created)})  # together: "accepted"
        # is never read without its match
        seat = next(s["seat"] for s in created["seats"] if s.get("bot_account") == name)
        return {"id": challenge_id, "status": "accepted", "match_id": created["id"], "seat": seat}


def relay(ref: Referee, match_id: str) -> None:
    """:func:`relay_once` until the match stands still: a commit that lands while it runs is relayed at once
    (its own job, sent as the one after this, ``hooks_<match>_next``, then finds nothing new)."""
    for _ in range(RELAY_ROUNDS):
        version = relay_once(ref, match_id)
        if version is None or ref.store.redis.hget(match_key(match_id), "version") == str(version).encode():
            return


def sweep(ref: Referee) -> int:
    """Relay again every match a bot account plays (``PLAYING``) whose version moved past the last one relayed:
    the backstop of a relay whose job was lost.  One round trip reads every version; returns how many moved."""
    client = ref.store.redis
    ids = [raw.decode() for raw in client.zrange(PLAYING, 0, -1)]
    if not ids:
        return 0
    with client.pipeline(transaction=False) as pipe:
        for match_id in ids:
            pipe.hget(match_key(match_id), "version")
        versions = pipe.execute()
    relayed = client.hmget(RELAYED, ids)
    moved = [m for m, v, r in zip(ids, versions, relayed) if v is None or v != r]
    for match_id in moved:
        relay(ref, match_id)
    return len(moved)


def ensure_sweep(ref: Referee) -> None:
    """Start the sweep's chain of jobs unless one runs (its lease is live); each sweep schedules the next
    while bot accounts play (workers/tournaments.py ``relay_sweep``)."""
    every = ref.settings.relay_sweep
    if ref.store.redis.set(sweep_lease(ref), 1, nx=True, px=int(3000 * every)):
        from datetime import timedelta

        ref.queue.enqueue_in(timedelta(seconds=every), "workers.tournaments.relay_sweep",
                             job_id=f"relay_sweep_{time.time_ns()}", result_ttl=0)


def relay_once(ref: Referee, match_id: str) -> int | None:
    """Send the bot accounts seated in a match what they owe or learn now: their turn (once per version),
    or the match's end; a bot that is offline at its turn has its seat played by its away bot until it comes
    back.  A match of a tournament that ended moves its tournament on.  Idempotent; run by the match's
    webhook job after each commit (workers.jobs.deliver_webhooks)."""
    match = ref.store.load(match_id)
    if match is None:
        ref.store.redis.zrem(PLAYING, match_id)
        ref.store.redis.hdel(RELAYED, match_id)
        return None
    seats = match.meta["seats"]
    accounts = {i: s["account"] for i, s in enumerate(seats) if s.get("account")}
    over = match.status.over
    if accounts:
        bots = Bots(ref)
        game = GAMES[match.game]
        to_act = game.to_act(match.state) if match.status == Status.ACTIVE else []
        for seat, name in accounts.items():
            key = bot_key(name)
            known = ref.store.redis.hget(key, f"seat:{match_id}")
            if known is None:  # not announced yet (its creator does, then relays), or done with
                continue
            if over:
                bots.finish(name, {"match_id": match_id, "game": match.game, "seat": seat,
                                   "status": match.status.value, "result": match.result,
                                   "forfeited": bool(seats[seat].get("out"))})
                continue
            if seats[seat].get("away") and bots.online(name) and ref.store.redis.hdel(key, f"away:{match_id}"):
                try:  # handed to the away bot while it looked offline: it is back (its next commit relays)
                    ref.back(match_id, orjson.loads(known)["token"])
                except Problem:
                    pass
                continue
            if seat not in to_act or player_of(seats[seat]) is not None:
                continue
            if not bots.online(name):
                away = ref.store.redis.hget(key, "away")
                ref.store.redis.hset(key, f"away:{match_id}", 1)  # first: a bot back meanwhile takes it back
                try:
                    ref.away(match_id, orjson.loads(known)["token"], away.decode() if away else None)
                except Problem:  # the match moved on meanwhile: its next commit relays again
                    pass
                continue
            view = game.view(match.state, seat)
            moves = game.legal_moves(match.state, seat)
            timer = match.meta.get("timers", {}).get(str(seat))
            bots.push(name, "turn", {"match_id": match_id, "game": match.game, "seat": seat,
                                     "version": match.version, "view": view, "moves": moves,
                                     "deadline": timer["deadline"] if timer else None,
                                     "since": timer["since"] if timer else None},
                      f"sent:{match_id}:{seat}", match.version)
    tournament = match.meta.get("tournament")
    if accounts and not over:
        ref.store.redis.hset(RELAYED, match_id, match.version)
        ensure_sweep(ref)  # a chain that died (its worker killed) starts again
    if over:
        ref.store.redis.zrem(PLAYING, match_id)
        ref.store.redis.hdel(RELAYED, match_id)
        if tournament:  # in a job of its own: a round's matches are made under its own, longer timeout
            enqueue_advance(ref, tournament)
    return match.version


#: seconds a job that moves a tournament on may take (it creates a round's matches)
ADVANCE_TIMEOUT = 50


def enqueue_advance(ref: Referee, tid: str) -> None:
    """Move the tournament on in a job of its own (a match of it ended), outside the job that noticed."""
    ref.queue.enqueue_call("workers.tournaments.advance", args=(tid,), job_id=f"advance_{tid}_{time.time_ns()}",
                           timeout=ADVANCE_TIMEOUT, result_ttl=0)
