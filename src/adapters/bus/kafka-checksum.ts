import Module, { createRequire } from 'node:module';

/**
 * kafkajs checksums every record batch it produces with CRC-32C, computed in JavaScript one byte at
 * a time: with batches of events that loop was a tenth of the api's CPU (bench/NOTES.md).
 * @node-rs/crc32 computes the same checksum with the processor's own instruction. kafkajs has no
 * option for its checksum, so its checksum module is put in the CommonJS module cache, as the native
 * function, before kafkajs loads it: kafkajs loads its record batch encoder (the module's only user)
 * on its first produce, and kafka-bus.ts imports this module before it can produce.
 *
 * On a platform without a prebuilt @node-rs/crc32, kafkajs keeps its own checksum.
 */

const require = createRequire(import.meta.url);

/** The module kafkajs's record batches require for their checksum (kafkajs 2.x). */
export const KAFKAJS_CHECKSUM_MODULE = 'kafkajs/src/protocol/recordBatch/crc32C/index.js';

export type KafkaChecksum = 'native' | 'javascript';

type Checksum = (buffer: Uint8Array) => number;

/** The native function, as kafkajs gets it (its checksum is an unsigned 32-bit number); undefined without a binary. */
export const nativeChecksum: Checksum | undefined = loadNativeChecksum();

/** Which checksum kafkajs computes in this process. */
export const kafkaChecksum: KafkaChecksum = installNativeChecksum();

function loadNativeChecksum(): Checksum | undefined {
  try {
    const { crc32c } = require('@node-rs/crc32') as { crc32c: Checksum };
    return (buffer) => crc32c(buffer) >>> 0;
  } catch {
    return undefined;
  }
}

function installNativeChecksum(): KafkaChecksum {
  if (!nativeChecksum) return 'javascript';
  let path: string;
  try {
    // Throws if a kafkajs release moved the module: then there is nothing to replace.
    path = require.resolve(KAFKAJS_CHECKSUM_MODULE);
  } catch {
    return 'javascript';
  }
  // Loaded already, by whatever produced before this module ran: its users hold kafkajs's own by now.
  if (require.cache[path]) return 'javascript';
  const module = new Module(path);
  module.filename = path;
  module.loaded = true;
  module.exports = nativeChecksum;
  require.cache[path] = module;
  return 'native';
}
