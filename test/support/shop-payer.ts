/**
 * A payer in Chromium who pays a reference code through an example shop's page: picks Reference code, gives a name,
 * an email and a mobile number, presses Pay; the sandbox's control API pays the code the page shows; the page must
 * say "Payment received" and the shop must print the order's verified callback.
 */
import type { Browser, BrowserContext, Page } from 'puppeteer-core';
import { expect } from 'vitest';
import type { SandboxControl } from '../../src/sandbox/index.js';

export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'];

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * On a page whose `<svc-checkout>` offers Reference code (among other methods, or alone): chooses it when there is a
 * choice, waits for its form (its chunk loads on the choice), gives a name, an email and a mobile number, and asks for
 * the code. The sandbox's control API then pays the code, as the caller decides.
 */
export async function askForReferenceCode(page: Page, timeoutMs = 10_000): Promise<void> {
  await page.waitForFunction(() => document.querySelector('svc-checkout')?.shadowRoot?.querySelector('svc-method-picker, svc-reference-code-form'), { timeout: timeoutMs });
  await page.evaluate(() => {
    const choice = document.querySelector('svc-checkout')!.shadowRoot!.querySelector('svc-method-picker')?.shadowRoot?.querySelector('input[value=ReferenceCode]');
    (choice as HTMLInputElement | null | undefined)?.click();
  });
  await page.waitForFunction(() => document.querySelector('svc-checkout')!.shadowRoot!.querySelector('svc-reference-code-form')?.shadowRoot?.querySelector('button[type=submit]'), { timeout: timeoutMs });
  await page.evaluate(() => {
    const form = document.querySelector('svc-checkout')!.shadowRoot!.querySelector('svc-reference-code-form')!.shadowRoot!;
    for (const [name, value] of Object.entries({ notifyUserName: 'Mona Hassan', notifyUserEmail: 'mona@example.com', notifyUserMobile: '+201001234567' })) {
      const input = form.querySelector(`[name=${name}]`) as HTMLInputElement;
      input.value = value;
      input.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
    }
    (form.querySelector('button[type=submit]') as HTMLButtonElement).click();
  });
}

/** Pays one order through the shop at `shopUrl`; `output` is what the shop printed so far. Returns the order's reference. */
export async function payReferenceCode(browser: Browser | BrowserContext, shopUrl: string, control: SandboxControl, output: () => string): Promise<string> {
  const page = await browser.newPage();
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(String(error)));
  page.on('console', (message) => message.type() === 'error' && problems.push(message.text()));
  try {
    await page.goto(`${shopUrl}/`, { waitUntil: 'load' });
    expect(await page.$eval('svc-checkout', (element) => element.getAttribute('checkout-token') ?? '')).toMatch(/^ct1\./);
    const reference = await page.$eval('code', (element) => element.textContent ?? '');

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
    await askForReferenceCode(page);

    let code: string | undefined;
    await until('the order in the sandbox', async () => {
      code = (await control.orders()).find((order) => order.reference === reference)?.referenceCode ?? undefined;
      return code !== undefined;
    });
    expect(code).toMatch(/^\d{9}$/);
    await control.payReferenceCode(code!);

    await until('the payment on the page', async () => (await shadowText()).includes('Payment received'));
    await until('the verified callback', async () => output().includes(`order ${reference}: SUCCESS`));
    expect(problems).toEqual([]);
    return reference;
  } finally {
    await page.close();
  }
}
