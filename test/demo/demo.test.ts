// The demo page as a newcomer gets it from `npm start`: Vite with the demo plugin, driven in headless
// Chromium — pay by reference code with the sandbox panel and see the verified callback arrive.
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { createServer, type ViteDevServer } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let server: ViteDevServer;
let browser: Browser;
let page: Page;
let origin: string;

beforeAll(async () => {
  server = await createServer({ configFile: 'vite.config.ts', logLevel: 'silent', server: { port: 0, host: '127.0.0.1' } });
  await server.listen();
  origin = (server.resolvedUrls?.local[0] ?? '').replace(/\/$/, '');
  browser = await puppeteer.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'],
  });
  page = await browser.newPage();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/** Text of the element, through its shadow roots. */
const elementText = () =>
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

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('the demo page', () => {
  it('takes a reference code payment against the embedded sandbox, and shows the verified callback', async () => {
    await page.goto(`${origin}/`, { waitUntil: 'load' });
    await until('the element', async () => (await elementText()).includes('Payment method'));
    await page.evaluate(() => {
      const root = document.querySelector('svc-checkout')!.shadowRoot!;
      (root.querySelector('svc-method-picker')!.shadowRoot!.querySelector('input[value=ReferenceCode]') as HTMLInputElement).click();
    });
    await until('the reference code form', async () => (await elementText()).includes('Send me the code by'));
    await page.evaluate(() => {
      const form = document.querySelector('svc-checkout')!.shadowRoot!.querySelector('svc-reference-code-form')!.shadowRoot!;
      const fill = (name: string, value: string) => {
        const input = form.querySelector(`[name=${name}]`) as HTMLInputElement;
        input.value = value;
        input.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
      };
      fill('notifyUserName', 'Mona Hassan');
      fill('notifyUserEmail', 'mona@example.com');
      fill('notifyUserMobile', '+201001234567');
      (form.querySelector('button[type=submit]') as HTMLButtonElement).click();
    });
    await until('the reference code', async () => (await elementText()).includes('Your reference code'));
    const code = await page.$eval('[data-action="pay-code"] input[name=code]', (input) => (input as HTMLInputElement).value);
    expect(code).toMatch(/^\d{9}$/);
    await until('the messages sent', async () => (await page.$eval('#messages', (list) => list.textContent ?? '')).includes(code.slice(0, 3)));
    await page.click('[data-action="pay-code"] button');
    await until('the payment', async () => (await elementText()).includes('Payment received'));
    await until('the verified callback', async () =>
      (await page.$eval('#callbacks', (list) => list.textContent ?? '')).includes('✓ signature verified · SUCCESS'),
    );
    const events = await page.$eval('#events', (list) => list.textContent ?? '');
    for (const name of ['svc-ready', 'svc-http-response', 'svc-action', 'svc-pay-result']) expect(events).toContain(name);
  }, 60_000);
});

describe('a checkout of our own on the headless session', () => {
  it('pays with each method through a plain DOM page, with no Lit on it', async () => {
    const { SandboxControl } = await import('../../src/sandbox/control-client.js');
    const sandbox = new SandboxControl(origin);
    const open = async () => {
      await page.goto(`${origin}/demo/custom-ui.html`, { waitUntil: 'load' });
      await page.waitForSelector('select[name=method]');
      expect(await page.evaluate(() => Boolean(customElements.get('svc-checkout')))).toBe(false);
    };
    const choose = async (method: string) => {
      await page.select('select[name=method]', method);
      await page.waitForFunction((wanted) => (document.querySelector('select[name=method]') as HTMLSelectElement | null)?.value === wanted, {}, method);
    };
    const type = async (name: string, value: string) => page.type(`input[name=${name}]`, value);
    const paid = () => page.waitForSelector('[data-outcome=SUCCESS]', { timeout: 15_000 });

    await open();
    await choose('Pos');
    await type('sn', 'N78101818901');
    await page.click('button[type=submit]');
    await page.waitForFunction(() => document.body.textContent?.includes('Swipe your card at terminal N78101818901'));
    await sandbox.swipe('N78101818901');
    await paid();

    await open();
    await choose('BankAccount');
    for (const [name, value] of Object.entries({ bankAccountNumber: '2215381176', bankCode: '033', dobDay: '05', dobMonth: '01', dobYear: '1990' })) await type(name, value);
    await page.click('button[type=submit]');
    await page.waitForSelector('input[name=code]');
    await type('code', '11315632');
    await page.click('button[type=submit]');
    await paid();

    await open();
    await choose('ReferenceCode');
    for (const [name, value] of Object.entries({ notifyUserName: 'Mona Hassan', notifyUserEmail: 'mona@example.com', notifyUserMobile: '+201001234567' })) await type(name, value);
    await page.click('button[type=submit]');
    await page.waitForSelector('output[name=reference-code]');
    const code = await page.$eval('output[name=reference-code]', (output) => output.textContent ?? '');
    expect(code).toMatch(/^\d{9}$/);
    await sandbox.payReferenceCode(code);
    await paid();
  }, 60_000);
});
