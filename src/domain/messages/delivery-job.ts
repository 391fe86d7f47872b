import { z } from 'zod';
import { CANONICAL_UUID } from '../uuid.js';

/** The deliveries topic's message: which delivery to attempt. Its content lives in the delivery row. */
const jobMessageSchema = z.object({ v: z.literal(1), deliveryId: z.string().regex(CANONICAL_UUID) }).strict();

export function encodeDeliveryJob(deliveryId: string): { key: string; value: Buffer } {
  return { key: deliveryId, value: Buffer.from(JSON.stringify({ v: 1, deliveryId })) };
}

export function decodeDeliveryJob(value: Buffer): string | null {
  try {
    const parsed = jobMessageSchema.safeParse(JSON.parse(value.toString('utf8')));
    return parsed.success ? parsed.data.deliveryId : null;
  } catch {
    return null;
  }
}
