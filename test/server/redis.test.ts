// The kit in several processes, its state in a real redis-server: the Redis stores on their own, then two kit
// processes (the built kit, scripts/kit-process.mjs) behind a round-robin proxy, in front of the real sandbox.
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CALLBACK_TYPE, canonicalJson, CHECKOUT_TOKEN_HEADER, MERCHANT_PATHS, ORDER_TOKEN_HEADER } from '../../src/core/index.js';
import { signCallback, STATUS_SHARED_MS } from '../../src/server/index.js';
import { StoreUnavailableError } from '../../src/server/stores/shared.js';
import { type StatusUpdate } from '../../src/server/stores/status-bus/port.js';
import { connectRedis, RedisConnectError, type RedisKit } from '../../src/server/redis/connect.js';
import { createSandbox, DEFAULT_MERCHANT, SandboxControl, type Sandbox } from '../../src/sandbox/index.js';
import { posRequest } from '../core/fixtures.js';
import { KitExit, startKitProcess, type KitProcess } from '../support/kit-process.js';
import { startProxy, type TestProxy } from '../support/proxy.js';
import { freePort, startRedis, type TestRedis } from '../support/redis-server.js';
import { eventually } from '../support/sandbox-fixture.js';
import { openStream, type OpenedStream } from '../support/sse.js';
import { tokenFor } from '../support/tokens.js';
// @ts-expect-error a plain JavaScript module without types
import { assertDistFresh } from '../../scripts/dist-is-fresh.mjs';

const { merchantId, privateKey } = DEFAULT_MERCHANT;
const credentials = { merchantId, privateKey };

let redis: TestRedis;

beforeAll(async () => {
  redis = await startRedis();
});

afterAll(async () => {
  await redis.close();
});

/** A logger that keeps its lines. */
const lines = () => {
  const kept: string[] = [];
  return { kept, warn: (line: string) => kept.push(line), error: (line: string) => kept.push(line) };
};

describe('the Redis stores', () => {
  let one: RedisKit;
  let two: RedisKit;
  const oneLog = lines();
  const twoLog = lines();
  const keyPrefix = `t${Date.now()}:`;

  beforeAll(async () => {
    one = await connectRedis({ url: redis.url, keyPrefix, leaseMs: 300, openLeaseMs: 300, logger: oneLog });
    two = await connectRedis({ url: redis.url, keyPrefix, leaseMs: 300, openLeaseMs: 300, logger: twoLog });
  });

  afterAll(async () => {
    await one.close();
    await two.close();
  });

  it('claim, complete and release one notifyId across processes, with a lease', async () => {
    expect(await one.callbackStore.claim('n-1')).toBe('new');
    expect(await two.callbackStore.claim('n-1')).toBe('busy');
    await one.callbackStore.release('n-1');
    expect(await two.callbackStore.claim('n-1')).toBe('new');
    await two.callbackStore.complete('n-1');
    expect(await one.callbackStore.claim('n-1')).toBe('done');

    // A claim is renewed while its handling runs, however long: the lease does not pass it on.
    expect(await one.callbackStore.claim('n-2')).toBe('new');
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(await two.callbackStore.claim('n-2')).toBe('busy');

    // A claim whose process died runs out within one lease; the late release of the first claimant takes nothing from the next.
    const doomed = await connectRedis({ url: redis.url, keyPrefix: one.keyPrefix, leaseMs: 300, logger: lines() });
    expect(await doomed.callbackStore.claim('n-3')).toBe('new');
    await doomed.close(); // its renewals stop, as a killed process's do
    expect(await two.callbackStore.claim('n-3')).toBe('busy');
    await new Promise((resolve) => setTimeout(resolve, 350));
    expect(await two.callbackStore.claim('n-3')).toBe('new');
    await one.callbackStore.release('n-3');
    expect(await one.callbackStore.claim('n-3')).toBe('busy');
  });

  it('claim one outcome once when one process claims it twice at the same instant (a callback and a reconciliation)', async () => {
    for (let index = 0; index < 20; index++) {
      const answers = await Promise.all([one.callbackStore.claim(`twice-${index}`), one.callbackStore.claim(`twice-${index}`)]);
      expect(answers.sort()).toEqual(['busy', 'new']);
    }
  });

  it('count throttled calls in one fixed window across processes', async () => {
    const hits = [
      await one.throttleStore.hit('resendOtp:o-1', 2, 400),
      await two.throttleStore.hit('resendOtp:o-1', 2, 400),
      await one.throttleStore.hit('resendOtp:o-1', 2, 400),
    ];
    expect(hits.map((hit) => hit.allowed)).toEqual([true, true, false]);
    expect(hits[2]!.retryAfterMs).toBeGreaterThan(0);
    expect(hits[2]!.retryAfterMs).toBeLessThanOrEqual(400);
    await new Promise((resolve) => setTimeout(resolve, 450));
    expect((await two.throttleStore.hit('resendOtp:o-1', 2, 400)).allowed).toBe(true);
  });

  it('give counts back within a window, and never start one by giving back', async () => {
    const hit = (key: string, cost?: number) => one.throttleStore.hit(key, 2, 60_000, cost);
    expect([(await hit('wrongCodesPerOrder:o-1')).allowed, (await hit('wrongCodesPerOrder:o-1')).allowed]).toEqual([true, true]);
    await two.throttleStore.hit('wrongCodesPerOrder:o-1', 2, 60_000, -1);
    expect((await hit('wrongCodesPerOrder:o-1')).allowed).toBe(true);
    expect((await hit('wrongCodesPerOrder:o-1')).allowed).toBe(false);
    // Given back before anything was counted: no window, and never below nothing.
    await hit('wrongCodesPerOrder:o-2', -1);
    await hit('wrongCodesPerOrder:o-2', -1);
    expect([(await hit('wrongCodesPerOrder:o-2')).allowed, (await hit('wrongCodesPerOrder:o-2')).allowed, (await hit('wrongCodesPerOrder:o-2')).allowed]).toEqual([true, true, false]);
  });

  it('hold places open across processes, all or none, and give them back', async () => {
    const client = (name: string) => [
      { key: `streamsPerClient:${name}`, limit: 2 },
      { key: 'streams:kit', limit: 3 },
    ];
    const first = await one.throttleStore.hold!(client('c-1'));
    const second = await two.throttleStore.hold!(client('c-1'));
    expect([first.held, second.held]).toEqual([true, true]);
    // The client's two places are taken, whichever process asks; the refusal takes nothing.
    expect(await one.throttleStore.hold!(client('c-1'))).toEqual({ held: false, full: 0 });
    expect((await two.throttleStore.hold!(client('c-2'))).held).toBe(true);
    // Three in all: another client finds none left.
    expect(await one.throttleStore.hold!(client('c-3'))).toEqual({ held: false, full: 1 });
    if (first.held) first.release();
    await eventually('a place given back', async () => (await two.throttleStore.hold!(client('c-3'))).held);
  });

  it("free the places of a process that stopped without giving them back, once its lease runs out", async () => {
    const gone = await connectRedis({ url: redis.url, keyPrefix, openLeaseMs: 300, logger: lines() });
    const places = [{ key: 'streamsPerClient:c-gone', limit: 2 }];
    expect((await gone.throttleStore.hold!(places)).held).toBe(true);
    expect((await gone.throttleStore.hold!(places)).held).toBe(true);
    // A live process renews its lease: its places outlive the lease's first term.
    const kept = [{ key: 'streamsPerClient:c-kept', limit: 1 }];
    expect((await two.throttleStore.hold!(kept)).held).toBe(true);
    await gone.close(); // as if it died: nothing given back, its lease no longer renewed
    expect(await one.throttleStore.hold!(places)).toEqual({ held: false, full: 0 });
    await new Promise((resolve) => setTimeout(resolve, 450));
    expect((await one.throttleStore.hold!(places)).held).toBe(true);
    expect(await one.throttleStore.hold!(kept)).toEqual({ held: false, full: 0 });
  });

  it('bring an update published in one process to the listeners of every process, once each', async () => {
    const heardOne: StatusUpdate[] = [];
    const heardTwo: StatusUpdate[] = [];
    const stopOne = one.statusBus.subscribe({ update: (update) => heardOne.push(update) });
    const stopTwo = two.statusBus.subscribe({ update: (update) => heardTwo.push(update) });
    const update: StatusUpdate = { orderNo: '26112200000001', reference: 'r-1', status: 'SUCCESS', source: 'callback', at: Date.now() };
    await one.statusBus.publish(update);
    await eventually('the other process heard it', () => heardTwo.length === 1);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(heardOne).toEqual([update]);
    expect(heardTwo).toEqual([update]);
    stopOne();
    stopTwo();
  });

  it('fall back while Redis is away, say so once, and share again when it is back', async () => {
    const states: string[] = [];
    const heard: StatusUpdate[] = [];
    const stop = two.statusBus.subscribe({ update: (update) => heard.push(update), connection: (state) => states.push(state) });
    await redis.stop();
    try {
      await eventually('the bus down', () => states.includes('down'));
      for (let index = 0; index < 5; index++) {
        await expect(one.callbackStore.claim(`n-down-${index}`)).rejects.toBeInstanceOf(StoreUnavailableError);
        // Throttles count in the process meanwhile.
        expect((await one.throttleStore.hit('resendOtp:o-down', 1, 60_000)).allowed).toBe(index === 0);
      }
      expect(one.available).toBe(false);
      expect(oneLog.kept.filter((line) => line.includes('is unreachable')), oneLog.kept.join('\n')).toHaveLength(1);
      expect(oneLog.kept[0]).toMatch(/^svc-checkout: Redis at redis:\/\/127\.0\.0\.1:\d+ is unreachable \(.+\)\. Until it returns: status streams query the service/);
    } finally {
      await redis.start();
    }
    await eventually('both back', () => one.available && two.available && states.at(-1) === 'up', 5_000);
    expect(oneLog.kept.filter((line) => line.includes('is back:')), oneLog.kept.join('\n')).toHaveLength(1);
    expect(twoLog.kept.filter((line) => line.includes('is unreachable')), twoLog.kept.join('\n')).toHaveLength(1);
    await one.statusBus.publish({ orderNo: '26112200000002', reference: 'r-2', status: 'FAIL', source: 'callback', at: Date.now() });
    await eventually('pub/sub resumed', () => heard.length === 1);
    stop();
  });

  it('count a Redis that answers too late as away, and as back once it answers in time again', async () => {
    const log = lines();
    const slow = await connectRedis({ url: redis.url, keyPrefix: `slow${Date.now()}:`, commandTimeoutMs: 100, recoveryHoldMs: 0, logger: log });
    const admin = createClient({ url: redis.url });
    admin.on('error', () => undefined);
    await admin.connect();
    try {
      // Redis holds every client's commands for 400 ms.
      await admin.sendCommand(['CLIENT', 'PAUSE', '400', 'ALL']);
      await expect(slow.callbackStore.claim('slow-1')).rejects.toBeInstanceOf(StoreUnavailableError);
      expect(slow.available).toBe(false);
      await eventually('answering in time again', () => slow.available, 3_000);
      expect(await slow.callbackStore.claim('slow-2')).toBe('new');
      expect(log.kept).toEqual([
        expect.stringMatching(/is unreachable \(Redis did not answer a command within 100 ms\)/),
        expect.stringMatching(/is back:/),
      ]);
    } finally {
      await admin.sendCommand(['CLIENT', 'UNPAUSE']).catch(() => undefined);
      admin.destroy();
      await slow.close();
    }
  });

  it('refuse to start when Redis cannot be reached, saying where and why', async () => {
    const port = await freePort();
    const began = Date.now();
    const failure = await connectRedis({ url: `redis://user:secret@127.0.0.1:${port}`, merchantId, logger: lines() }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(RedisConnectError);
    expect((failure as Error).message).toMatch(new RegExp(`cannot reach Redis at redis://127\\.0\\.0\\.1:${port} \\(.*ECONNREFUSED.*\\)\\..*does not start without it`));
    expect((failure as Error).message).not.toContain('secret');
    expect(Date.now() - began).toBeLessThan(2_000);
  });
});

describe('two kit processes sharing Redis, behind a round-robin proxy, in front of the real sandbox', () => {
  let sandbox: Sandbox;
  let control: SandboxControl;
  let proxy: TestProxy;
  let a: KitProcess;
  let b: KitProcess;
  const targets: string[] = [];
  const streams: OpenedStream[] = [];
  let serial = 0;

  beforeAll(async () => {
    await assertDistFresh();
    sandbox = await createSandbox({ tickMs: 20 });
    control = new SandboxControl(sandbox.url);
    proxy = await startProxy(targets);
    const env = { SANDBOX_URL: sandbox.url, REDIS_URL: redis.url, CALLBACK_URL: `${proxy.url}/callbacks`, STREAM_POLL_MS: '300' };
    [a, b] = await Promise.all([startKitProcess('A', env), startKitProcess('B', env)]);
    targets.push(a.url, b.url);
  });

  afterAll(async () => {
    for (const stream of streams) stream.close();
    await Promise.all([a?.stop(), b?.stop()]);
    await proxy?.close();
    await sandbox?.close();
  });

  /** A POS order made through `url` as the element makes it; its callbacks go to `callbackUrl`, else the proxy. */
  async function createOrder(url: string, callbackUrl?: string) {
    serial += 1;
    const body = posRequest({ reference: `multi-${serial}`, sn: `SN-MULTI-${serial}` });
    const token = await tokenFor(credentials, body, callbackUrl ? { callbackUrl } : {});
    const response = await fetch(`${url}${MERCHANT_PATHS.create}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', [CHECKOUT_TOKEN_HEADER]: token },
      body: JSON.stringify(body),
    });
    const answer = await response.json();
    expect(answer.code).toBe('00000');
    return { orderNo: answer.data.orderNo as string, sn: body.sn, orderToken: response.headers.get(ORDER_TOKEN_HEADER)! };
  }

  async function watch(url: string, orderToken: string) {
    const stream = await openStream(`${url}${MERCHANT_PATHS.events}`, { [ORDER_TOKEN_HEADER]: orderToken });
    streams.push(stream);
    await stream.next('status');
    return stream;
  }

  const handled = () => [...a.callbacks, ...b.callbacks];
  const handledFor = (orderNo: string) => handled().filter((line) => line.split(' ')[1] === orderNo);

  it('handles each callback once across the processes', async () => {
    const orders: Awaited<ReturnType<typeof createOrder>>[] = [];
    for (let index = 0; index < 10; index++) orders.push(await createOrder(proxy.url));
    await Promise.all(orders.map((order, index) => control.swipe(order.sn, index % 3 === 0 ? 'fail' : 'success')));
    await eventually('every callback handled', () => orders.every((order) => handledFor(order.orderNo).length === 1), 10_000);
    // Both processes took some: the proxy alternates.
    expect(a.callbacks.length).toBeGreaterThan(0);
    expect(b.callbacks.length).toBeGreaterThan(0);

    // The same callback delivered to both at once, and again: handled once.
    const body = canonicalJson({
      notifyId: `dup-${Date.now()}`,
      reference: 'multi-dup',
      amount: { total: 12_500, currency: 'EGP' },
      orderNo: '26112299999999',
      country: 'EG',
      status: 'SUCCESS',
      timestamp: Date.now(),
      type: CALLBACK_TYPE,
    });
    const deliver = async (url: string) => {
      const timestamp = String(Date.now());
      const signature = await signCallback(timestamp, body, privateKey);
      const response = await fetch(`${url}${MERCHANT_PATHS.callbacks}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: signature, MerchantId: merchantId, RequestTimestamp: timestamp },
        body,
      });
      return response.status;
    };
    const statuses = await Promise.all([deliver(a.url), deliver(b.url), deliver(a.url), deliver(b.url)]);
    expect(statuses.every((status) => status === 200 || status === 503)).toBe(true);
    expect(await deliver(b.url)).toBe(200);
    await eventually('handled once', () => handledFor('26112299999999').length === 1);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(handledFor('26112299999999')).toHaveLength(1);
    const ids = handled().map((line) => line.split(' ')[0]);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('brings a payment whose callback reached A to a payer streaming from B, without B asking the service', async () => {
    const order = await createOrder(proxy.url, `${a.url}/callbacks`);
    const stream = await watch(b.url, order.orderToken);
    const queries = b.queries;
    const paidAt = Date.now();
    await control.swipe(order.sn, 'success');
    const paid = await stream.next('status', 2);
    expect(JSON.parse(paid.data)).toMatchObject({ orderNo: order.orderNo, status: 'SUCCESS' });
    expect(Date.now() - paidAt).toBeLessThan(1_000);
    // The payer hears at once; the shop's hook a moment later (a payment first asks whether another attempt of its
    // checkout was paid too: docs/one-payment.md).
    await eventually('handled', () => handledFor(order.orderNo).length === 1);
    expect(handledFor(order.orderNo)).toHaveLength(1);
    expect(a.callbacks.some((line) => line.includes(order.orderNo))).toBe(true);
    // B counts on callbacks (it has heard them): the news came by pub/sub, not by a query.
    expect(b.queries).toBe(queries);
  });

  it('loses nothing when Redis stops mid-run: streams query the service, callbacks wait, the log says so once; all resumes when it is back', async () => {
    const order = await createOrder(proxy.url, `${a.url}/callbacks`);
    const stream = await watch(b.url, order.orderToken);
    await redis.stop();
    try {
      await eventually('both kits said Redis is unreachable', () => [a, b].every((kit) => kit.logs.some((line) => line.includes('is unreachable'))));
      // Requests meanwhile: a create (throttled in the process) and status queries, through both processes.
      const during = await createOrder(proxy.url, `${a.url}/callbacks`);
      for (let index = 0; index < 4; index++) {
        const response = await fetch(`${proxy.url}${MERCHANT_PATHS.status}`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', [ORDER_TOKEN_HEADER]: during.orderToken },
          body: '{}',
        });
        expect((await response.json()).data.status).toBe('PENDING');
      }
      await control.swipe(order.sn, 'success');
      // The callback reaches A, which cannot record it and answers 503; B's stream finds the payment by querying.
      const paid = await stream.next('status', 2, 5_000);
      expect(JSON.parse(paid.data).status).toBe('SUCCESS');
      const attempts = await control.callbacks({ orderNo: order.orderNo });
      expect(attempts.length).toBeGreaterThan(0);
      expect(attempts.every((attempt) => attempt.status === 503 && !attempt.acknowledged)).toBe(true);
      expect(handledFor(order.orderNo)).toHaveLength(0);
    } finally {
      await redis.start();
    }
    await eventually('both kits said Redis is back', () => [a, b].every((kit) => kit.logs.some((line) => line.includes('is back:'))), 5_000);
    for (const kit of [a, b]) {
      expect(kit.logs.filter((line) => line.includes('is unreachable')), kit.name).toHaveLength(1);
      expect(kit.logs.filter((line) => line.includes('is back:')), kit.name).toHaveLength(1);
      expect(kit.logs[0]).toMatch(/^error svc-checkout: Redis at redis:\/\/127\.0\.0\.1:\d+ is unreachable/);
    }
    // The service sends the callback again (10 s later on its clock): handled, once.
    await control.advanceClock(1);
    await eventually('the callback handled after Redis came back', () => handledFor(order.orderNo).length === 1, 5_000);

    // Pub/sub is back: the next payment reaches B's stream from A's callback, without B asking.
    const next = await createOrder(proxy.url, `${a.url}/callbacks`);
    const resumed = await watch(b.url, next.orderToken);
    await new Promise((resolve) => setTimeout(resolve, 700)); // past B's catch-up after Redis came back
    const queries = b.queries;
    await control.swipe(next.sn, 'success');
    expect(JSON.parse((await resumed.next('status', 2)).data).status).toBe('SUCCESS');
    expect(b.queries).toBe(queries);
    // The shop's hook a moment after the payer's stream (a payment asks about its checkout's other attempts first).
    await eventually('the next callback handled', () => handledFor(next.orderNo).length === 1);
    expect(handledFor(next.orderNo)).toHaveLength(1);
  });

  it('delays nobody beyond a lease when a process dies holding a claim: its payers are cut and served by another, the retry handled by another', async () => {
    // C's onCallback never ends (a merchant's database hangs); C is then killed.
    const c = await startKitProcess('C', { SANDBOX_URL: sandbox.url, REDIS_URL: redis.url, CALLBACK_DELAY_MS: '600000', STREAM_POLL_MS: '300', REDIS_LEASE_MS: '10000' });
    const payers = await startProxy([c.url, b.url]);
    const callbacks = await startProxy([c.url, a.url]);
    const admin = createClient({ url: redis.url });
    await admin.connect();
    try {
      // A payer streaming a pending order from C.
      const watched = await createOrder(proxy.url);
      const onC = await watch(payers.url, watched.orderToken);
      // Another order's callback reaches C, which claims it and hangs in onCallback.
      const held = await createOrder(proxy.url, `${callbacks.url}/callbacks`);
      await control.swipe(held.sn, 'success');
      const claimKey = `svc-checkout:${merchantId}:callback:outcome:${held.orderNo}:SUCCESS`;
      await eventually('C claimed it', async () => String(await admin.get(claimKey)).startsWith('busy:'));
      c.child.kill('SIGKILL');
      const killedAt = Date.now();
      // The proxy closes the payer's connection, as nginx and haproxy do; the page reconnects, to B, and sees its payment.
      await eventually('the payer cut', async () => {
        let cut = false;
        await Promise.race([onC.ended.then(() => (cut = true)), new Promise((resolve) => setTimeout(resolve, 100))]);
        return cut;
      }, 3_000);
      expect(onC.events.filter((event) => event.type === 'end')).toEqual([]);
      const onB = await watch(payers.url, watched.orderToken);
      await control.swipe(watched.sn, 'success');
      expect(JSON.parse((await onB.next('status', 2)).data).status).toBe('SUCCESS');
      // The service's retries: refused while C's process lease lasts, handled by A once it (10 s here, no longer renewed) ran out.
      const [delivery] = await control.deliveries({ orderNo: held.orderNo });
      await eventually('the retry handled by A', async () => {
        const attempt = await control.resendCallback(delivery!.notifyId);
        if (attempt.status === 200) return true;
        await new Promise((resolve) => setTimeout(resolve, 500));
        return false;
      }, 15_000);
      expect(Date.now() - killedAt).toBeLessThan(15_000);
      expect(handledFor(held.orderNo)).toHaveLength(1);
      expect(a.callbacks.some((line) => line.includes(held.orderNo))).toBe(true);
    } finally {
      admin.destroy();
      await c.stop();
      await payers.close();
      await callbacks.close();
    }
  }, 30_000);

  it('refuses to start a kit that cannot reach Redis, with a clear error', async () => {
    const port = await freePort();
    const failure = await startKitProcess('C', { SANDBOX_URL: sandbox.url, REDIS_URL: `redis://127.0.0.1:${port}` }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(KitExit);
    expect((failure as KitExit).code).toBe(1);
    expect((failure as KitExit).stderr).toMatch(/svc-checkout: cannot reach Redis at redis:\/\/127\.0\.0\.1:\d+ \(.*ECONNREFUSED.*\)\. .*does not start without it/);
  });
});

describe('the limits across two kit processes sharing Redis', () => {
  let sandbox: Sandbox;
  let a: KitProcess;
  let b: KitProcess;
  const streams: OpenedStream[] = [];
  let serial = 0;

  beforeAll(async () => {
    await assertDistFresh();
    sandbox = await createSandbox({ tickMs: 20 });
    const limits = { statusPerOrder: { limit: 3, windowSeconds: 60 }, streamsPerClient: { limit: 2 } };
    const env = { SANDBOX_URL: sandbox.url, REDIS_URL: redis.url, LIMITS: JSON.stringify(limits) };
    [a, b] = await Promise.all([startKitProcess('A', env), startKitProcess('B', env)]);
  });

  afterAll(async () => {
    for (const stream of streams) stream.close();
    await Promise.all([a?.stop(), b?.stop()]);
    await sandbox?.close();
  });

  async function createOrder() {
    serial += 1;
    const body = posRequest({ reference: `limits-${Date.now()}-${serial}`, sn: `SN-LIMITS-${serial}` });
    const response = await fetch(`${a.url}${MERCHANT_PATHS.create}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', [CHECKOUT_TOKEN_HEADER]: await tokenFor(credentials, body) },
      body: JSON.stringify(body),
    });
    expect((await response.json()).code).toBe('00000');
    return response.headers.get(ORDER_TOKEN_HEADER)!;
  }

  it("count one order's status queries whichever process serves them", async () => {
    const orderToken = await createOrder();
    const status = async (kit: KitProcess) => {
      const response = await fetch(`${kit.url}${MERCHANT_PATHS.status}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', [ORDER_TOKEN_HEADER]: orderToken },
        body: '{}',
      });
      const answer = await response.json();
      return answer.data?.limit ?? answer.code;
    };
    const before = a.queries + b.queries;
    expect([await status(a), await status(b)]).toEqual(['00000', '00000']);
    await new Promise((resolve) => setTimeout(resolve, STATUS_SHARED_MS)); // past each process's shared answer
    // The third query reaches the service through A; B's would be the fourth.
    expect([await status(a), await status(b)]).toEqual(['00000', 'statusPerOrder']);
    expect(a.queries + b.queries - before).toBe(3);
  });

  it("count one client's open streams whichever process holds them, and free a place when one closes", async () => {
    const tokens = [await createOrder(), await createOrder(), await createOrder()];
    const open = async (kit: KitProcess, token: string) => {
      const stream = await openStream(`${kit.url}${MERCHANT_PATHS.events}`, { [ORDER_TOKEN_HEADER]: token });
      streams.push(stream);
      return stream;
    };
    const first = await open(a, tokens[0]!);
    expect((await open(b, tokens[1]!)).contentType).toMatch(/^text\/event-stream/);
    const refused = await open(a, tokens[2]!);
    expect(await refused.json()).toMatchObject({ code: 'TOO_MANY_REQUESTS', data: { limit: 'streamsPerClient', retryAfterSeconds: 30 } });
    first.close();
    await eventually('a place given back to the other process', async () => (await open(b, tokens[2]!)).contentType.startsWith('text/event-stream'));
  });
});
