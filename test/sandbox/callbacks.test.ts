// Callback delivery: signed v2 with the documented headers, retried with backoff until acknowledged or until
// 72 sandbox hours have passed.
import { afterEach, describe, expect, it } from 'vitest';
import { verifyCallback } from '../../src/server/index.js';
import { createSandbox, DEFAULT_MERCHANT, RETRY_DELAYS_MS, type DeliveryAttempt, type Sandbox } from '../../src/sandbox/index.js';
import { ServiceClient } from '../../src/server/index.js';
import { posRequest } from '../core/fixtures.js';
import { listen, startFakeService, type FakeService } from '../support/fake-service.js';
import { eventually } from '../support/sandbox-fixture.js';

let sandbox: Sandbox | undefined;
let receiver: FakeService | undefined;
afterEach(async () => {
  await sandbox?.close();
  await receiver?.close();
  sandbox = undefined;
  receiver = undefined;
});

async function start(webhookUrl?: string) {
  sandbox = await createSandbox({ tickMs: 20, ...(webhookUrl ? { webhookUrl } : {}) });
  const client = new ServiceClient({ merchantId: DEFAULT_MERCHANT.merchantId, privateKey: DEFAULT_MERCHANT.privateKey, environment: { baseUrl: sandbox.url } });
  return client;
}

async function control(path: string, body?: unknown) {
  const response = await fetch(`${sandbox!.url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return response.json();
}

async function attempts(): Promise<DeliveryAttempt[]> {
  return (await control('/sandbox/v1/callbacks')).callbacks;
}

async function paidOrder(client: ServiceClient, callbackUrl?: string) {
  const created = await client.createPayment(posRequest({ reference: `cb-${Math.random()}`, ...(callbackUrl ? { callbackUrl } : {}) }) as never);
  const orderNo = (created.data as { orderNo: string }).orderNo;
  await control(`/sandbox/v1/orders/${orderNo}/complete`, { status: 'SUCCESS' });
  return orderNo;
}

describe('callback delivery', () => {
  it('signs with scheme v2 and sends Authorization, MerchantId and RequestTimestamp in milliseconds', async () => {
    receiver = await startFakeService(() => ({ status: 200, body: 'ok' }));
    const client = await start();
    const orderNo = await paidOrder(client, `${receiver.url}/hook`);
    const delivered = await eventually('a delivery', () => receiver!.requests[0]);
    expect(delivered.headers['merchantid']).toBe(DEFAULT_MERCHANT.merchantId);
    expect(delivered.headers['requesttimestamp']).toMatch(/^\d{13}$/);
    expect(delivered.headers['authorization']).toMatch(/^[0-9a-f]{128}$/);
    const verification = await verifyCallback({
      headers: delivered.headers as Record<string, string>,
      body: delivered.raw,
      privateKey: DEFAULT_MERCHANT.privateKey,
      merchantId: DEFAULT_MERCHANT.merchantId,
    });
    expect(verification.ok).toBe(true);
    expect(delivered.json).toMatchObject({ orderNo, status: 'SUCCESS', type: 'MACQUIRING_CALLBACK', notifyId: expect.any(String) });
    await sandbox!.idle();
    expect(await attempts()).toMatchObject([{ orderNo, attempt: 1, status: 200, acknowledged: true }]);
  });

  it("goes to the merchant's webhook URL when the order has no callbackUrl", async () => {
    receiver = await startFakeService(() => ({ status: 204 }));
    const client = await start(`${receiver.url}/webhook`);
    await paidOrder(client);
    const delivered = await eventually('a delivery', () => receiver!.requests[0]);
    expect(delivered.path).toBe('/webhook');
  });

  it('retries a non-2xx answer after the backoff delay, with the same notifyId, until acknowledged', async () => {
    let answers = 0;
    receiver = await startFakeService(() => ({ status: ++answers < 3 ? 500 : 200, body: '' }));
    const client = await start();
    await paidOrder(client, `${receiver.url}/hook`);
    await eventually('the first attempt', () => receiver!.requests.length === 1);
    await sandbox!.idle();
    // Sandbox time runs with real time too: keep a margin of 5 real seconds before the retry is due.
    await control('/sandbox/v1/clock/advance', { minutes: (RETRY_DELAYS_MS[0]! - 5_000) / 60_000 });
    await sandbox!.idle();
    expect(receiver.requests).toHaveLength(1);
    await control('/sandbox/v1/clock/advance', { minutes: 5_000 / 60_000 });
    await eventually('the second attempt', () => receiver!.requests.length === 2);
    await sandbox!.idle();
    await control('/sandbox/v1/clock/advance', { minutes: RETRY_DELAYS_MS[1]! / 60_000 });
    await eventually('the third attempt', () => receiver!.requests.length === 3);
    await sandbox!.idle();
    await control('/sandbox/v1/clock/advance', { minutes: 600 });
    await sandbox!.idle();
    expect(receiver.requests).toHaveLength(3);
    const ids = new Set(receiver.requests.map((request) => (request.json as { notifyId: string }).notifyId));
    expect(ids.size).toBe(1);
    expect((await attempts()).map((attempt) => [attempt.status, attempt.acknowledged])).toEqual([
      [500, false],
      [500, false],
      [200, true],
    ]);
  });

  it('gives up on an unreachable merchant once 72 sandbox hours have passed', async () => {
    const gone = await listen((_request, response) => response.end());
    const url = gone.url;
    await gone.close();
    const client = await start();
    await paidOrder(client, `${url}/hook`);
    for (let step = 0; step < 200; step++) {
      await sandbox!.idle();
      await control('/sandbox/v1/clock/advance', { minutes: 60 });
    }
    await sandbox!.idle();
    const made = await attempts();
    expect(made.every((attempt) => attempt.status === null && attempt.error === 'ECONNREFUSED')).toBe(true);
    const span = made.at(-1)!.at - made[0]!.at;
    expect(span).toBeGreaterThanOrEqual(64 * 3_600_000);
    expect(span).toBeLessThanOrEqual(72 * 3_600_000);
    const count = made.length;
    await control('/sandbox/v1/clock/advance', { minutes: 24 * 60 });
    await sandbox!.idle();
    expect((await attempts()).length).toBe(count);
  });

  it('records an order with nowhere to call back to', async () => {
    const client = await start();
    await paidOrder(client);
    await sandbox!.idle();
    expect(await attempts()).toMatchObject([{ url: null, status: null, error: expect.stringMatching(/no callbackUrl/) }]);
  });
});
