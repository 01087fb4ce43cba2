import { createHash } from 'node:crypto';

/**
 * The exact sliding window over several scopes, as one Lua script: Redis runs it atomically, so
 * no other consume interleaves between the checks and the writes.
 *
 * Each scope is a sorted set of the times of its admitted requests (score: time in ms; member:
 * unique per request). The script checks every scope first and only then, when all admit,
 * records the request in each: a refusal writes nothing. What no request can count any more
 * (older than two windows) is trimmed; the one extra window is kept for callers whose `now`
 * lags by up to a window, as the in-process limiter keeps it. A time older than the newest of a
 * scope is recorded as its newest, which errs towards refusing, again as in process.
 *
 * One call decides several consumes of the same scopes, one after the other, exactly as if each
 * had been a call of its own: the consumes one instance makes in one turn of its event loop go
 * to Redis together.
 *
 * KEYS: one sorted set per scope. ARGV: the clock (`redis` for Redis's own TIME, `caller` for
 * the callers' times), the number of consumes R, a member prefix (unique per call; the member of
 * the j-th consume is prefix:j), the R callers' nows, then a limit and a window per scope. Reply,
 * per consume in order: admitted (1 or 0), the wait in ms until every full scope admits one
 * more, then per scope the requests in its window and the ms until it admits one more (0 when
 * empty).
 */
export const SLIDING_WINDOW_SCRIPT = `
local count = #KEYS
local consumes = tonumber(ARGV[2])
local prefix = ARGV[3]
local scopeArgs = 3 + consumes
local limits, windows = {}, {}
for i = 1, count do
  limits[i] = tonumber(ARGV[scopeArgs + 2 * i - 1])
  windows[i] = tonumber(ARGV[scopeArgs + 2 * i])
end
local clockNow
if ARGV[1] == 'redis' then
  local time = redis.call('TIME')
  clockNow = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end
-- Trimmed once per call, from the earliest now of its consumes: only what none of them can count.
local earliest = clockNow
if not earliest then
  earliest = tonumber(ARGV[4])
  for j = 2, consumes do earliest = math.min(earliest, tonumber(ARGV[3 + j])) end
end
for i = 1, count do
  redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', earliest - 2 * windows[i])
end
-- What the call knows of each scope, so that consumes at the same now (all of them on Redis's
-- clock) do not read it again: the count in the window of windowNow, the oldest time in that
-- window (nil: not read yet), and the newest time of the set (nil: not read yet; false: empty).
-- The call's own ZADDs keep them exact: a member is added at now or later, so it is in the
-- window, and it is the newest, never the oldest of a window that held anything.
local windowNow, inWindow, oldest, newest = {}, {}, {}, {}
local recorded = 0
local reply = {}
for j = 1, consumes do
  local now = clockNow or tonumber(ARGV[3 + j])
  local member = prefix .. ':' .. j
  local admitted = 1
  local retry = 0
  local counts = {}
  for i = 1, count do
    if windowNow[i] ~= now then
      windowNow[i] = now
      inWindow[i] = redis.call('ZCOUNT', KEYS[i], '(' .. (now - windows[i]), '+inf')
      oldest[i] = nil
    end
    counts[i] = inWindow[i]
    if counts[i] >= limits[i] then
      admitted = 0
      local nth = redis.call('ZREVRANGE', KEYS[i], limits[i] - 1, limits[i] - 1, 'WITHSCORES')
      local wait = tonumber(nth[2]) + windows[i] - now
      if wait > retry then retry = wait end
    end
  end
  if admitted == 1 then
    for i = 1, count do
      if newest[i] == nil then
        local last = redis.call('ZREVRANGE', KEYS[i], 0, 0, 'WITHSCORES')
        newest[i] = last[2] and tonumber(last[2]) or false
      end
      local at = now
      if newest[i] and newest[i] > at then at = newest[i] end
      redis.call('ZADD', KEYS[i], at, member)
      newest[i] = at
      inWindow[i] = inWindow[i] + 1
    end
    recorded = 1
  end
  reply[#reply + 1] = admitted
  reply[#reply + 1] = retry
  for i = 1, count do
    -- What the window held before, and this request if it was recorded (at now or later).
    local held = counts[i] + admitted
    local reset = 0
    if held > 0 then
      if held < limits[i] then
        if oldest[i] == nil then
          local first = redis.call('ZRANGEBYSCORE', KEYS[i], '(' .. (now - windows[i]), '+inf', 'WITHSCORES', 'LIMIT', 0, 1)
          oldest[i] = tonumber(first[2])
        end
        reset = oldest[i] + windows[i] - now
      else
        local nth = redis.call('ZREVRANGE', KEYS[i], limits[i] - 1, limits[i] - 1, 'WITHSCORES')
        reset = tonumber(nth[2]) + windows[i] - now
      end
    end
    reply[#reply + 1] = held
    reply[#reply + 1] = reset
  end
end
if recorded == 1 then
  for i = 1, count do
    redis.call('PEXPIRE', KEYS[i], 2 * windows[i] + 60000)
  end
end
return reply
`;

/** The SHA-1 that EVALSHA names the script by. */
export const SLIDING_WINDOW_SHA = createHash('sha1').update(SLIDING_WINDOW_SCRIPT).digest('hex');
