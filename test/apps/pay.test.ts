// The framework apps of test/apps (React 19, Vue 3, Svelte 5) as docs/frameworks.md sets them up ("An app's checkout,
// from the shop's server"): the page's shop.mjs, run as written against a sandbox, and each app served two ways —
// by Vite's dev server with the app's own vite.config.ts (the page's proxy and `server.cors: false`), and by
// `vite build`, its output served by shop.mjs — then paid in Chromium by bank account through an OTP, by bank
// account through 3-D Secure, and by reference code, each by a visitor of its own. And a dev server left with Vite's
// own CORS: the payer is not told to check their connection, and the console says what to change.
//
// Declared, and nothing else: the dev server's port and host (this machine is shared), shop.mjs's PORT, APP_URL and
// APP_DIST (its own variables), and the sandbox's merchant in its environment, as `npx svc-sandbox --` sets it.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import puppeteer, { type Browser, type Frame, type Page } from 'puppeteer-core';
import { build, createServer, type ViteDevServer } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FRAME_REFUSED } from '../../src/checkout/machine-errors.js';
import { createSandbox, SandboxControl, type Sandbox } from '../../src/sandbox/index.js';
// @ts-expect-error a plain JavaScript module without types
import { root, samples } from '../../scripts/doc-samples.mjs';
// @ts-expect-error a plain JavaScript module without types
import { assertDistFresh } from '../../scripts/dist-is-fresh.mjs';
import { CHROMIUM_ARGS } from '../support/shop-payer.js';

const APPS = ['react', 'vue', 'svelte'] as const;
/** Vite's own default for `server.cors`: what a dev server set up without the page's settings answers with. */
const VITE_DEFAULT_CORS = { origin: /^https?:\/\/(?:(?:[^:]+\.)?localhost|127\.0\.0\.1|\[::1\])(?::\d+)?$/ };

let sandbox: Sandbox;
let control: SandboxControl;
let browser: Browser;
let work: string;
let shopProgram: string;
const stops: (() => Promise<unknown> | unknown)[] = [];

async function freePort(): Promise<number> {
  const server = createNetServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** shop.mjs, as the page says to run it; its address once its JSON route answers. */
async function startShop(env: Record<string, string>, port?: number): Promise<{ url: string; output: () => string }> {
  port ??= await freePort();
  const merchant = sandbox.merchants[0]!;
  const shop: ChildProcess = spawn(process.execPath, [shopProgram], {
    cwd: work,
    env: { ...process.env, ...env, PORT: String(port), SVC_MERCHANT_ID: merchant.merchantId, SVC_PRIVATE_KEY: merchant.privateKey, SVC_BASE_URL: sandbox.url },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let printed = '';
  shop.stdout!.on('data', (chunk) => (printed += chunk));
  shop.stderr!.on('data', (chunk) => (printed += chunk));
  stops.push(() => shop.kill('SIGTERM'));
  const url = `http://127.0.0.1:${port}`;
  for (const end = Date.now() + 15_000; ; ) {
    const answered = await fetch(`${url}/checkout/svc-checkout.js`, { method: 'HEAD' }).then((answer) => answer.ok, () => false);
    if (answered) return { url, output: () => printed };
    if (Date.now() > end || shop.exitCode !== null) throw new Error(`shop.mjs did not start:\n${printed}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The app on Vite's dev server, its shop's paths proxied to a shop.mjs of its own (`server` overrides the config's). */
async function devServer(app: string, server: Record<string, unknown> = {}): Promise<{ url: string; output: () => string }> {
  const port = await freePort();
  const url = `http://localhost:${port}`;
  const shop = await startShop({ APP_URL: url });
  process.env['SHOP_URL'] = shop.url; // read by the app's vite.config.ts when the dev server loads it
  const vite: ViteDevServer = await createServer({
    root: join(root, 'test/apps', app),
    configFile: join(root, 'test/apps', app, 'vite.config.ts'),
    logLevel: 'error',
    clearScreen: false,
    server: { port, strictPort: true, host: 'localhost', ...server },
  });
  await vite.listen();
  stops.push(() => vite.close());
  return { url, output: shop.output };
}

/** The app as `vite build` writes it, served by a shop.mjs (APP_DIST) at its own address. */
async function built(app: string): Promise<{ url: string; output: () => string }> {
  const outDir = await mkdtemp(join(work, `${app}-dist-`));
  // As `vite build` runs from a terminal: in production (vitest's NODE_ENV, test, would pick Lit's development build).
  const nodeEnv = process.env['NODE_ENV'];
  process.env['NODE_ENV'] = 'production';
  try {
    await build({ root: join(root, 'test/apps', app), configFile: join(root, 'test/apps', app, 'vite.config.ts'), logLevel: 'error', build: { outDir, emptyOutDir: true } });
  } finally {
    process.env['NODE_ENV'] = nodeEnv;
  }
  // The app's address is the shop's own: a port picked for it, known before it listens.
  const port = await freePort();
  return startShop({ APP_DIST: outDir, APP_URL: `http://127.0.0.1:${port}` }, port);
}

/** The deepest first match of `selector` in the page, through every shadow root. */
const DEEP = `const deep = (root, selector) => {
  const found = root.querySelector(selector);
  if (found) return found;
  for (const element of root.querySelectorAll('*')) {
    const inner = element.shadowRoot && deep(element.shadowRoot, selector);
    if (inner) return inner;
  }
  return null;
};
const deepAll = (root, selector, into = []) => {
  into.push(...root.querySelectorAll(selector));
  for (const element of root.querySelectorAll('*')) if (element.shadowRoot) deepAll(element.shadowRoot, selector, into);
  return into;
};`;

async function clickDeep(page: Page, selector: string): Promise<void> {
  await page.waitForFunction(`(() => { ${DEEP} return !!deep(document, ${JSON.stringify(selector)}); })()`, { timeout: 15_000 });
  await page.evaluate(`(() => { ${DEEP} deep(document, ${JSON.stringify(selector)}).click(); })()`);
}

async function pressButton(page: Page, label: RegExp): Promise<void> {
  const find = `(() => { ${DEEP} return deepAll(document, 'button').find((button) => ${label}.test(button.textContent.trim()) && !button.disabled); })()`;
  await page.waitForFunction(`!!${find}`, { timeout: 15_000 });
  await page.evaluate(`${find}.click()`);
}

/** What the payer reads in the element. */
const seen = (page: Page) =>
  page.evaluate(() => {
    const parts: string[] = [];
    const walk = (node: Node) => {
      if ((node as Element).shadowRoot) walk((node as Element).shadowRoot!);
      if (node.nodeType === Node.TEXT_NODE) parts.push(node.textContent ?? '');
      node.childNodes.forEach(walk);
    };
    const element = document.querySelector('svc-checkout');
    if (element) walk(element);
    return parts.join(' ').replace(/\s+/g, ' ');
  });

/** The isolated frame that holds `field`, once it is there. */
async function frameWith(page: Page, field: string) {
  for (const end = Date.now() + 15_000; Date.now() < end; ) {
    for (const frame of page.frames()) {
      if (!frame.url().includes('svc-checkout-frame.html')) continue;
      if (await frame.$(`input[name=${field}]`).catch(() => null)) return frame;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no isolated frame with ${field}`);
}

/**
 * Fills fields of an isolated frame as the payer's typing does (each value, then its input event): by value rather
 * than by keys, since three visitors pay at once here and keys go where a page's focus is.
 */
async function fill(frame: Frame, values: Record<string, string>): Promise<void> {
  await frame.evaluate((entries: [string, string][]) => {
    for (const [name, value] of entries) {
      const input = document.querySelector<HTMLInputElement>(`input[name=${name}]`)!;
      input.value = value;
      input.dispatchEvent(new Event('input', { bubbles: true }));
    }
  }, Object.entries(values));
  // The frame's report crosses to the page (a message between two processes).
  await new Promise((resolve) => setTimeout(resolve, 100));
}

type Way = 'otp' | '3ds' | 'reference-code';

/** A visitor of their own pays the app at `url` one way; the app thanks them. Returns what went wrong in the page. */
async function pay(url: string, way: Way, dev: boolean): Promise<string[]> {
  const context = await browser.createBrowserContext();
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(String(error)));
  page.on('console', (message) => {
    // Lit says once per page that it runs its development build: true of a dev server, and nothing wrong.
    if (dev && message.text().startsWith('Lit is in dev mode.')) return;
    if (message.type() === 'error' || message.type() === 'warn') problems.push(message.text());
  });
  page.on('response', (answer) => answer.status() >= 400 && problems.push(`${answer.status()} ${answer.url()}`));
  try {
    await page.goto(`${url}/`, { waitUntil: 'load' });
    if (way === 'reference-code') {
      await clickDeep(page, 'input[name=payMethod][value=ReferenceCode]');
      await pressButton(page, /^Get my code$/);
      const code = await page.waitForFunction(`(() => { ${DEEP} return deep(document, '.digits')?.textContent; })()`, { timeout: 15_000 });
      await control.payReferenceCode(String(await code.jsonValue()).replaceAll(' ', ''));
    } else {
      await clickDeep(page, 'input[name=payMethod][value=BankAccount]');
      const form = await frameWith(page, 'bankAccountNumber');
      await fill(form, { bankAccountNumber: way === 'otp' ? '2215381176' : '2215381200', bankCode: '033', dobDay: '05', dobMonth: '01', dobYear: '1990' });
      await pressButton(page, /^Pay/);
      if (way === 'otp') {
        await fill(await frameWith(page, 'otp'), { otp: '11315632' });
        await pressButton(page, /^Confirm/);
      } else {
        // The sandbox's 3-D Secure page; Approve sends the payer back to the app's page (returnUrlOrigins).
        await page.waitForSelector('button.approve', { timeout: 15_000 });
        await Promise.all([page.waitForNavigation({ timeout: 15_000 }), page.click('button.approve')]);
      }
    }
    const thanks = await page.waitForSelector('.thanks', { timeout: 20_000 }).catch(async () => {
      throw new Error(`${way} at ${url}: no thanks; the element says: ${await seen(page)}`);
    });
    expect(await thanks!.evaluate((element) => element.textContent)).toMatch(/^Thanks! Order \d+ is paid\.$/);
    return problems;
  } catch (error) {
    throw new Error(`${way} at ${url}: ${(error as Error).message}\nthe element says: ${await seen(page).catch(() => '?')}\nthe page: ${problems.join('; ')}`);
  } finally {
    await context.close();
  }
}

beforeAll(async () => {
  await assertDistFresh();
  const sample = ((await samples()) as { document: string; kind: string; code: string }[]).find(
    (block) => block.document === 'docs/frameworks.md' && block.kind === 'program' && block.code.includes("'/shop/checkout'"),
  );
  if (!sample) throw new Error('docs/frameworks.md has no shop.mjs ("An app\'s checkout, from the shop\'s server")');
  // In the package's folder, so that `svc-checkout/server` is this build and express is there.
  await mkdir(join(root, 'build'), { recursive: true });
  work = await mkdtemp(join(root, 'build', 'apps-'));
  shopProgram = join(work, 'shop.mjs');
  await writeFile(shopProgram, sample.code);
  sandbox = await createSandbox({ tickMs: 50 });
  control = new SandboxControl(sandbox.url);
  browser = await puppeteer.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  for (const stop of stops.reverse()) await stop();
  await sandbox?.close();
  if (work) await rm(work, { recursive: true, force: true });
  delete process.env['SHOP_URL'];
});

for (const app of APPS) {
  describe(`the ${app} app`, () => {
    for (const [serving, serve] of [
      ['on the Vite dev server with its own settings', () => devServer(app)],
      ['built with vite build, served by shop.mjs', () => built(app)],
    ] as const) {
      it(`pays by bank account (OTP and 3-D Secure) and by reference code, ${serving}`, async () => {
        const { url, output } = await serve();
        const problems = await Promise.all((['otp', '3ds', 'reference-code'] as const).map((way) => pay(url, way, serving.startsWith('on the Vite'))));
        expect(problems.flat()).toEqual([]);
        expect(output().match(/: SUCCESS/g)).toHaveLength(3);
      }, 120_000);
    }
  });
}

describe('a dev server left with Vite’s own CORS', () => {
  it('refuses the isolated frame’s preflight: the payer is not told to check their connection, and the console says what to change', async () => {
    const { url } = await devServer('react', { cors: VITE_DEFAULT_CORS });
    const context = await browser.createBrowserContext();
    const page = await context.newPage();
    const logged: string[] = [];
    page.on('console', (message) => logged.push(message.text()));
    try {
      await page.goto(`${url}/`, { waitUntil: 'load' });
      await clickDeep(page, 'input[name=payMethod][value=BankAccount]');
      await fill(await frameWith(page, 'bankAccountNumber'), { bankAccountNumber: '2215381176', bankCode: '033', dobDay: '05', dobMonth: '01', dobYear: '1990' });
      await pressButton(page, /^Pay/);
      for (const end = Date.now() + 20_000; !(await seen(page)).includes('could not reach the shop'); ) {
        if (Date.now() > end) throw new Error(`the element says: ${await seen(page)}\nthe console: ${logged.join('\n')}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const said = await seen(page);
      expect(said).toContain('The secure payment fields could not reach the shop. Choose another method, or contact the shop.');
      expect(said).not.toMatch(/connection/i);
      // What happened, and where the fix is told (docs/isolated-fields.md, which names Vite's server.cors).
      expect(logged.join('\n')).toContain(`svc-checkout: ${FRAME_REFUSED}`);
    } finally {
      await context.close();
    }
  }, 60_000);
});
