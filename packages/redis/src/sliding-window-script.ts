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
  redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', earliest - 2 * tonumber(ARGV[scopeArgs + 2 * i]))
end
local recorded = 0
local reply = {}
for j = 1, consumes do
  local now = clockNow or tonumber(ARGV[3 + j])
  local member = prefix .. ':' .. j
  local admitted = 1
  local retry = 0
  local counts = {}
  for i = 1, count do
    local key = KEYS[i]
    local limit = tonumber(ARGV[scopeArgs + 2 * i - 1])
    local window = tonumber(ARGV[scopeArgs + 2 * i])
    counts[i] = redis.call('ZCOUNT', key, '(' .. (now - window), '+inf')
    if counts[i] >= limit then
      admitted = 0
      local nth = redis.call('ZREVRANGE', key, limit - 1, limit - 1, 'WITHSCORES')
      local wait = tonumber(nth[2]) + window - now
      if wait > retry then retry = wait end
    end
  end
  if admitted == 1 then
    for i = 1, count do
      local key = KEYS[i]
      local window = tonumber(ARGV[scopeArgs + 2 * i])
      local at = now
      local newest = redis.call('ZREVRANGE', key, 0, 0, 'WITHSCORES')
      if newest[2] and tonumber(newest[2]) > at then at = tonumber(newest[2]) end
      redis.call('ZADD', key, at, member)
    end
    recorded = 1
  end
  reply[#reply + 1] = admitted
  reply[#reply + 1] = retry
  for i = 1, count do
    local key = KEYS[i]
    local limit = tonumber(ARGV[scopeArgs + 2 * i - 1])
    local window = tonumber(ARGV[scopeArgs + 2 * i])
    -- What the window held before, and this request if it was recorded (at now or later).
    local held = counts[i] + admitted
    local reset = 0
    if held > 0 then
      local next
      if held < limit then
        next = redis.call('ZRANGEBYSCORE', key, '(' .. (now - window), '+inf', 'WITHSCORES', 'LIMIT', 0, 1)
      else
        next = redis.call('ZREVRANGE', key, limit - 1, limit - 1, 'WITHSCORES')
      end
      reset = tonumber(next[2]) + window - now
    end
    reply[#reply + 1] = held
    reply[#reply + 1] = reset
  end
end
if recorded == 1 then
  for i = 1, count do
    redis.call('PEXPIRE', KEYS[i], 2 * tonumber(ARGV[scopeArgs + 2 * i]) + 60000)
  end
end
return reply
`;

/** The SHA-1 that EVALSHA names the script by. */
export const SLIDING_WINDOW_SHA = createHash('sha1').update(SLIDING_WINDOW_SCRIPT).digest('hex');
