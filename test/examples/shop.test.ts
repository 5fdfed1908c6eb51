// examples/shop/server.mjs as a newcomer runs it: a sandbox, the shop as its own process with the environment
// variables the README shows, and a payer in Chromium who pays a reference code through the shop's page.
import { spawn, type ChildProcess } from 'node:child_process';
import puppeteer, { type Browser } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, DEFAULT_MERCHANT, SandboxControl, type Sandbox } from '../../src/sandbox/index.js';
// @ts-expect-error a plain JavaScript module without types
import { assertDistFresh } from '../../scripts/dist-is-fresh.mjs';

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
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'],
  });
}, 30_000);

afterAll(async () => {
  await browser?.close();
  shop?.kill('SIGTERM');
  await sandbox?.close();
});

describe('the whole-shop example', () => {
  it('serves every file of the CDN build the entry imports, the hashed chunks for good and the fixed names revalidated', async () => {
    const entry = await fetch(`${shopUrl}/svc-checkout.js`);
    expect(entry.headers.get('cache-control')).toBe('no-cache');
    const imported = [...(await entry.text()).matchAll(/import\("\.\/([^"]+)"\)/g)].map((match) => match[1]!);
    expect(imported).toContain('svc-checkout-ar.js');
    for (const file of imported) {
      const answer = await fetch(`${shopUrl}/${file}`);
      expect(answer.status, file).toBe(200);
      expect(answer.headers.get('content-type'), file).toMatch(/^text\/javascript/);
      expect(answer.headers.get('cache-control'), file).toBe(file.startsWith('chunks/') ? 'public, max-age=31536000, immutable' : 'no-cache');
    }
    expect((await fetch(`${shopUrl}/server.mjs`)).status).toBe(404);
  });

  it('renders a fresh checkout token and reference per visit, and takes a reference code payment through its own kit', async () => {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(String(error)));
    page.on('console', (message) => message.type() === 'error' && problems.push(message.text()));

    const tokenOf = async () => page.$eval('svc-checkout', (element) => element.getAttribute('checkout-token') ?? '');
    await page.goto(`${shopUrl}/`, { waitUntil: 'load' });
    const firstToken = await tokenOf();
    await page.reload({ waitUntil: 'load' });
    const token = await tokenOf();
    expect(token).toMatch(/^ct1\./);
    expect(token).not.toBe(firstToken);

    const shadowText = () =>
      page.evaluate(() => {
        const parts: string[] = [];
        const walk = (node: Node) => {
          const shadow = (node as Element).shadowRoot;
          if (shadow) shadow.childNodes.forEach(walk);
          if (node.nodeType === Node.TEXT_NODE) parts.push(node.textContent ?? '');
          node.childNodes.forEach(walk);
        };
        walk(document.querySelector('svc-checkout')!);
        return parts.join(' ').replace(/\s+/g, ' ');
      });
    await page.waitForFunction(() => document.querySelector('svc-checkout')?.shadowRoot?.querySelector('svc-method-picker'), { timeout: 10_000 });
    expect(await shadowText()).toContain('Nile Coffee Roasters');
    await page.evaluate(() => {
      const root = document.querySelector('svc-checkout')!.shadowRoot!;
      (root.querySelector('svc-method-picker')!.shadowRoot!.querySelector('input[value=ReferenceCode]') as HTMLInputElement).click();
    });
    await page.waitForFunction(() => document.querySelector('svc-checkout')!.shadowRoot!.querySelector('svc-reference-code-form'), { timeout: 10_000 });
    await page.evaluate(() => {
      const form = document.querySelector('svc-checkout')!.shadowRoot!.querySelector('svc-reference-code-form')!.shadowRoot!;
      for (const [name, value] of Object.entries({ notifyUserName: 'Mona Hassan', notifyUserEmail: 'mona@example.com', notifyUserMobile: '+201001234567' })) {
        const input = form.querySelector(`[name=${name}]`) as HTMLInputElement;
        input.value = value;
        input.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
      }
      (form.querySelector('button[type=submit]') as HTMLButtonElement).click();
    });

    const control = new SandboxControl(sandbox.url);
    let code: string | undefined;
    const deadline = Date.now() + 10_000;
    while (!code && Date.now() < deadline) {
      code = (await control.orders()).find((order) => order.referenceCode)?.referenceCode ?? undefined;
      if (!code) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(code).toMatch(/^\d{9}$/);
    await control.payReferenceCode(code!);

    const until = async (what: string, check: () => Promise<boolean>) => {
      const end = Date.now() + 15_000;
      while (!(await check())) {
        if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };
    await until('the payment on the page', async () => (await shadowText()).includes('Payment received'));
    await until('the verified callback', async () => /order NCR-\d{8}-[0-9A-F]{8}: SUCCESS/.test(shopOutput));
    const orders = (await (await fetch(`${shopUrl}/orders`)).json()) as { reference: string; status: string }[];
    expect(orders.filter((order) => order.status === 'SUCCESS')).toHaveLength(1);
    expect(new Set(orders.map((order) => order.reference)).size).toBe(orders.length);
    expect(problems).toEqual([]);
  }, 60_000);
});
