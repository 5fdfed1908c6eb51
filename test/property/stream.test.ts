// Generated requests to the status stream route (GET /payments/events): hostile query strings, tokens forged,
// cut or of the wrong kind, odd Last-Event-IDs, other methods. Every answer is a stream of the proven order, an
// envelope (02000), or 405; never a 500, never a query to the service without a proof; the kit serves on.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHECKOUT_TOKEN_HEADER, EventStreamReader, MERCHANT_PATHS, ORDER_TOKEN_HEADER, SERVICE_PATHS } from '../../src/core/index.js';
import { createMerchantHandler, issueCheckoutToken, issueOrderToken, LIMIT_TABLE, toNodeListener } from '../../src/server/index.js';
import { listen, startFakeService, type FakeService } from '../support/fake-service.js';
import { orderOf } from '../support/tokens.js';
import { hostileString, tally } from './support.js';

const merchantId = '256612345678901';
const privateKey = 'property-stream-key';
const ORDER = { orderNo: '26112200000001', reference: 'order-1001', country: 'EG' };

let service: FakeService;
let kit: { url: string; close(): Promise<void> };
const errors: string[] = [];
const cases = tally('property: the status stream route');
let orderToken: string;
let checkoutToken: string;

beforeAll(async () => {
  service = await startFakeService(() => ({ body: { code: '00000', message: 'SUCCESSFUL', data: { ...ORDER, status: 'PENDING' } } }));
  const handler = createMerchantHandler({
    merchantId,
    privateKey,
    environment: { baseUrl: service.url },
    logger: { warn: () => undefined, error: (line: string) => errors.push(line) },
    // The limits have their own tests (test/server/attacks.test.ts); here every generated request is weighed alone.
    limits: Object.fromEntries(Object.keys(LIMIT_TABLE).map((name) => [name, false])),
  });
  kit = await listen(toNodeListener(handler));
  orderToken = await issueOrderToken(privateKey, { merchantId, ...ORDER, expiresAt: Math.floor(Date.now() / 1000) + 86_400 + 1_800 });
  checkoutToken = await issueCheckoutToken({ merchantId, privateKey }, orderOf({ reference: ORDER.reference }));
});

afterAll(async () => {
  console.log(cases.report());
  await kit.close();
  await service.close();
});

/** Until the service has seen no new request for 50 ms. */
async function settled(): Promise<void> {
  let seen = -1;
  while (seen !== service.requests.length) {
    seen = service.requests.length;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A token as a client may send it: the real ones, cut, altered, of the other kind, or anything. */
const tokenish = fc.oneof(
  fc.constant(undefined),
  hostileString,
  fc.constantFrom('ot1.', 'ct1.', 'ot1..', 'ot1.e30.AAAA', 'ct1.e30.'),
  fc.nat().map((cut) => orderToken.slice(0, cut % orderToken.length)),
  fc.nat().map((at) => orderToken.slice(0, at % orderToken.length) + 'x' + orderToken.slice((at % orderToken.length) + 1)),
  fc.constant('real-order-token'),
  fc.constant('real-checkout-token'),
);
const real = (token: string | undefined) => (token === 'real-order-token' ? orderToken : token === 'real-checkout-token' ? checkoutToken : token);
/** Header values fetch will send (visible ASCII). */
const headerValue = (text: string | undefined) => (text === undefined ? undefined : text.replace(/[^\x20-\x7e]/g, '').trim() || undefined);

const streamCase = fc.record({
  method: fc.constantFrom('GET', 'GET', 'GET', 'GET', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'HEAD'),
  token: tokenish,
  orderHeader: tokenish,
  checkoutHeader: tokenish,
  reference: fc.option(fc.oneof(hostileString, fc.constant(ORDER.reference), fc.constant(`${ORDER.reference}-2`)), { nil: undefined }),
  orderNo: fc.option(hostileString, { nil: undefined }),
  country: fc.option(hostileString, { nil: undefined }),
  lastEventId: fc.option(fc.oneof(hostileString, fc.constantFrom('PENDING', 'SUCCESS', 'CLOSE')), { nil: undefined }),
});

describe('property: the status stream route', () => {
  const runs = 300;
  it(`answers every generated request with a stream of the proven order, an envelope or 405 (${runs} cases)`, async () => {
    await cases.check('GET /payments/events', streamCase, async (value) => {
      const search = new URLSearchParams();
      const token = real(value.token);
      if (token !== undefined) search.set('token', token);
      for (const field of ['reference', 'orderNo', 'country'] as const) if (value[field] !== undefined) search.set(field, value[field]);
      const headers: Record<string, string> = {};
      const orderHeader = headerValue(real(value.orderHeader));
      const checkoutHeader = headerValue(real(value.checkoutHeader));
      const lastEventId = headerValue(value.lastEventId);
      if (orderHeader) headers[ORDER_TOKEN_HEADER] = orderHeader;
      if (checkoutHeader) headers[CHECKOUT_TOKEN_HEADER] = checkoutHeader;
      if (lastEventId) headers['Last-Event-ID'] = lastEventId;
      const queriesBefore = service.requests.filter((request) => request.path === SERVICE_PATHS.status).length;
      const abort = new AbortController();
      const response = await fetch(`${kit.url}${MERCHANT_PATHS.events}?${search}`, { method: value.method, headers, signal: abort.signal });
      try {
        if (value.method !== 'GET') {
          expect(response.status).toBe(405);
          expect(response.headers.get('allow')).toBe('GET');
          return '405';
        }
        if (response.status === 204) {
          // Only a proved client that says it has the order's final status is told to stop (EventSource does).
          expect(['SUCCESS', 'FAIL', 'CLOSE']).toContain(lastEventId);
          expect(service.requests.filter((request) => request.path === SERVICE_PATHS.status).length).toBe(queriesBefore);
          return '204';
        }
        expect(response.status).toBe(200);
        const type = response.headers.get('content-type') ?? '';
        if (type.startsWith('application/json')) {
          const answer = (await response.json()) as { code: string };
          expect(answer.code).toBe('02000');
          // Refused before anything reached the service.
          expect(service.requests.filter((request) => request.path === SERVICE_PATHS.status).length).toBe(queriesBefore);
          return '200 02000';
        }
        expect(type).toMatch(/^text\/event-stream/);
        // A stream is only ever of the one order the proofs name.
        const reader = response.body!.getReader();
        const events = new EventStreamReader();
        const decoder = new TextDecoder();
        let schedule = false;
        while (!schedule) {
          const { done, value: chunk } = await reader.read();
          if (done) break;
          schedule = events.push(decoder.decode(chunk, { stream: true })).some((event) => event.type === 'schedule');
        }
        expect(schedule).toBe(true);
        // Its first status query may still be on its way: let it land before the next case counts.
        await settled();
        return '200 stream';
      } finally {
        abort.abort();
      }
    }, runs);
    // Still serving, and nothing went wrong inside.
    const response = await fetch(`${kit.url}${MERCHANT_PATHS.events}`, { headers: { [ORDER_TOKEN_HEADER]: orderToken } });
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    await response.body!.cancel();
    expect(errors).toEqual([]);
  }, 60_000);
});
