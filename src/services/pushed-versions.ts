import { randomUUID } from 'node:crypto';
import type { StateStore } from '../ports/state-store.js';
import type { Logger } from '../observability/logger.js';
import { VersionReads, type CacheVersions } from './versioned-cache.js';
import type { Awaitable } from '../lib/awaitable.js';

/** The channel that carries bumps, their acknowledgements and every process's heartbeats. */
export const VERSIONS_CHANNEL = 'cache-versions';
/** Counts bumps; every bump's message carries its number, so that a process can tell it missed one. */
export const BUMP_EPOCH_KEY = 'cache-versions:epoch';

/** The processes that may trust their copies: a bump waits for each one's acknowledgement. */
export const MEMBERS_GROUP = 'cache-versions:members';

/**
 * How long a heartbeat marks its process present. Far longer than its trust lasts, so that the store's
 * clock and this process's need not agree; a process that died is waited out (TRUST_MS) for this long.
 */
const PRESENCE_MS = 5_000;
/** Heartbeats remembered while none comes back: the last few seconds' worth. */
const MAX_BEATS_AWAITED = 40;
/** How often a process publishes its heartbeat. */
const HEARTBEAT_INTERVAL_MS = 250;
/**
 * How long a heartbeat that came back keeps the process's copies of the versions trusted, counted from
 * when it was sent. A bump waits this long (and a little more) for a process that does not acknowledge.
 */
const TRUST_MS = 1_000;
/** Covers the two clocks' rates and the timer's lateness in the bump's wait. */
const TRUST_MARGIN_MS = 100;

type Message =
  | { readonly type: 'bump'; readonly key: string; readonly version: string; readonly epoch: number; readonly nonce: string }
  | { readonly type: 'ack'; readonly nonce: string; readonly from: string }
  | { readonly type: 'beat'; readonly from: string; readonly seq: number; readonly epoch: number };

/**
 * Cache versions pushed to every process, so that a process answers `read` from memory instead of a
 * state-store round trip per turn (distributed mode; the versions live in Redis).
 *
 * - A bump increments the version and the bump epoch, publishes both, and resolves once every process
 *   marked present acknowledged it, or, failing that, once the trust of any process that did not has
 *   run out (below). A process marks itself present (StateStore.markPresent) before each heartbeat,
 *   so every process that may trust its copies is among those waited on. So when a revoking request
 *   is answered, every process has either seen the new version or stopped trusting its copies: the
 *   guarantee of the version read per request, without the read.
 * - Pub/sub drops messages while a subscriber is disconnected. So a process trusts its copies only for
 *   TRUST_MS after sending a heartbeat that came back through its own subscription. A heartbeat carries
 *   the bump epoch read just before it was published; if the process has not seen every bump up to
 *   that epoch, it missed one, and it drops its copies before trusting again. An epoch lower than
 *   the one seen (a Redis that restarted empty) drops them too.
 * - While not trusted (starting, Redis unreachable, a subscription lost), `read` falls back to the
 *   shared version reads (VersionReads), as before; their answers become the copies once trusted.
 *
 * The argument, for a bump published at time T: a heartbeat published after T reaches the process's
 * subscription after the bump does (Redis delivers a subscriber's messages in the order they were
 * published), so the bump is applied before that heartbeat renews trust; one published before T
 * renews trust only until before T + TRUST_MS, which the bump waits for. A lost bump is caught by the
 * first heartbeat whose epoch was read after it.
 */
export class PushedVersions implements CacheVersions {
  readonly #state: StateStore;
  readonly #logger: Pick<Logger, 'warn'>;
  readonly #fallback: VersionReads;
  readonly #id = randomUUID();
  /** The versions this process trusts while `#trustedUntil` lasts. */
  #copies = new Map<string, string | null>();
  /** Changes whenever the copies are dropped, so that a read sent before cannot refill them. */
  #generation = 0;
  #trustedUntil = 0;
  /** Every bump epoch up to this one was seen (or the copies were dropped since). */
  #seenThrough = 0;
  /** Bump epochs seen past `#seenThrough`. */
  readonly #seenAhead = new Set<number>();
  /** Heartbeats sent and not yet back: their sequence number and when each was sent. */
  readonly #beats = new Map<number, number>();
  #nextBeat = 0;
  /** Bumps this process waits on: what to call on each acknowledgement, with the process that sent it. */
  readonly #awaited = new Map<string, (from: string) => void>();
  #started: Promise<void> | undefined;
  #timer: NodeJS.Timeout | undefined;
  #unsubscribe: (() => Promise<void>) | undefined;
  #closed = false;

  constructor(state: StateStore, logger: Pick<Logger, 'warn'>) {
    this.#state = state;
    this.#logger = logger;
    this.#fallback = new VersionReads(state);
  }

  /** The trusted copy, at once, while trust lasts; else a read of the state store. */
  read(key: string): Awaitable<string | null> {
    this.#start();
    if (performance.now() < this.#trustedUntil) {
      const copy = this.#copies.get(key);
      if (copy !== undefined) return copy;
    }
    return this.#readThrough(key);
  }

  async bump(key: string): Promise<void> {
    await this.#startOrThrow();
    const version = await this.#state.increment(key);
    const epoch = await this.#state.increment(BUMP_EPOCH_KEY);
    // Read after the epoch moved: a process not yet present then finds the bump in its first heartbeat.
    const members = new Set(await this.#state.presentMembers(MEMBERS_GROUP));
    const nonce = randomUUID();
    let done!: () => void;
    const acknowledged = new Promise<void>((resolve) => (done = resolve));
    // With no process present, none trusts a copy: nobody to wait for.
    if (members.size === 0) done();
    this.#awaited.set(nonce, (from) => {
      members.delete(from);
      if (members.size === 0) done();
    });
    let timer: NodeJS.Timeout | undefined;
    // Counted from the publish's answer: until then a process's trust from an earlier heartbeat may last.
    const waitedOut = (): Promise<void> => new Promise<void>((resolve) => (timer = setTimeout(resolve, TRUST_MS + TRUST_MARGIN_MS)));
    try {
      await this.#state.publish(VERSIONS_CHANNEL, JSON.stringify({ type: 'bump', key, version: String(version), epoch, nonce } satisfies Message));
      await Promise.race([acknowledged, waitedOut()]);
    } catch (err) {
      // The epoch moved: every process finds the bump missing at its next heartbeat, or stops trusting.
      this.#logger.warn({ err }, 'could not announce a cache version bump; waiting for every process to notice it');
      await waitedOut();
    } finally {
      clearTimeout(timer);
      this.#awaited.delete(nonce);
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#timer);
    this.#trustedUntil = 0;
    if (!this.#unsubscribe) return;
    await Promise.allSettled([this.#unsubscribe(), this.#state.markPresent(MEMBERS_GROUP, this.#id, 0)]);
  }

  /** Subscribes (once; again after a failure) and starts the heartbeat. Never throws. */
  #start(): void {
    if (this.#closed) return;
    this.#started ??= this.#subscribe().catch((err: unknown) => {
      this.#started = undefined;
      this.#logger.warn({ err }, 'cache versions are read from the state store: could not subscribe to their bumps');
    });
  }

  async #startOrThrow(): Promise<void> {
    this.#start();
    await this.#started;
    if (!this.#unsubscribe) throw new Error('cache versions: not subscribed to their bumps');
  }

  async #subscribe(): Promise<void> {
    this.#unsubscribe = await this.#state.subscribe(VERSIONS_CHANNEL, (message) => this.#receive(message));
    // Bumps before this epoch are in the versions read from now on; later ones arrive as messages.
    this.#seenThrough = Number((await this.#state.get(BUMP_EPOCH_KEY)) ?? 0);
    this.#timer = setInterval(() => this.#beat(), HEARTBEAT_INTERVAL_MS);
    this.#timer.unref();
    this.#beat();
  }

  #beat(): void {
    const seq = this.#nextBeat++;
    const sentAt = performance.now();
    this.#beats.set(seq, sentAt);
    // Heartbeats published but never heard (a subscription down while commands pass) are not kept forever.
    if (this.#beats.size > MAX_BEATS_AWAITED) this.#beats.delete(this.#beats.keys().next().value!);
    // Present before trusted: a bump waits on every present process. A heartbeat that never comes
    // back is forgotten with the later ones that do.
    this.#state
      .markPresent(MEMBERS_GROUP, this.#id, PRESENCE_MS)
      .then(() => this.#state.get(BUMP_EPOCH_KEY))
      .then((epoch) => this.#state.publish(VERSIONS_CHANNEL, JSON.stringify({ type: 'beat', from: this.#id, seq, epoch: Number(epoch ?? 0) } satisfies Message)))
      .catch(() => this.#beats.delete(seq));
  }

  #receive(raw: string): void {
    let message: Message;
    try {
      message = JSON.parse(raw) as Message;
    } catch {
      return;
    }
    if (message.type === 'bump') {
      this.#saw(message.epoch);
      this.#keep(message.key, message.version, true);
      this.#state.publish(VERSIONS_CHANNEL, JSON.stringify({ type: 'ack', nonce: message.nonce, from: this.#id } satisfies Message)).catch(() => undefined);
    } else if (message.type === 'ack') {
      this.#awaited.get(message.nonce)?.(message.from);
    } else if (message.from === this.#id) {
      this.#heard(message.seq, message.epoch);
    }
  }

  /** One of this process's heartbeats came back: trust the copies from its sending time on, unless a bump is missing. */
  #heard(seq: number, epoch: number): void {
    const sentAt = this.#beats.get(seq);
    if (sentAt === undefined) return;
    for (const earlier of this.#beats.keys()) if (earlier <= seq) this.#beats.delete(earlier);
    // A bump up to `epoch` did not arrive (or has yet to), or the store lost its keys (a Redis that
    // restarted empty counts from 0 again; a bump racing the heartbeat looks alike, and costs a reload).
    if (epoch !== this.#seenThrough) {
      this.#dropCopies();
      this.#seenThrough = epoch;
      this.#seenAhead.clear();
    }
    this.#trustedUntil = Math.max(this.#trustedUntil, sentAt + TRUST_MS);
  }

  /** Starts again from the state store: a read sent before this cannot refill the copies. */
  #dropCopies(): void {
    this.#copies = new Map();
    this.#generation += 1;
  }

  #saw(epoch: number): void {
    if (epoch <= this.#seenThrough) return;
    this.#seenAhead.add(epoch);
    while (this.#seenAhead.delete(this.#seenThrough + 1)) this.#seenThrough += 1;
  }

  /** Reads the version from the state store; kept as the copy when the process was trusted throughout. */
  async #readThrough(key: string): Promise<string | null> {
    const generation = this.#generation;
    const trustedAtSend = performance.now() < this.#trustedUntil;
    const version = await this.#fallback.read(key);
    if (trustedAtSend && generation === this.#generation && performance.now() < this.#trustedUntil) this.#keep(key, version);
    return version;
  }

  /**
   * Keeps the later of the copy and `version` (versions only grow; null is before the first bump). A
   * bump's message older than the copy means the store was reset, or two bumps crossed: either way
   * every copy is dropped.
   */
  #keep(key: string, version: string | null, fromBump = false): void {
    const copy = this.#copies.get(key);
    if (copy === undefined || Number(version ?? 0) > Number(copy ?? 0)) this.#copies.set(key, version);
    else if (fromBump && Number(version ?? 0) < Number(copy ?? 0)) this.#dropCopies();
  }
}
