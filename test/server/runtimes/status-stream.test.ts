// The status stream (GET /payments/events) in each runtime, each started once here with the real clock, in front of
// the real sandbox. What each can do differs, and each is tested for exactly what it can:
//   - Deno, Bun and Vercel's Edge Runtime share memory between the requests of a process (an Edge Function
//     instance): a callback it verifies reaches every stream of the order it holds at once, with no status query. A
//     callback another process verified reaches them through a shared bus (Redis: redis.test.ts), else by the kit's
//     own status queries.
//   - workerd keeps each request's I/O to itself (it cancels a request that waits for another's): each stream is
//     served alone, with status queries of its own, which bring it the payment even when the same isolate verified
//     the callback.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MERCHANT_PATHS, ORDER_TOKEN_HEADER, SERVICE_PATHS, CHECKOUT_TOKEN_HEADER } from '../../../src/core/index.js';
import { issueCheckoutToken } from '../../../src/server/index.js';
import { posRequest } from '../../core/fixtures.js';
import { listen } from '../../support/fake-service.js';
import { credentials } from '../../support/kit-cases.js';
import { startRecordedSandbox, type RecordedSandbox } from '../../support/runtimes/recorded-sandbox.js';
import { startRuntime, type RuntimeName, type StartedRuntime } from '../../support/runtimes/start.js';
import { openStream } from '../../support/sse.js';
import { orderOf } from '../../support/tokens.js';

/** The base of the kit's status queries between callbacks: long enough that a push is never a poll's luck. */
const POLL_MS = 1_500;

describe.each<RuntimeName>(['deno', 'bun', 'workerd', 'workerd-nodejs-compat', 'edge-runtime'])('the status stream in %s', (name) => {
  let service: RecordedSandbox;
  let runtime: StartedRuntime;
  let elsewhere: { url: string; close(): Promise<void> };
  let serial = 0;

  beforeAll(async () => {
    service = await startRecordedSandbox(credentials);
    // Callbacks come at the merchant's webhook (the recorded sandbox's), not at an address the kit would name for itself.
    runtime = await startRuntime(name, { ...credentials, baseUrl: service.url, callbackUrl: false, streams: { pollIntervalMs: POLL_MS } });
    service.deliverTo(`${runtime.url}${MERCHANT_PATHS.callbacks}`);
    // Another instance of the shop, which takes the callbacks of orders whose token sends them there.
    elsewhere = await listen((_request, response) => response.writeHead(200).end());
  }, 30_000);

  afterAll(async () => {
    await runtime?.stop();
    await service?.close();
    await elsewhere?.close();
  });

  /** A POS order made through the kit; its callbacks go to this kit, or to another instance. */
  async function order(callbacks: 'here' | 'elsewhere') {
    serial += 1;
    const body = posRequest({ reference: `stream-${name}-${serial}`, sn: `SN-STREAM-${serial}` });
    const claims = orderOf(body, callbacks === 'elsewhere' ? { callbackUrl: `${elsewhere.url}/callbacks` } : {});
    const response = await fetch(`${runtime.url}${MERCHANT_PATHS.create}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', [CHECKOUT_TOKEN_HEADER]: await issueCheckoutToken(credentials, claims) },
      body: JSON.stringify(body),
    });
    const answer = (await response.json()) as { code: string; data: { orderNo: string } };
    expect(answer.code).toBe('00000');
    return { orderNo: answer.data.orderNo, token: response.headers.get(ORDER_TOKEN_HEADER)! };
  }

  const statusQueries = () => service.requests.filter((request) => request.path === SERVICE_PATHS.status).length;

  it('streams the status of a payment whose callback another instance verified, from the kit’s own status queries', async () => {
    const { orderNo, token } = await order('elsewhere');
    const stream = await openStream(`${runtime.url}${MERCHANT_PATHS.events}`, { [ORDER_TOKEN_HEADER]: token });
    try {
      expect(stream.status).toBe(200);
      expect(stream.contentType).toMatch(/^text\/event-stream/);
      expect(JSON.parse((await stream.next('status')).data).status).toBe('PENDING');
      const before = statusQueries();
      await service.control.complete(orderNo, { status: 'SUCCESS' });
      expect(JSON.parse((await stream.next('status', 2, 4 * POLL_MS)).data).status).toBe('SUCCESS');
      expect(JSON.parse((await stream.next('end')).data)).toEqual({ reason: 'terminal' });
      expect(statusQueries()).toBeGreaterThan(before);
    } finally {
      stream.close();
    }
  });

  // Deno, Bun and the Edge Runtime hold every request in one process (an Edge Function instance) that shares memory;
  // workerd keeps each request's I/O to itself.
  const pushes = !name.startsWith('workerd');

  it(
    pushes
      ? 'pushes a callback this instance verified to every stream of the order it holds, without a status query'
      : 'brings a callback this isolate verified to each stream of the order by the stream’s own status queries, since no request may write to another’s stream',
    async () => {
      const { orderNo, token } = await order('here');
      const open = () => openStream(`${runtime.url}${MERCHANT_PATHS.events}`, { [ORDER_TOKEN_HEADER]: token });
      const streams = [await open(), await open()];
      try {
        for (const stream of streams) expect(JSON.parse((await stream.next('status')).data).status).toBe('PENDING');
        const before = statusQueries();
        await service.control.complete(orderNo, { status: 'SUCCESS' });
        for (const stream of streams) {
          expect(JSON.parse((await stream.next('status', 2, 4 * POLL_MS)).data).status).toBe('SUCCESS');
          expect(JSON.parse((await stream.next('end')).data)).toEqual({ reason: 'terminal' });
        }
        const handled = (await (await fetch(`${runtime.url}/__runner/callbacks`)).json()) as { orderNo: string }[];
        expect(handled.filter((event) => event.orderNo === orderNo)).toHaveLength(1);
        // A push needs no query; the kit's first query comes POLL_MS after the stream's first status.
        if (pushes) {
          expect(statusQueries()).toBe(before);
        } else {
          expect(statusQueries()).toBeGreaterThan(before);
        }
        expect(await (await fetch(`${runtime.url}/__runner/errors`)).json()).toEqual([]);
      } finally {
        for (const stream of streams) stream.close();
      }
    },
  );
});
