// docs/runtimes.md's Next.js route handler, run as written in Vercel's Edge Runtime (the `edge-runtime` package) in
// front of the real sandbox: bundled as Next.js bundles a route for the edge, its settings in process.env, its GET
// and POST exports serving the element's calls. An order is made and paid; the sandbox's callback reaches onCallback.
import { readFileSync } from 'node:fs';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHECKOUT_TOKEN_HEADER, ORDER_TOKEN_HEADER } from '../../src/core/index.js';
import { createSandbox, DEFAULT_MERCHANT, SandboxControl, type Sandbox } from '../../src/sandbox/index.js';
import { issueCheckoutToken } from '../../src/server/index.js';
// @ts-expect-error a plain JavaScript module without types
import { assertDistFresh } from '../../scripts/dist-is-fresh.mjs';
import { posRequest } from '../core/fixtures.js';
import { freePort } from '../support/redis-server.js';
import { orderOf } from '../support/tokens.js';

const root = new URL('../../', import.meta.url).pathname;
const logged: string[] = [];
let sandbox: Sandbox;
let server: { url: string; close(): Promise<unknown> };

/** The block the page says npm test runs. */
function routeHandlerSample(): string {
  const docs = readFileSync(`${root}docs/runtimes.md`, 'utf8');
  const sample = /<!-- run in the Edge Runtime -->\n```js\n([\s\S]*?)\n```/.exec(docs)?.[1];
  if (!sample) throw new Error('docs/runtimes.md has no block marked "run in the Edge Runtime"');
  return sample;
}

beforeAll(async () => {
  await assertDistFresh(); // svc-checkout/server resolves to the built package
  sandbox = await createSandbox();
  const bundled = await build({
    stdin: { contents: routeHandlerSample(), resolveDir: root, sourcefile: 'app/checkout/[...path]/route.js', loader: 'js' },
    bundle: true,
    write: false,
    format: 'iife',
    globalName: 'route',
    platform: 'neutral',
    mainFields: ['module', 'main'],
    logLevel: 'silent',
  });
  // What Next.js does with a route's exports: the method's function answers the request.
  const initialCode = `${bundled.outputFiles[0]!.text}\naddEventListener('fetch', (event) => event.respondWith(route[event.request.method](event.request)));`;
  const port = await freePort();
  const { EdgeRuntime, runServer } = await import('edge-runtime');
  const runtime = new EdgeRuntime({
    initialCode,
    extend: (context) =>
      Object.assign(context, {
        process: { env: { SVC_MERCHANT_ID: DEFAULT_MERCHANT.merchantId, SVC_PRIVATE_KEY: DEFAULT_MERCHANT.privateKey, SVC_BASE_URL: sandbox.url, SHOP_URL: `http://127.0.0.1:${port}` } },
        console: { ...context.console, log: (line: string) => logged.push(line) },
      }),
  });
  server = await runServer({ runtime, host: '127.0.0.1', port });
}, 30_000);

afterAll(async () => {
  await server?.close();
  await sandbox?.close();
});

describe('docs/runtimes.md, the Next.js route handler on the Edge Runtime', () => {
  it('takes an order, answers its status, serves the return page and hands the sandbox’s callback to onCallback', async () => {
    const url = server.url.replace(/\/$/, '');
    const body = posRequest({ reference: 'NCR-EDGE-0001', sn: 'SN-EDGE-1' });
    const created = await fetch(`${url}/checkout/payments`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', [CHECKOUT_TOKEN_HEADER]: await issueCheckoutToken(DEFAULT_MERCHANT, orderOf(body)) },
      body: JSON.stringify(body),
    });
    const answer = (await created.json()) as { code: string; data: { orderNo: string; nextAction: { actionType: string } } };
    expect(answer).toMatchObject({ code: '00000', data: { nextAction: { actionType: 'SWIPE_CARD' } } });
    const orderToken = created.headers.get(ORDER_TOKEN_HEADER)!;
    const status = await fetch(`${url}/checkout/payments/status`, { method: 'POST', headers: { 'Content-Type': 'application/json', [ORDER_TOKEN_HEADER]: orderToken }, body: '{}' });
    expect(((await status.json()) as { data: { status: string } }).data.status).toBe('PENDING');
    expect((await fetch(`${url}/checkout/return`)).headers.get('content-type')).toMatch(/^text\/html/);

    await new SandboxControl(sandbox.url).swipe('SN-EDGE-1', 'success');
    const deadline = Date.now() + 10_000;
    while (!logged.includes('order NCR-EDGE-0001: SUCCESS') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(logged).toEqual(['order NCR-EDGE-0001: SUCCESS']);
  });
});
