// Browser suites (test/browser) in real Chromium and Firefox from Debian's packages, driven by puppeteer-core, and
// in WebKitGTK (Debian's MiniBrowser under Xvfb, driven by WebKitWebDriver: scripts/webkitgtk-launcher.mjs).
// Each test file starts its own sandbox and merchant kit (a "dev stack", from the built package in dist/) through
// the `svc-dev-stack` command, mounted on this server under /stacks/<id>/, so that files running at the same time
// in both browsers never share orders or a sandbox clock.
import { esbuildPlugin } from '@web/dev-server-esbuild';
import { build } from 'esbuild';
import { readFile } from 'node:fs/promises';
import { execFile } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { chromeLauncher, puppeteerCore } from '@web/test-runner-chrome';
import { assertDistFresh } from './scripts/dist-is-fresh.mjs';
import { webkitGtkLauncher } from './scripts/webkitgtk-launcher.mjs';
import { startDevStack } from './dist/sandbox/index.js';
import { OrderRejection } from './dist/server/index.js';
import { buildApp } from './test/apps/build.mjs';
import { startInitShop, stopInitShops } from './scripts/init-shop.mjs';

await assertDistFresh();

const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const firefoxPath = process.env.FIREFOX_PATH ?? '/usr/bin/firefox-esr';

// Without these, Chromium reaches for Google's hosts at start and floods a closed network; root needs --no-sandbox.
const chromiumArgs = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

const stacks = new Map();
/** The beacons each stack's kit received (`POST …/timings`), with its answer's status. */
const beacons = new Map();
let serverPort;
let nextStack = 0;

function devStacks() {
  return {
    name: 'svc-dev-stacks',
    serverStart({ config }) {
      serverPort = config.port;
    },
    async serverStop() {
      await Promise.all([...stacks.values()].map((stack) => stack.close()));
      await stopInitShops();
    },
    async executeCommand({ command, payload }) {
      // The shop's server: a checkout token for an order of a test's stack, as a page would have it rendered.
      if (command === 'svc-checkout-token') {
        const stack = stacks.get(payload?.stack);
        if (!stack) throw new Error(`no dev stack ${payload?.stack}`);
        return stack.checkoutToken(payload.order, payload.options);
      }
      // The shop's server opening a cart's checkout (the kit's openCheckout): where it stands, and its token.
      if (command === 'svc-open-checkout') {
        const stack = stacks.get(payload?.stack);
        if (!stack) throw new Error(`no dev stack ${payload?.stack}`);
        return stack.openCheckout(payload.order);
      }
      // A seller at the command line (`npx svc-checkout link`, the built bin) making a payment link for this stack's kit as
      // the page's origin reaches it: the link's address, the last line it printed.
      if (command === 'svc-payment-link') {
        const stack = stacks.get(payload?.stack);
        if (!stack) throw new Error(`no dev stack ${payload?.stack}`);
        const merchant = stack.sandbox.merchants[0];
        const args = ['bin/svc-checkout.js', 'link', ...payload.args, '--base-path', `/stacks/${payload.stack}${stack.basePath}`];
        const env = { PATH: process.env.PATH ?? '', SVC_MERCHANT_ID: merchant.merchantId, SVC_PRIVATE_KEY: merchant.privateKey, SHOP_URL: `http://localhost:${serverPort}` };
        const stdout = await new Promise((resolve, reject) =>
          execFile(process.execPath, args, { env }, (error, out, err) => (error ? reject(new Error(`svc-checkout link: ${err}`)) : resolve(out))),
        );
        return stdout.trim().split('\n').at(-1);
      }
      // The shop `npx svc-checkout init` writes, run as its server.mjs against this stack's sandbox: `{ url }`, its page.
      if (command === 'svc-init-shop') {
        const stack = stacks.get(payload?.stack);
        if (!stack) throw new Error(`no dev stack ${payload?.stack}`);
        return startInitShop(stack.sandbox);
      }
      // The shop's server making a payment link with its kit (`stack.paymentLink`), which tells the sandbox of it.
      if (command === 'svc-stack-payment-link') {
        const stack = stacks.get(payload?.stack);
        if (!stack) throw new Error(`no dev stack ${payload?.stack}`);
        return stack.paymentLink(payload.order);
      }
      // What the page's beacons brought to the shop's server (the element's timings, `send-timings`).
      if (command === 'svc-beacons') return beacons.get(payload?.stack) ?? [];
      if (command !== 'svc-dev-stack') return undefined;
      const id = `s${++nextStack}`;
      const prefix = `/stacks/${id}`;
      // `sandboxClock`: the kit reads the sandbox's clock (a payment link's expiry follows it when a test moves it).
      let clock;
      const stack = await startDevStack({
        publicUrl: `http://localhost:${serverPort}${prefix}`,
        sandbox: { tickMs: 50, ...(payload?.sandbox ?? {}) },
        handler: {
          logger: { warn() {}, error() {} },
          // Every test page is one client address paying many orders with the same phone, and polls every 100 ms:
          // the per-client, per-contact and status limits are raised for the suite (tests of the limits set their own).
          limits: {
            createsPerClient: { limit: 1_000, windowSeconds: 600 },
            messagesPerPhone: { limit: 1_000, windowSeconds: 3_600 },
            messagesPerEmail: { limit: 1_000, windowSeconds: 3_600 },
            statusPerOrder: { limit: 10_000, windowSeconds: 60 },
            statusPerClient: { limit: 10_000, windowSeconds: 60 },
            streamsPerClient: { limit: 1_000 },
            ticketsPerClient: { limit: 1_000, windowSeconds: 600 },
          },
          ...(payload?.handler ?? {}),
          ...(payload?.handler?.orders === 'authorize' ? shopSession() : {}),
          ...(payload?.sandboxClock ? { now: () => (clock ? clock.now() : Date.now()) } : {}),
        },
      });
      clock = stack.sandbox.clock;
      stacks.set(id, stack);
      return { id, prefix, endpoint: `${prefix}${stack.basePath}`, merchantId: stack.sandbox.merchants[0].merchantId };
    },
  };
}

/** The cookie a test page sets as the payer's session with the shop (`orders: 'authorize'` stacks). */
const SESSION_COOKIE = 'svc-test-session';

/**
 * A shop whose `authorize` hook decides each order from the payer's session, as docs/kit.md shows it: without the
 * session's cookie nothing is authorized; with it, the cart's amount is the shop's (EGP 125.00, whatever the page
 * says), its reference the page's (the shop rendered it).
 */
function shopSession() {
  const session = (request) => (request.headers.get('cookie') ?? '').split(/;\s*/).includes(`${SESSION_COOKIE}=1`);
  return {
    authorize(order, request) {
      if (!session(request)) throw new OrderRejection('Your session with the shop has ended.', { field: 'reference' });
      return { ...order, amount: { total: 12_500, currency: 'EGP' } };
    },
    authorizeAction(_operation, body, request) {
      // An order's own call (its token proved it): the isolated frame's OTP and PIN, which carry no cookie.
      if (body.reference === undefined) return;
      if (!session(request)) throw new OrderRejection('Your session with the shop has ended.', { field: 'reference' });
    },
  };
}

/**
 * Connections dropped, as a network that went away drops them: `POST /drops/<stack>/on?path=<end>` makes every
 * request to that stack whose path ends with `<end>` lose its connection before any answer (the browser's fetch
 * rejects, whoever makes it: the page or the isolated frame of an opaque origin), until `POST /drops/<stack>/off`.
 */
const droppedPaths = new Map();
async function connectionDrops(context, next) {
  const command = /^\/drops\/(\w+)\/(on|off)$/.exec(context.path);
  if (command && context.method === 'POST') {
    if (command[2] === 'on') droppedPaths.set(command[1], String(context.query.path ?? ''));
    else droppedPaths.delete(command[1]);
    context.body = { [command[2]]: command[1] };
    return undefined;
  }
  const stack = /^\/stacks\/(\w+)\//.exec(context.path)?.[1];
  const dropped = stack === undefined ? undefined : droppedPaths.get(stack);
  if (dropped && context.path.endsWith(dropped) && context.method !== 'OPTIONS') {
    context.respond = false;
    context.req.socket.destroy();
    return undefined;
  }
  return next();
}

async function routeToStack(context, next) {
  const match = /^\/stacks\/(\w+)(\/.*)?$/.exec(context.path);
  if (!match) return next();
  const stack = stacks.get(match[1]);
  if (!stack) {
    context.status = 404;
    return undefined;
  }
  context.respond = false;
  context.req.url = `${match[2] ?? '/'}${context.querystring ? `?${context.querystring}` : ''}`;
  if (context.method === 'POST' && /\/timings$/.test(match[2] ?? '')) {
    // Kept as the kit reads it (the bytes as they came: Express's rawBody), and the kit's answer noted.
    const chunks = [];
    for await (const chunk of context.req) chunks.push(chunk);
    context.req.rawBody = Buffer.concat(chunks);
    const received = { body: context.req.rawBody.toString('utf8'), status: 0 };
    context.res.once('finish', () => (received.status = context.res.statusCode));
    beacons.set(match[1], [...(beacons.get(match[1]) ?? []), received]);
  }
  await new Promise((resolve) => {
    context.res.once('close', resolve);
    context.res.once('finish', resolve);
    stack.middleware(context.req, context.res, () => {
      context.res.statusCode = 404;
      context.res.end();
    });
  });
  return undefined;
}

/**
 * The shop's own server in front of a test's stack, for the framework apps (test/apps): `POST
 * /stacks/<id>/shop/checkout?quantity=N` decides the order of a cart of N bags (a new reference, the amount) and
 * answers the element's endpoint and the order's checkout token, as a shop's API would.
 */
async function shopServer(context, next) {
  const match = /^\/stacks\/(\w+)\/shop\/checkout$/.exec(context.path);
  if (!match || context.method !== 'POST') return next();
  const stack = stacks.get(match[1]);
  if (!stack) {
    context.status = 404;
    return undefined;
  }
  const quantity = Math.min(Math.max(Math.trunc(Number(context.query.quantity)) || 1, 1), 10);
  const checkoutToken = await stack.checkoutToken({
    reference: `shop-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`,
    amount: { total: 12_500 * quantity, currency: 'EGP' },
    country: 'EG',
    product: { name: 'Espresso beans, 1 kg', description: `${quantity} × single-origin Ethiopian beans` },
    merchantName: 'Nile Coffee Roasters',
  });
  context.body = { endpoint: `/stacks/${match[1]}${stack.basePath}`, checkoutToken };
  return undefined;
}

/**
 * A proxy that buffers, as some do with answers they cannot tell are streams: `/buffered/<path>` is `<path>` on
 * this server, and not a byte of its answer is passed on before the whole of it has come. A status stream
 * never ends while its order is pending, so the page behind this proxy sees nothing of it
 * (test/browser/live-status.test.ts). The page going away ends the request upstream.
 */
async function bufferingProxy(context, next) {
  if (!context.path.startsWith('/buffered/')) return next();
  context.respond = false;
  const { req, res } = context;
  await new Promise((resolve) => {
    const upstream = httpRequest(
      { host: '127.0.0.1', port: serverPort, method: req.method, path: req.url.slice('/buffered'.length), headers: req.headers },
      (answer) => {
        const chunks = [];
        answer.on('data', (chunk) => chunks.push(chunk));
        answer.on('error', resolve);
        answer.on('end', () => {
          const body = Buffer.concat(chunks);
          const headers = { ...answer.headers, 'content-length': String(body.length) };
          delete headers['transfer-encoding'];
          res.writeHead(answer.statusCode ?? 502, headers);
          res.end(body, resolve);
        });
      },
    );
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end(resolve);
    });
    res.once('close', () => {
      upstream.destroy();
      resolve();
    });
    req.pipe(upstream);
  });
  return undefined;
}

/**
 * A gate in front of the status stream, as a host that cannot stream today and can tomorrow:
 * `/gate/<name>/<path>` is `<path>`, except that a status stream request answers 503 while gate `<name>` is
 * closed (the first time a name is seen, it is). `POST /gates/<name>/open` opens it.
 */
const closedGates = new Set();
const seenGates = new Set();
async function streamGate(context, next) {
  const opening = /^\/gates\/(\w+)\/open$/.exec(context.path);
  if (opening && context.method === 'POST') {
    closedGates.delete(opening[1]);
    seenGates.add(opening[1]);
    context.body = { open: opening[1] };
    return undefined;
  }
  const gated = /^\/gate\/(\w+)(\/.*)$/.exec(context.path);
  if (!gated) return next();
  const [, name, path] = gated;
  if (!seenGates.has(name)) {
    seenGates.add(name);
    closedGates.add(name);
  }
  if (closedGates.has(name) && path.endsWith('/payments/events')) {
    context.status = 503;
    context.body = { message: 'this host cannot stream today' };
    return undefined;
  }
  context.path = path;
  return next();
}

/**
 * Holds back a module the element imports on demand (the session's chunk, Arabic, a form) while a test keeps its gate
 * closed: `POST /module-gates/<name>/close|open`, or answers it 503 (`fail`) until it is opened. Per browser (the three
 * run at once): keyed by user agent.
 */
const MODULE_GATES = {
  engine: '/src/element/engine.ts',
  ar: '/src/element/i18n/ar.ts',
  bankForm: '/src/element/parts/bank-account-form/bank-account-form.ts',
  referenceForm: '/src/element/parts/reference-code-form/reference-code-form.ts',
};
const heldModules = new Map();
/** Modules answered 503 until opened (`POST /module-gates/<name>/fail`): a chunk the network lost. */
const failingModules = new Set();
async function moduleGate(context, next) {
  const command = /^\/module-gates\/(\w+)\/(close|open|fail)$/.exec(context.path);
  const browser = context.get('user-agent');
  if (command && context.method === 'POST') {
    const key = `${command[1]}:${browser}`;
    if (command[2] === 'close') heldModules.set(key, heldModules.get(key) ?? []);
    else if (command[2] === 'fail') failingModules.add(key);
    else {
      for (const release of heldModules.get(key) ?? []) release();
      heldModules.delete(key);
      failingModules.delete(key);
    }
    context.body = { [command[2]]: command[1] };
    return undefined;
  }
  const name = Object.keys(MODULE_GATES).find((gate) => context.path === MODULE_GATES[gate]);
  if (name && failingModules.has(`${name}:${browser}`)) {
    context.status = 503;
    context.body = 'the module gate is set to fail';
    // Never kept by the browser either (as below): a later page of this browser must get the module.
    context.set('Cache-Control', 'no-store');
    context.path = context.path.replace(/\.ts$/, '');
    return undefined;
  }
  const waiting = name && heldModules.get(`${name}:${browser}`);
  // Held until the test opens the gate, or 15 s at most.
  if (waiting) await new Promise((resolve) => waiting.push(resolve) && setTimeout(resolve, 15_000));
  await next();
  // Never from the browser's cache, where an earlier test file's page would have left it: every page asks here.
  // (The runner's own cacheMiddleware, outside this one, gives a year to any path with an extension once the
  // answer is made: the path is read without it from here on.)
  if (name) {
    context.set('Cache-Control', 'no-store');
    context.remove('ETag');
    context.path = context.path.replace(/\.ts$/, '');
  }
}

/** A shop's server that answers every call with one HTTP status and an HTML page: `/http-status/<code>/…`. */
async function httpStatus(context, next) {
  const match = /^\/http-status\/(\d{3})\//.exec(context.path);
  if (!match) return next();
  context.status = Number(match[1]);
  context.type = 'html';
  context.body = `<!doctype html><title>${match[1]}</title><h1>Error ${match[1]}</h1>`;
  return undefined;
}

/**
 * Pages asked for with ?csp=strict are served under a strict Content-Security-Policy: no inline script or style (and,
 * with &trusted-types, Trusted Types for every script sink); with ?coep, under Cross-Origin-Embedder-Policy.
 */
async function strictCsp(context, next) {
  await next();
  const trustedTypes = context.query['trusted-types'] !== undefined ? "; require-trusted-types-for 'script'" : '';
  if (context.query.csp === 'strict') context.set('Content-Security-Policy', `default-src 'self'${trustedTypes}`);
  if (context.query.coep !== undefined) context.set('Cross-Origin-Embedder-Policy', 'require-corp');
}

/**
 * Runs a function's body in an isolated frame's document (src/isolated-fields), found by a piece of its address (its
 * nonce): the test page cannot reach into the frame (an opaque origin), the browser's automation can, as it types a
 * payer's keys there. `svc-frame-eval` with `{ address, body, args, axe? }` answers `{ value }`, what `body` returns,
 * or `{ missing: true }` when no frame's address has `address`.
 */
function isolatedFrames() {
  let axe;
  return {
    name: 'svc-isolated-frames',
    async executeCommand({ command, payload, session }) {
      // A window the test page opened (its address has `address`), shown in a colour scheme (`scheme`) or as a medium
      // (`media`: 'print', or null for the screen again): `{ emulated }`, false where the driver cannot (WebDriver) or
      // the engine refuses.
      if (command === 'svc-window-color-scheme') {
        if (session.browser.type === 'webdriver') return { emulated: false };
        const pages = await session.browser.getPage(session.id).browser().pages();
        const target = pages.find((candidate) => candidate.url().includes(payload.address));
        if (!target) return { emulated: false };
        const shown = payload.media !== undefined ? target.emulateMediaType(payload.media) : target.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: payload.scheme }]);
        return shown.then(
          () => ({ emulated: true }),
          () => ({ emulated: false }),
        );
      }
      // Runs a function's body in a window the test page opened of another origin (its address has `address`), as
      // the automation can: `{ value }`, or `{ missing: true }`; WebDriver cannot (`{ unsupported: true }`).
      if (command === 'svc-window-eval') {
        if (session.browser.type === 'webdriver') return { unsupported: true };
        const pages = await session.browser.getPage(session.id).browser().pages();
        const target = pages.find((candidate) => candidate.url().includes(payload.address));
        if (!target) return { missing: true };
        const run = new Function(`return (async () => { ${payload.body} })().then((value) => ({ value }), (error) => ({ error: String(error) }));`);
        return target.evaluate(run);
      }
      if (command !== 'svc-frame-eval') return undefined;
      const { address, args = [] } = payload;
      // `axe: true`: axe-core first, as the automation's own code (the frame's policy lets no script of the page in).
      axe ??= payload.axe ? await readFile(new URL('./node_modules/axe-core/axe.min.js', import.meta.url), 'utf8') : undefined;
      const body = payload.axe ? `${axe}\n${payload.body}` : payload.body;
      if (session.browser.type === 'webdriver') return session.browser.evaluateInFrame(session.id, address, body, args);
      const page = session.browser.getPage(session.id);
      // A frame just made may take the driver a moment to know (Firefox, over WebDriver BiDi).
      let frame;
      for (const deadline = Date.now() + 2_000; !(frame = page.frames().find((candidate) => candidate.url().includes(address))) && Date.now() < deadline; ) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      if (!frame) return { missing: true };
      const run = new Function('args', `return (async (...args) => { ${body} })(...args).then((value) => ({ value }), (error) => ({ error: String(error) }));`);
      // A frame that goes while it is asked (its step moved on) is one that is not there.
      return frame.evaluate(run, args).catch(() => ({ missing: true }));
    },
  };
}

/** The React fixture app, bundled with React (which ships CommonJS) and the built wrapper when a test asks. */
function reactApp() {
  return {
    name: 'svc-react-app',
    async serve(context) {
      if (context.path !== '/__react-app.js') return undefined;
      const result = await build({
        entryPoints: ['test/browser/fixtures/react-app.tsx'],
        bundle: true,
        format: 'esm',
        write: false,
        jsx: 'automatic',
        define: { 'process.env.NODE_ENV': '"development"' },
        logLevel: 'silent',
      });
      return { body: result.outputFiles[0].text, type: 'js' };
    },
  };
}

/** Put first in an app's page: keeps what the app's frameworks warn about or throw, for the test to read. */
const APP_CONSOLE_RECORDER = `<script>
  window.appConsole = [];
  for (const level of ['warn', 'error']) {
    const original = console[level].bind(console);
    console[level] = (...args) => (appConsole.push(level + ': ' + args.map(String).join(' ')), original(...args));
  }
  addEventListener('error', (event) => appConsole.push('uncaught: ' + event.message));
  addEventListener('unhandledrejection', (event) => appConsole.push('unhandled rejection: ' + event.reason));
</script>`;

/**
 * The framework apps of test/apps (Vue, Svelte, React), each built with Vite and its own vite.config.ts on its
 * first request, kept in memory and served under /__apps/<name>/ (the page with a console recorder first).
 */
function frameworkApps() {
  const builds = new Map();
  return {
    name: 'svc-framework-apps',
    async serve(context) {
      const match = /^\/__apps\/(vue|svelte|react)\/(.*)$/.exec(context.path);
      if (!match) return undefined;
      const [, name, path] = match;
      if (!builds.has(name)) builds.set(name, buildApp(name));
      const file = (await builds.get(name)).get(path || 'index.html');
      if (file?.type === 'html') return { body: file.body.replace('<head>', `<head>${APP_CONSOLE_RECORDER}`), type: 'html' };
      return file && { body: file.body, type: file.type };
    },
  };
}

export default {
  files: 'test/browser/**/*.test.ts',
  nodeResolve: true,
  middleware: [bufferingProxy, streamGate, moduleGate, connectionDrops, httpStatus, shopServer, routeToStack, strictCsp],
  plugins: [esbuildPlugin({ ts: true, target: 'es2022' }), devStacks(), isolatedFrames(), reactApp(), frameworkApps()],
  browsers: [
    chromeLauncher({ puppeteer: puppeteerCore, launchOptions: { executablePath: chromiumPath, args: chromiumArgs } }),
    chromeLauncher({ puppeteer: puppeteerCore, launchOptions: { browser: 'firefox', executablePath: firefoxPath } }),
    webkitGtkLauncher(),
  ],
  // One page at a time per browser: the keyboard and focus tests need the page they drive to be the focused one.
  concurrency: 1,
  testFramework: { config: { timeout: 20000 } },
  browserStartTimeout: 60000,
  testsFinishTimeout: 600000,
};
