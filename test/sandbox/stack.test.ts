// startStack (stack.ts): the one place a sandbox and the merchant kit are wired together, as the dev stack, the
// demo, the test suites and `npm run load` use it.
import { afterEach, describe, expect, it } from 'vitest';
import { CHECKOUT_TOKEN_HEADER, MERCHANT_PATHS } from '../../src/core/index.js';
import type { CallbackEvent } from '../../src/server/callbacks/hand-over.js';
import { createSandbox, SandboxControl, startStack, type Sandbox, type Stack } from '../../src/sandbox/index.js';
import { posRequest } from '../core/fixtures.js';
import { listen } from '../support/fake-service.js';
import { eventually } from '../support/sandbox-fixture.js';

let stack: Stack | undefined;
let sandbox: Sandbox | undefined;

afterEach(async () => {
  await stack?.close();
  await sandbox?.close();
  stack = sandbox = undefined;
});

async function create(at: Stack, reference: string): Promise<{ code: string; data: { orderNo: string } }> {
  const body = posRequest({ reference, sn: `SN-${reference}` });
  const token = await at.checkoutToken({ reference, amount: body.amount, country: 'EG', product: body.product });
  const response = await fetch(`${at.url}${MERCHANT_PATHS.create}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', [CHECKOUT_TOKEN_HEADER]: token },
    body: JSON.stringify(body),
  });
  return response.json();
}

describe('startStack', () => {
  it("serves the kit on a port of its own, signing as the sandbox's merchant, and takes the sandbox's callbacks", async () => {
    stack = await startStack({ sandbox: { merchantId: '256600000000042', tickMs: 20 }, basePath: '/shop/checkout' });
    expect(stack.merchant.merchantId).toBe('256600000000042');
    expect(stack.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/shop\/checkout$/);
    const heard: CallbackEvent[] = [];
    stack.onCallback((event) => heard.push(event));

    const created = await create(stack, 'stack-1');
    expect(created.code).toBe('00000');
    const [order] = await new SandboxControl(stack.sandbox.url).orders();
    // The kit's own address, with the checkout and attempt the order is (docs/one-payment.md).
    expect(order).toMatchObject({ merchantId: '256600000000042' });
    // The kit's own address, with the checkout, the attempt and the amount it was opened for, under the kit's tag.
    expect(order!.callbackUrl).toMatch(new RegExp(`^${stack.url}${MERCHANT_PATHS.callbacks}\\?checkout=stack-1&attempt=1&amount=\\d+&currency=EGP&tag=[\\w-]{22}$`));

    await new SandboxControl(stack.sandbox.url).swipe('SN-stack-1');
    await eventually('the callback', () => stack!.callbacks.length === 1);
    expect(stack.callbacks[0]!.body).toMatchObject({ orderNo: created.data.orderNo, status: 'SUCCESS' });
    expect(heard).toEqual(stack.callbacks);
  });

  it('closes the sandbox it started, and leaves a sandbox it was given running', async () => {
    sandbox = await createSandbox();
    stack = await startStack({ sandbox });
    expect(stack.sandbox).toBe(sandbox);
    const kitUrl = stack.url;
    await stack.close();
    stack = undefined;
    await expect(fetch(`${kitUrl}${MERCHANT_PATHS.status}`, { method: 'POST' })).rejects.toThrow();
    expect((await fetch(`${sandbox.url}/sandbox/v1/clock`)).status).toBe(200);

    const own = await startStack();
    const ownSandbox = own.sandbox.url;
    await own.close();
    await expect(fetch(`${ownSandbox}/sandbox/v1/clock`)).rejects.toThrow();
  });

  it('leaves serving to the caller when given a public URL, and gives that address for callbacks', async () => {
    stack = await startStack({ publicUrl: 'http://localhost:5173/', basePath: '/api/checkout/' });
    expect(stack.url).toBe('http://localhost:5173/api/checkout');
    expect(stack.basePath).toBe('/api/checkout');
    // The caller's own server, as a dev server mounts the kit.
    const served = await listen((request, response) => stack!.listener(request, response));
    try {
      const created = await create({ ...stack, url: `${served.url}/api/checkout` }, 'stack-2');
      expect(created.code).toBe('00000');
      const [order] = await new SandboxControl(stack.sandbox.url).orders();
      expect(order!.callbackUrl).toMatch(/^http:\/\/localhost:5173\/api\/checkout\/callbacks\?checkout=stack-2&attempt=1&amount=\d+&currency=EGP&tag=[\w-]{22}$/);
    } finally {
      await served.close();
    }
  });
});
