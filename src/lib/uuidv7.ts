import { randomFillSync } from 'node:crypto';

/** Random bytes drawn at a time: enough for 512 ids. */
const POOL_BYTES = 16 * 512;

/** Each byte's two lowercase hex digits as ASCII, at twice the byte's value. */
const HEX_DIGITS = Buffer.from(Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0')).join(''), 'latin1');

/**
 * UUIDv7 ids (RFC 9562) in lowercase canonical text, each greater than the one before from the same
 * source, so that a request's events are in request order by id.
 *
 * Layout, as the `uuid` package writes it: 48 bits of Unix milliseconds; the version; a 32-bit
 * counter (the 12 bits of rand_a and the first 20 of rand_b, around the variant), which starts at a
 * random value below 2^31 in each new millisecond and counts up within it; 42 random bits. A clock
 * that steps back keeps the last millisecond and counts on.
 *
 * Why not the `uuid` package's v7, which the other ids of the service come from: it draws random
 * bytes 256 at a time, each draw a crypto job created and run on the spot, and it joins its text
 * from 20 pieces. On the ingest path, one id per event, the draws alone were 3.6 % of an embedded
 * process's event loop at 42,000 events/s (bench/NOTES.md). Here one draw serves 512 ids, and the
 * text is written into a buffer: about a third of the time per id, its first use included.
 */
export class UuidV7Source {
  readonly #now: () => number;
  readonly #pool = Buffer.allocUnsafe(POOL_BYTES);
  /** The id's text, written in place: its dashes stay where they are. */
  readonly #text = Buffer.from('00000000-0000-0000-0000-000000000000', 'latin1');
  #taken = POOL_BYTES;
  #ms = -1;
  #counter = 0;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  next(): string {
    if (this.#taken === POOL_BYTES) {
      randomFillSync(this.#pool);
      this.#taken = 0;
    }
    const pool = this.#pool;
    const at = this.#taken;
    this.#taken += 16;
    const now = this.#now();
    if (now > this.#ms) {
      this.#ms = now;
      this.#counter = pool.readUInt32BE(at) >>> 1;
    } else if (this.#counter === 0xffffffff) {
      // 2^31 ids or more in one millisecond: borrow the next one.
      this.#ms++;
      this.#counter = 0;
    } else {
      this.#counter++;
    }
    const ms = this.#ms;
    const counter = this.#counter;
    const high = Math.floor(ms / 0x100000000);
    const text = this.#text;
    hexAt(text, 0, (high >>> 8) & 0xff);
    hexAt(text, 2, high & 0xff);
    hexAt(text, 4, (ms >>> 24) & 0xff);
    hexAt(text, 6, (ms >>> 16) & 0xff);
    hexAt(text, 9, (ms >>> 8) & 0xff);
    hexAt(text, 11, ms & 0xff);
    hexAt(text, 14, 0x70 | (counter >>> 28));
    hexAt(text, 16, (counter >>> 20) & 0xff);
    hexAt(text, 19, 0x80 | ((counter >>> 14) & 0x3f));
    hexAt(text, 21, (counter >>> 6) & 0xff);
    hexAt(text, 24, ((counter << 2) & 0xff) | (pool[at + 10]! & 0x03));
    for (let byte = 11; byte < 16; byte++) hexAt(text, 4 + 2 * byte, pool[at + byte]!);
    // One flat string from its bytes: one joined from 20 pieces is a tree of strings that every later
    // use (the event's entry, the response) would first have to copy into one.
    return text.toString('latin1');
  }
}

function hexAt(text: Buffer, at: number, byte: number): void {
  text[at] = HEX_DIGITS[2 * byte]!;
  text[at + 1] = HEX_DIGITS[2 * byte + 1]!;
}
