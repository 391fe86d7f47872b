import { createRequire } from 'node:module';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KAFKAJS_CHECKSUM_MODULE, kafkaChecksum, nativeChecksum } from './kafka-checksum.js';
import './kafka-bus.js';

const require = createRequire(import.meta.url);
/** kafkajs's own CRC-32C, in JavaScript: the reference. */
const javascriptCrc32c = require('kafkajs/src/protocol/recordBatch/crc32C/crc32C.js') as (buffer: Buffer) => number;
/** What kafkajs's record batch encoder gets when it requires its checksum. */
const usedByKafkajs = require(KAFKAJS_CHECKSUM_MODULE) as (buffer: Buffer) => number;

describe("kafkajs's record batch checksum", () => {
  it('is computed natively once the Kafka bus is loaded', () => {
    expect(kafkaChecksum).toBe('native');
    expect(nativeChecksum).toBeDefined();
    expect(usedByKafkajs).toBe(nativeChecksum);
    // The check value of CRC-32C (RFC 3720): the checksum of the nine digits "123456789".
    expect(usedByKafkajs(Buffer.from('123456789'))).toBe(0xe3069283);
  });

  it("equals kafkajs's own on any bytes, as an unsigned 32-bit number", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 4096 }), (bytes) => {
        const buffer = Buffer.from(bytes);
        expect(usedByKafkajs(buffer)).toBe(javascriptCrc32c(buffer));
      }),
      { numRuns: 500 },
    );
    const large = Buffer.alloc(1024 * 1024, 0xa5);
    expect(usedByKafkajs(large)).toBe(javascriptCrc32c(large));
    expect(usedByKafkajs(Buffer.alloc(0))).toBe(0);
  });
});
