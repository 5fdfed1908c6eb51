// Deno and Bun share a kit's state through Redis as Node does (svc-checkout/server/redis, node-redis): a Deno kit and
// a Bun kit, each a process of its own running the built package unbundled, one real redis-server, the real sandbox.
// A payer streams from the Bun kit; the callback reaches the Deno kit; the Bun kit's stream has it at once through
// Redis, without a status query; the same callback sent to the Bun kit as well is not handled twice.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHECKOUT_TOKEN_HEADER, MERCHANT_PATHS, ORDER_TOKEN_HEADER } from '../../../src/core/index.js';
import { DEFAULT_MERCHANT } from '../../../src/sandbox/index.js';
import { issueCheckoutToken } from '../../../src/server/index.js';
// @ts-expect-error a plain JavaScript module without types
import { assertDistFresh } from '../../../scripts/dist-is-fresh.mjs';
import { posRequest } from '../../core/fixtures.js';
import { startRedis, type TestRedis } from '../../support/redis-server.js';
import { startRecordedSandbox, type RecordedSandbox } from '../../support/runtimes/recorded-sandbox.js';
import { bin, quietEnv, spawnListening, stopProcess } from '../../support/runtimes/start.js';
import { eventually } from '../../support/sandbox-fixture.js';
import { openStream } from '../../support/sse.js';
import { orderOf } from '../../support/tokens.js';

const root = new URL('../../../', import.meta.url).pathname;
const script = 'test/support/runtimes/redis-kit.ts';
const POLL_MS = 1_500;
const scratch = mkdtempSync(join(tmpdir(), 'svc-redis-kits-'));

let redis: TestRedis;
let service: RecordedSandbox;
const kits: Record<'deno' | 'bun', Awaited<ReturnType<typeof spawnListening>>> = {} as never;

beforeAll(async () => {
  await assertDistFresh(); // the kits run the built package
  redis = await startRedis();
  service = await startRecordedSandbox(DEFAULT_MERCHANT);
  const env = { ...quietEnv(scratch), SANDBOX_URL: service.url, REDIS_URL: redis.url, STREAM_POLL_MS: String(POLL_MS) };
  kits.deno = await spawnListening(bin('deno'), ['run', '--no-prompt', '--allow-net=127.0.0.1', '--allow-env', '--allow-read', script], env, root);
  kits.bun = await spawnListening(bin('bun'), [script], env, root);
  service.deliverTo(`${kits.deno.url}${MERCHANT_PATHS.callbacks}`);
}, 30_000);

afterAll(async () => {
  for (const kit of Object.values(kits)) await stopProcess(kit.child);
  await service?.close();
  await redis?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

const lines = (kit: 'deno' | 'bun', kind: string) => kits[kit].output().split('\n').filter((line) => line.startsWith(kind));

describe('Deno and Bun sharing through Redis', () => {
  it('bring a callback the Deno kit verified to a payer streaming from the Bun kit, without a status query, and handle it once', async () => {
    const body = posRequest({ reference: 'redis-across-runtimes', sn: 'SN-REDIS-1' });
    const created = await fetch(`${kits.bun.url}${MERCHANT_PATHS.create}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', [CHECKOUT_TOKEN_HEADER]: await issueCheckoutToken(DEFAULT_MERCHANT, orderOf(body)) },
      body: JSON.stringify(body),
    });
    const { data } = (await created.json()) as { data: { orderNo: string } };
    const stream = await openStream(`${kits.bun.url}${MERCHANT_PATHS.events}`, { [ORDER_TOKEN_HEADER]: created.headers.get(ORDER_TOKEN_HEADER)! });
    try {
      expect(JSON.parse((await stream.next('status')).data).status).toBe('PENDING');
      const queries = lines('bun', 'query').length;
      await service.control.complete(data.orderNo, { status: 'SUCCESS' });
      expect(JSON.parse((await stream.next('status', 2, 4 * POLL_MS)).data).status).toBe('SUCCESS');
      // The shop's hook a moment after the payer's stream: a payment asks about its checkout's other attempts first.
      await eventually('the Deno kit to hand the callback to the shop', () => lines('deno', 'callback').length > 0);
      expect(lines('deno', 'callback')).toEqual([expect.stringMatching(new RegExp(`^callback \\S+ ${data.orderNo} SUCCESS$`))]);
      // Pushed through Redis: a query would have come POLL_MS after the stream's first status.
      expect(lines('bun', 'query')).toHaveLength(queries);

      // The same delivery, byte for byte, to the Bun kit: the notifyId is done in Redis.
      const [delivered] = await service.control.callbacks({ orderNo: data.orderNo });
      const again = await fetch(`${kits.bun.url}${MERCHANT_PATHS.callbacks}`, { method: 'POST', headers: delivered!.headers, body: delivered!.body });
      expect(again.status).toBe(200);
      expect(lines('bun', 'callback')).toEqual([]);
      expect([...lines('deno', 'log'), ...lines('bun', 'log')]).toEqual([]);
    } finally {
      stream.close();
    }
  });
});
