// examples/shop/server.mjs as a newcomer runs it: a sandbox, the shop as its own process with the environment
// variables the README shows, and a payer in Chromium who pays a reference code through the shop's page. The shop
// names no callback URL: against the sandbox its kit is called back at its own loopback address.
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import puppeteer, { type Browser } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, DEFAULT_MERCHANT, SandboxControl, type Sandbox } from '../../src/sandbox/index.js';
// @ts-expect-error a plain JavaScript module without types
import { assertDistFresh } from '../../scripts/dist-is-fresh.mjs';
import { CHROMIUM_ARGS, payReferenceCode } from '../support/shop-payer.js';

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

  it('renders a fresh checkout token and reference per visit, and takes a reference code payment through its own kit', async () => {
    const page = await browser.newPage();
    const tokenOf = async () => page.$eval('svc-checkout', (element) => element.getAttribute('checkout-token') ?? '');
    await page.goto(`${shopUrl}/`, { waitUntil: 'load' });
    const firstToken = await tokenOf();
    await page.reload({ waitUntil: 'load' });
    const token = await tokenOf();
    expect(token).toMatch(/^ct1\./);
    expect(token).not.toBe(firstToken);
    await page.close();

    // The shop's name and the test badge from the kit's options and its service, with no attribute for either.
    const badged = await browser.newPage();
    await badged.goto(`${shopUrl}/`, { waitUntil: 'load' });
    expect(await badged.$eval('svc-checkout', (element) => element.getAttributeNames().filter((name) => !name.startsWith('data-') && name !== 'dir'))).toEqual(['checkout-token']);
    await badged.waitForFunction(() => document.querySelector('svc-checkout')?.shadowRoot?.querySelector('.badge')?.textContent === 'Test mode', { timeout: 10_000 });
    await badged.close();

    const reference = await payReferenceCode(browser, shopUrl, new SandboxControl(sandbox.url), () => shopOutput);
    expect(reference).toMatch(/^NCR-\d{8}-[0-9A-F]{8}$/);
    const orders = (await (await fetch(`${shopUrl}/orders`)).json()) as { reference: string; status: string }[];
    expect(orders.filter((order) => order.status === 'SUCCESS')).toEqual([expect.objectContaining({ reference })]);
    expect(new Set(orders.map((order) => order.reference)).size).toBe(orders.length);
  }, 60_000);
});
