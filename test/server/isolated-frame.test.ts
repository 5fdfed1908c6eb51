// The kit serves the isolated frame's page (docs/isolated-fields.md) under its base path, with a policy that lets it
// run its own script and styles only, connect to the kit only, and be framed by the shop's pages only; and it lets
// the frame (an opaque origin: `Origin: null`) read the answers of the three calls it sends, and of no other.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { FRAME_PAGE, MERCHANT_PATHS } from '../../src/core/index.js';
import { createMerchantHandler, toNodeListener, type MerchantHandlerOptions } from '../../src/server/index.js';
// @ts-expect-error a plain JavaScript module without types
import { assertDistFresh } from '../../scripts/dist-is-fresh.mjs';

const cdn = new URL('../../dist/cdn/', import.meta.url);
const SHOP = 'https://shop.example';
const options = (extra: Partial<MerchantHandlerOptions> = {}): MerchantHandlerOptions => ({
  merchantId: '256612345678901',
  privateKey: 'test-private-key',
  environment: { baseUrl: 'http://127.0.0.1:9' },
  basePath: '/checkout',
  elementFiles: cdn,
  returnUrlOrigins: [SHOP],
  publicOrigin: 'https://pay.shop.example',
  logger: { warn() {}, error() {} },
  ...extra,
});
const handler = createMerchantHandler(options());
const get = (path: string, init: RequestInit = {}, origin = 'https://pay.shop.example') => handler(new Request(`${origin}${path}`, init));
const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

let page: string;
beforeAll(async () => {
  await assertDistFresh();
  page = await readFile(new URL(FRAME_PAGE, cdn), 'utf8');
});

/** The directives of a Content-Security-Policy, by name. */
function directives(policy: string | null): Record<string, string> {
  return Object.fromEntries((policy ?? '').split(';').map((part) => part.trim().split(/\s+/)).map(([name, ...values]) => [name, values.join(' ')]));
}

describe("the isolated frame's page", () => {
  it('is one document: its styles and its one classic script inline, nothing loaded from elsewhere', () => {
    expect(page).toMatch(/^<!doctype html>/);
    expect(page.match(/<script>/g)).toHaveLength(1);
    expect(page.match(/<style>/g)).toHaveLength(1);
    // No module (an opaque origin fetches modules in CORS mode), no address to load: nothing but what is in the file.
    expect(page).not.toMatch(/<script[^>]*\b(?:src|type)=/);
    expect(page).not.toMatch(/<link\b|srcdoc|\bhref=/);
  });

  it('runs under a policy that names its script and styles by hash, connects only to the kit, and is framed only by the shop, always in a sandbox of its own', async () => {
    const answer = await get(`/checkout/${FRAME_PAGE}`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await answer.text()).toBe(page);
    const script = /<script>([\s\S]*?)<\/script>/.exec(page)![1]!;
    const style = /<style>([\s\S]*?)<\/style>/.exec(page)![1]!;
    expect(directives(answer.headers.get('content-security-policy'))).toEqual({
      'default-src': "'none'",
      'script-src': sha256(script),
      'style-src': sha256(style),
      // The kit's public origin, besides 'self' (which matches nothing in WebKit here): never a request's Host.
      'connect-src': "'self' https://pay.shop.example",
      'base-uri': "'none'",
      'form-action': "'none'",
      // Its own sandbox, however it is framed: an opaque origin even in a frame without the element's `sandbox`.
      sandbox: 'allow-scripts allow-forms',
      'frame-ancestors': `'self' ${SHOP}`,
    });
  });

  it('may be embedded by pages under Cross-Origin-Embedder-Policy, and says nothing of where it is', async () => {
    const answer = await get(`/checkout/${FRAME_PAGE}`);
    expect(answer.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
    expect(answer.headers.get('cross-origin-embedder-policy')).toBe('require-corp');
    expect(answer.headers.get('referrer-policy')).toBe('no-referrer');
    expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('is revalidated like the entry, and a 304 carries its policy too', async () => {
    const answer = await get(`/checkout/${FRAME_PAGE}`);
    expect(answer.headers.get('cache-control')).toBe('no-cache');
    const again = await get(`/checkout/${FRAME_PAGE}`, { headers: { 'If-None-Match': answer.headers.get('etag')! } });
    expect(again.status).toBe(304);
    expect(again.headers.get('content-security-policy')).toBe(answer.headers.get('content-security-policy'));
  });
  // Its connect-src under forged Host and X-Forwarded-Host headers: test/server/public-origin.test.ts.
});

describe("the isolated frame's calls", () => {
  const preflight = (path: string, origin: string | undefined, method = 'POST') =>
    get(`/checkout${path}`, { method: 'OPTIONS', headers: { ...(origin !== undefined ? { Origin: origin } : {}), 'Access-Control-Request-Method': method, 'Access-Control-Request-Headers': 'content-type,svc-checkout-token' } });

  it('answers the preflight of a create, an OTP and a PIN from the frame: a JSON POST with the tokens, no credentials', async () => {
    for (const path of [MERCHANT_PATHS.create, MERCHANT_PATHS.otp, MERCHANT_PATHS.pin]) {
      const answer = await preflight(path, 'null');
      expect(answer.status, path).toBe(204);
      expect(answer.headers.get('access-control-allow-origin'), path).toBe('null');
      expect(answer.headers.get('access-control-allow-methods'), path).toBe('POST');
      expect(answer.headers.get('access-control-allow-headers'), path).toBe('Content-Type, Accept, Svc-Checkout-Token, Svc-Order-Token, Svc-Ticket');
      expect(answer.headers.get('access-control-allow-credentials'), path).toBe(null);
      expect(answer.headers.get('vary'), path).toBe('Origin');
    }
  });

  it("allows no other route, no other origin, and no other method: those are answered as any method the kit does not serve", async () => {
    for (const path of [MERCHANT_PATHS.status, MERCHANT_PATHS.resendOtp, MERCHANT_PATHS.callbacks]) {
      const answer = await preflight(path, 'null');
      expect(answer.status, path).toBe(405);
      expect(answer.headers.get('access-control-allow-origin'), path).toBe(null);
    }
    for (const origin of ['https://evil.example', SHOP, undefined]) {
      const answer = await preflight(MERCHANT_PATHS.create, origin);
      expect(answer.status, origin).toBe(405);
      expect(answer.headers.get('access-control-allow-origin'), origin).toBe(null);
    }
    expect((await preflight(MERCHANT_PATHS.create, 'null', 'PUT')).status).toBe(405);
  });

  it('lets the frame read its answer, with the order token and time left, on the Web path and under Node alike', async () => {
    const body = JSON.stringify({ payMethod: 'BankAccount' });
    const post = (origin: string | undefined) =>
      get(MERCHANT_PATHS.create.replace(/^/, '/checkout'), { method: 'POST', headers: { 'Content-Type': 'application/json', ...(origin ? { Origin: origin } : {}) }, body });
    const fromFrame = await post('null');
    // No checkout token: refused before anything reaches the service, and the frame reads the refusal.
    expect((await fromFrame.json()).code).toBe('02000');
    expect(fromFrame.headers.get('access-control-allow-origin')).toBe('null');
    expect(fromFrame.headers.get('access-control-expose-headers')).toBe('Svc-Order-Token, Svc-Expires-In');
    expect(fromFrame.headers.get('access-control-allow-credentials')).toBe(null);
    for (const origin of ['https://evil.example', undefined]) expect((await post(origin)).headers.get('access-control-allow-origin'), origin).toBe(null);

    const server: Server = createServer(toNodeListener(handler));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const node = await fetch(`http://127.0.0.1:${port}/checkout/payments/otp`, { method: 'POST', headers: { 'Content-Type': 'application/json', Origin: 'null' }, body: '{"otp":"123456"}' });
      expect((await node.json()).code).toBe('02000');
      expect(node.headers.get('access-control-allow-origin')).toBe('null');
      const status = await fetch(`http://127.0.0.1:${port}/checkout/payments/status`, { method: 'POST', headers: { 'Content-Type': 'application/json', Origin: 'null' }, body: '{}' });
      expect(status.headers.get('access-control-allow-origin')).toBe(null);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('lets the frame read a refusal made before the route, too: a body that is not JSON, one too large', async () => {
    const post = (headers: Record<string, string>, body: string) => get(`/checkout${MERCHANT_PATHS.create}`, { method: 'POST', headers: { Origin: 'null', ...headers }, body });
    const notJson = await post({ 'Content-Type': 'text/plain' }, 'x');
    expect(notJson.status).toBe(415);
    expect(notJson.headers.get('access-control-allow-origin')).toBe('null');
    const tooLarge = await post({ 'Content-Type': 'application/json' }, JSON.stringify({ pad: 'x'.repeat(100_000) }));
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.headers.get('access-control-allow-origin')).toBe('null');
    // Not for another route, nor another origin.
    const status = await get(`/checkout${MERCHANT_PATHS.status}`, { method: 'POST', headers: { Origin: 'null', 'Content-Type': 'text/plain' }, body: 'x' });
    expect(status.status).toBe(415);
    expect(status.headers.get('access-control-allow-origin')).toBe(null);
  });
});
