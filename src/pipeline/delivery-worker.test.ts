import { describe, expect, it } from 'vitest';
import type { ClaimedDelivery } from '../ports/metadata.js';
import { handOut } from './delivery-worker.js';

const claimed = (id: string, attempts: number): ClaimedDelivery => ({ id, appId: 'app', ruleId: 'rule', actionId: 'action', destinationId: 'dest', eventId: 'event', attempts, payload: '{}' });

describe('handOut (the claims of one shared statement, to their askers)', () => {
  it('gives each claimed delivery to its asker, in the order asked, and null to those not claimed', () => {
    const a = claimed('a', 1);
    const c = claimed('c', 3);
    expect(handOut([{ id: 'a', attemptsMade: 0 }, { id: 'b', attemptsMade: 0 }, { id: 'c', attemptsMade: 2 }], [c, a])).toEqual([a, null, c]);
  });

  it('makes an attempt asked for twice at once (its job and the poller) only once: the first asker gets it', () => {
    const a = claimed('a', 1);
    expect(handOut([{ id: 'a', attemptsMade: 0 }, { id: 'a', attemptsMade: 0 }], [a])).toEqual([a, null]);
  });

  it('gives a claim only to the asker of that very attempt', () => {
    // The row moved on to attempt 3: an asker who saw 0 attempts made did not win it.
    expect(handOut([{ id: 'a', attemptsMade: 0 }], [claimed('a', 3)])).toEqual([null]);
  });
});
