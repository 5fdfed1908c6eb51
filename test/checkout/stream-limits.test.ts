/**
 * A kit at its stream limits (the client's streams, or all of them): the session is refused its stream with
 * `TOO_MANY_REQUESTS`, follows the order by polling at the poller's own pace (57 requests in 30 minutes), tries the
 * stream again now and then, and still sees the payment. The real kit and sandbox, on a fake clock
 * (test/checkout/support.ts).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { MERCHANT_PATHS, ORDER_TOKEN_HEADER } from '../../src/core/index.js';
import { POLL_BACKOFF, STREAM_RETRY_MS, type CheckoutSession } from '../../src/checkout/index.js';
import type { MerchantHandlerOptions } from '../../src/server/index.js';
import { posRequest } from '../core/fixtures.js';
import { CHECKOUT_TOKEN_HEADER, ENDPOINT, harness, type Harness } from './support.js';

let h: Harness | undefined;
let session: CheckoutSession | undefined;
let held: ReadableStreamDefaultReader<Uint8Array> | undefined;
afterEach(async () => {
  session?.dispose();
  await held?.cancel();
  await h?.close();
  h = session = held = undefined;
});

const THIRTY_MINUTES = 30 * 60_000;

/** Status requests the poller makes alone in `ms` from its start (its first check waits one interval). */
function polls(ms: number, interval = 2_500): number {
  let at = 0;
  let count = 0;
  for (let step = 0; ; step += 1) {
    at += (POLL_BACKOFF[Math.min(step, POLL_BACKOFF.length - 1)] ?? 1) * interval;
    if (at > ms) return count;
    count += 1;
  }
}

/**
 * A POS order followed live while another stream of the same client holds the kit's last place: another tab of
 * the payer, or someone else on the payer's network.
 */
async function refusedOrder(kit: Partial<MerchantHandlerOptions>, sn: string) {
  h = await harness({ kit: { clientAddress: () => '198.51.100.7', ...kit } });
  const reference = `other-${sn}`;
  const created = await h.handler(
    new Request(`${ENDPOINT}${MERCHANT_PATHS.create}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', [CHECKOUT_TOKEN_HEADER]: await h.token({ reference }) },
      body: JSON.stringify(posRequest({ reference, sn: 'N78101818218' })),
    }),
  );
  const other = await h.handler(new Request(`${ENDPOINT}${MERCHANT_PATHS.events}?token=${encodeURIComponent(created.headers.get(ORDER_TOKEN_HEADER)!)}`));
  expect(other.headers.get('content-type')).toMatch(/^text\/event-stream/);
  // Read as a tab reads it (a stream nobody reads is dropped, and its place given back).
  const reader = other.body!.getReader();
  held = reader;
  void (async () => {
    while (!(await reader.read().catch(() => ({ done: true }))).done);
  })();

  const statusCalls = () => h!.calls.filter((call) => call === MERCHANT_PATHS.status).length;
  const streamCalls = () => h!.calls.filter((call) => call === MERCHANT_PATHS.events).length;
  ({ session } = await h.session({ liveStatus: true }));
  session.selectMethod('Pos');
  session.input('sn', sn);
  await session.submit();
  await h.settle();
  return { session, statusCalls, streamCalls };
}

describe('a stream the kit refuses at its limits', () => {
  for (const [limit, kit] of [
    ['streamsPerClient', { limits: { streamsPerClient: { limit: 1 } } }],
    ['streams', { limits: { streams: { limit: 1 } } }],
  ] as const) {
    it(`is followed by polling at the poller's own pace (${limit}), and the payment is seen`, async () => {
      const order = await refusedOrder(kit, 'N78101818601');
      expect(order.session.following).toBe('poll');
      expect(order.streamCalls()).toBe(1);
      // The first check at once (the stream said nothing of the order), then the schedule from where it was.
      expect(order.statusCalls()).toBe(1);
      await h!.advance(THIRTY_MINUTES - 60_000);
      const polled = order.statusCalls();
      // 57 in 30 minutes on the poller's schedule, and no more for the stream's tries.
      expect(polled).toBeLessThanOrEqual(1 + polls(THIRTY_MINUTES - 60_000));
      expect(polled).toBeGreaterThanOrEqual(polls(THIRTY_MINUTES - 60_000));
      // The stream is asked again now and then (30 s, 1, 2, then every 5 minutes), each time refused.
      const tries = 1 + STREAM_RETRY_MS.reduce((count, _, index) => count + (index < 3 ? 1 : 0), 0) + Math.floor((THIRTY_MINUTES - 60_000 - 210_000) / 300_000);
      expect(order.streamCalls()).toBe(tries);
      expect(order.session.following).toBe('poll');
      await h!.control.swipe('N78101818601');
      await h!.advance(60_000);
      expect(order.session.state.phase).toMatchObject({ kind: 'result', outcome: 'SUCCESS' });
    });
  }
});
