"""The store's Lua scripts: each write of a match, and each read that must see a match whole, in one step.

A script runs in the match's slot (its keys carry the hash tag), so a Redis Cluster runs it on one node.
``Store`` (service/core/store.py) registers them; the front runs ``PAGE`` on its asyncio client (``page_call``).
"""

from __future__ import annotations

from typing import Any

import orjson

from service.core.keys import events_key, match_key

# The one write of a match: a compare-and-set on its version.  KEYS hash, events, outbox[, idempotency key]
# [, outbox index][, the global keys of direct ops]; ARGV 1 version read ('' for a new match: the hash must
# not exist yet), 2 ttl, 3 flags, 4 idempotent answer, 5 now, 6 outbox channel, 7 match id, 8 the notice's
# head ("status\nto_act\ngame\nstate", or '' to publish the version alone), then counted
# groups: fields to set (name, value), fields to delete, events (id, event), outbox ops (id, op), direct ops
# (command, key, a, b: see ``Store.direct_ops``).  Flags: i an idempotency key (KEYS[4]), x the outbox index
# (the key after it), c compacted (events only extend a stream rebuilt for reading), D drop the events
# (compaction), k keep the version (no notification).
CAS = """
local flags = ARGV[3]
local has = function(f) return string.find(flags, f, 1, true) ~= nil end
local idem = has('i') and KEYS[4] or nil
if idem and redis.call('EXISTS', idem) == 1 then return 2 end
local current = redis.call('HGET', KEYS[1], 'version')
if ARGV[1] == '' then
  if current then return 0 end
elseif current ~= ARGV[1] then return 0 end
local i = 9
local n = tonumber(ARGV[i])
if n > 0 then redis.call('HSET', KEYS[1], unpack(ARGV, i + 1, i + 2 * n)) end
i = i + 2 * n + 1
n = tonumber(ARGV[i])
if n > 0 then redis.call('HDEL', KEYS[1], unpack(ARGV, i + 1, i + n)) end
i = i + n + 1
n = tonumber(ARGV[i])
if has('D') then redis.call('DEL', KEYS[2]) end
local extend = not has('c') or redis.call('EXISTS', KEYS[2]) == 1
local events_at, events = i, extend and n or 0
for j = i + 1, i + 2 * n, 2 do
  if extend then redis.call('XADD', KEYS[2], ARGV[j], 'e', ARGV[j + 1]) end
end
i = i + 2 * n + 1
n = tonumber(ARGV[i])
if n > 0 then
  redis.call('HSET', KEYS[3], unpack(ARGV, i + 1, i + 2 * n))
  redis.call('EXPIRE', KEYS[3], ARGV[2])
  if has('x') then redis.call('ZADD', KEYS[idem and 5 or 4], 'NX', ARGV[5], ARGV[7]) end
  redis.call('PUBLISH', ARGV[6], ARGV[7])
end
i = i + 2 * n + 1
n = tonumber(ARGV[i])
for j = i + 1, i + 4 * n, 4 do
  local cmd, key, a, b = ARGV[j], ARGV[j + 1], ARGV[j + 2], ARGV[j + 3]
  if cmd == 'z' then redis.call('ZADD', key, a, b)
  elseif cmd == 'zgt' or cmd == 'znx' then redis.call('ZADD', key, string.upper(string.sub(cmd, 2)), a, b)
  elseif cmd == 'zrem' then redis.call('ZREM', key, a)
  elseif cmd == 'trim' then redis.call('ZREMRANGEBYSCORE', key, '-inf', a)
  elseif cmd == 'hset' then redis.call('HSET', key, a, b)
  elseif cmd == 'hdel' then redis.call('HDEL', key, a)
  elseif cmd == 'radd' then
    if redis.call('ZADD', key, 'NX', a, b) == 1 then redis.call('ZINCRBY', key, a, '~total') end
  elseif cmd == 'rrem' then
    local s = redis.call('ZSCORE', key, a)
    if s then
      redis.call('ZREM', key, a)
      redis.call('ZINCRBY', key, -tonumber(s), '~total')
    end
  else return redis.error_reply('unknown direct op ' .. cmd) end
end
redis.call('EXPIRE', KEYS[1], ARGV[2])
if not has('c') then redis.call('EXPIRE', KEYS[2], ARGV[2]) end
if idem then redis.call('SET', idem, ARGV[4], 'EX', %d) end
if not has('k') then
  local notice = {tostring((tonumber(ARGV[1]) or 0) + 1)}
  if ARGV[8] ~= '' then
    notice[2] = ARGV[8]
    for j = events_at + 2, events_at + 2 * events, 2 do notice[#notice + 1] = ARGV[j] end
  end
  redis.call('PUBLISH', KEYS[1] .. ':notify', table.concat(notice, '\\n'))
end
return 1
"""
# Delete the dispatched ops of an outbox: KEYS outbox[, index]; ARGV match id, op ids...  An emptied outbox
# leaves the index (a commit since then added ops, and the match, again).
TAKEN = """
redis.call('HDEL', KEYS[1], unpack(ARGV, 2))
if KEYS[2] and redis.call('EXISTS', KEYS[1]) == 0 then redis.call('ZREM', KEYS[2], ARGV[1]) end
return 1
"""
# Open one event stream of a seat if it holds fewer than the limit: KEYS streams zset;
# ARGV now, limit, lease end, stream id, key ttl.  A lease not renewed (a crashed process) lapses.
OPEN_STREAM = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[4])
redis.call('EXPIRE', KEYS[1], ARGV[5])
return 1
"""
# A page of a match's events with its head, in one round trip: KEYS hash, events; ARGV first event
# id, count, "state" to add the game and the state (for a seat's stream that lists its legal moves).
# A compacted match whose events are not kept for reading answers a third element: play it again first.
PAGE = """
local want = ARGV[3]
local head = redis.call('HMGET', KEYS[1], 'status', 'version', 'game', 'to_act')
if not head[1] then return false end
local to_act = head[4]
head[4] = nil
if want == '' then
  head[3] = nil
elseif want == 'state' or not to_act or string.find(to_act, ',' .. want .. ',', 1, true) then
  head[4] = redis.call('HGET', KEYS[1], 'state')
end
local out = {}
for i, entry in ipairs(redis.call('XRANGE', KEYS[2], ARGV[1], '+', 'COUNT', ARGV[2])) do out[i] = entry[2][2] end
if #out == 0 and redis.call('EXISTS', KEYS[2]) == 0 and redis.call('HEXISTS', KEYS[1], 'log') == 1 then
  return {head, out, 1}
end
return {head, out}
"""
IDEM_TTL = 24 * 3600


def page_call(match_id: str, after: int, count: int, state: bool | int = False) -> tuple[list[str], list[Any]]:
    """The PAGE script's keys and arguments (the front runs it on its asyncio client).  ``state``: True for the
    game and the state; a seat for the game, and the state only while that seat is to act (a seat's stream
    lists its legal moves: the other seats' streams do not read the state at every move)."""
    want = "state" if state is True else "" if state is False or state is None else str(int(state))
    return [match_key(match_id), events_key(match_id)], [f"0-{after + 1}", count, want]


def decode_page(found: list | None) -> tuple[list, list[dict]] | None:
    """The PAGE script's answer: (head as stored, the events decoded), None for an unknown match (a compacted
    match's events not kept for reading read as none: ``Store.page`` plays them again first)."""
    return None if found is None else (found[0], [orjson.loads(e) for e in found[1]])
# Ask for a finished match's analysis (service/core/analyses.py), once: KEYS hash, outbox[, outbox index]; ARGV
# 1 the analysis's first progress ("queued"), 2 now, 3 outbox channel, 4 match id, 5 the progress of an analysis
# whose job was lost ('' none), then op id, op, ... (its job and the room it keeps).  Answers {0} for an unknown
# match, {1, status} for one not finished, {2, progress} for an analysis asked before (and neither failed nor still
# the one lost), {3, progress} for this one: its job is in the outbox, which lives as long as the match.  The
# hash's expiry is left as it is: an analysis lives and goes with its match.
ASK_ANALYSIS = """
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return {0} end
if status ~= 'finished' then return {1, status} end
local kept = redis.call('HGET', KEYS[1], 'analysis')
if kept and kept ~= ARGV[5] and not string.find(kept, '"status":"failed"', 1, true) then return {2, kept} end
redis.call('HSET', KEYS[1], 'analysis', ARGV[1])
redis.call('HDEL', KEYS[1], 'analysed')
redis.call('HSET', KEYS[2], unpack(ARGV, 6))
local ttl = redis.call('TTL', KEYS[1])
if ttl > 0 then redis.call('EXPIRE', KEYS[2], ttl) end
if KEYS[3] then redis.call('ZADD', KEYS[3], 'NX', ARGV[2], ARGV[4]) end
redis.call('PUBLISH', ARGV[3], ARGV[4])
return {3, ARGV[1]}
"""
# An analysis job's progress, and at the end its result (its decisions judged so far then go): KEYS hash; ARGV
# progress, result ('' none yet).  Written only while the analysis is still asked for (its match not expired:
# never a key without an expiry).
WRITE_ANALYSIS = """
if redis.call('HEXISTS', KEYS[1], 'analysis') == 0 then return 0 end
redis.call('HSET', KEYS[1], 'analysis', ARGV[1])
if ARGV[2] ~= '' then
  redis.call('HSET', KEYS[1], 'analysed', ARGV[2])
  redis.call('HDEL', KEYS[1], 'analysing')
end
return 1
"""
# An analysis job that gives its worker up to a turn waiting for it: its decisions judged so far, its progress and
# the job that goes on from there (into the match's outbox), in one step.  KEYS hash, outbox[, outbox index]; ARGV
# progress, decisions judged, now, outbox channel, match id, then op id, op.
CONTINUE_ANALYSIS = """
if redis.call('HEXISTS', KEYS[1], 'analysis') == 0 then return 0 end
redis.call('HSET', KEYS[1], 'analysis', ARGV[1], 'analysing', ARGV[2])
redis.call('HSET', KEYS[2], unpack(ARGV, 6))
local ttl = redis.call('TTL', KEYS[1])
if ttl > 0 then redis.call('EXPIRE', KEYS[2], ttl) end
if KEYS[3] then redis.call('ZADD', KEYS[3], 'NX', ARGV[3], ARGV[5]) end
redis.call('PUBLISH', ARGV[4], ARGV[5])
return 1
"""
