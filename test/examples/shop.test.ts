// examples/shop/server.mjs as a newcomer runs it: a sandbox, the shop as its own process with the environment
// variables the README shows, and a payer in Chromium who pays a reference code through the shop's page. The shop
// names no callback URL: against the sandbox its kit is called back at its own loopback address.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';
import puppeteer, { type Browser } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, DEFAULT_MERCHANT, SandboxControl, type Sandbox } from '../../src/sandbox/index.js';
// @ts-expect-error a plain JavaScript module without types
import { assertDistFresh } from '../../scripts/dist-is-fresh.mjs';
import { expectCartsHeld } from '../support/shop-carts.js';
import { askForReferenceCode, CHROMIUM_ARGS, payReferenceCode } from '../support/shop-payer.js';

const example = new URL('../../examples/shop/server.mjs', import.meta.url).pathname;
let sandbox: Sandbox;
let shop: ChildProcess;
let shopOutput = '';
let shopUrl: string;
let browser: Browser;

beforeAll(async () => {
  await assertDistFresh(); // the page loads the built CDN file
  sandbox = await createSandbox();
  shop = spawn(process.execPath, [example], {
    env: {
      ...process.env,
      PORT: '0',
      SVC_MERCHANT_ID: DEFAULT_MERCHANT.merchantId,
      SVC_PRIVATE_KEY: DEFAULT_MERCHANT.privateKey,
      SVC_BASE_URL: sandbox.url,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  shopUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the shop printed no URL: ${shopOutput}`)), 10_000);
    const read = (chunk: Buffer) => {
      shopOutput += chunk.toString();
      const match = /listening on (http:\/\/\S+?)\/? /.exec(shopOutput);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    shop.stdout!.on('data', read);
    shop.stderr!.on('data', read);
    shop.on('exit', (code) => reject(new Error(`the shop exited with ${code}: ${shopOutput}`)));
  });
  browser = await puppeteer.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: CHROMIUM_ARGS,
  });
}, 30_000);

afterAll(async () => {
  await browser?.close();
  shop?.kill('SIGTERM');
  await sandbox?.close();
});

/** A payer opening a payment link in Chromium: its pay page, a reference code paid in the sandbox, the shop called back. */
async function payAtLink(link: string, reference: string) {
  const context = await browser.createBrowserContext();
  const page = await context.newPage();
  try {
    const answer = await page.goto(link, { waitUntil: 'load' });
    expect(answer?.status()).toBe(200);
    expect(answer?.headers()['content-security-policy']).toContain("frame-ancestors 'none'");
    await askForReferenceCode(page);
    const control = new SandboxControl(sandbox.url);
    const end = Date.now() + 10_000;
    let order;
    while (!(order = (await control.orders()).find((each) => each.reference === reference && each.referenceCode)) && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(order?.referenceCode).toBeTruthy();
    await control.payReferenceCode(order!.referenceCode!);
    await page.waitForFunction(() => document.querySelector('svc-checkout')?.shadowRoot?.textContent?.includes('Payment received'), { timeout: 10_000 });
    const called = Date.now() + 10_000;
    while (!shopOutput.includes(`order ${reference}: SUCCESS`) && Date.now() < called) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(shopOutput).toContain(`order ${reference}: SUCCESS`);
  } finally {
    await context.close();
  }
}

describe('the whole-shop example', () => {
  it('serves every file of the CDN build through its kit, the hashed chunks for good and the fixed names revalidated', async () => {
    const html = await (await fetch(`${shopUrl}/`)).text();
    const script = /<script type="module" src="([^"]+)" integrity="([^"]+)"><\/script>/.exec(html);
    expect(script?.[1]).toBe('/checkout/svc-checkout.js');
    const entry = await fetch(`${shopUrl}${script![1]}`);
    expect(entry.headers.get('cache-control')).toBe('no-cache');
    const body = new Uint8Array(await entry.arrayBuffer());
    expect(script![2]).toBe(`sha384-${createHash('sha384').update(body).digest('base64')}`);
    const imported = [...new TextDecoder().decode(body).matchAll(/import\("\.\/([^"]+)"\)/g)].map((match) => match[1]!);
    expect(imported).toContain('svc-checkout-ar.js');
    for (const file of imported) {
      const answer = await fetch(`${shopUrl}/checkout/${file}`);
      expect(answer.status, file).toBe(200);
      expect(answer.headers.get('content-type'), file).toMatch(/^text\/javascript/);
      expect(answer.headers.get('cache-control'), file).toBe(file.startsWith('chunks/') ? 'public, max-age=31536000, immutable' : 'no-cache');
    }
    expect((await fetch(`${shopUrl}/checkout/server.mjs`)).status).toBe(404);
    expect((await fetch(`${shopUrl}/server.mjs`)).status).toBe(404);
  });

  it('keeps one checkout per cart: the same cart at every visit, its payment through its own kit, then its receipt', async () => {
    // One browser context: one visitor, whose cart is in its cookie.
    const context = await browser.createBrowserContext();
    const page = await context.newPage();
    const referenceOf = async () => page.$eval('code', (element) => element.textContent ?? '');
    const tokenOf = async () => page.$eval('svc-checkout', (element) => element.getAttribute('checkout-token') ?? '');
    await page.goto(`${shopUrl}/`, { waitUntil: 'load' });
    const cart = await referenceOf();
    expect(cart).toMatch(/^NCR-\d{8}-[0-9A-F]{8}$/);
    expect(await tokenOf()).toMatch(/^ct1\./);
    await page.reload({ waitUntil: 'load' });
    expect(await referenceOf()).toBe(cart);
    await page.close();

    // The shop's name and the test badge from the kit's options and its service, with no attribute for either.
    const badged = await context.newPage();
    await badged.goto(`${shopUrl}/`, { waitUntil: 'load' });
    expect(await badged.$eval('svc-checkout', (element) => element.getAttributeNames().filter((name) => !name.startsWith('data-') && name !== 'dir'))).toEqual(['checkout-token']);
    await badged.waitForFunction(() => document.querySelector('svc-checkout')?.shadowRoot?.querySelector('.badge')?.textContent === 'Test mode', { timeout: 10_000 });
    await badged.close();

    const reference = await payReferenceCode(context, shopUrl, new SandboxControl(sandbox.url), () => shopOutput);
    expect(reference).toBe(cart);
    const orders = (await (await fetch(`${shopUrl}/orders`)).json()) as { reference: string; status: string }[];
    expect(orders.filter((order) => order.status === 'SUCCESS')).toEqual([expect.objectContaining({ reference })]);
    expect(new Set(orders.map((order) => order.reference)).size).toBe(orders.length);

    // Paid: the cart's page is its receipt, never a form; "Order again" starts another cart.
    const after = await context.newPage();
    await after.goto(`${shopUrl}/`, { waitUntil: 'load' });
    expect(await after.$eval('svc-checkout', (element) => element.hasAttribute('status-only'))).toBe(true);
    await after.waitForFunction(() => document.querySelector('svc-checkout')?.shadowRoot?.textContent?.includes('Payment received'), { timeout: 10_000 });
    await after.click('a[href="/new"]');
    await after.waitForFunction((paid) => document.querySelector('code')?.textContent !== paid, { timeout: 10_000 }, cart);
    expect(await after.$eval('svc-checkout', (element) => element.hasAttribute('status-only'))).toBe(false);
    await context.close();
  }, 60_000);

  it('serves a payment link made by `svc-checkout link` as it is: its pay page, paid through, the shop called back', async () => {
    const bin = new URL('../../bin/svc-checkout.js', import.meta.url).pathname;
    const reference = `CHAT-${Date.now().toString(36).toUpperCase()}`;
    const printed = await new Promise<string>((resolve, reject) =>
      execFile(
        process.execPath,
        [bin, 'link', '--amount', '12500', '--currency', 'EGP', '--country', 'EG', '--product', 'Coffee beans', '--reference', reference],
        { env: { PATH: process.env['PATH'] ?? '', SVC_MERCHANT_ID: DEFAULT_MERCHANT.merchantId, SVC_PRIVATE_KEY: DEFAULT_MERCHANT.privateKey, SHOP_URL: shopUrl } },
        (error, stdout, stderr) => (error ? reject(new Error(stderr)) : resolve(stdout)),
      ),
    );
    const link = printed.trim().split('\n').at(-1)!;
    expect(link.startsWith(`${shopUrl}/checkout/pay/pl1.`)).toBe(true);
    await payAtLink(link, reference);
  }, 60_000);

  it('sells by link: /sell makes a link and its QR code for a new cart, which the payer pays at the pay page', async () => {
    const form = new URLSearchParams({ product: 'Harar beans 500 g', amount: '240.50', days: '3' });
    const sold = await fetch(`${shopUrl}/sell`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: form });
    expect(sold.status).toBe(200);
    const html = await sold.text();
    const link = /value="(http[^"]+\/checkout\/pay\/(pl1\.[\w-]+))"/.exec(html);
    expect(link?.[1]?.startsWith(`${shopUrl}/checkout/pay/pl1.`)).toBe(true);
    expect(html).toContain(`<img src="/checkout/pay/${link![2]}/qr.svg"`);
    const qr = await fetch(`${shopUrl}/checkout/pay/${link![2]}/qr.svg`);
    expect(qr.headers.get('content-type')).toBe('image/svg+xml; charset=utf-8');
    const page = await (await fetch(link![1]!)).text();
    expect(page).toContain('<h1>Harar beans 500 g</h1>');
    expect(page).toContain('EGP\u00a0240.50');
    const orders = (await (await fetch(`${shopUrl}/orders`)).json()) as { reference: string; total: number; status: string }[];
    const cart = orders.find((each) => each.total === 24_050 && each.status === 'NEW');
    expect(cart).toBeDefined();
    await payAtLink(link![1]!, cart!.reference);
    const after = (await (await fetch(`${shopUrl}/orders`)).json()) as { reference: string; status: string }[];
    expect(after.find((each) => each.reference === cart!.reference)?.status).toBe('SUCCESS');
    const refused = await fetch(`${shopUrl}/sell`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'product=x&amount=-1' });
    expect(refused.status).toBe(400);
  }, 60_000);

  it('keeps its carts to their visitors: a secret in the cookie, never the reference; HttpOnly, SameSite', async () => {
    await expectCartsHeld(shopUrl, { secure: false });
  });

  it('sets its cookies Secure when its address is https: (SHOP_URL, as for going live)', async () => {
    const probe = createServer().listen(0, '127.0.0.1');
    await once(probe, 'listening');
    const { port } = probe.address() as AddressInfo;
    await new Promise((resolve) => probe.close(resolve));
    const live = spawn(process.execPath, [example], {
      env: { ...process.env, PORT: String(port), SHOP_URL: 'https://shop.example', SVC_MERCHANT_ID: DEFAULT_MERCHANT.merchantId, SVC_PRIVATE_KEY: DEFAULT_MERCHANT.privateKey, SVC_BASE_URL: sandbox.url },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let printed = '';
    live.stdout!.on('data', (chunk) => (printed += chunk));
    try {
      const end = Date.now() + 10_000;
      while (!printed.includes('listening on https://shop.example/') && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 50));
      await expectCartsHeld(`http://127.0.0.1:${port}`, { secure: true });
    } finally {
      live.kill('SIGTERM');
    }
  });
});
