import type { ServerResponse } from 'node:http';

interface Slot {
  readonly res: ServerResponse;
  index: number;
}

/**
 * The responses a server has not finished yet, so that a shutdown can mark each of them
 * `Connection: close`. A response leaves when it closes (sent, or its connection lost).
 *
 * An array with swap-removal, not a Set: a Set that gains and loses an entry per request keeps
 * rebuilding its hash table, and V8 links each table it gives up to the one that replaced it. Once
 * one of those dead tables reaches the old generation, that link keeps every later table alive through
 * the young generation's collections, and with them the requests they held: with the Set, 13 % of
 * what the api allocated survived its scavenges on Node 24, without it 7 % (bench/NOTES.md, "What
 * Node's young-generation collector kept"). An array's slots hold only the responses still unanswered.
 */
export class UnansweredResponses {
  readonly #slots: Slot[] = [];

  add(res: ServerResponse): void {
    const slot: Slot = { res, index: this.#slots.length };
    this.#slots.push(slot);
    // `on`, not `once`: a response closes once, and `once` wraps the listener anew for each.
    res.on('close', () => this.#remove(slot));
  }

  get size(): number {
    return this.#slots.length;
  }

  /** Each response still unanswered. */
  *[Symbol.iterator](): IterableIterator<ServerResponse> {
    // A copy: a response may close while the caller works through them.
    for (const slot of [...this.#slots]) yield slot.res;
  }

  #remove(slot: Slot): void {
    const last = this.#slots.pop()!;
    if (last === slot) return;
    this.#slots[slot.index] = last;
    last.index = slot.index;
  }
}
