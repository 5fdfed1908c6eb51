// npm run screenshots: every state of <svc-checkout>, in English and Arabic, light and dark, on a phone (390 px)
// and a desktop (1280 px) wide page, as PNG files in
// screenshots/ (or SCREENSHOTS_DIR), with index.html, which puts the eight variants of each state side by side for a
// person to review the look. Drives the built CDN file in headless Chromium against a sandbox and merchant kit of its
// own. The images are not committed. `node scripts/screenshots.mjs success failure` takes those states alone.
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import puppeteer from 'puppeteer-core';
import { SandboxControl, startDevStack } from '../dist/sandbox/index.js';
import { startInitShop, stopInitShops } from './init-shop.mjs';

const OUT = process.env.SCREENSHOTS_DIR ?? 'screenshots';
const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const only = process.argv.slice(2); // optional state names

const PAGE = (theme) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>svc-checkout states</title>
<style>
  body { margin: 0; padding: 16px; font-family: system-ui, sans-serif; background: ${theme === 'dark' ? '#111113' : '#f6f4f0'}; }
</style>
<script type="module" src="/svc-checkout.js"></script>
</head><body><div id="shop"></div></body></html>`;

await rm(OUT, { recursive: true, force: true });
await mkdir(OUT, { recursive: true });

let stack;
const server = createServer((request, response) => {
  const url = new URL(request.url ?? '/', 'http://localhost');
  if (url.pathname === '/') {
    response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(PAGE(url.searchParams.get('theme')));
    return;
  }
  // The CDN build whole, under its names: the entry, Arabic's words beside it, the chunks it imports from chunks/.
  const file = /^\/(?:chunks\/)?[\w-]+\.js$/.test(url.pathname) ? `dist/cdn${url.pathname}` : undefined;
  if (file) {
    readFile(file).then(
      (body) => response.writeHead(200, { 'Content-Type': 'text/javascript' }).end(body),
      () => response.writeHead(404).end(),
    );
    return;
  }
  stack.middleware(request, response, () => response.writeHead(404).end());
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const origin = `http://127.0.0.1:${server.address().port}`;
// One test payer receives every screenshot's reference code: the kit's per-contact limits would stop the run.
stack = await startDevStack({
  publicUrl: origin,
  sandbox: { tickMs: 50 },
  handler: { limits: { messagesPerEmail: false, messagesPerPhone: false, createsPerClient: false } },
});

const browser = await puppeteer.launch({
  executablePath: chromium,
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'],
});

/** Runs in the page: helpers that reach through the element's shadow roots. */
const HELPERS = () => {
  const deep = (root, selector) => {
    const scope = root.shadowRoot ?? root;
    const direct = scope.querySelector(selector);
    if (direct) return direct;
    for (const element of scope.querySelectorAll('*')) {
      if (element.shadowRoot) {
        const found = deep(element, selector);
        if (found) return found;
      }
    }
    return null;
  };
  const text = (root) => {
    const parts = [];
    const walk = (node) => {
      if (node.shadowRoot) node.shadowRoot.childNodes.forEach(walk);
      if (node.nodeType === 3) parts.push(node.textContent);
      node.childNodes.forEach(walk);
    };
    walk(root);
    return parts.join(' ').replace(/\s+/g, ' ');
  };
  window.svc = {
    element: () => document.querySelector('svc-checkout'),
    fill(name, value) {
      const input = deep(this.element(), `[name=${name}]`);
      input.value = value;
      input.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
      input.dispatchEvent(new FocusEvent('blur'));
    },
    click(pattern) {
      const buttons = [];
      const collect = (root) => {
        const scope = root.shadowRoot ?? root;
        buttons.push(...scope.querySelectorAll('button'));
        for (const element of scope.querySelectorAll('*')) if (element.shadowRoot) collect(element);
      };
      collect(this.element());
      const button = buttons.find((item) => new RegExp(pattern).test(item.textContent.trim()));
      if (!button) throw new Error(`no button ${pattern}`);
      button.click();
    },
    text() {
      return text(this.element());
    },
    /** Whether every named field is there (a form's chunk may still be on its way on a busy machine). */
    has(names) {
      return names.every((name) => deep(this.element(), `[name=${name}]`));
    },
  };
};

async function mount(page, attributes) {
  await page.evaluate((attributes) => {
    window.svc.restore?.();
    sessionStorage.clear();
    const shop = document.querySelector('#shop');
    shop.replaceChildren();
    const element = document.createElement('svc-checkout');
    for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value);
    shop.append(element);
  }, attributes);
  await page.waitForFunction(() => window.svc.element()?.shadowRoot?.querySelector('.body'));
}

const waitText = (page, pattern) =>
  page.waitForFunction((pattern) => new RegExp(pattern).test(window.svc.text()), { timeout: 10_000 }, pattern);
const fill = async (page, values) => {
  await page.waitForFunction((names) => window.svc.has(names), { timeout: 10_000 }, Object.keys(values));
  await page.evaluate((values) => Object.entries(values).forEach(([name, value]) => window.svc.fill(name, value)), values);
};
const click = (page, pattern) => page.evaluate((pattern) => window.svc.click(pattern), pattern);
const sandbox = new SandboxControl(stack.sandbox.url);
const control = (method, path, body) => sandbox.request(method, path, body);

const ORDER = {
  amount: { total: 12_500, currency: 'EGP' },
  country: 'EG',
  product: { name: 'Espresso beans, 1 kg', description: 'Single-origin Ethiopian beans' },
  merchantName: 'Nile Coffee Roasters',
};
/** The shop `init` writes, once a state needs it. */
let initShop;
const BANK = { bankCode: '033', dobDay: '05', dobMonth: '01', dobYear: '1990' };
const NOTIFY = { notifyUserName: 'Mona Hassan', notifyUserEmail: 'mona@example.com', notifyUserMobile: '+201001234567' };
// The forms' buttons: Pay, or the reference code's Get my code (it pays nothing yet).
const PAY = '^(Pay|ادفع|Get my code|احصل على الرمز)';

/** Each state: the attributes to start from, and what to do to reach it. */
const STATES = {
  'method-choice': { attributes: {} },
  'single-method': { attributes: { methods: 'ReferenceCode' } },
  'pos-form': { attributes: { 'pay-method': 'Pos' } },
  'bank-account-form': { attributes: { 'pay-method': 'BankAccount' } },
  'reference-code-form': { attributes: { 'pay-method': 'ReferenceCode' } },
  'form-errors': { attributes: { 'pay-method': 'ReferenceCode' }, steps: async (page) => { await click(page, PAY); await page.waitForFunction(() => window.svc.element().shadowRoot.querySelector('svc-reference-code-form').shadowRoot.querySelector('[aria-invalid=true]')); } },
  'config-error': { attributes: { 'checkout-token': 'ct1.not-a-token.x' } },
  'shop-not-found': { attributes: { 'pay-method': 'Pos', endpoint: '/no-such-endpoint' }, steps: async (page) => { await fill(page, { sn: 'N78101818218' }); await click(page, PAY); await waitText(page, 'Payments are not set up|الدفع غير مُعدّ'); } },
  'leave-confirm': { attributes: { 'pay-method': 'Pos' }, steps: async (page) => { await fill(page, { sn: 'N78101818219' }); await click(page, PAY); await waitText(page, 'N78101818219'); await click(page, '^(Use another method|استخدم طريقة أخرى)'); await page.waitForFunction(() => window.svc.text().includes('Keep this payment') || window.svc.text().includes('أبقِ عملية الدفع هذه')); } },
  swipe: { attributes: { 'pay-method': 'Pos' }, steps: async (page) => { await fill(page, { sn: 'N78101818218' }); await click(page, PAY); await waitText(page, 'N78101818218'); } },
  'otp-error': { attributes: { 'pay-method': 'BankAccount' }, steps: async (page) => { await fill(page, { ...BANK, bankAccountNumber: '2215381176' }); await click(page, PAY); await page.waitForFunction(() => window.svc.text().includes('11') || document.querySelector('svc-checkout').shadowRoot.querySelector('svc-code-step')); await fill(page, { otp: '00000000' }); await click(page, '^(Confirm|تأكيد)'); await page.waitForFunction(() => window.svc.element().shadowRoot.querySelector('svc-code-step').shadowRoot.querySelector('[aria-invalid=true]')); } },
  // Offline at Confirm (the code typed in the element's own field, where this page's fetch is the one that fails).
  'otp-offline': {
    attributes: { 'pay-method': 'BankAccount', isolated: 'false' },
    steps: async (page) => {
      await fill(page, { ...BANK, bankAccountNumber: '2215381176' });
      await click(page, PAY);
      await page.waitForFunction(() => window.svc.element().shadowRoot.querySelector('svc-code-step'));
      await page.evaluate(() => {
        const original = window.fetch;
        // Online again at the next state's mount.
        window.svc.restore = () => (window.fetch = original);
        window.fetch = (input, init) => (String(input.url ?? input).endsWith('/payments/otp') ? Promise.reject(new TypeError('Failed to fetch')) : original(input, init));
      });
      await fill(page, { otp: '11315632' });
      await click(page, '^(Confirm|تأكيد)');
      await waitText(page, 'could not reach the shop|تعذّر الاتصال بالمتجر');
    },
  },
  // A host page with hostile but common CSS (issue 48): a reset, content-box sizing, unset buttons, a 10 px root, a
  // right-to-left body under an English page, centred text. The element should look as it does on a plain page.
  'hostile-page': {
    attributes: { methods: 'Pos BankAccount ReferenceCode' },
    steps: async (page) => {
      await page.evaluate(() => {
        const hostile = document.createElement('style');
        hostile.textContent = `*, *::before, *::after { margin: 0; padding: 0; box-sizing: content-box; }
          html { font-size: 10px; } body { direction: rtl; line-height: 1; text-align: center; letter-spacing: 2px; text-transform: uppercase; }
          button { all: unset; } input, button, select { font: inherit; }`;
        document.head.append(hostile);
        window.svc.restore = () => hostile.remove();
      });
    },
  },
  pin: { attributes: { 'pay-method': 'BankAccount' }, steps: async (page) => { await fill(page, { ...BANK, bankAccountNumber: '2215381183' }); await click(page, PAY); await page.waitForFunction(() => window.svc.element().shadowRoot.querySelector('svc-code-step')); } },
  'three-d-secure': { attributes: { 'pay-method': 'BankAccount', 'redirect-mode': 'new-window' }, steps: async (page) => { await page.evaluate(() => { window.open = () => null; }); await fill(page, { ...BANK, bankAccountNumber: '2215381200' }); await click(page, PAY); await page.waitForFunction(() => window.svc.element().shadowRoot.querySelector('svc-redirect-step')); } },
  'reference-code': { attributes: { 'pay-method': 'ReferenceCode' }, steps: async (page) => { await fill(page, NOTIFY); await click(page, PAY); await page.waitForFunction(() => window.svc.element().shadowRoot.querySelector('svc-reference-code-step')); } },
  success: { attributes: { 'pay-method': 'Pos' }, steps: async (page) => { await fill(page, { sn: 'N78101818500' }); await click(page, PAY); await waitText(page, 'N78101818500'); await control('POST', '/sandbox/v1/pos/N78101818500/swipe', { outcome: 'success' }); await page.waitForFunction(() => window.svc.element().shadowRoot.querySelector('svc-result')); } },
  failure: { attributes: { 'pay-method': 'Pos' }, steps: async (page) => { await fill(page, { sn: 'N78101818501' }); await click(page, PAY); await waitText(page, 'N78101818501'); await control('POST', '/sandbox/v1/pos/N78101818501/swipe', { outcome: 'fail' }); await page.waitForFunction(() => window.svc.element().shadowRoot.querySelector('svc-result')); } },
  expired: { attributes: { 'pay-method': 'ReferenceCode' }, steps: async (page) => { await fill(page, NOTIFY); await click(page, PAY); await page.waitForFunction(() => window.svc.element().shadowRoot.querySelector('svc-reference-code-step')); await control('POST', '/sandbox/v1/clock/advance', { minutes: 30 }); await page.waitForFunction(() => window.svc.element().shadowRoot.querySelector('svc-result')); } },
  // Two tabs on one cart: the first started paying from a bank account (its code step); this is the second, as the
  // shop renders it for the cart (openCheckout), told which payment is in progress.
  'another-tab': {
    attributes: {},
    steps: async (page, attempt) => {
      const order = { ...ORDER, reference: `screenshot-${attempt}-tabs`, returnUrl: `${origin}/return` };
      await fetch(`${origin}${stack.basePath}/payments`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'Svc-Checkout-Token': await stack.checkoutToken(order) },
        body: JSON.stringify({ payMethod: 'BankAccount', bankAccountNumber: '2215381176', ...BANK }),
      });
      const opened = await stack.openCheckout(order);
      const shown = await page.evaluate(() => ({ locale: window.svc.element().getAttribute('locale'), theme: window.svc.element().getAttribute('theme') }));
      await mount(page, { endpoint: stack.basePath, 'checkout-token': opened.token, 'poll-interval': '100', sandbox: '', ...shown });
      await waitText(page, 'ending in 1176|المنتهي بـ');
    },
  },
  // The page `npx svc-checkout init` writes, as its own server serves it, in the payer's colour scheme: the whole page.
  'init-page': {
    page: async ({ locale, theme, width, file }) => {
      initShop ??= await startInitShop(stack.sandbox);
      const page = await browser.newPage();
      try {
        await page.setViewport({ width, height: 900, deviceScaleFactor: 1 });
        await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: theme }, { name: 'prefers-reduced-motion', value: 'reduce' }]);
        await page.goto(initShop.url, { waitUntil: 'load' });
        // The page is the shop's, in English; its element in the variant's language.
        await page.evaluate((locale) => document.querySelector('svc-checkout').setAttribute('locale', locale), locale);
        await page.waitForFunction(() => document.querySelector('svc-checkout')?.shadowRoot?.querySelector('[part=amount]'), { timeout: 10_000 });
        await new Promise((resolve) => setTimeout(resolve, 300));
        await page.screenshot({ path: file });
      } finally {
        await page.close();
      }
    },
  },
  waiting: {
    attributes: { 'pay-method': 'Pos' },
    steps: async (page) => {
      // The same order started in another tab first: this one then waits for it.
      const token = await page.evaluate(() => window.svc.element().getAttribute('checkout-token'));
      await fetch(`${origin}${stack.basePath}/payments`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'Svc-Checkout-Token': token },
        body: JSON.stringify({ payMethod: 'Pos', sn: 'N1' }),
      });
      await fill(page, { sn: 'N1' });
      await click(page, PAY);
      await page.waitForFunction(() => window.svc.element().shadowRoot.querySelector('svc-waiting-step'));
    },
  },
};

/** Every variant of a state, in the order the review page shows them side by side. */
const VARIANTS = [390, 1280].flatMap((width) => ['en', 'ar'].flatMap((locale) => ['light', 'dark'].map((theme) => ({ width, locale, theme }))));
const fileOf = (state, { locale, theme, width }) => `${state}.${locale}.${theme}.${width}.png`;

/** The review page: a row per state, its eight variants side by side, each image named by its variant. */
function reviewPage(states) {
  const escape = (text) => text.replace(/[&<>"]/g, (character) => `&#${character.charCodeAt(0)};`);
  const head = VARIANTS.map((variant) => `<th>${variant.width} px ${variant.locale} ${variant.theme}</th>`).join('');
  const rows = states.map((state) => {
    const cells = VARIANTS.map((variant) => {
      const file = escape(fileOf(state, variant));
      return `<td data-variant="${variant.width}.${variant.locale}.${variant.theme}"><a href="${file}"><img src="${file}" alt="${escape(state)}, ${variant.width} px, ${variant.locale}, ${variant.theme}" loading="lazy"></a></td>`;
    });
    return `<tr data-state="${escape(state)}"><th scope="row">${escape(state)}</th>${cells.join('')}</tr>`;
  });
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>svc-checkout: every state</title>
<style>
  body { margin: 16px; font-family: system-ui, sans-serif; }
  table { border-collapse: collapse; }
  th, td { border: 1px solid #ccc; padding: 4px; vertical-align: top; text-align: start; }
  /* Phone shots at their width, desktop ones scaled to it: a row reads as one glance. */
  img { display: block; inline-size: 240px; block-size: auto; }
  thead th { position: sticky; top: 0; background: #fff; }
</style></head>
<body><h1>svc-checkout: every state × 390/1280 px × en/ar × light/dark</h1>
<table><thead><tr><th>state</th>${head}</tr></thead><tbody>
${rows.join('\n')}
</tbody></table></body></html>
`;
}

let count = 0;
let attempt = 0;
try {
  // In the try: the browser and the stack are closed all the same.
  const unknown = only.filter((state) => !(state in STATES));
  if (unknown.length > 0) throw new Error(`no such state: ${unknown.join(', ')} (the states: ${Object.keys(STATES).join(', ')})`);
  for (const [theme, width] of [['light', 390], ['dark', 390], ['light', 1280], ['dark', 1280]]) {
    const page = await browser.newPage();
    await page.setViewport({ width, height: 900, deviceScaleFactor: 1 });
    await page.emulateMediaFeatures([{ name: 'prefers-reduced-motion', value: 'reduce' }]);
    await page.goto(`${origin}/?theme=${theme}`, { waitUntil: 'load' });
    await page.evaluate(HELPERS);
    for (const locale of ['en', 'ar']) {
      for (const [state, { attributes, steps }] of Object.entries(STATES)) {
        if (only.length > 0 && !only.includes(state)) continue;
        attempt++;
        await control('POST', '/sandbox/v1/reset');
        const file = `${OUT}/${fileOf(state, { locale, theme, width })}`;
        if (STATES[state].page) {
          await STATES[state].page({ locale, theme, width, file });
          count++;
          console.log(file);
          continue;
        }
        const checkoutToken = await stack.checkoutToken({ ...ORDER, reference: `screenshot-${attempt}` });
        await mount(page, {
          endpoint: stack.basePath,
          'checkout-token': checkoutToken,
          'poll-interval': '100',
          locale,
          theme,
          sandbox: '',
          ...attributes,
        });
        await steps?.(page, attempt);
        await new Promise((resolve) => setTimeout(resolve, 150));
        const element = await page.$('svc-checkout');
        await element.screenshot({ path: file });
        count++;
        console.log(file);
      }
    }
    await page.close();
  }
} finally {
  await browser.close();
  await stopInitShops();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await stack.close();
}
const shown = Object.keys(STATES).filter((state) => only.length === 0 || only.includes(state));
await writeFile(`${OUT}/index.html`, reviewPage(shown));
console.log(`\n${count} screenshots in ${OUT}/, side by side in ${OUT}/index.html`);
