// A shop on the developer's machine hears from the sandbox on the first try: with no callbackUrl, the kit in front of
// a service on this machine is called back at its own loopback address (the address and port its socket has, not
// what a Host header says); the kit's own token issuer gives the element the shop's name and the test badge.
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHECKOUT_TOKEN_HEADER, MERCHANT_PATHS } from '../../src/core/index.js';
import { createSandbox, SandboxControl, type Sandbox } from '../../src/sandbox/index.js';
import { createMerchantHandler, toNodeListener, verifyCheckoutToken, type MerchantHandler, type MerchantHandlerOptions } from '../../src/server/index.js';
import { type CallbackEvent } from '../../src/server/callbacks/hand-over.js';

let sandbox: Sandbox;
let control: SandboxControl;
beforeAll(async () => {
  sandbox = await createSandbox({ tickMs: 50 });
  control = new SandboxControl(sandbox.url);
});
afterAll(() => sandbox.close());

const merchant = () => sandbox.merchants[0]!;

/** A kit on its own server on 127.0.0.1; `onCallback` collects what it verified. */
async function shopKit(extra: Partial<MerchantHandlerOptions> = {}) {
  const callbacks: CallbackEvent[] = [];
  const handler = createMerchantHandler({
    merchantId: merchant().merchantId,
    privateKey: merchant().privateKey,
    environment: { baseUrl: sandbox.url },
    basePath: '/checkout',
    merchantName: 'Corner Coffee',
    logger: { warn() {}, error() {} },
    onCallback: (event) => void callbacks.push(event),
    ...extra,
  });
  const server: Server = createServer(toNodeListener(handler));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return { handler, callbacks, port, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** A reference code create through the kit, as the element sends it, with `headers` added (a Host, say). */
async function createThrough(port: number, handler: MerchantHandler, reference: string, headers: Record<string, string> = {}) {
  const token = await handler.checkoutToken({
    reference,
    amount: { total: 12_500, currency: 'EGP' },
    country: 'EG',
    product: { name: 'Beans', description: 'Coffee beans 1 kg' },
  });
  const body = JSON.stringify({
    payMethod: 'ReferenceCode',
    notify: { notifyUserName: 'Mona Hassan', notifyUserEmail: 'mona@example.com', notifyUserMobile: '+201001234567', notifyLanguage: 'English', notifyMethod: 'BOTH' },
  });
  // node:http, which sends the Host header it is given (fetch would not).
  return new Promise<{ code: string; data: { orderNo: string; referenceCode: string } }>((resolve, reject) => {
    const outgoing = httpRequest(
      { host: '127.0.0.1', port, path: `/checkout${MERCHANT_PATHS.create}`, method: 'POST', headers: { 'Content-Type': 'application/json', [CHECKOUT_TOKEN_HEADER]: token, ...headers } },
      (response) => {
        let text = '';
        response.on('data', (chunk) => (text += chunk));
        response.on('end', () => resolve(JSON.parse(text)));
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

async function until(check: () => boolean | Promise<boolean>, what: string) {
  const end = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('callbacks reach a shop on this machine', () => {
  it('without a callbackUrl, the kit names its own loopback address, and onCallback runs when the order is paid', async () => {
    const shop = await shopKit();
    try {
      const created = await createThrough(shop.port, shop.handler, 'LOCAL-1');
      expect(created.code).toBe('00000');
      const order = await control.order(created.data.orderNo);
      // The kit adds the checkout and attempt to its callback address (one-payment): the address is the kit's own.
      expect(order.callbackUrl).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${shop.port}/checkout/callbacks\\?`));
      await control.payReferenceCode(created.data.referenceCode);
      await until(() => shop.callbacks.length > 0, 'the callback');
      expect(shop.callbacks.map((event) => [event.body.reference, event.body.status])).toEqual([['LOCAL-1', 'SUCCESS']]);
    } finally {
      await shop.close();
    }
  });

  it('takes the address from its own socket, not from a Host header the request names (attack)', async () => {
    const shop = await shopKit();
    try {
      const created = await createThrough(shop.port, shop.handler, 'LOCAL-2', { Host: '127.0.0.1:9' });
      expect((await control.order(created.data.orderNo)).callbackUrl).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${shop.port}/checkout/callbacks\\?`));
    } finally {
      await shop.close();
    }
  });

  it('keeps a callbackUrl it was given', async () => {
    const shop = await shopKit({ callbackUrl: 'https://shop.example/checkout/callbacks' });
    try {
      const created = await createThrough(shop.port, shop.handler, 'LOCAL-3');
      expect((await control.order(created.data.orderNo)).callbackUrl).toMatch(/^https:\/\/shop\.example\/checkout\/callbacks\?/);
    } finally {
      await shop.close();
    }
  });

  it('with callbackUrl: false names none: the sandbox calls the webhook configured for its merchant', async () => {
    const shop = await shopKit({ callbackUrl: false });
    try {
      const created = await createThrough(shop.port, shop.handler, 'LOCAL-4');
      expect((await control.order(created.data.orderNo)).callbackUrl ?? 'none').toBe('none');
    } finally {
      await shop.close();
    }
  });

  it('against a service elsewhere, names none of its own: the service’s configured webhook is the merchant’s choice', async () => {
    const sent: Record<string, unknown>[] = [];
    const handler = createMerchantHandler({
      merchantId: '256612345678901',
      privateKey: 'test-private-key',
      environment: { baseUrl: 'https://service.example' },
      basePath: '/checkout',
      retries: 0,
      logger: { warn() {}, error() {} },
      fetch: async (_input, init) => {
        sent.push(JSON.parse(String(init?.body)));
        return new Response(JSON.stringify({ code: '50003', message: 'service not available' }), { headers: { 'Content-Type': 'application/json' } });
      },
    });
    const server = createServer(toNodeListener(handler));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      await createThrough((server.address() as AddressInfo).port, handler, 'REMOTE-1').catch(() => undefined);
      expect(sent.length).toBeGreaterThan(0);
      expect(sent[0]).not.toHaveProperty('callbackUrl');
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('on a Web runtime (no socket), never the Host the request names: a loopback one only from a proxy the shop trusts', async () => {
    const [trusting, plain] = [await shopKit({ trustProxy: true }), await shopKit()];
    try {
      const web = async (handler: MerchantHandler, url: string, reference: string) => {
        const token = await handler.checkoutToken({ reference, amount: { total: 100, currency: 'EGP' }, country: 'EG', product: { name: 'Beans', description: 'Beans' } });
        const answer = await handler(
          new Request(url, {
            method: 'POST',
            headers: { 'Content-Type': 'application/json', [CHECKOUT_TOKEN_HEADER]: token },
            body: JSON.stringify({ payMethod: 'Pos', sn: 'N78101818218' }),
          }),
        );
        const { data } = (await answer.json()) as { data: { orderNo: string } };
        return (await control.order(data.orderNo)).callbackUrl ?? 'none';
      };
      const local = `http://localhost:${trusting.port}/checkout/payments`;
      expect(await web(trusting.handler, local, 'WEB-1')).toMatch(new RegExp(`^http://localhost:${trusting.port}/checkout/callbacks\\?`));
      expect(await web(trusting.handler, 'http://shop.example/checkout/payments', 'WEB-2')).toBe('none');
      expect(await web(plain.handler, local, 'WEB-3')).toBe('none');
    } finally {
      await trusting.close();
      await plain.close();
    }
  });
});

describe('the kit’s own checkout tokens', () => {
  it('carry the kit’s merchant name and, against the sandbox, the test badge; an order’s own name wins', async () => {
    const shop = await shopKit();
    try {
      const order = { reference: 'TOKEN-1', amount: { total: 100, currency: 'EGP' }, country: 'EG', product: { name: 'Beans', description: 'Beans' } };
      const credentials = { merchantId: merchant().merchantId, privateKey: merchant().privateKey };
      const check = async (token: string) => {
        const checked = await verifyCheckoutToken(token, credentials);
        if (!checked.ok) throw new Error(checked.reason);
        return checked.claims;
      };
      const claims = await check(await shop.handler.checkoutToken(order));
      expect([claims.merchantName, claims.sandbox]).toEqual(['Corner Coffee', true]);
      expect((await check(await shop.handler.checkoutToken({ ...order, merchantName: 'Corner Coffee, Zamalek' }))).merchantName).toBe('Corner Coffee, Zamalek');
      const live = createMerchantHandler({ ...credentials, environment: { baseUrl: 'https://service.example' } });
      const liveClaims = await check(await live.checkoutToken(order));
      expect(liveClaims.sandbox).toBeUndefined();
      expect(liveClaims.merchantName).toBeUndefined();
    } finally {
      await shop.close();
    }
  });
});
