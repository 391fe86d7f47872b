import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { Redis, type RedisOptions } from 'ioredis';
import type { Logger } from '../../observability/logger.js';
import type { DueAbsence, KeyBound, MatchOutcome, MatchRecord, MessageHandler, RuleCounters, StateStore } from '../../ports/state-store.js';
import { checkMatchRecord, checkWholeMs, firedRecordTtlMs, groupTtlMs } from '../../domain/rule-decision.js';
import { ABSENCE_KEYS, GROUP_KEY_SUFFIXES, ruleStatKeys } from '../../domain/rule-state-keys.js';
import {
  ABSENCE_SCRIPT_KEYS,
  ARM_ABSENCE_LUA,
  CLAIM_ABSENCES_LUA,
  COMPLETE_ABSENCE_LUA,
  DISARM_ABSENCE_LUA,
  FORGET_RULE_LUA,
  RECORD_ABSENCE_LUA,
  RECORD_EVERY_LUA,
  RECORD_THRESHOLD_LUA,
  dueAbsencesOf,
  matchOutcomeOf,
  ruleCountersOf,
} from './rule-scripts.js';

/**
 * StateStore.setIfAbsentBounded as one script. The scope is a sorted set of its keys scored by the
 * server's clock, in microseconds, when each was set (one clock for every process). Scores strictly
 * increase: keys set in the same tick would otherwise tie, and ties sort by name, not by age.
 * KEYS: the key, the scope; ARGV: value, TTL, max, window (ms).
 */
const SET_IF_ABSENT_BOUNDED_LUA = `
if not redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2], 'NX') then return 0 end
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000000 + tonumber(time[2])
local newest = redis.call('ZREVRANGE', KEYS[2], 0, 0, 'WITHSCORES')[2]
if newest and tonumber(newest) >= now then now = tonumber(newest) + 1 end
local window = tonumber(ARGV[4])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - window * 1000)
redis.call('ZADD', KEYS[2], now, KEYS[1])
local excess = redis.call('ZCARD', KEYS[2]) - tonumber(ARGV[3])
if excess > 0 then
  local oldest = redis.call('ZRANGE', KEYS[2], 0, excess - 1)
  redis.call('ZREMRANGEBYRANK', KEYS[2], 0, excess - 1)
  redis.call('DEL', unpack(oldest))
end
redis.call('PEXPIRE', KEYS[2], window)
return 1`;

/**
 * StateStore.markPresent and presentMembers: a sorted set of the members scored by the server's clock,
 * in milliseconds, when each one's presence runs out. KEYS: the group; ARGV: member, TTL (ms); and
 * KEYS: the group.
 */
const MARK_PRESENT_LUA = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if tonumber(ARGV[2]) > 0 then
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
  local latest = redis.call('ZREVRANGE', KEYS[1], 0, 0, 'WITHSCORES')[2]
  redis.call('PEXPIREAT', KEYS[1], tonumber(latest))
else
  redis.call('ZREM', KEYS[1], ARGV[1])
end
return 1`;
const PRESENT_MEMBERS_LUA = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
return redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. now, '+inf')`;

/**
 * Distributed mode's state, shared by every process through Redis.
 *
 * Failure behaviour is the point of most of the options below. ioredis by default queues commands
 * while disconnected and retries each one up to 20 reconnects, so a call made during an outage hangs
 * for a long time and may then run long after its caller gave up. Here a call either runs on a live
 * connection or fails within `timeoutMs`, and nothing is ever replayed behind the caller's back:
 *
 * - `enableOfflineQueue: false`: a command is written only to a ready connection. Instead of ioredis's
 *   queue, each call first waits (bounded) for the connection to be ready, so a call made while the
 *   client is still connecting at start-up, or reconnecting after a blip, still succeeds.
 * - `maxRetriesPerRequest: 0`: when the connection drops, commands already sent are rejected at once
 *   rather than resent on the next connection. An INCRBY whose reply was lost may or may not have run;
 *   resending it silently could count twice, rejecting it lets the caller decide.
 * - `commandTimeout`: a connection that is up but does not answer (a stalled server, a black-holed
 *   route) fails the command after `timeoutMs`. The command may still run later on the server; that is
 *   the usual uncertainty of a timeout and the reason callers treat a failure as "unknown".
 * - `retryStrategy` never gives up: the client keeps reconnecting (every second at most) so that the
 *   process recovers by itself when Redis returns, with no restart.
 * - `enableAutoPipelining`: the commands issued within one turn of the event loop go out in one socket
 *   write. Every ingest request reads cache versions (see services/versioned-cache.ts); with one write
 *   per command, those system calls were the largest single cost of a single-event request
 *   (bench/NOTES.md). Each command is still its own command, sent after its caller asked: a version read
 *   never answers from before the request arrived.
 */

export interface RedisStateStoreOptions {
  /** redis://[user:password@]host:port[/db] or rediss:// for TLS. */
  readonly url: string;
  /**
   * Prepended to every key and channel, so that several deployments (or test runs) can share one
   * Redis without seeing each other's state.
   */
  readonly keyPrefix?: string;
  /** Longest a call waits for a connection, and then for the reply (default 2000 ms). */
  readonly timeoutMs?: number;
  /** Receives connection loss and recovery (once per outage, not once per reconnect attempt). */
  readonly logger?: Pick<Logger, 'warn' | 'info'>;
}

/** Reconnect delay: quick for a blip, then once a second, forever. */
const reconnectDelay = (attempt: number): number => Math.min(attempt * 100, 1000);

/**
 * The fail-fast client options explained above, with `timeoutMs` for connecting and for each reply.
 * Shared by every ioredis client of the service (the rate limiter's too), so they fail alike.
 */
export function failFastRedisOptions(timeoutMs: number, lazyConnect: boolean): RedisOptions {
  return {
    lazyConnect,
    connectTimeout: timeoutMs,
    commandTimeout: timeoutMs,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    retryStrategy: reconnectDelay,
    enableAutoPipelining: true,
  };
}

export class RedisStateStore implements StateStore {
  readonly #client: Redis;
  readonly #prefix: string;
  readonly #timeoutMs: number;
  readonly #logger: Pick<Logger, 'warn' | 'info'> | undefined;
  /** The connection used in subscriber mode (Redis allows nothing else on it); opened on first subscribe. */
  #subscriber: Redis | undefined;
  /** Per full channel name: this process's handlers and the SUBSCRIBE that made the channel active. */
  readonly #channels = new Map<string, { handlers: Set<MessageHandler>; active: Promise<void> }>();
  /** The wait for 'ready' in progress per connection, if any. */
  readonly #connecting = new Map<Redis, Promise<void>>();
  /** Per connection that is down: when it failed first (Date.now()), until it is ready again. */
  readonly #downSince = new Map<Redis, number>();
  #closed = false;

  constructor(options: RedisStateStoreOptions) {
    this.#prefix = options.keyPrefix ?? '';
    this.#timeoutMs = options.timeoutMs ?? 2000;
    this.#logger = options.logger;
    this.#client = this.#watch(
      new Redis(options.url, failFastRedisOptions(this.#timeoutMs, true)),
      'commands',
    );
  }

  increment(key: string, by = 1): Promise<number> {
    return this.#command((client) => client.incrby(this.#key(key), by));
  }

  get(key: string): Promise<string | null> {
    return this.#command((client) => client.get(this.#key(key)));
  }

  getMany(keys: readonly string[]): Promise<Array<string | null>> {
    // MGET with no key is a Redis error, not an empty answer.
    if (keys.length === 0) return Promise.resolve([]);
    return this.#command((client) => client.mget(keys.map((key) => this.#key(key))));
  }

  async set(key: string, value: string, ttlMs?: number): Promise<void> {
    await this.#command((client) =>
      ttlMs === undefined ? client.set(this.#key(key), value) : client.set(this.#key(key), value, 'PX', ttlMs),
    );
  }

  /**
   * The rule scripts (rule-scripts.ts) go out with EVAL, not EVALSHA: ioredis answers a NOSCRIPT (a
   * restarted or failed-over Redis) by resending the script after the calls already sent behind it,
   * which would apply one rule's matches out of order. Redis caches a script's compiled body, so EVAL
   * costs only the bytes of the script.
   */
  async recordMatch(r: MatchRecord): Promise<MatchOutcome> {
    checkMatchRecord(r);
    const k = ruleStatKeys(r.ruleId);
    const keys = [k.fired, k.firedExpiry, k.triggers, k.suppressed, k.lastTriggeredAt];
    const args: Array<string | number> = [r.eventId, r.nowMs, r.cooldownMs, r.snoozed ? 1 : 0, firedRecordTtlMs(r.trigger)];
    let script: string;
    switch (r.trigger.type) {
      case 'every':
        script = RECORD_EVERY_LUA;
        keys.push(k.cooldown);
        break;
      case 'threshold': {
        script = RECORD_THRESHOLD_LUA;
        // The group value is event text of any length: its digest names the keys.
        const digest = createHash('sha1').update(r.group, 'utf8').digest('hex');
        const group = k.group(digest);
        keys.push(k.groups, group.events, group.pending, group.cooldown);
        args.push(r.eventTimeMs, r.trigger.count, r.trigger.windowMs, groupTtlMs(r.trigger.windowMs), digest);
        break;
      }
      case 'absence':
        script = RECORD_ABSENCE_LUA;
        keys.push(ABSENCE_KEYS.due, ABSENCE_KEYS.apps, ABSENCE_KEYS.silent);
        args.push(r.ruleId, r.appId, r.trigger.windowMs);
        break;
    }
    return matchOutcomeOf(await this.#eval(script, keys, args));
  }

  async armAbsence(ruleId: string, appId: string, deadlineMs: number): Promise<void> {
    checkWholeMs('deadlineMs', deadlineMs);
    await this.#eval(ARM_ABSENCE_LUA, this.#absenceKeys(), [ruleId, appId, deadlineMs]);
  }

  async disarmAbsence(ruleId: string): Promise<void> {
    await this.#eval(DISARM_ABSENCE_LUA, this.#absenceKeys(), [ruleId]);
  }

  async claimDueAbsences(nowMs: number, leaseMs: number, limit: number): Promise<DueAbsence[]> {
    checkWholeMs('nowMs', nowMs);
    checkWholeMs('leaseMs', leaseMs);
    if (limit < 1) return [];
    return dueAbsencesOf(await this.#eval(CLAIM_ABSENCES_LUA, this.#absenceKeys(), [nowMs, leaseMs, Math.floor(limit)]));
  }

  async completeAbsence(claim: DueAbsence, suppressed: boolean, nowMs: number): Promise<boolean> {
    checkWholeMs('nowMs', nowMs);
    const k = ruleStatKeys(claim.ruleId);
    const keys = [ABSENCE_KEYS.claims, ABSENCE_KEYS.claimed, k.triggers, k.suppressed, k.lastTriggeredAt];
    return (await this.#eval(COMPLETE_ABSENCE_LUA, keys, [claim.ruleId, claim.deadlineMs, suppressed ? 1 : 0, nowMs])) === 1;
  }

  async ruleCounters(ruleIds: readonly string[]): Promise<RuleCounters[]> {
    // One MGET per rule (a rule's keys share a hash slot), all in one write thanks to auto-pipelining.
    const values = await Promise.all(
      ruleIds.map((id) => {
        const k = ruleStatKeys(id);
        return this.#command((client) => client.mget(this.#key(k.triggers), this.#key(k.suppressed), this.#key(k.lastTriggeredAt)));
      }),
    );
    return values.map(ruleCountersOf);
  }

  async forgetRule(ruleId: string): Promise<void> {
    const k = ruleStatKeys(ruleId);
    const keys = [k.triggers, k.suppressed, k.lastTriggeredAt, k.cooldown, k.fired, k.firedExpiry, k.groups, ...ABSENCE_SCRIPT_KEYS.map((name) => ABSENCE_KEYS[name])];
    const { events, pending, cooldown } = GROUP_KEY_SUFFIXES;
    await this.#eval(FORGET_RULE_LUA, keys, [ruleId, this.#key(k.groupKeyHead), events, pending, cooldown]);
  }

  async setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean> {
    // One command, so the check and the write are atomic on the server: exactly one caller wins.
    return (await this.#command((client) => client.set(this.#key(key), value, 'PX', ttlMs, 'NX'))) === 'OK';
  }

  async setIfAbsentBounded(key: string, value: string, ttlMs: number, bound: KeyBound): Promise<boolean> {
    const keys = [this.#key(key), this.#key(`${bound.scope}:keys`)];
    const set = await this.#command((client) => client.eval(SET_IF_ABSENT_BOUNDED_LUA, 2, ...keys, value, ttlMs, bound.max, bound.windowMs));
    return set === 1;
  }

  async delete(key: string): Promise<void> {
    await this.#command((client) => client.del(this.#key(key)));
  }

  async markPresent(group: string, member: string, ttlMs: number): Promise<void> {
    await this.#eval(MARK_PRESENT_LUA, [group], [member, Math.max(0, Math.ceil(ttlMs))]);
  }

  async presentMembers(group: string): Promise<string[]> {
    return (await this.#eval(PRESENT_MEMBERS_LUA, [group], [])) as string[];
  }

  async publish(channel: string, message: string): Promise<void> {
    await this.#command((client) => client.publish(this.#key(channel), message));
  }

  async subscribe(channel: string, handler: MessageHandler): Promise<() => Promise<void>> {
    const name = this.#key(channel);
    let entry = this.#channels.get(name);
    if (!entry) {
      // The first local subscriber of a channel sends SUBSCRIBE; later ones wait for the same reply.
      const created = { handlers: new Set<MessageHandler>(), active: this.#subscribeOnServer(name) };
      created.active.catch(() => {
        // Forget a channel whose SUBSCRIBE failed, so that the next subscribe() tries again.
        if (this.#channels.get(name) === created) this.#channels.delete(name);
      });
      this.#channels.set(name, created);
      entry = created;
    }
    // A wrapper per call: the same function subscribed twice is two subscriptions.
    const own: MessageHandler = (message) => handler(message);
    entry.handlers.add(own);
    try {
      await entry.active;
    } catch (error) {
      entry.handlers.delete(own);
      throw error;
    }
    const subscribed = entry;
    return async () => {
      if (!subscribed.handlers.delete(own) || subscribed.handlers.size > 0) return;
      if (this.#channels.get(name) === subscribed) this.#channels.delete(name);
      // Delivery has stopped already (no handler left). If UNSUBSCRIBE cannot be sent now, the
      // channel stays subscribed on the server and its messages are dropped here, which is harmless.
      try {
        await this.#subscriber?.unsubscribe(name);
      } catch (error) {
        this.#logger?.warn({ err: error, channel: name }, 'redis unsubscribe failed; messages are ignored instead');
      }
    };
  }

  async ping(): Promise<void> {
    await this.#command((client) => client.ping());
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#channels.clear();
    await Promise.all([this.#client, this.#subscriber].filter((c): c is Redis => c !== undefined).map(quit));
  }

  #key(name: string): string {
    return this.#prefix + name;
  }

  #absenceKeys(): string[] {
    return ABSENCE_SCRIPT_KEYS.map((name) => ABSENCE_KEYS[name]);
  }

  /** Runs a script on the (prefixed) keys. */
  #eval(script: string, keys: readonly string[], args: ReadonlyArray<string | number>): Promise<unknown> {
    return this.#command((client) => client.eval(script, keys.length, ...keys.map((key) => this.#key(key)), ...args));
  }

  /**
   * Runs one command on a ready connection. Errors Redis itself replied with (a wrong type, a value
   * that is not an integer) pass through; every other failure means the answer did not arrive and is
   * reported as "Redis unavailable", whatever ioredis called it.
   */
  async #command<T>(run: (client: Redis) => Promise<T>): Promise<T> {
    const client = await this.#ready(this.#client);
    try {
      return await run(client);
    } catch (error) {
      if (error instanceof Error && error.name === 'ReplyError') throw error;
      throw unavailable(error);
    }
  }

  async #subscribeOnServer(name: string): Promise<void> {
    this.#subscriber ??= this.#watch(this.#client.duplicate(), 'subscriber').on('message', (channel: string, message: string) =>
      this.#deliver(channel, message),
    );
    const subscriber = await this.#ready(this.#subscriber);
    // Resolves when Redis confirms the subscription; after a reconnect ioredis subscribes again by
    // itself (autoResubscribe), though messages published while disconnected are lost (at-most-once).
    try {
      await subscriber.subscribe(name);
    } catch (error) {
      throw unavailable(error);
    }
  }

  #deliver(channel: string, message: string): void {
    const entry = this.#channels.get(channel);
    if (!entry) return;
    for (const handler of [...entry.handlers]) {
      try {
        handler(message);
      } catch (error) {
        // One failing handler must not keep the message from the others or break the connection.
        this.#logger?.warn({ err: error, channel }, 'redis message handler threw');
      }
    }
  }

  /**
   * Waits until the connection is ready, at most `timeoutMs`; fails at once on a connection error, so
   * a call during an outage fails fast rather than waiting out the timeout. A connection down for
   * longer than `timeoutMs` is an outage, not a blip: a call then fails at once instead of waiting for
   * the next reconnect attempt to fail (up to a second each, which made every request that reads a
   * cache version wait that long while Redis was down).
   */
  async #ready(client: Redis): Promise<Redis> {
    if (this.#closed) throw new Error('state store is closed');
    if (client.status === 'ready') return client;
    const downSince = this.#downSince.get(client);
    if (downSince !== undefined && Date.now() - downSince >= this.#timeoutMs) {
      throw new Error(`Redis unavailable: down for ${Math.round((Date.now() - downSince) / 1000)} s, reconnecting`);
    }
    let connecting = this.#connecting.get(client);
    if (!connecting) {
      // A lazy client connects on first use; failures reach the `once` below as an 'error' event.
      if (client.status === 'wait') client.connect().catch(() => undefined);
      // One wait shared by every call that arrives meanwhile (a burst must not add a listener each).
      connecting = once(client, 'ready', { signal: AbortSignal.timeout(this.#timeoutMs) })
        .then(() => undefined)
        .finally(() => this.#connecting.delete(client));
      this.#connecting.set(client, connecting);
    }
    try {
      await connecting;
    } catch (error) {
      throw error instanceof Error && error.name === 'AbortError'
        ? new Error(`Redis unavailable: not connected within ${this.#timeoutMs} ms`, { cause: error })
        : unavailable(error);
    }
    return client;
  }

  /** Attaches the listeners every connection needs: without an 'error' listener ioredis prints to stderr. */
  #watch(client: Redis, role: string): Redis {
    let healthy = true;
    client.on('error', (error: Error) => {
      if (!healthy) return;
      healthy = false;
      this.#downSince.set(client, Date.now());
      this.#logger?.warn({ err: error, role }, 'redis connection lost; reconnecting');
    });
    client.on('ready', () => {
      this.#downSince.delete(client);
      if (healthy) return;
      healthy = true;
      this.#logger?.info({ role }, 'redis connection restored');
    });
    return client;
  }
}

function unavailable(error: unknown): Error {
  const reason =
    error instanceof Error && error.name === 'MaxRetriesPerRequestError'
      ? 'connection lost before the reply'
      : error instanceof Error
        ? error.message
        : String(error);
  return new Error(`Redis unavailable: ${reason}`, { cause: error });
}

/** QUIT lets replies in flight arrive; a connection that is not up is simply dropped. */
async function quit(client: Redis): Promise<void> {
  if (client.status === 'ready') {
    try {
      await client.quit();
      return;
    } catch {
      // Fall through: the connection is going away either way.
    }
  }
  client.disconnect();
}
