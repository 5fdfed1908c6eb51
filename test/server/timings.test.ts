// The element's beacons (`POST /timings`, src/server/timings.ts): each timing the table allows published on
// svc-checkout:timing as the table builds it, everything else left behind; a beacon too large, or not one, refused.
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MERCHANT_PATHS, TIMING_LIMITS, timingOf } from '../../src/core/index.js';
import { DEFAULT_MERCHANT } from '../../src/sandbox/index.js';
import { CHANNELS, createMerchantHandler, toNodeListener } from '../../src/server/index.js';
import { listen } from '../support/fake-service.js';

const published: unknown[] = [];
const hear = (message: unknown) => published.push(message);
const handler = createMerchantHandler({ ...DEFAULT_MERCHANT, environment: 'sandbox', basePath: '/checkout', logger: { warn: () => undefined, error: () => undefined } });
const beacon = (body: string, init: RequestInit = {}) =>
  handler(new Request(`http://shop.example/checkout${MERCHANT_PATHS.timings}`, { method: 'POST', headers: { 'Content-Type': 'text/plain;charset=UTF-8' }, body, ...init }));

beforeEach(() => {
  published.length = 0;
  subscribe(CHANNELS.timing, hear);
});
afterEach(() => unsubscribe(CHANNELS.timing, hear));

describe('the timings route', () => {
  it('publishes each timing the table allows, rebuilt from it, and answers 204', async () => {
    const timings = [
      { kind: 'first-frame', ms: 412 },
      { kind: 'first-interaction', ms: 2_311 },
      { kind: 'step', step: 'action', action: 'INPUT_OTP', method: 'BankAccount', ms: 41_200 },
      { kind: 'stop', step: 'form', method: 'Pos', ms: 9_000, email: 'payer@example.com', orderNo: '2611' },
      { kind: 'step', step: 'form', ms: 12.5 },
      { kind: 'step', ms: 3 },
      { kind: 'first-frame', step: 'form', ms: 3 },
      { kind: 'step', step: 'waiting', action: 'INPUT_PIN', ms: 3 },
      { kind: 'stop', step: 'form', method: 'Cash', ms: 3 },
      { kind: 'paid', ms: 3 },
      'first-frame',
      null,
    ];
    const answer = await beacon(JSON.stringify({ timings }));
    expect([answer.status, await answer.text()]).toEqual([204, '']);
    expect(published).toEqual([
      { kind: 'first-frame', ms: 412 },
      { kind: 'first-interaction', ms: 2_311 },
      { kind: 'step', step: 'action', action: 'INPUT_OTP', method: 'BankAccount', ms: 41_200 },
      { kind: 'stop', step: 'form', method: 'Pos', ms: 9_000 },
    ]);
  });

  it('takes the first twenty of a beacon, and refuses one too large or not one', async () => {
    const many = Array.from({ length: 30 }, (_, index) => ({ kind: 'first-frame', ms: index }));
    expect((await beacon(JSON.stringify({ timings: many }))).status).toBe(204);
    expect(published).toHaveLength(TIMING_LIMITS.perBeacon);
    expect((await beacon(JSON.stringify({ timings: many, padding: 'x'.repeat(5_000) }))).status).toBe(413);
    expect((await beacon('{"timings":')).status).toBe(400);
    expect((await beacon(JSON.stringify({ first: 1 }))).status).toBe(400);
    expect((await beacon('', { method: 'GET', body: null })).status).toBe(405);
    expect(published).toHaveLength(TIMING_LIMITS.perBeacon);
  });

  it('answers the same under toNodeListener, whatever the beacon’s type', async () => {
    const server = await listen(toNodeListener(handler));
    try {
      for (const type of ['text/plain;charset=UTF-8', 'application/json']) {
        const answer = await fetch(`${server.url}/checkout${MERCHANT_PATHS.timings}`, { method: 'POST', headers: { 'Content-Type': type }, body: '{"timings":[{"kind":"first-frame","ms":5}]}' });
        expect(answer.status).toBe(204);
      }
      expect(published).toEqual([{ kind: 'first-frame', ms: 5 }, { kind: 'first-frame', ms: 5 }]);
    } finally {
      await server.close();
    }
  });

  it('holds durations to whole milliseconds of at most a day', () => {
    expect(timingOf({ kind: 'first-frame', ms: TIMING_LIMITS.maxMs })).toEqual({ kind: 'first-frame', ms: TIMING_LIMITS.maxMs });
    for (const ms of [TIMING_LIMITS.maxMs + 1, -1, 1.5, Number.NaN, '5']) expect(timingOf({ kind: 'first-frame', ms }), String(ms)).toBeUndefined();
  });
});
