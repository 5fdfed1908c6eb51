// The status stream, GET /payments/events: the real kit (under toNodeListener, and as a plain Web handler) in
// front of the real sandbox, read by a test client as a browser's would read it.
import { EventSource } from 'eventsource';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CHECKOUT_TOKEN_HEADER, MERCHANT_PATHS, ORDER_TOKEN_HEADER } from '../../src/core/index.js';
import { createMerchantHandler, issueOrderToken, MemoryStatusBus, type MerchantHandlerOptions } from '../../src/server/index.js';
import { type StatusBusListener } from '../../src/server/stores/status-bus/port.js';
import { startFakeService } from '../support/fake-service.js';
import { eventually } from '../support/sandbox-fixture.js';
import { openStream, type OpenedStream } from '../support/sse.js';
import { credentials, startStreamKit, type StreamKit } from '../support/stream-kit.js';

const { merchantId, privateKey } = credentials;

let kit: StreamKit;
const streams: OpenedStream[] = [];

beforeEach(async () => {
  kit = await startStreamKit();
});

afterEach(async () => {
  for (const stream of streams.splice(0)) stream.close();
  await kit.close();
});

const startKit = (options: Partial<MerchantHandlerOptions> = {}) => kit.restart(options);
const createOrder = (overrides: Record<string, unknown> = {}) => kit.createOrder(overrides);

async function stream(query = '', headers: Record<string, string> = {}) {
  const opened = await openStream(`${kit.url}${MERCHANT_PATHS.events}${query}`, headers);
  streams.push(opened);
  return opened;
}

const data = (event: { data: string }) => JSON.parse(event.data);

describe('GET /payments/events', () => {
  it('sends retry and the poll schedule at once, then the status, and the paid status the moment the callback is verified', async () => {
    const order = await createOrder();
    const events = await stream('', { [ORDER_TOKEN_HEADER]: order.orderToken });
    expect(events.status).toBe(200);
    expect(events.contentType).toMatch(/^text\/event-stream/);
    const schedule = data(await events.next('schedule'));
    expect(events.text.startsWith('retry: 3000\n')).toBe(true);
    expect(schedule).toMatchObject({ delayMs: 0, intervalMs: 2_500, heartbeatMs: 15_000, retryMs: 3_000 });
    expect(schedule.backoff).toHaveLength(31);
    expect(schedule.durationMs).toBeGreaterThan(29 * 60_000);
    const pending = await events.next('status');
    expect(data(pending)).toEqual({ reference: order.reference, orderNo: order.orderNo, status: 'PENDING' });
    expect(pending.lastEventId).toBe('PENDING');
    expect(kit.statusQueries).toBe(1);

    await kit.control.swipe(order.sn, 'success');
    const paid = await events.next('status', 2);
    expect(data(paid)).toMatchObject({ orderNo: order.orderNo, status: 'SUCCESS' });
    expect(paid.lastEventId).toBe('SUCCESS');
    expect(data(await events.next('end'))).toEqual({ reason: 'terminal' });
    await events.ended;
    // The callback told it: no second query.
    expect(kit.statusQueries).toBe(1);
    await eventually('the stream and its timers gone', () => kit.timers.pending.size === 0);
  });

  it('takes the order token from ?token= (EventSource sends no headers), and a checkout token with the reference it covers', async () => {
    const order = await createOrder();
    const byOrder = await stream(`?token=${encodeURIComponent(order.orderToken)}`);
    expect(data(await byOrder.next('status')).status).toBe('PENDING');

    const byReference = await stream(`?token=${encodeURIComponent(order.checkoutToken)}&reference=${order.reference}`);
    const seen = data(await byReference.next('status'));
    expect(seen).toMatchObject({ orderNo: order.orderNo, reference: order.reference, status: 'PENDING' });
    // As the status route answers a query by reference: the order's token, good for its own calls.
    const otp = await fetch(`${kit.url}${MERCHANT_PATHS.status}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', [ORDER_TOKEN_HEADER]: seen.orderToken },
      body: '{}',
    });
    expect((await otp.json()).data.orderNo).toBe(order.orderNo);

    await kit.control.complete(order.orderNo, { status: 'FAIL', failureCode: 'CARD_DECLINED', failureReason: 'declined' });
    for (const events of [byOrder, byReference]) {
      expect(data(await events.next('status', 2))).toMatchObject({ status: 'FAIL', failureCode: 'CARD_DECLINED', failureReason: 'declined' });
      expect(data(await events.next('end'))).toEqual({ reason: 'terminal' });
    }
  });

  it("refuses a stream without the payer's proof with 02000 and asks the service nothing", async () => {
    const order = await createOrder();
    const other = await createOrder();
    kit.statusQueries = 0;
    const tampered = `${order.orderToken.slice(0, -2)}${order.orderToken.endsWith('A') ? 'B' : 'A'}A`;
    const cases: [string, Record<string, string>, string][] = [
      ['', {}, 'order-token'],
      [`?token=${tampered}`, {}, 'forged'],
      ['', { [ORDER_TOKEN_HEADER]: 'ot1.nonsense' }, 'malformed'],
      [`?reference=${other.reference}`, { [CHECKOUT_TOKEN_HEADER]: order.checkoutToken }, 'reference'],
      [`?token=${encodeURIComponent(order.checkoutToken)}&reference=${other.reference}`, {}, 'reference'],
      [`?orderNo=${other.orderNo}&country=EG`, {}, 'order-token'],
    ];
    for (const [query, headers, reason] of cases) {
      const refused = await stream(query, headers);
      expect(refused.status).toBe(200);
      expect(refused.contentType).toMatch(/^application\/json/);
      const answer = await refused.json();
      expect(answer.code, query).toBe('02000');
      expect(answer.data.reason === reason || (reason === 'order-token' && answer.data.reason === 'missing'), `${query}: ${answer.data.reason}`).toBe(true);
    }
    expect(kit.statusQueries).toBe(0);
    expect(kit.timers.pending.size).toBe(0);
    const post = await fetch(`${kit.url}${MERCHANT_PATHS.events}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET');
  });

  it('asks the service once per interval for an order however many tabs watch it', async () => {
    await startKit({ streams: { pollIntervalMs: 150 } });
    const order = await createOrder();
    const tabs = await Promise.all([1, 2, 3, 4].map(() => stream(`?token=${encodeURIComponent(order.orderToken)}`)));
    for (const tab of tabs) expect(data(await tab.next('status')).status).toBe('PENDING');
    kit.statusQueries = 0;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    // One order, one query every 150 ms, whatever the number of tabs (here 4).
    expect(kit.statusQueries).toBeGreaterThanOrEqual(4);
    expect(kit.statusQueries).toBeLessThanOrEqual(8);
    // A payment a query finds (no callback reaches this kit) reaches every tab.
    await kit.control.complete(order.orderNo, { status: 'SUCCESS' });
    for (const tab of tabs) expect(data(await tab.next('status', 2)).status).toBe('SUCCESS');
  });

  it('resumes from Last-Event-ID: a status the client has is not sent again, a change is', async () => {
    const order = await createOrder();
    const first = await stream('', { [ORDER_TOKEN_HEADER]: order.orderToken });
    await first.next('status');
    first.close();
    await eventually('the first stream gone', () => kit.timers.pending.size === 0);
    const resumed = await stream('', { [ORDER_TOKEN_HEADER]: order.orderToken, 'Last-Event-ID': 'PENDING' });
    await resumed.next('schedule');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(resumed.events.filter((event) => event.type === 'status')).toHaveLength(0);
    await kit.control.swipe(order.sn, 'success');
    expect(data(await resumed.next('status')).status).toBe('SUCCESS');
    // A client that saw the final status and comes back anyway is told there is nothing more: 204, no stream.
    kit.statusQueries = 0;
    const late = await stream('', { [ORDER_TOKEN_HEADER]: order.orderToken, 'Last-Event-ID': 'SUCCESS' });
    expect(late.status).toBe(204);
    expect(late.text).toBe('');
    expect(kit.statusQueries).toBe(0);
  });

  it('lets a standard EventSource (the eventsource package) stop once the order is settled: its reconnect is answered 204', async () => {
    await startKit({ streams: { retrySeconds: 0.1 } });
    const order = await createOrder();
    // As a page without the element would follow it: the order token in the query string, nothing else.
    const source = new EventSource(`${kit.url}${MERCHANT_PATHS.events}?token=${encodeURIComponent(order.orderToken)}`);
    const seen: string[] = [];
    let opened = 0;
    source.addEventListener('open', () => (opened += 1));
    for (const type of ['status', 'end']) source.addEventListener(type, (event) => seen.push(`${type} ${(event as MessageEvent).data}`));
    try {
      await eventually('PENDING', () => seen.length === 1);
      await kit.control.swipe(order.sn, 'success');
      await eventually('the end', () => seen.some((line) => line.startsWith('end')));
      expect(seen.map((line) => JSON.parse(line.slice(line.indexOf(' ') + 1)))).toEqual([
        expect.objectContaining({ status: 'PENDING' }),
        expect.objectContaining({ status: 'SUCCESS' }),
        { reason: 'terminal' },
      ]);
      // It reconnects after retry: (100 ms) with Last-Event-ID SUCCESS, is answered 204, and stops for good.
      await eventually('the EventSource closed', () => source.readyState === EventSource.CLOSED, 2_000);
      const queries = kit.statusQueries;
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(opened).toBe(1);
      expect(source.readyState).toBe(EventSource.CLOSED);
      expect(kit.statusQueries).toBe(queries);
    } finally {
      source.close();
    }
  });

  it('answers 204 to a reconnect past the order\'s deadline, and to a final Last-Event-ID only once the proof holds', async () => {
    const order = await createOrder({ expireAt: 1 });
    const reconnect = (lastEventId: string, headers: Record<string, string> = { [ORDER_TOKEN_HEADER]: order.orderToken }) =>
      fetch(`${kit.url}${MERCHANT_PATHS.events}`, { headers: { ...headers, 'Last-Event-ID': lastEventId } });
    // A final status without a proof is still refused as any stream is.
    expect(await (await reconnect('SUCCESS', {})).json()).toMatchObject({ code: '02000' });
    // Before the deadline, a reconnect with a status that can still change gets its stream.
    const early = await reconnect('PENDING');
    expect(early.headers.get('content-type')).toMatch(/^text\/event-stream/);
    await early.body!.cancel();
    // Past it on the service's clock (as the kit reads it from the service's next answer), nothing more will come:
    // 204, and no query.
    kit.sandbox.clock.advance(2 * 60_000);
    await fetch(`${kit.url}${MERCHANT_PATHS.status}`, { method: 'POST', headers: { 'Content-Type': 'application/json', [ORDER_TOKEN_HEADER]: order.orderToken }, body: '{}' });
    kit.statusQueries = 0;
    expect((await reconnect('PENDING')).status).toBe(204);
    expect(kit.statusQueries).toBe(0);
  });

  it('sends heartbeats as comment lines, and stops every timer and query when the client goes away', async () => {
    await startKit({ streams: { heartbeatSeconds: 0.05, pollIntervalMs: 100 } });
    const order = await createOrder();
    const events = await stream('', { [ORDER_TOKEN_HEADER]: order.orderToken });
    await eventually('three heartbeats', () => events.comments >= 3);
    expect(kit.timers.pending.size).toBeGreaterThan(0);
    events.close();
    await eventually('every timer cleared', () => kit.timers.pending.size === 0);
    const after = kit.statusQueries;
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(kit.statusQueries).toBe(after);
  });

  it('limits streams per order and in all, with a clear error the client can fall back on', async () => {
    await startKit({ limits: { streamsPerOrder: { limit: 2 }, streams: { limit: 3 } } });
    const order = await createOrder();
    const other = await createOrder();
    await stream('', { [ORDER_TOKEN_HEADER]: order.orderToken });
    await stream('', { [ORDER_TOKEN_HEADER]: order.orderToken });
    const third = await stream('', { [ORDER_TOKEN_HEADER]: order.orderToken });
    expect(third.contentType).toMatch(/^application\/json/);
    expect(await third.json()).toMatchObject({ code: 'TOO_MANY_REQUESTS', data: { limit: 'streamsPerOrder', retryAfterSeconds: 30 } });
    await stream('', { [ORDER_TOKEN_HEADER]: other.orderToken });
    const fourth = await stream('', { [ORDER_TOKEN_HEADER]: other.orderToken });
    const answer = await fourth.json();
    expect(answer).toMatchObject({ code: 'TOO_MANY_REQUESTS', data: { limit: 'streams' } });
    expect(answer.message).toContain('poll /payments/status instead');
  });

  it("ends at the service's expiry of the order after one last query", async () => {
    const order = await createOrder({ expireAt: 1 });
    // The service's clock 57 s on: the order's last 2 to 4 s there (tokens and Dates count whole seconds).
    kit.sandbox.clock.advance(57_000);
    const events = await stream('', { [ORDER_TOKEN_HEADER]: order.orderToken });
    // The first schedule knows the service's time from the create's answer; the kit's first query reads it anew.
    expect(data(await events.next('schedule')).durationMs).toBeGreaterThan(50_000);
    const { durationMs } = data(await events.next('schedule', 2));
    expect(durationMs).toBeGreaterThan(0);
    expect(durationMs).toBeLessThanOrEqual(4_000);
    // The kit's deadline or the service's EXPIRED, whichever comes first: the service's Date rounds to the second.
    expect(data(await events.next('end')).reason).toMatch(/^(expired|terminal)$/);
    await events.ended;
    // The first query, perhaps one on the schedule's first step (2.5 s) if the deadline is later, and the last.
    expect(kit.statusQueries).toBeGreaterThanOrEqual(2);
    expect(kit.statusQueries).toBeLessThanOrEqual(3);
  });

  it("keeps the service's deadline when only the kit's clock moves", async () => {
    const order = await createOrder({ expireAt: 1 });
    kit.clockOffsetMs = 57_000;
    const events = await stream('', { [ORDER_TOKEN_HEADER]: order.orderToken });
    expect(data(await events.next('schedule')).durationMs).toBeGreaterThan(55_000);
    expect(data(await events.next('status')).status).toBe('PENDING');
  });

  it('is off with streams: false (404: the element polls)', async () => {
    await startKit({ streams: false });
    const order = await createOrder();
    const response = await fetch(`${kit.url}${MERCHANT_PATHS.events}`, { headers: { [ORDER_TOKEN_HEADER]: order.orderToken } });
    expect(response.status).toBe(404);
  });
});

describe('the status stream as a plain Web handler', () => {
  it('streams a Response body and cleans up when the request is aborted', async () => {
    await startKit();
    const handler = kit.handler;
    const order = await createOrder();
    const abort = new AbortController();
    const response = await handler(
      new Request(`http://shop.example${MERCHANT_PATHS.events}?token=${encodeURIComponent(order.orderToken)}`, { signal: abort.signal }),
    );
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reader = response.body!.getReader();
    let text = '';
    while (!text.includes('event: status')) text += new TextDecoder().decode((await reader.read()).value);
    expect(text).toContain('"status":"PENDING"');
    abort.abort();
    await eventually('every timer cleared', () => kit.timers.pending.size === 0);
  });
});

describe('streams and the status bus', () => {
  class ManualBus extends MemoryStatusBus {
    readonly listeners: StatusBusListener[] = [];
    override subscribe(listener: StatusBusListener) {
      this.listeners.push(listener);
      return super.subscribe(listener);
    }
    set(state: 'up' | 'down') {
      for (const listener of this.listeners) listener.connection?.(state);
    }
  }

  it("counts every check of a stream against the order's statusPerOrder limit, across its brisk pace", async () => {
    const service = await startFakeService(() => ({
      body: { code: '00000', message: 'SUCCESSFUL', data: { reference: 'order-2', orderNo: '2611220000002', status: 'PENDING' } },
    }));
    let queries = 0;
    const handler = createMerchantHandler({
      merchantId,
      privateKey,
      environment: { baseUrl: service.url },
      logger: { warn: () => undefined, error: () => undefined },
      limits: { statusPerOrder: { limit: 3, windowSeconds: 60 } },
      streams: { pollIntervalMs: 20 },
      fetch: (input, init) => {
        queries += 1;
        return fetch(input, init);
      },
    });
    const token = await issueOrderToken(privateKey, { merchantId, orderNo: '2611220000002', reference: 'order-2', country: 'EG', expiresAt: Math.floor(Date.now() / 1000) + 86_400 + 1_800 });
    const abort = new AbortController();
    const response = await handler(new Request(`http://shop.example${MERCHANT_PATHS.events}?token=${token}`, { signal: abort.signal }));
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    void (async () => {
      while (!(await reader.read().catch(() => ({ done: true }))).done);
    })();
    try {
      // Twenty intervals: the stream's opening counted one, its checks the rest of the window's three.
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(queries).toBeGreaterThanOrEqual(2);
      expect(queries).toBeLessThanOrEqual(3);
    } finally {
      abort.abort();
      await service.close();
    }
  });

  it('counts on callbacks once one arrived past the brisk window after the payer acted, queries briskly again while the bus is down, and catches up when it is back', async () => {
    const service = await startFakeService(() => ({
      body: { code: '00000', message: 'SUCCESSFUL', data: { reference: 'order-1', orderNo: '2611220000001', status: 'PENDING' } },
    }));
    let queries = 0;
    const bus = new ManualBus();
    const briskSeconds = 1;
    const handler = createMerchantHandler({
      merchantId,
      privateKey,
      environment: { baseUrl: service.url },
      logger: { warn: () => undefined, error: () => undefined },
      statusBus: bus,
      streams: { pollIntervalMs: 50, briskSeconds },
      fetch: (input, init) => {
        queries += 1;
        return fetch(input, init);
      },
    });
    const token = await issueOrderToken(privateKey, {
      merchantId,
      orderNo: '2611220000001',
      reference: 'order-1',
      country: 'EG',
      expiresAt: Math.floor(Date.now() / 1000) + 86_400 + 1_800,
    });
    const abort = new AbortController();
    const openedAt = Date.now();
    const response = await handler(new Request(`http://shop.example${MERCHANT_PATHS.events}?token=${token}`, { signal: abort.signal }));
    const reader = response.body!.getReader();
    void (async () => {
      while (!(await reader.read().catch(() => ({ done: true }))).done);
    })();
    const quietFor = async (ms: number) => {
      const counted = queries;
      await new Promise((resolve) => setTimeout(resolve, ms));
      return queries - counted;
    };
    try {
      await eventually('brisk queries: no callback seen yet', () => queries >= 5);
      // A callback of another order, verified by some process: callbacks work. The payer opened this stream just now:
      // it stays brisk all the same, for briskSeconds after that.
      bus.publish({ orderNo: '2611220000009', reference: 'order-9', status: 'SUCCESS', source: 'callback', at: Date.now() });
      expect(await quietFor(250)).toBeGreaterThanOrEqual(3);
      // Past the window: the streams count on callbacks, and the order is quiet.
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, openedAt + briskSeconds * 1000 + 200 - Date.now())));
      expect(await quietFor(300)).toBeLessThanOrEqual(1);
      // The payer acts on the order in another process (an OTP taken): brisk again, callbacks or not.
      bus.publish({ orderNo: '2611220000001', reference: 'order-1', status: 'PENDING', source: 'payer', at: Date.now() });
      const actedAt = Date.now();
      expect(await quietFor(250)).toBeGreaterThanOrEqual(3);
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, actedAt + briskSeconds * 1000 + 200 - Date.now())));
      expect(await quietFor(300)).toBeLessThanOrEqual(1);
      const counted = queries;
      bus.set('down');
      await eventually('brisk queries while the bus is down', () => queries >= counted + 5);
      bus.set('up');
      const back = queries;
      await new Promise((resolve) => setTimeout(resolve, 300));
      // One catch-up query (what the bus may have missed), then quiet again.
      expect(queries - back).toBeLessThanOrEqual(2);
    } finally {
      abort.abort();
      await service.close();
    }
  });
});
