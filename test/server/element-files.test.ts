// The merchant kit serves the element: the CDN build under its base path (the built dist/cdn), with the types and
// caching a browser needs, the entry's integrity and the tags a page writes; nothing else of the disk, whatever the
// path says.
import { createHash } from 'node:crypto';
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchantHandler, toNodeListener, type MerchantHandler, type MerchantHandlerOptions } from '../../src/server/index.js';
// @ts-expect-error a plain JavaScript module without types
import { assertDistFresh } from '../../scripts/dist-is-fresh.mjs';

const cdn = new URL('../../dist/cdn/', import.meta.url);
const options = (extra: Partial<MerchantHandlerOptions> = {}): MerchantHandlerOptions => ({
  merchantId: '256612345678901',
  privateKey: 'test-private-key',
  environment: { baseUrl: 'http://127.0.0.1:9' },
  basePath: '/checkout',
  elementFiles: cdn,
  logger: { warn() {}, error() {} },
  ...extra,
});
const get = (handler: MerchantHandler, path: string, init: RequestInit = {}) => handler(new Request(`http://127.0.0.1:3000${path}`, init));
const sha384 = (bytes: Uint8Array) => `sha384-${createHash('sha384').update(bytes).digest('base64')}`;

let chunks: string[];
beforeAll(async () => {
  await assertDistFresh();
  chunks = (await readdir(new URL('chunks/', cdn))).filter((name) => name.endsWith('.js'));
});

describe('the kit serves the element', () => {
  const handler = createMerchantHandler(options());

  it('serves the entry, Arabic’s words and every chunk under its base path, as JavaScript, the bytes of the build', async () => {
    for (const file of ['svc-checkout.js', 'svc-checkout-ar.js', ...chunks.map((name) => `chunks/${name}`)]) {
      const answer = await get(handler, `/checkout/${file}`);
      expect(answer.status, file).toBe(200);
      expect(answer.headers.get('content-type'), file).toBe('text/javascript; charset=utf-8');
      expect(answer.headers.get('x-content-type-options'), file).toBe('nosniff');
      const body = new Uint8Array(await answer.arrayBuffer());
      expect(Buffer.compare(body, await readFile(new URL(file, cdn))), file).toBe(0);
      expect(answer.headers.get('content-length'), file).toBe(String(body.byteLength));
    }
  });

  it('keeps the hashed chunks for good and revalidates the fixed names, answering 304 to a matching ETag', async () => {
    const chunk = await get(handler, `/checkout/chunks/${chunks[0]}`);
    expect(chunk.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const entry = await get(handler, '/checkout/svc-checkout.js');
    expect(entry.headers.get('cache-control')).toBe('no-cache');
    const etag = entry.headers.get('etag')!;
    expect(etag).toMatch(/^"[\w+/=]{64}"$/);
    const again = await get(handler, '/checkout/svc-checkout.js', { headers: { 'If-None-Match': `"other", ${etag}` } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    expect((await get(handler, '/checkout/svc-checkout.js', { headers: { 'If-None-Match': '"other"' } })).status).toBe(200);
  });

  it('serves the placeholder’s stylesheet and the source maps, each with its type; HEAD without a body; other methods 405', async () => {
    const css = await get(handler, '/checkout/svc-checkout.css');
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(await css.text()).toContain('svc-checkout:not(:defined)');
    const map = await get(handler, '/checkout/svc-checkout.js.map');
    expect(map.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(JSON.parse(await map.text()).version).toBe(3);
    const head = await get(handler, '/checkout/svc-checkout.js', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    const post = await get(handler, '/checkout/svc-checkout.js', { method: 'POST', body: '{}', headers: { 'Content-Type': 'application/json' } });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });

  it('gives the entry’s integrity, and the tags of a page’s head: the stylesheet, the module with it, Arabic’s preload', async () => {
    const entry = new Uint8Array(await readFile(new URL('svc-checkout.js', cdn)));
    expect(handler.element.integrity).toBe(sha384(entry));
    expect(handler.element.src).toBe('/checkout/svc-checkout.js');
    expect(handler.element.stylesheet).toBe('/checkout/svc-checkout.css');
    expect(handler.element.tags()).toBe(
      `<link rel="stylesheet" href="/checkout/svc-checkout.css"><script type="module" src="/checkout/svc-checkout.js" integrity="${sha384(entry)}"></script>`,
    );
    expect(handler.element.tags({ lang: 'ar-EG' })).toContain('<link rel="modulepreload" href="/checkout/svc-checkout-ar.js">');
    expect(handler.element.tags({ lang: 'en' })).not.toContain('modulepreload');
    // A base path is the merchant's, not a payer's; still written as an attribute's text.
    const odd = createMerchantHandler(options({ basePath: '/pay"><script>' }));
    expect(odd.element.tags()).toContain('href="/pay&#34;&#62;&#60;script&#62;/svc-checkout.css"');
  });

  it('serves nothing else from the disk, whatever the path says (attacks)', async () => {
    const paths = [
      '/checkout/../package.json',
      '/checkout/%2e%2e/server/index.js',
      '/checkout/chunks/..%2f..%2fserver%2findex.js',
      '/checkout/..%2fserver%2findex.js',
      '/checkout/LICENCES.txt/../../../package.json',
      '/checkout/chunks/../../sandbox/cli.js',
      '/checkout/.%2e/server/index.js',
      '/checkout/svc-checkout.js%00.map',
      '/checkout/svc-checkout.ts',
      '/checkout/chunks/',
      '/checkout/nothing.js',
      '/svc-checkout.js',
      '/checkout//svc-checkout.js',
    ];
    for (const path of paths) {
      const answer = await get(handler, path);
      expect(answer.status, path).toBe(404);
      expect(await answer.text(), path).not.toContain('export');
    }
  });

  it('reads one build’s files once: a build landing in the folder later is not mixed into the one served', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'svc-element-'));
    try {
      await cp(cdn, folder, { recursive: true });
      const kit = createMerchantHandler(options({ elementFiles: folder }));
      const first = await (await get(kit, '/checkout/svc-checkout.js')).text();
      await writeFile(join(folder, 'svc-checkout.js'), 'export const another = "build";\n');
      expect(await (await get(kit, '/checkout/svc-checkout.js')).text()).toBe(first);
      expect(kit.element.integrity).toBe(sha384(new TextEncoder().encode(first)));
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });

  it('with elementFiles: false, or no build where it looks, serves none (404) and says why it has no integrity', async () => {
    const none = createMerchantHandler(options({ elementFiles: false }));
    expect((await get(none, '/checkout/svc-checkout.js')).status).toBe(404);
    expect(() => none.element.integrity).toThrow(/elementFiles: false/);
    const missing = createMerchantHandler(options({ elementFiles: join(tmpdir(), 'svc-no-such-folder') }));
    expect((await get(missing, '/checkout/svc-checkout.js')).status).toBe(404);
    expect(() => missing.element.tags()).toThrow(/npm run build/);
    expect(() => createMerchantHandler(options({ elementFiles: 'dist/cdn' }))).toThrow(/absolute path/);
  });
});

describe('under node:http and Express', () => {
  let server: Server;
  let base: string;
  beforeAll(async () => {
    const app = express();
    app.use(toNodeListener(createMerchantHandler(options())));
    app.get('/', (_request, response) => void response.send('the shop'));
    server = createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('serves the files as middleware and passes every other path on', async () => {
    const entry = await fetch(`${base}/checkout/svc-checkout.js`);
    expect(entry.status).toBe(200);
    expect(entry.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect((await entry.arrayBuffer()).byteLength).toBe((await readFile(new URL('svc-checkout.js', cdn))).byteLength);
    expect(await (await fetch(`${base}/`)).text()).toBe('the shop');
    expect((await fetch(`${base}/checkout/nothing.js`)).status).toBe(404);
  });
});
