import type { DueAbsence, FiredKind, MatchOutcome, RuleCounters } from '../../domain/rule-decision.js';
import type { ABSENCE_KEYS } from '../../domain/rule-state-keys.js';

/**
 * The rule decisions of domain/rule-decision.ts as Lua scripts, one per state-store method (and one
 * per trigger kind for recordMatch, so that a script touches only the keys it needs), each run
 * atomically by Redis. They are that file's RuleMemory over Redis keys (domain/rule-state-keys.ts
 * lays them out); read its comment for the semantics, and change both together:
 * test/contract/state.contract.test.ts runs the same cases against each.
 *
 * Times are the caller's (ARGV), never the server's clock, so both stores decide alike. Key expiries
 * (PEXPIRE) only collect garbage, set to the same life relative to the caller's time; every decision
 * compares stored times with ARGV `now` instead. Lua numbers are doubles: epoch milliseconds are
 * exact. `ms` writes a number as a whole decimal (Lua's own `tostring` switches to exponents past
 * 14 digits).
 */

/**
 * Shared by the recordMatch scripts. KEYS[1..5]: fired (hash), fired expiry (sorted set), triggers,
 * suppressed, last triggered at. ARGV[1..5]: event id, now, cooldown (ms), snoozed (0|1), fired TTL.
 */
const MATCH_PRELUDE = `
local function ms(x) return string.format('%.0f', x) end
local function number(key) return tonumber(redis.call('GET', key) or '') or 0 end
local function extend(key, ttl)
  if redis.call('PTTL', key) < ttl then redis.call('PEXPIRE', key, ms(ttl)) end
end
local eventId, now, cooldown, snoozed, firedTtl = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4], tonumber(ARGV[5])

-- The trigger this event made before, while its record lasts.
local function again()
  local record = redis.call('HGET', KEYS[1], eventId)
  if not record then return nil end
  local kind, count, suppressed, expires = string.match(record, '^(%a+):(%d+):([01]):(%d+)$')
  if kind and tonumber(expires) > now then return {'again', kind, tonumber(count), tonumber(suppressed)} end
  return nil
end

-- Records the trigger of this event (dropping up to 100 expired records) and, unless a recovery,
-- counts it.
local function fire(kind, count, counts)
  local expires = now + firedTtl
  local expired = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', ms(now), 'LIMIT', 0, 100)
  if #expired > 0 then
    redis.call('HDEL', KEYS[1], unpack(expired))
    redis.call('ZREM', KEYS[2], unpack(expired))
  end
  redis.call('HSET', KEYS[1], eventId, kind .. ':' .. ms(count) .. ':' .. snoozed .. ':' .. ms(expires))
  redis.call('ZADD', KEYS[2], ms(expires), eventId)
  extend(KEYS[1], firedTtl)
  extend(KEYS[2], firedTtl)
  if counts then
    redis.call('INCR', KEYS[3])
    if snoozed == '1' then redis.call('INCR', KEYS[4]) end
    redis.call('SET', KEYS[5], ms(now))
  end
  return {'fired', kind, count, tonumber(snoozed)}
end

local repeated = again()
if repeated then return repeated end
`;

/** recordMatch, `every`. KEYS[6]: the rule's cooldown (its end, epoch ms). */
export const RECORD_EVERY_LUA = `${MATCH_PRELUDE}
if cooldown > 0 then
  if number(KEYS[6]) > now then return {'cooldown'} end
  redis.call('SET', KEYS[6], ms(now + cooldown), 'PX', ms(cooldown))
end
return fire('match', 1, true)`;

/**
 * recordMatch, `threshold`. KEYS[6..9]: the rule's group index (digest by expiry), the group's events,
 * pending events and cooldown. ARGV[6..10]: event time, N, window, group TTL, group digest.
 */
export const RECORD_THRESHOLD_LUA = `${MATCH_PRELUDE}
local t, n, w, groupTtl, digest = tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8]), tonumber(ARGV[9]), ARGV[10]
local groupExpiry = tonumber(redis.call('ZSCORE', KEYS[6], digest) or '')
if not groupExpiry or groupExpiry <= now then redis.call('DEL', KEYS[7], KEYS[8], KEYS[9]) end
if redis.call('ZSCORE', KEYS[7], eventId) then return {'seen'} end
local newest = tonumber(redis.call('ZRANGE', KEYS[7], -1, -1, 'WITHSCORES')[2] or '')
if newest and t <= newest - w then return {'late'} end
if not newest or t > newest then newest = t end
redis.call('ZADD', KEYS[7], ms(t), eventId)
redis.call('ZADD', KEYS[8], ms(t), eventId)
redis.call('ZREMRANGEBYSCORE', KEYS[7], '-inf', ms(newest - 2 * w))
redis.call('ZREMRANGEBYSCORE', KEYS[8], '-inf', ms(newest - 2 * w))
local from, to = '(' .. ms(newest - w), ms(newest)
local inWindow = redis.call('ZCOUNT', KEYS[8], from, to)
local cooldownUntil = number(KEYS[9])
local result
if inWindow < n then
  result = {'counted'}
elseif cooldown > 0 and cooldownUntil > now then
  result = {'cooldown'}
else
  redis.call('ZREMRANGEBYSCORE', KEYS[8], from, to)
  if cooldown > 0 then
    cooldownUntil = now + cooldown
    redis.call('SET', KEYS[9], ms(cooldownUntil))
  end
  result = fire('threshold', inWindow, true)
end
local expiresAt = math.max(now + groupTtl, cooldownUntil)
for i = 7, 9 do redis.call('PEXPIRE', KEYS[i], ms(expiresAt - now)) end
redis.call('ZREMRANGEBYSCORE', KEYS[6], '-inf', ms(now))
redis.call('ZADD', KEYS[6], ms(expiresAt), digest)
extend(KEYS[6], expiresAt - now)
return result`;

/** recordMatch, `absence`. KEYS[6..8]: due, apps, silent. ARGV[6..8]: rule id, app id, window. */
export const RECORD_ABSENCE_LUA = `${MATCH_PRELUDE}
local ruleId, appId, w = ARGV[6], ARGV[7], tonumber(ARGV[8])
redis.call('ZADD', KEYS[6], ms(now + w), ruleId)
redis.call('HSET', KEYS[7], ruleId, appId)
if redis.call('SREM', KEYS[8], ruleId) == 1 then return fire('recovered', 1, false) end
return {'counted'}`;

/** The KEYS of the arm, disarm and claim scripts, in this order (names of ABSENCE_KEYS). */
export const ABSENCE_SCRIPT_KEYS: ReadonlyArray<keyof typeof ABSENCE_KEYS> = ['due', 'claims', 'claimed', 'apps', 'silent'];

/** armAbsence. ARGV: rule id, app id, deadline. */
export const ARM_ABSENCE_LUA = `
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
redis.call('HSET', KEYS[4], ARGV[1], ARGV[2])
redis.call('SREM', KEYS[5], ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('HDEL', KEYS[3], ARGV[1])
return 1`;

/** disarmAbsence. ARGV: rule id. */
export const DISARM_ABSENCE_LUA = `
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('HDEL', KEYS[3], ARGV[1])
redis.call('HDEL', KEYS[4], ARGV[1])
redis.call('SREM', KEYS[5], ARGV[1])
return 1`;

/**
 * claimDueAbsences. ARGV: now, lease, limit. Lapsed claims first, then passed deadlines; a due rule
 * whose earlier claim is still open stays due (it is skipped, so the next range starts after it).
 * Replies {rule id, app id, deadline} per claim.
 */
export const CLAIM_ABSENCES_LUA = `
local function ms(x) return string.format('%.0f', x) end
local now, limit = tonumber(ARGV[1]), tonumber(ARGV[3])
local leaseUntil = ms(now + tonumber(ARGV[2]))
local claims = {}
for _, ruleId in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', ms(now), 'LIMIT', 0, ms(limit))) do
  local deadline = redis.call('HGET', KEYS[3], ruleId)
  if deadline then
    redis.call('ZADD', KEYS[2], leaseUntil, ruleId)
    claims[#claims + 1] = {ruleId, redis.call('HGET', KEYS[4], ruleId) or '', deadline}
  else
    redis.call('ZREM', KEYS[2], ruleId)
  end
end
local skipped = 0
while #claims < limit do
  local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ms(now), 'WITHSCORES', 'LIMIT', skipped, ms(limit - #claims))
  if #due == 0 then break end
  for i = 1, #due, 2 do
    local ruleId, deadline = due[i], due[i + 1]
    if redis.call('HEXISTS', KEYS[3], ruleId) == 1 then
      skipped = skipped + 1
    else
      redis.call('ZREM', KEYS[1], ruleId)
      redis.call('SADD', KEYS[5], ruleId)
      redis.call('HSET', KEYS[3], ruleId, deadline)
      redis.call('ZADD', KEYS[2], leaseUntil, ruleId)
      claims[#claims + 1] = {ruleId, redis.call('HGET', KEYS[4], ruleId) or '', deadline}
    end
  end
end
return claims`;

/**
 * completeAbsence. KEYS: claims, claimed, triggers, suppressed, last triggered at. ARGV: rule id,
 * deadline, suppressed (0|1), now. 1 when this call ended the claim.
 */
export const COMPLETE_ABSENCE_LUA = `
local open = redis.call('HGET', KEYS[2], ARGV[1])
if not open or tonumber(open) ~= tonumber(ARGV[2]) then return 0 end
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('INCR', KEYS[3])
if ARGV[3] == '1' then redis.call('INCR', KEYS[4]) end
redis.call('SET', KEYS[5], ARGV[4])
return 1`;

/**
 * forgetRule. KEYS: triggers, suppressed, last triggered at, cooldown, fired, fired expiry, groups,
 * then the absence keys. ARGV: rule id, the group key head, then the group key suffixes. A group's
 * keys are named from the digests in its index (all in the rule's hash slot).
 */
export const FORGET_RULE_LUA = `
for _, digest in ipairs(redis.call('ZRANGE', KEYS[7], 0, -1)) do
  local head = ARGV[2] .. digest
  redis.call('DEL', head .. ARGV[3], head .. ARGV[4], head .. ARGV[5])
end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7])
redis.call('ZREM', KEYS[8], ARGV[1])
redis.call('ZREM', KEYS[9], ARGV[1])
redis.call('HDEL', KEYS[10], ARGV[1])
redis.call('HDEL', KEYS[11], ARGV[1])
redis.call('SREM', KEYS[12], ARGV[1])
return 1`;

const FIRED_KINDS: ReadonlySet<string> = new Set<FiredKind>(['match', 'threshold', 'recovered']);
const QUIET_OUTCOMES: ReadonlySet<string> = new Set(['cooldown', 'counted', 'seen', 'late']);

/** A recordMatch script's reply as a MatchOutcome; anything else is a bug worth failing loudly on. */
export function matchOutcomeOf(reply: unknown): MatchOutcome {
  if (Array.isArray(reply)) {
    const [outcome, kind, count, suppressed] = reply as unknown[];
    if (reply.length === 1 && typeof outcome === 'string' && QUIET_OUTCOMES.has(outcome)) return { outcome } as MatchOutcome;
    if ((outcome === 'fired' || outcome === 'again') && typeof kind === 'string' && FIRED_KINDS.has(kind) && typeof count === 'number' && (suppressed === 0 || suppressed === 1)) {
      return { outcome, kind: kind as FiredKind, count, suppressed: suppressed === 1 };
    }
  }
  throw new Error(`unexpected answer from the match script: ${JSON.stringify(reply)}`);
}

/** The claim script's reply as DueAbsences. */
export function dueAbsencesOf(reply: unknown): DueAbsence[] {
  if (!Array.isArray(reply)) throw new Error(`unexpected answer from the claim script: ${JSON.stringify(reply)}`);
  return reply.map((claim: unknown) => {
    const [ruleId, appId, deadline] = Array.isArray(claim) ? (claim as unknown[]) : [];
    const deadlineMs = Number(deadline);
    if (typeof ruleId !== 'string' || typeof appId !== 'string' || typeof deadline !== 'string' || !Number.isSafeInteger(deadlineMs)) {
      throw new Error(`unexpected claim from the claim script: ${JSON.stringify(claim)}`);
    }
    return { ruleId, appId, deadlineMs };
  });
}

/** A rule's counter keys' values (triggers, suppressed, last triggered at) as RuleCounters. */
export function ruleCountersOf([triggers, suppressed, last]: ReadonlyArray<string | null | undefined>): RuleCounters {
  const whole = (value: string | null | undefined) => {
    const n = Number(value ?? 0);
    return Number.isSafeInteger(n) && n > 0 ? n : 0;
  };
  const lastMs = whole(last);
  return { triggerCount: whole(triggers), suppressedCount: whole(suppressed), lastTriggeredAtMs: lastMs > 0 ? lastMs : null };
}
