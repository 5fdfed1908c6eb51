// The status stream client (src/checkout/status-stream.ts) against the real kit route and the real sandbox, with
// Node's own fetch and timers: what the payer's page sees, and each way the stream fails so that it polls instead.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStatusStream, type StatusStream, type StatusStreamFailure, type StatusStreamOptions } from '../../src/checkout/status-stream.js';
import type { StreamEndReason, StreamSchedule, StreamStatus } from '../../src/core/index.js';
import { listen } from '../support/fake-service.js';
import { startProxy, type TestProxy } from '../support/proxy.js';
import { eventually } from '../support/sandbox-fixture.js';
import { startStreamKit, type StreamKit } from '../support/stream-kit.js';

let kit: StreamKit;
let proxy: TestProxy | undefined;
const opened: StatusStream[] = [];

beforeEach(async () => {
  kit = await startStreamKit();
});

afterEach(async () => {
  for (const stream of opened.splice(0)) stream.close();
  await proxy?.close();
  proxy = undefined;
  await kit.close();
});

const timers = {
  setTimeout: (callback: () => void, ms: number) => setTimeout(callback, ms),
  clearTimeout: (handle: unknown) => clearTimeout(handle as NodeJS.Timeout),
};

interface Seen {
  statuses: StreamStatus[];
  schedules: StreamSchedule[];
  failures: StatusStreamFailure[];
  ends: StreamEndReason[];
}

function open(options: Partial<StatusStreamOptions> & { endpoint: string }): { stream: StatusStream; seen: Seen; openedAt: number } {
  const seen: Seen = { statuses: [], schedules: [], failures: [], ends: [] };
  const stream = openStatusStream({
    fetch: (url, init) => fetch(url, init),
    timers,
    onStatus: (status) => seen.statuses.push(status),
    onSchedule: (schedule) => seen.schedules.push(schedule),
    onError: (failure) => seen.failures.push(failure),
    onEnd: (reason) => seen.ends.push(reason),
    ...options,
  });
  opened.push(stream);
  return { stream, seen, openedAt: Date.now() };
}

describe('openStatusStream', () => {
  it("reports the schedule, the order's status, the paid status from the callback, and the end", async () => {
    const order = await kit.createOrder();
    const { stream, seen } = open({ endpoint: kit.url, orderToken: order.orderToken });
    await eventually('PENDING', () => seen.statuses.length === 1);
    expect(stream.state).toBe('open');
    expect(seen.schedules[0]).toMatchObject({ intervalMs: 2_500, retryMs: 3_000, heartbeatMs: 15_000 });
    expect(seen.statuses[0]).toEqual({ reference: order.reference, orderNo: order.orderNo, status: 'PENDING' });
    await kit.control.swipe(order.sn, 'success');
    await eventually('the end', () => seen.ends.length === 1);
    expect(seen.statuses.map((status) => status.status)).toEqual(['PENDING', 'SUCCESS']);
    expect(seen.ends).toEqual(['terminal']);
    expect(stream.state).toBe('ended');
    expect(stream.lastEventId).toBe('SUCCESS');
    expect(seen.failures).toEqual([]);
    await eventually("the kit's stream gone", () => kit.timers.pending.size === 0);
  });

  it("by reference with the checkout token: the status carries the order's token", async () => {
    const order = await kit.createOrder();
    const { seen } = open({ endpoint: `${kit.url}/`, checkoutToken: order.checkoutToken, reference: order.reference });
    await eventually('PENDING', () => seen.statuses.length === 1);
    expect(seen.statuses[0]!.orderToken).toMatch(/^ot1\./);
  });

  it('reconnects after a dropped connection with Last-Event-ID, and gets what it missed', async () => {
    await kit.restart({ streams: { retrySeconds: 0.1 } });
    const order = await kit.createOrder();
    proxy = await startProxy([kit.url]);
    const { stream, seen } = open({ endpoint: proxy.url, orderToken: order.orderToken });
    await eventually('PENDING', () => seen.statuses.length === 1);
    proxy.cut();
    // Paid while the connection was down: the callback reaches the kit before the client is back.
    await kit.control.swipe(order.sn, 'success');
    await eventually('SUCCESS after the reconnect', () => seen.statuses.length === 2, 3_000);
    expect(proxy.requests).toHaveLength(2);
    expect(proxy.requests[1]!.headers['last-event-id']).toBe('PENDING');
    expect(seen.statuses[1]!.status).toBe('SUCCESS');
    await eventually('the end', () => stream.state === 'ended');
    expect(seen.failures).toEqual([]);
  });

  it("says failed within 5 s when a proxy holds the stream's bytes back", async () => {
    const order = await kit.createOrder();
    proxy = await startProxy([kit.url], { mode: 'buffer' });
    const { stream, seen, openedAt } = open({ endpoint: proxy.url, orderToken: order.orderToken });
    await eventually('failed', () => seen.failures.length === 1, 7_000);
    const elapsed = Date.now() - openedAt;
    expect(elapsed).toBeGreaterThanOrEqual(4_900);
    expect(elapsed).toBeLessThan(5_800);
    expect(seen.failures[0]).toMatchObject({ state: 'failed', reason: 'no-bytes' });
    expect(stream.state).toBe('failed');
    expect(seen.statuses).toEqual([]);
    // The client gave up on it: the kit's side of the stream is gone too.
    await eventually("the kit's stream gone", () => kit.timers.pending.size === 0);
  });

  it('says failed at once when the connection fails, the route is missing, or the proof is refused, with the schedule to poll by', async () => {
    const order = await kit.createOrder();
    const closed = await listen(() => undefined);
    const nowhere = closed.url;
    await closed.close();
    const refusedConnection = open({ endpoint: nowhere, orderToken: order.orderToken });
    const refusedProof = open({ endpoint: kit.url, orderToken: `${order.orderToken}x` });
    await eventually('both failed', () => refusedConnection.seen.failures.length === 1 && refusedProof.seen.failures.length === 1);
    expect(refusedConnection.seen.failures[0]).toMatchObject({ reason: 'network', schedule: undefined });
    expect(refusedProof.seen.failures[0]).toMatchObject({ reason: 'refused', httpStatus: 200, envelope: { code: '02000' } });

    await kit.restart({ streams: false });
    const missing = open({ endpoint: kit.url, orderToken: order.orderToken });
    await eventually('failed', () => missing.seen.failures.length === 1);
    expect(missing.seen.failures[0]).toMatchObject({ reason: 'http', httpStatus: 404 });

    await kit.restart({ limits: { streamsPerOrder: { limit: 1 } } });
    const first = open({ endpoint: kit.url, orderToken: order.orderToken });
    await eventually('PENDING', () => first.seen.statuses.length === 1);
    const second = open({ endpoint: kit.url, orderToken: order.orderToken });
    await eventually('failed', () => second.seen.failures.length === 1);
    expect(second.seen.failures[0]).toMatchObject({ reason: 'limit', envelope: { code: 'TOO_MANY_REQUESTS' } });
  });

  it('reconnects a stream that went silent, and says failed when reconnecting does not bring bytes back', async () => {
    await kit.restart({ streams: { retrySeconds: 0.05, heartbeatSeconds: 0.1 } });
    const order = await kit.createOrder();
    // A proxy that passes the first connection on and holds back every later one.
    const streaming = await startProxy([kit.url]);
    const buffering = await startProxy([kit.url], { mode: 'buffer' });
    let connections = 0;
    const { stream, seen } = open({
      endpoint: 'http://proxy.invalid',
      orderToken: order.orderToken,
      firstByteTimeoutMs: 200,
      reconnects: 1,
      fetch: (url, init) => fetch(url.replace('http://proxy.invalid', (connections++ === 0 ? streaming : buffering).url), init),
    });
    await eventually('PENDING', () => seen.statuses.length === 1);
    streaming.cut();
    await eventually('failed', () => seen.failures.length === 1, 3_000);
    expect(connections).toBe(3); // the first, then two reconnects that got nothing
    expect(seen.failures[0]).toMatchObject({ reason: 'no-bytes' });
    expect(seen.failures[0]!.schedule).toMatchObject({ intervalMs: 2_500 });
    expect(stream.state).toBe('failed');
    await streaming.close();
    await buffering.close();
  });

  it('close() stops everything: no callback after it, and the kit lets the stream go', async () => {
    const order = await kit.createOrder();
    const { stream, seen } = open({ endpoint: kit.url, orderToken: order.orderToken });
    await eventually('PENDING', () => seen.statuses.length === 1);
    stream.close();
    expect(stream.state).toBe('closed');
    await eventually("the kit's stream gone", () => kit.timers.pending.size === 0);
    await kit.control.swipe(order.sn, 'success');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(seen.statuses).toHaveLength(1);
    expect(seen.failures).toEqual([]);
    expect(seen.ends).toEqual([]);
  });

  it('needs a proof', () => {
    expect(() => openStatusStream({ endpoint: '/checkout', fetch, timers, onStatus: () => undefined })).toThrow(/orderToken/);
  });
});
