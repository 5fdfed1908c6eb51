// The Redis adapter through the faults a real redis-server produces on demand: frozen (SIGSTOP), killed and started
// again from its append-only file, started again without its data, flushed, configured to forget; and two merchant
// accounts sharing one Redis.
import { createClient } from 'redis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CHECKOUT_TOKEN_HEADER, MERCHANT_PATHS, SERVICE_PATHS } from '../../src/core/index.js';
import { createMerchantHandler } from '../../src/server/index.js';
import { type CallbackEvent } from '../../src/server/callbacks/hand-over.js';
import { StoreUnavailableError } from '../../src/server/stores/shared.js';
import { type StatusUpdate } from '../../src/server/stores/status-bus/port.js';
import { connectRedis, RedisDurabilityError, type RedisKit } from '../../src/server/redis/connect.js';
import { createSandbox, DEFAULT_MERCHANT, SandboxControl, type Sandbox } from '../../src/sandbox/index.js';
import { posRequest } from '../core/fixtures.js';
import { startRedis, type TestRedis } from '../support/redis-server.js';
import { keptLines } from '../support/redis-callbacks.js';
import { eventually } from '../support/sandbox-fixture.js';
import { openStream } from '../support/sse.js';
import { tokenFor } from '../support/tokens.js';

const { merchantId, privateKey } = DEFAULT_MERCHANT;

let redis: TestRedis;
const kits: RedisKit[] = [];
let serial = 0;

async function kit(options: Parameters<typeof connectRedis>[0] = {}) {
  const made = await connectRedis({ url: redis.url, merchantId, ...options });
  kits.push(made);
  return made;
}

/** Calls Redis has run of a command (INFO commandstats), read on a connection of the test's own. */
async function calls(command: string): Promise<number> {
  const admin = createClient({ url: redis.url });
  admin.on('error', () => undefined);
  await admin.connect();
  try {
    const stats = String(await admin.sendCommand(['INFO', 'commandstats']));
    return Number(new RegExp(`cmdstat_${command}:calls=(\\d+)`).exec(stats)?.[1] ?? 0);
  } finally {
    admin.destroy();
  }
}

beforeAll(async () => {
  redis = await startRedis();
});

afterEach(async () => {
  redis.resume();
  if (!redis.running) await redis.start();
  await Promise.all(kits.splice(0).map((each) => each.close()));
});

afterAll(async () => {
  await redis.close();
});

describe('a Redis that stops answering', () => {
  it('tells the status bus within the command timeout and a heartbeat, and fails every call at once until it answers again', async () => {
    const log = keptLines();
    const one = await kit({ keyPrefix: `frozen${++serial}:`, commandTimeoutMs: 300, recoveryHoldMs: 100, logger: log });
    const states: string[] = [];
    one.statusBus.subscribe({ update: () => undefined, connection: (state) => states.push(state) });
    const before = await calls('eval');
    redis.pause();
    await eventually('the bus said down', () => states.includes('down'), 3_000);
    expect(one.available).toBe(false);
    let refused = 0;
    for (let index = 0; index < 20; index++) {
      await one.callbackStore.claim(`frozen-${index}`).catch((error: unknown) => {
        expect(error).toBeInstanceOf(StoreUnavailableError);
        refused += 1;
      });
    }
    expect(refused).toBe(20);
    redis.resume();
    await eventually('back', () => one.available && states.at(-1) === 'up', 5_000);
    // None of the twenty reached Redis: the breaker refused them without sending (nothing to take back either).
    expect((await calls('eval')) - before).toBe(0);
    expect(log.kept.filter((line) => line.includes('is unreachable'))).toHaveLength(1);
    expect(log.kept.filter((line) => line.includes('is back:'))).toHaveLength(1);
  });

  it('takes back a claim whose answer never came, before Redis counts as back: nobody waits for its lease', async () => {
    const keyPrefix = `unsure${++serial}:`;
    const one = await kit({ keyPrefix, commandTimeoutMs: 300, leaseMs: 60_000, recoveryHoldMs: 100, logger: keptLines() });
    const two = await kit({ keyPrefix, commandTimeoutMs: 300, leaseMs: 60_000, recoveryHoldMs: 100, logger: keptLines() });
    redis.pause();
    // Sent, never answered: Redis runs it when it wakes, and the claim would stand for its 60 s lease.
    await expect(one.callbackStore.claim('outcome:1')).rejects.toBeInstanceOf(StoreUnavailableError);
    redis.resume();
    await eventually('both back', () => one.available && two.available, 5_000);
    expect(await two.callbackStore.claim('outcome:1')).toBe('new');
  });

  it('writes a completion it could not write when Redis returns from its append-only file, before any retry is claimed', async () => {
    const keyPrefix = `unwritten${++serial}:`;
    const one = await kit({ keyPrefix, leaseMs: 300, logger: keptLines() });
    const two = await kit({ keyPrefix, leaseMs: 300, logger: keptLines() });
    expect(await one.callbackStore.claim('outcome:2')).toBe('new');
    await redis.kill();
    // onCallback ran; its completion cannot be written now (the handler acknowledges it all the same).
    await expect(one.callbackStore.complete('outcome:2')).rejects.toBeInstanceOf(StoreUnavailableError);
    // Meanwhile the same process knows it handled it.
    expect(await one.callbackStore.claim('outcome:2')).toBe('done');
    await new Promise((resolve) => setTimeout(resolve, 400)); // past the claim's lease, in Redis's file too
    await redis.start();
    await eventually('both back', () => one.available && two.available, 8_000);
    expect(await two.callbackStore.claim('outcome:2')).toBe('done');
  });

  it('writes a completion made during the recovery hold before Redis counts as back, and keeps its claim until then', async () => {
    const keyPrefix = `hold${++serial}:`;
    const options = { keyPrefix, leaseMs: 600, recoveryHoldMs: 2_000, logger: keptLines() };
    const one = await kit(options);
    const two = await kit(options);
    expect(await one.callbackStore.claim('outcome:3')).toBe('new');
    await redis.kill();
    await eventually('down', () => !one.available, 3_000);
    await redis.start();
    // Redis answers again, and both processes are in their hold: onCallback returns now, its completion refused.
    await new Promise((resolve) => setTimeout(resolve, 900));
    expect(one.available).toBe(false);
    await expect(one.callbackStore.complete('outcome:3')).rejects.toBeInstanceOf(StoreUnavailableError);
    await eventually('both back', () => one.available && two.available, 8_000);
    await new Promise((resolve) => setTimeout(resolve, 700)); // past the claim's lease
    // The service's retry reaches the other process: handled already, never claimed anew.
    expect(await two.callbackStore.claim('outcome:3')).toBe('done');
  });

  it('holds a claim whose onCallback still runs through an outage and its recovery: no other process claims it', async () => {
    const keyPrefix = `held${++serial}:`;
    const options = { keyPrefix, leaseMs: 600, recoveryHoldMs: 300, logger: keptLines() };
    const one = await kit(options);
    const two = await kit(options);
    expect(await one.callbackStore.claim('outcome:4')).toBe('new');
    await redis.kill();
    await eventually('down', () => !one.available, 3_000);
    await new Promise((resolve) => setTimeout(resolve, 700)); // the lease ran out in Redis's file meanwhile
    await redis.start();
    await eventually('both back', () => one.available && two.available, 8_000);
    expect(await two.callbackStore.claim('outcome:4')).toBe('busy');
    await new Promise((resolve) => setTimeout(resolve, 700)); // renewed while it runs
    expect(await two.callbackStore.claim('outcome:4')).toBe('busy');
    await one.callbackStore.complete('outcome:4');
    expect(await two.callbackStore.claim('outcome:4')).toBe('done');
  });
});

describe('what Redis keeps', () => {
  it('refuses a Redis without an append-only file, naming the setting; starts with acceptDataLoss, saying so once', async () => {
    const volatile = await startRedis({ persistence: 'none' });
    try {
      const refused = await connectRedis({ url: volatile.url, merchantId, logger: keptLines() }).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(RedisDurabilityError);
      expect((refused as RedisDurabilityError).risks.map((risk) => risk.setting)).toEqual(['appendonly']);
      expect((refused as Error).message).toMatch(/may forget the callbacks the kit handled.*appendonly is no: a restart forgets .*set appendonly yes.*acceptDataLoss: true/);
      const log = keptLines();
      const accepted = await connectRedis({ url: volatile.url, merchantId, acceptDataLoss: true, logger: log });
      await accepted.close();
      expect(log.kept).toEqual([expect.stringMatching(/may forget handled callbacks \(accepted with acceptDataLoss\): appendonly is no/)]);
    } finally {
      await volatile.close();
    }
  });

  it('refuses an evicting maxmemory-policy, and reads the settings from INFO where CONFIG is refused (managed Redis)', async () => {
    const managed = await startRedis({ extra: ['--maxmemory', '64mb', '--maxmemory-policy', 'allkeys-lru', '--rename-command', 'CONFIG', '""'] });
    try {
      const refused = await connectRedis({ url: managed.url, merchantId, logger: keptLines() }).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(RedisDurabilityError);
      expect((refused as RedisDurabilityError).risks).toEqual([expect.objectContaining({ setting: 'maxmemory-policy', value: 'allkeys-lru' })]);
    } finally {
      await managed.close();
    }
  });

  it('says in its log when Redis comes back without the kit’s data: restarted empty, or flushed', async () => {
    const log = keptLines();
    await kit({ keyPrefix: `epoch${++serial}:`, recoveryHoldMs: 100, logger: log });
    await redis.kill();
    await redis.start({ fresh: true });
    await eventually('the loss said', () => log.kept.some((line) => line.includes("came back without the kit's data")), 8_000);
    expect(log.kept.find((line) => line.includes("came back without the kit's data"))).toMatch(/epoch key epoch\d+:epoch is gone\).*keep onCallback idempotent.*appendonly yes, maxmemory-policy noeviction/);
    // Said once: a heartbeat that came while another wrote the epoch afresh read it as "another", and said it again.
    const lost = () => log.kept.filter((line) => line.includes("came back without the kit's data")).length;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(lost()).toBe(1);

    const admin = createClient({ url: redis.url });
    await admin.connect();
    await admin.sendCommand(['FLUSHALL']);
    admin.destroy();
    await eventually('the flush said', () => lost() === 2, 5_000);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(lost()).toBe(2);
  });

  it('keeps a Redis restarted from its append-only file: nothing said, handled outcomes still known', async () => {
    const log = keptLines();
    const one = await kit({ keyPrefix: `kept${++serial}:`, recoveryHoldMs: 100, logger: log });
    expect(await one.callbackStore.claim('outcome:3')).toBe('new');
    await one.callbackStore.complete('outcome:3');
    await new Promise((resolve) => setTimeout(resolve, 1_100)); // appendfsync everysec
    await redis.kill();
    await redis.start();
    await eventually('back', () => one.available && log.kept.some((line) => line.includes('is back:')), 8_000);
    expect(await one.callbackStore.claim('outcome:3')).toBe('done');
    expect(log.kept.filter((line) => line.includes('without the kit'))).toEqual([]);
  });
});

describe('reconciliation across processes', () => {
  it('asks about each due order from one process only, and hands each outcome over once', async () => {
    const sandbox = await createSandbox({ tickMs: 20 });
    const keyPrefix = `sweep${++serial}:`;
    const queries: number[] = [0, 0];
    const handled: CallbackEvent[] = [];
    const handlers = await Promise.all(
      [0, 1].map(async (index) => {
        const stores = (await kit({ keyPrefix, logger: keptLines() })).stores;
        return createMerchantHandler({
          merchantId,
          privateKey,
          environment: { baseUrl: sandbox.url },
          callbackUrl: 'http://127.0.0.1:9/callbacks', // the shop's endpoint is down
          limits: { createsPerClient: false },
          logger: { warn: () => undefined, error: () => undefined },
          reconcile: { quietSeconds: 0.001, sweepSeconds: false, queriesPerSecond: 20 },
          onCallback: (event) => {
            handled.push(event);
          },
          fetch: (input, init) => {
            // The sweeps' queries, about an order by its number (a payment's look at the other attempts of its
            // checkout asks by reference: docs/one-payment.md).
            if (String(input).endsWith(SERVICE_PATHS.status) && String(init?.body).includes('"orderNo"')) queries[index]! += 1;
            return fetch(input, init);
          },
          ...stores,
        });
      }),
    );
    try {
      const sns: string[] = [];
      for (let index = 0; index < 40; index++) {
        const body = posRequest({ reference: `sweep-${Date.now()}-${index}`, sn: `SN-SWEEP-${serial}-${index}` });
        // Every order made by the first process.
        const response = await handlers[0]!(
          new Request(`http://shop.example${MERCHANT_PATHS.create}`, {
            method: 'POST',
            headers: { 'Content-Type': 'application/json', [CHECKOUT_TOKEN_HEADER]: await tokenFor({ merchantId, privateKey }, body) },
            body: JSON.stringify(body),
          }),
        );
        expect((await response.json()).code).toBe('00000');
        sns.push(body.sn);
      }
      const control = new SandboxControl(sandbox.url);
      await Promise.all(sns.map((sn) => control.swipe(sn, 'success')));
      // The second process sees them, and asks about all of them in one sweep: 20 a second, in two windows.
      expect((await handlers[1]!.reconcile()).asked).toBe(40);
      await eventually('every outcome handed over', async () => {
        await Promise.all(handlers.map((handler) => handler.reconcile()));
        return handled.length >= 40;
      }, 10_000);
      expect(queries[0]! + queries[1]!).toBe(40);
      expect(new Set(handled.map((event) => event.body.orderNo)).size).toBe(40);
      expect(handled).toHaveLength(40);
      // Settled and forgotten: nothing left to ask about.
      expect(await Promise.all(handlers.map((handler) => handler.reconcile()))).toEqual([
        { asked: 0, handled: 0, forgotten: 0 },
        { asked: 0, handled: 0, forgotten: 0 },
      ]);
    } finally {
      for (const handler of handlers) handler.close();
      await sandbox.close();
    }
  });
});

describe('the sweeps’ rate across processes, every callback lost', () => {
  it('asks at queriesPerSecond between them, not above, and hands each payment over within quietSeconds + pending ÷ rate + a sweep', async () => {
    const sandbox = await createSandbox({ tickMs: 20 });
    const keyPrefix = `rate${++serial}:`;
    const reconcile = { quietSeconds: 0.5, sweepSeconds: 5, queriesPerSecond: 10 };
    const count = 60;
    const asked: number[] = [];
    const paidAt = new Map<string, number>();
    const handedAt = new Map<string, number[]>();
    const handlers = await Promise.all(
      [0, 1].map(async () =>
        createMerchantHandler({
          merchantId,
          privateKey,
          environment: { baseUrl: sandbox.url },
          callbackUrl: 'http://127.0.0.1:9/callbacks', // every callback lost
          limits: { createsPerClient: false },
          logger: { warn: () => undefined, error: () => undefined },
          reconcile,
          onCallback: ({ body }) => {
            handedAt.set(body.reference, [...(handedAt.get(body.reference) ?? []), Date.now()]);
          },
          fetch: (input, init) => {
            if (String(input).endsWith(SERVICE_PATHS.status) && String(init?.body).includes('"orderNo"')) asked.push(Date.now());
            return fetch(input, init);
          },
          ...(await kit({ keyPrefix, logger: keptLines() })).stores,
        }),
      ),
    );
    try {
      const made: { reference: string; sn: string }[] = [];
      for (let index = 0; index < count; index++) {
        const body = posRequest({ reference: `rate-${serial}-${index}`, sn: `SN-RATE-${serial}-${index}` });
        // Half the orders made by each process, as behind a balancer.
        const response = await handlers[index % 2]!(
          new Request(`http://shop.example${MERCHANT_PATHS.create}`, {
            method: 'POST',
            headers: { 'Content-Type': 'application/json', [CHECKOUT_TOKEN_HEADER]: await tokenFor({ merchantId, privateKey }, body) },
            body: JSON.stringify(body),
          }),
        );
        expect((await response.json()).code).toBe('00000');
        made.push({ reference: body.reference, sn: body.sn });
      }
      const control = new SandboxControl(sandbox.url);
      await Promise.all(made.map(async ({ reference, sn }) => {
        await control.swipe(sn, 'success');
        paidAt.set(reference, Date.now());
      }));
      await eventually('every payment handed over', () => handedAt.size === count, 30_000);
      // Each once.
      expect([...handedAt.values()].every((times) => times.length === 1)).toBe(true);
      // The published bound (docs/reliability.md): quietSeconds + pending ÷ queriesPerSecond + sweepSeconds, and a
      // second for the queries' own time on two shared cores.
      const bound = (reconcile.quietSeconds + count / reconcile.queriesPerSecond + reconcile.sweepSeconds + 1) * 1000;
      const waits = made.map(({ reference }) => handedAt.get(reference)![0]! - paidAt.get(reference)!);
      expect(Math.max(...waits)).toBeLessThanOrEqual(bound);
      // The rate between them: at most queriesPerSecond in each window, and kept (the payments' queries within a
      // window of count ÷ rate seconds, and one more for where the windows fall).
      const paid = Math.min(...paidAt.values());
      const afterPaying = asked.filter((at) => at >= paid).sort((a, b) => a - b);
      expect(afterPaying.length).toBeGreaterThanOrEqual(count);
      const span = afterPaying.at(-1)! - afterPaying[0]!;
      expect(afterPaying.length).toBeLessThanOrEqual(reconcile.queriesPerSecond * (Math.floor(span / 1000) + 1));
      expect(span).toBeLessThanOrEqual((afterPaying.length / reconcile.queriesPerSecond + 1) * 1000);
    } finally {
      for (const handler of handlers) handler.close();
      await sandbox.close();
    }
  }, 60_000);
});

describe('two merchant accounts on one Redis', () => {
  const other = { merchantId: '256698765432109', privateKey: 'sandbox-private-key-256698765432109' };
  let sandbox: Sandbox;

  beforeAll(async () => {
    sandbox = await createSandbox({ tickMs: 20, merchants: [DEFAULT_MERCHANT, other] });
  });

  afterAll(async () => {
    await sandbox.close();
  });

  it('share no key and no channel by default', async () => {
    const mine = await kit({ logger: keptLines() });
    const theirs = await kit({ merchantId: other.merchantId, logger: keptLines() });
    expect(mine.keyPrefix).toBe(`svc-checkout:${merchantId}:`);
    expect(theirs.keyPrefix).toBe(`svc-checkout:${other.merchantId}:`);
    const heard: StatusUpdate[] = [];
    mine.statusBus.subscribe({ update: (update) => heard.push(update) });
    await theirs.statusBus.publish({ orderNo: '26112200000077', reference: 'order-77', status: 'SUCCESS', source: 'callback', at: Date.now() });
    expect(await mine.callbackStore.claim('outcome:26112200000077:SUCCESS')).toBe('new');
    expect(await theirs.callbackStore.claim('outcome:26112200000077:SUCCESS')).toBe('new');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(heard).toEqual([]);
  });

  it("never show one merchant's paid callback on the other's pending order of the same reference", async () => {
    const mine = await kit({ logger: keptLines() });
    const theirs = await kit({ merchantId: other.merchantId, logger: keptLines() });
    const quiet = { warn: () => undefined, error: () => undefined };
    const handlers = [
      { credentials: { merchantId, privateKey }, stores: mine.stores },
      { credentials: other, stores: theirs.stores },
    ].map(({ credentials, stores }) =>
      createMerchantHandler({ ...credentials, environment: { baseUrl: sandbox.url }, logger: quiet, onCallback: () => undefined, ...stores }),
    );
    const { createServer } = await import('node:http');
    const { toNodeListener } = await import('../../src/server/index.js');
    const servers = await Promise.all(
      handlers.map(async (handler) => {
        const server = createServer(toNodeListener(handler));
        await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
        return { server, url: `http://127.0.0.1:${(server.address() as { port: number }).port}` };
      }),
    );
    try {
      const reference = `shared-${Date.now()}`;
      const orders = await Promise.all(
        servers.map(async ({ url }, index) => {
          const credentials = index === 0 ? { merchantId, privateKey } : other;
          const body = posRequest({ reference, sn: `SN-SCOPE-${index}-${Date.now()}` });
          const token = await tokenFor(credentials, body, { callbackUrl: `${url}${MERCHANT_PATHS.callbacks}` });
          const response = await fetch(`${url}${MERCHANT_PATHS.create}`, {
            method: 'POST',
            headers: { 'Content-Type': 'application/json', [CHECKOUT_TOKEN_HEADER]: token },
            body: JSON.stringify(body),
          });
          const answer = await response.json();
          expect(answer.code).toBe('00000');
          return { sn: body.sn, orderNo: answer.data.orderNo as string, checkoutToken: token };
        }),
      );
      // The payer's page watches its order by reference (its create's answer was lost, say): the key another merchant's order shares.
      const stream = await openStream(`${servers[0]!.url}${MERCHANT_PATHS.events}?reference=${reference}`, { [CHECKOUT_TOKEN_HEADER]: orders[0]!.checkoutToken });
      expect(JSON.parse((await stream.next('status')).data).status).toBe('PENDING');
      const control = new SandboxControl(sandbox.url);
      await control.swipe(orders[1]!.sn, 'success');
      await eventually('the other merchant’s callback acknowledged', async () =>
        (await control.callbacks({ orderNo: orders[1]!.orderNo })).some((attempt) => attempt.acknowledged),
      );
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(stream.events.filter((event) => event.type === 'status').map((event) => JSON.parse(event.data).status)).toEqual(['PENDING']);
      stream.close();
    } finally {
      for (const handler of handlers) handler.close();
      await Promise.all(servers.map(({ server }) => new Promise((resolve) => server.close(resolve))));
    }
  });

  it("refuse a handler given another merchant's stores", async () => {
    const theirs = await kit({ merchantId: other.merchantId, logger: keptLines() });
    expect(() => createMerchantHandler({ merchantId, privateKey, environment: { baseUrl: sandbox.url }, ...theirs.stores })).toThrow(
      /callbackStore is scoped to merchant 256698765432109, not to this handler's merchant 256612345678901/,
    );
  });
});
