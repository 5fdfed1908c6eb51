// No secret in a log line, an answer or an error message: every path that logs or fails is run with a merchant
// whose key is known, and everything written is searched for it (and, in logs, for anything shaped like a
// signature).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHECKOUT_TOKEN_HEADER, MERCHANT_PATHS, ORDER_TOKEN_HEADER } from '../../src/core/index.js';
import { createSandbox, SandboxConfigError, type Sandbox } from '../../src/sandbox/index.js';
import { parseMerchantsFile } from '../../src/sandbox/index.js';
import {
  createMerchantHandler,
  OrderRejection,
  ServiceClient,
  signCallback,
  signRequest,
  toNodeListener,
  type MerchantHandlerOptions,
} from '../../src/server/index.js';
import { posRequest } from '../core/fixtures.js';
import { listen } from '../support/fake-service.js';
import { tokenHeader } from '../support/tokens.js';

const merchantId = '256600000000042';
const privateKey = 'sk-live-7c1e9a0b52d44f6e8a3b0c9d1e2f3a4b';
const SIGNATURE_SHAPE = /[0-9a-f]{128}/i;

/** Everything the parts wrote or answered, with where it came from. */
const written: { where: string; text: string }[] = [];
const logLine = (where: string) => (...args: unknown[]) => written.push({ where, text: args.map(String).join(' ') });

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await createSandbox({ merchantId, privateKey, tickMs: 20, log: logLine('sandbox log') });
});
afterAll(() => sandbox.close());

async function merchantServer(options: Partial<MerchantHandlerOptions> = {}) {
  const handler = createMerchantHandler({
    merchantId,
    privateKey,
    environment: { baseUrl: sandbox.url },
    retries: 0,
    logger: { warn: logLine('kit warn'), error: logLine('kit error') },
    ...options,
  });
  return listen(toNodeListener(handler, { onError: (error) => written.push({ where: 'node adapter', text: String(error) }) }));
}

async function call(url: string, body: string, headers: Record<string, string> = {}) {
  // Creates and status queries carry a checkout token for the order their body names, as the element's would.
  const named = /"reference":"([^"]+)"/.exec(body)?.[1];
  const needsToken = /\/payments(\/status)?$/.test(url) && !headers[CHECKOUT_TOKEN_HEADER] && !headers[ORDER_TOKEN_HEADER];
  const proof = needsToken ? await tokenHeader({ merchantId, privateKey }, { reference: named ?? 'sec-0' }) : {};
  const response = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json', ...proof, ...headers }, body });
  const text = await response.text();
  const shown: Record<string, string> = {};
  // Every header is searched, the order token the kit hands out with the rest.
  response.headers.forEach((value, name) => {
    shown[name] = value;
  });
  written.push({ where: `answer ${url}`, text: `${response.status} ${JSON.stringify(shown)} ${text}` });
  return { status: response.status, text };
}

function caught(where: string, run: () => unknown) {
  try {
    run();
  } catch (error) {
    written.push({ where, text: `${String(error)}\n${(error as Error).stack ?? ''}` });
    return;
  }
  throw new Error(`${where}: expected an error`);
}

describe('secrets', () => {
  it('never appear in what the kit, the sandbox or their errors write, on any path that logs or fails', async () => {
    const leaky = `a hook that quotes the key ${privateKey} and a signature ${'ab'.repeat(64)}`;
    const merchant = await merchantServer({
      authorize: (order) => {
        if (order.reference === 'rejected') throw new OrderRejection(`rejected by the shop (${leaky})`, { field: 'reference' });
        if (order.reference === 'hook-fails') throw new Error(leaky);
        return order;
      },
      authorizeAction: (operation) => {
        if (operation === 'resendOtp') throw new Error(leaky);
      },
      onCallback: () => {
        throw new Error(leaky);
      },
    });
    const kit = merchant.url;
    try {
      // The element's calls: good, invalid, refused by hooks, with a missing or forged order token.
      const created = await call(`${kit}${MERCHANT_PATHS.create}`, JSON.stringify(posRequest({ reference: 'sec-1' })));
      const orderNo = JSON.parse(created.text).data.orderNo as string;
      await call(`${kit}${MERCHANT_PATHS.create}`, JSON.stringify(posRequest({ reference: 'sec-1' })));
      await call(`${kit}${MERCHANT_PATHS.create}`, JSON.stringify({ ...posRequest(), amount: 'lots' }));
      await call(`${kit}${MERCHANT_PATHS.create}`, JSON.stringify(posRequest({ reference: 'rejected' })));
      await call(`${kit}${MERCHANT_PATHS.create}`, JSON.stringify(posRequest({ reference: 'hook-fails' })));
      await call(`${kit}${MERCHANT_PATHS.otp}`, JSON.stringify({ country: 'EG', orderNo, otp: '123456' }));
      await call(`${kit}${MERCHANT_PATHS.otp}`, JSON.stringify({ country: 'EG', orderNo, otp: '123456' }), { 'Svc-Order-Token': 'f'.repeat(128) });
      await call(`${kit}${MERCHANT_PATHS.resendOtp}`, JSON.stringify({ country: 'EG', orderNo }));
      await call(`${kit}${MERCHANT_PATHS.status}`, JSON.stringify({ country: 'EG', reference: 'sec-1' }));
      await call(`${kit}${MERCHANT_PATHS.create}`, '{"not json');
      await call(`${kit}${MERCHANT_PATHS.create}`, JSON.stringify({ padding: 'x'.repeat(40_000) }));

      // Callbacks: a good one whose handler fails (and quotes the key), forged, stale, and broken ones.
      const body = JSON.stringify({
        notifyId: 'sec-n-1',
        reference: 'sec-1',
        amount: { total: '12500', currency: 'EGP' },
        orderNo,
        country: 'EG',
        status: 'SUCCESS',
        timestamp: Date.now(),
        type: 'MACQUIRING_CALLBACK',
      });
      const deliver = async (payload: string, key: string, timestamp = Date.now()) =>
        call(`${kit}${MERCHANT_PATHS.callbacks}`, payload, {
          Authorization: await signCallback(String(timestamp), payload, key),
          MerchantId: merchantId,
          RequestTimestamp: String(timestamp),
        });
      expect((await deliver(body, privateKey)).status).toBe(500);
      expect((await deliver(body, 'someone-elses-key')).status).toBe(401);
      expect((await deliver(body, privateKey, Date.now() - 3_600_000)).status).toBe(401);
      expect((await deliver('{"notifyId":1}', privateKey)).status).toBe(400);

      // The service itself, called with a good and a bad signature.
      const raw = JSON.stringify({ country: 'EG', reference: 'sec-1' });
      for (const signature of [await signRequest(raw, privateKey), await signRequest(raw, 'wrong-key')]) {
        await call(`${sandbox.url}/api/v1/international/cashier/status`, raw, { Authorization: `Bearer ${signature}`, MerchantId: merchantId });
      }
    } finally {
      await merchant.close();
    }

    // A service that cannot be reached: the kit's answer and log, and the client's error.
    const unreachable = await merchantServer({ environment: { baseUrl: 'http://127.0.0.1:9' } });
    try {
      await call(`${unreachable.url}${MERCHANT_PATHS.status}`, JSON.stringify({ country: 'EG', reference: 'sec-1' }));
    } finally {
      await unreachable.close();
    }
    const client = new ServiceClient({ merchantId, privateKey, environment: { baseUrl: 'http://127.0.0.1:9' }, retries: 0 });
    const failure = await client.createPayment(posRequest() as never).catch((error: Error) => error);
    written.push({ where: 'ServiceError', text: `${String(failure)}\n${(failure as Error).stack}` });

    // Configuration mistakes, in the kit and in the sandbox.
    caught('kit configuration', () => createMerchantHandler({ merchantId, privateKey, environment: 'production' }));
    caught('kit configuration', () => createMerchantHandler({ merchantId, privateKey, environment: { baseUrl: 'ftp://x' } }));
    caught('kit configuration', () => createMerchantHandler({ merchantId, privateKey, environment: 'sandbox', callbackUrl: privateKey }));
    caught('sandbox configuration', () => parseMerchantsFile(JSON.stringify([{ merchantId: 'not digits', privateKey }]), 'merchants.json'));
    const badSandbox = await createSandbox({ merchantId: 'x', privateKey }).catch((error: Error) => error);
    expect(badSandbox).toBeInstanceOf(SandboxConfigError);
    written.push({ where: 'sandbox configuration', text: `${String(badSandbox)}\n${(badSandbox as Error).stack}` });

    await sandbox.idle();
    const logs = written.filter((entry) => !entry.where.startsWith('answer'));
    expect(written.length).toBeGreaterThan(30);
    expect(logs.some((entry) => entry.where === 'kit error' && entry.text.includes('[redacted]'))).toBe(true);
    for (const entry of written) expect(entry.text, entry.where).not.toContain(privateKey);
    for (const entry of logs.filter((item) => item.where.startsWith('kit'))) expect(entry.text, entry.where).not.toMatch(SIGNATURE_SHAPE);
  });
});
