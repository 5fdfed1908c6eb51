// The demo page as a newcomer gets it from `npm start`: Vite with the demo plugin, driven in headless
// Chromium — pay by reference code with the sandbox panel and see the verified callback arrive.
import puppeteer, { type Browser, type BrowserContext, type Frame, type Page } from 'puppeteer-core';
import { createServer, type ViteDevServer } from 'vite';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';

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
      (await page.$$eval('#callbacks li[data-tone=good]', (items) => items.map((item) => item.textContent ?? '').join())).includes('✓ signature verified SUCCESS'),
    );
    const events = await page.$eval('#events', (list) => list.textContent ?? '');
    for (const name of ['svc-ready', 'svc-http-response', 'svc-action', 'svc-pay-result']) expect(events).toContain(name);
  }, 60_000);
});

describe('a checkout of our own on the headless session', () => {
  it('pays with each method through a plain DOM page, with no Lit on it', async () => {
    const { SandboxControl } = await import('../../src/sandbox/control/client.js');
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

describe('the demo page as a QA tool', () => {
  // Each test a new visitor: no cookie of an order paid before, no session storage.
  let visitor: BrowserContext;
  beforeEach(async () => {
    visitor = await browser.createBrowserContext();
    page = await visitor.newPage();
  });
  afterEach(() => visitor.close());

  it('takes a bank account payment with its details and code typed in the isolated frame the kit serves', async () => {
    await page.goto(`${origin}/`, { waitUntil: 'load' });
    await until('the element', async () => (await elementText()).includes('Payment method'));
    await page.evaluate(() => {
      const root = document.querySelector('svc-checkout')!.shadowRoot!;
      (root.querySelector('svc-method-picker')!.shadowRoot!.querySelector('input[value=BankAccount]') as HTMLInputElement).click();
    });
    // The frame, served by the demo's kit, greets the element and takes the payer's keys.
    const frameOf = async () => {
      let frame: Frame | undefined;
      await until('the isolated frame', async () => Boolean((frame = page.frames().find((candidate) => candidate.url().includes('/svc-checkout-frame.html#'))) && (await frame.$('input[name=otp], input[name=bankAccountNumber]'))));
      return frame!;
    };
    const details = await frameOf();
    await page.evaluate(() => document.querySelector('svc-checkout')!.addEventListener('svc-change', (event) => ((window as any).complete = (event as CustomEvent).detail.complete)));
    for (const [name, value] of [['bankAccountNumber', '2215381176'], ['bankCode', '033'], ['dobDay', '05'], ['dobMonth', '01'], ['dobYear', '1990']] as const) {
      await details.type(`input[name=${name}]`, value);
    }
    const press = (label: string) =>
      page.evaluate((wanted) => {
        const buttons = (root: Document | ShadowRoot): HTMLButtonElement[] => [...root.querySelectorAll('button'), ...[...root.querySelectorAll('*')].flatMap((node) => (node.shadowRoot ? buttons(node.shadowRoot) : []))];
        buttons(document.querySelector('svc-checkout')!.shadowRoot!).find((button) => button.textContent?.trim().startsWith(wanted))?.click();
      }, label);
    // As a payer's hand goes from the last field to Pay: once the form is complete (the frame said so).
    await until('the form complete', () => page.evaluate(() => (window as any).complete === true));
    await press('Pay');
    await until('the code step', async () => (await elementText()).includes('Enter the code'));
    const code = await frameOf();
    // Enter in the frame sends the code, as Confirm does.
    await code.type('input[name=otp]', '11315632');
    await (await code.$('input[name=otp]'))!.press('Enter');
    await until('the payment', async () => (await elementText()).includes('Payment received'));
  }, 60_000);

  /** Fills a field of one of the element's form parts and keeps the element informed, as typing would. */
  const fillPart = (part: string, fields: Record<string, string>) =>
    page.evaluate(
      (part, fields) => {
        const form = document.querySelector('svc-checkout')!.shadowRoot!.querySelector(part)!.shadowRoot!;
        for (const [name, value] of Object.entries(fields)) {
          const input = form.querySelector(`[name=${name}]`) as HTMLInputElement;
          input.value = value;
          input.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
        }
        (form.querySelector('button[type=submit]') as HTMLButtonElement).click();
      },
      part,
      fields,
    );
  const open = async () => {
    await page.goto(`${origin}/`, { waitUntil: 'load' });
    await until('the element', async () => (await elementText()).includes('Payment method'));
  };
  /** A new order from the shop's server, as the settings panel asks for one. */
  const newOrder = async (expireAt: number) => {
    const before = await page.$eval('#reference', (code) => code.textContent);
    await page.$eval('[name=expire-at]', (input, value) => ((input as HTMLInputElement).value = value), String(expireAt));
    await page.click('#new-order');
    await until('the new order', async () => (await page.$eval('#reference', (code) => code.textContent)) !== before);
    return page.$eval('#reference', (code) => code.textContent ?? '');
  };
  const faultItems = () => page.$$eval('#faults li', (items) => items.map((item) => `${(item as HTMLElement).dataset['scope'] ?? 'none'}: ${item.textContent}`));
  const eventItems = () =>
    page.$$eval('#events li', (items) => items.map((item) => ({ tone: (item as HTMLElement).dataset['tone'], hidden: (item as HTMLElement).hidden, text: item.querySelector('summary')?.textContent ?? '' })));

  it('makes a payment link for a new cart: its QR code drawn by the kit, its pay page open, the dashboard listing it', async () => {
    await page.goto(`${origin}/`, { waitUntil: 'load' });
    await page.click('#make-link');
    await page.waitForFunction(() => !(document.querySelector('#link') as HTMLElement).hidden, { timeout: 10_000 });
    const url = await page.$eval('#link-url', (anchor) => (anchor as HTMLAnchorElement).href);
    expect(url.startsWith(`${origin}/api/checkout/pay/pl1.`)).toBe(true);
    await page.waitForFunction(() => (document.querySelector('#link-qr') as HTMLImageElement).naturalWidth > 0, { timeout: 10_000 });
    const pay = await fetch(url);
    expect(pay.status).toBe(200);
    expect(await pay.text()).toContain('<h1>Coffee order</h1>');
    const links = (await (await fetch(`${origin}/sandbox/v1/links`)).json()) as { links: { url: string }[] };
    expect(links.links.map((link) => link.url)).toContain(url);
  });

  it('has no sideways scroll on a 320 px wide screen', async () => {
    await page.setViewport({ width: 320, height: 640 });
    try {
      await open();
      const widths = await page.evaluate(() => ({ page: document.scrollingElement!.scrollWidth, element: document.querySelector('svc-checkout')!.getBoundingClientRect().right }));
      expect(widths.page).toBeLessThanOrEqual(320);
      expect(widths.element).toBeLessThanOrEqual(320);
      // A log entry opened on its detail (JSON) wraps too.
      await until('a log entry', async () => (await page.$$('#events li details')).length > 0);
      await page.$eval('#events li details', (details) => ((details as HTMLDetailsElement).open = true));
      expect(await page.evaluate(() => document.scrollingElement!.scrollWidth)).toBeLessThanOrEqual(320);
    } finally {
      await page.setViewport({ width: 1024, height: 768 });
    }
  }, 30_000);

  it('lists the faults waiting, the next-create-only ones too, clears them, and spends a next-create fault on the create', async () => {
    const { SandboxControl } = await import('../../src/sandbox/control/client.js');
    const sandbox = new SandboxControl(origin);
    await open();
    await until('the empty list', async () => (await faultItems()).join() === 'none: None: every call goes through.');

    await page.select('[data-action=fault] [name=kind]', '50003');
    await page.$eval('[data-action=fault] [name=count]', (input) => ((input as HTMLInputElement).value = '3'));
    await page.click('[data-action=fault] button');
    await until('the queued fault', async () => (await faultItems()).includes('calls: answer 50003 · the next 3 calls'));
    await page.select('[data-action=fault] [name=kind]', 'timeout');
    await page.click('[data-action=fault] [name=next-create]');
    await page.$eval('[data-action=fault] [name=delay]', (input) => ((input as HTMLInputElement).value = '5'));
    await page.click('[data-action=fault] button');
    await until('the fault held for the next create', async () => (await faultItems()).includes('next-create: time out after 5 s · the next create only'));
    expect(await faultItems()).toHaveLength(2);
    expect(await sandbox.request('GET', '/sandbox/v1/faults')).toMatchObject({ body: { faults: [{ kind: '50003', remaining: 3 }] } });

    await page.click('#clear-faults');
    await until('the cleared list', async () => (await faultItems()).join() === 'none: None: every call goes through.');
    expect(await sandbox.request('GET', '/sandbox/v1/faults')).toMatchObject({ body: { faults: [] } });
    expect(await (await fetch(`${origin}/demo/faults`)).json()).toEqual({ nextCreate: [] });

    // Held for the next create, a 50003 waits while other calls go through, and the create meets it.
    await page.select('[data-action=fault] [name=kind]', '50003');
    await page.click('[data-action=fault] button');
    await until('the held fault', async () => (await faultItems()).includes('next-create: answer 50003 · the next create only'));
    expect(await sandbox.request('GET', '/sandbox/v1/faults')).toMatchObject({ body: { faults: [] } });
    await page.click('#elsewhere');
    await until('the create answered 50003', async () => (await page.$eval('#control-status', (status) => status.textContent ?? '')).startsWith('50003'));
    await until('the spent fault', async () => (await faultItems()).join() === 'none: None: every call goes through.');
  }, 30_000);

  it("sets an order's expiry through the shop's server: the new token carries it to the element, the kit and the service", async () => {
    const { SandboxControl } = await import('../../src/sandbox/control/client.js');
    const sandbox = new SandboxControl(origin);
    await open();
    const reference = await newOrder(7);
    expect(await page.$eval('#order-expiry', (text) => text.textContent)).toBe('waits 7 min for payment');
    const claims = await page.evaluate(() => {
      const token = (document.querySelector('svc-checkout') as HTMLElement & { checkoutToken: string }).checkoutToken;
      return JSON.parse(atob(token.split('.')[1]!.replace(/-/g, '+').replace(/_/g, '/'))) as Record<string, unknown>;
    });
    expect(claims).toMatchObject({ ref: reference, xa: 7 });

    await fillPart('svc-pos-form', { sn: 'N78101818777' });
    await until('the terminal step', async () => (await elementText()).includes('N78101818777'));
    const order = (await sandbox.orders()).find((each) => each.reference === reference);
    expect(order).toBeDefined();
    expect(Date.parse(order!.expiresAt) - Date.parse(order!.createdAt)).toBe(7 * 60_000);

    // A page that asks for an expiry the shop does not allow gets the reason, and keeps its order.
    const refused = await page.evaluate(async () => {
      const response = await fetch('/demo/orders', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"expireAt":0}' });
      return { status: response.status, body: await response.json() };
    });
    expect(refused).toEqual({ status: 400, body: { error: 'expireAt must be a whole number of minutes from 1 to 43200' } });
  }, 30_000);

  it('logs one line per event, coloured by outcome (a FAIL is not green), with a filter and a Clear button', async () => {
    await open();
    await newOrder(30);
    await fillPart('svc-pos-form', { sn: 'N78101818778' });
    await until('the terminal step', async () => (await elementText()).includes('N78101818778'));
    await page.click('[data-action=complete] button[value=FAIL]');
    await until('the failed result', async () => (await eventItems()).some((item) => item.text.includes('svc-pay-result') && item.text.includes('FAIL')));

    const items = await eventItems();
    const failed = items.find((item) => item.text.includes('svc-pay-result') && item.text.includes('FAIL'))!;
    expect(failed.tone).toBe('bad');
    expect(items.find((item) => item.text.includes('svc-action'))?.tone).toBe('info');
    const colours = await page.evaluate(() => {
      const probe = (tone: string) => {
        const span = document.body.appendChild(document.createElement('span'));
        span.style.color = `var(--${tone})`;
        const colour = getComputedStyle(span).color;
        span.remove();
        return colour;
      };
      const failedItem = [...document.querySelectorAll<HTMLElement>('#events li')].find((item) => item.textContent?.includes('FAIL'))!;
      return { failed: getComputedStyle(failedItem).borderInlineStartColor, bad: probe('bad'), good: probe('good') };
    });
    expect(colours.failed).toBe(colours.bad);
    expect(colours.failed).not.toBe(colours.good);
    await until('the failed callback in red', async () =>
      (await page.$$eval('#callbacks li[data-tone=bad]', (list) => list.map((item) => item.textContent).join())).includes('FAIL'),
    );

    await page.type('#events-filter', 'svc-pay-result');
    const filtered = await eventItems();
    expect(filtered.filter((item) => !item.hidden).length).toBeGreaterThan(0);
    expect(filtered.filter((item) => !item.hidden).every((item) => item.text.includes('svc-pay-result'))).toBe(true);
    expect(filtered.some((item) => item.hidden)).toBe(true);
    expect(await page.$eval('#events-count', (count) => count.textContent)).toMatch(/^\d+ of \d+ shown$/);

    await page.click('[data-clear=events]');
    expect(await eventItems()).toEqual([]);
  }, 30_000);

  it("shows the shop's name on the sandbox's 3-D Secure page", async () => {
    await open();
    await newOrder(30);
    const answer = await page.evaluate(async () => {
      const token = (document.querySelector('svc-checkout') as HTMLElement & { checkoutToken: string }).checkoutToken;
      const response = await fetch('/api/checkout/payments', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'Svc-Checkout-Token': token },
        body: JSON.stringify({ payMethod: 'BankAccount', bankCode: '033', bankAccountNumber: '2215381200', dobDay: '05', dobMonth: '01', dobYear: '1990', returnUrl: location.href }),
      });
      return response.json() as Promise<{ code: string; data?: { nextAction?: { redirectUrl?: string } } }>;
    });
    expect(answer, JSON.stringify(answer)).toMatchObject({ code: '00000' });
    await page.goto(answer.data!.nextAction!.redirectUrl!, { waitUntil: 'load' });
    const text = await page.evaluate(() => document.body.innerText);
    expect(text).toContain('3-D Secure check');
    expect(text).toMatch(/Merchant\s+Nile Coffee Roasters/);
  }, 30_000);
});
