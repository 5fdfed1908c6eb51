/** Pure functions of the payment life: what a failed call tells the payer. */
import { describe, expect, it } from 'vitest';
import { transportMessageOf } from '../../src/checkout/index.js';

describe('what a call without a payment answer tells the payer', () => {
  it('keeps "check your connection" for a request that failed, and names the rest apart', () => {
    expect(transportMessageOf({ code: 'NETWORK', status: undefined })).toBe('network');
    expect(transportMessageOf({ code: 'TIMEOUT', status: undefined })).toBe('timeout');
    for (const status of [500, 502, 503, 504]) expect(transportMessageOf({ code: 'HTTP', status })).toBe('shop-error');
    expect(transportMessageOf({ code: 'BAD_RESPONSE', status: 200 })).toBe('shop-error');
    expect(transportMessageOf({ code: 'HTTP', status: 404 })).toBe('not-found');
    expect(transportMessageOf({ code: 'HTTP', status: 405 })).toBe('not-found');
  });
});
