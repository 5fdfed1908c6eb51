// The merchant kit serves the element: the CDN build under its base path (the built dist/cdn), with the types and
// caching a browser needs, compressed as the browser accepts (the build's own brotli and gzip copies), the entry's
// integrity and the tags a page writes; nothing else of the disk, whatever the path says.
import { createHash } from 'node:crypto';
import { cp, mkdtemp, readdir, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gunzipSync } from 'node:zlib';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchantHandler, toNodeListener, type MerchantHandler, type MerchantHandlerOptions } from '../../src/server/index.js';
// @ts-expect-error a plain JavaScript module without types
import { assertDistFresh } from '../../scripts/dist-is-fresh.mjs';
import { onTheWire } from '../support/on-the-wire.js';

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
/** What Chromium sends for a script. */
const BROWSER = 'gzip, deflate, br, zstd';

let chunks: string[];
/** Every file the kit serves: the build's text files, each with a brotli and a gzip copy beside it. */
let served: string[];
beforeAll(async () => {
  await assertDistFresh();
  chunks = (await readdir(new URL('chunks/', cdn))).filter((name) => name.endsWith('.js'));
  served = (await readdir(cdn, { recursive: true })).map(String).filter((name) => /\.(?:js|map|css|html|txt)$/.test(name));
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
    expect(await css.text()).toContain('svc-checkout:is(:not(:defined), :not([dir]))');
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

describe('the kit serves the element compressed, as the browser accepts', () => {
  const handler = createMerchantHandler(options());
  const bytesOf = async (answer: Response) => Buffer.from(await answer.arrayBuffer());

  it('has the build’s brotli and gzip copies of every file it serves, each holding the file', async () => {
    expect(served.length).toBeGreaterThan(10);
    for (const file of served) {
      const bytes = await readFile(new URL(file, cdn));
      expect(Buffer.compare(brotliDecompressSync(await readFile(new URL(`${file}.br`, cdn))), bytes), `${file}.br`).toBe(0);
      expect(Buffer.compare(gunzipSync(await readFile(new URL(`${file}.gz`, cdn))), bytes), `${file}.gz`).toBe(0);
    }
  });

  it('sends each file’s brotli copy to a browser, as built, with its coding, length, an ETag of its own and Vary', async () => {
    for (const file of served) {
      const identity = await get(handler, `/checkout/${file}`);
      const answer = await get(handler, `/checkout/${file}`, { headers: { 'Accept-Encoding': BROWSER } });
      expect(answer.status, file).toBe(200);
      expect(answer.headers.get('content-encoding'), file).toBe('br');
      expect(answer.headers.get('vary'), file).toBe('Accept-Encoding');
      expect(answer.headers.get('content-type'), file).toBe(identity.headers.get('content-type'));
      expect(answer.headers.get('etag'), file).toBe(`${identity.headers.get('etag')!.slice(0, -1)}-br"`);
      const body = await bytesOf(answer);
      expect(Buffer.compare(body, await readFile(new URL(`${file}.br`, cdn))), file).toBe(0);
      expect(answer.headers.get('content-length'), file).toBe(String(body.byteLength));
    }
  });

  it('sends gzip where only gzip is accepted, the file as it is where nothing is, and says Vary to both', async () => {
    const gzip = await get(handler, '/checkout/svc-checkout.js', { headers: { 'Accept-Encoding': 'gzip, deflate' } });
    expect(gzip.headers.get('content-encoding')).toBe('gzip');
    expect(gzip.headers.get('vary')).toBe('Accept-Encoding');
    expect(gzip.headers.get('etag')).toMatch(/-gzip"$/);
    expect(Buffer.compare(await bytesOf(gzip), await readFile(new URL('svc-checkout.js.gz', cdn)))).toBe(0);
    for (const acceptEncoding of [undefined, '', 'identity', 'br;q=0, gzip;q=0']) {
      const plain = await get(handler, '/checkout/svc-checkout.js', { headers: acceptEncoding === undefined ? {} : { 'Accept-Encoding': acceptEncoding } });
      expect(plain.headers.get('content-encoding'), acceptEncoding).toBeNull();
      expect(plain.headers.get('vary'), acceptEncoding).toBe('Accept-Encoding');
      expect(Buffer.compare(await bytesOf(plain), await readFile(new URL('svc-checkout.js', cdn))), acceptEncoding).toBe(0);
    }
  });

  it('keeps the integrity the hash of the script itself, which is what a browser checks once it has decoded it', async () => {
    const answer = await get(handler, '/checkout/svc-checkout.js', { headers: { 'Accept-Encoding': BROWSER } });
    expect(handler.element.integrity).toBe(sha384(brotliDecompressSync(await bytesOf(answer))));
  });

  it('revalidates each encoding by its own ETag: 304 for the one the request would get, the file for another', async () => {
    const br = (await get(handler, '/checkout/svc-checkout.js', { headers: { 'Accept-Encoding': BROWSER } })).headers.get('etag')!;
    const again = await get(handler, '/checkout/svc-checkout.js', { headers: { 'Accept-Encoding': BROWSER, 'If-None-Match': br } });
    expect(again.status).toBe(304);
    expect(again.headers.get('etag')).toBe(br);
    expect(again.headers.get('vary')).toBe('Accept-Encoding');
    expect(again.headers.get('cache-control')).toBe('no-cache');
    expect(await again.text()).toBe('');
    // The brotli ETag from a client that now takes gzip only, and the plain file's from one that takes brotli.
    const gzip = await get(handler, '/checkout/svc-checkout.js', { headers: { 'Accept-Encoding': 'gzip', 'If-None-Match': br } });
    expect([gzip.status, gzip.headers.get('content-encoding')]).toEqual([200, 'gzip']);
    const plainEtag = (await get(handler, '/checkout/svc-checkout.js')).headers.get('etag')!;
    const stale = await get(handler, '/checkout/svc-checkout.js', { headers: { 'Accept-Encoding': BROWSER, 'If-None-Match': plainEtag } });
    expect([stale.status, stale.headers.get('content-encoding')]).toEqual([200, 'br']);
    expect((await get(handler, '/checkout/svc-checkout.js', { headers: { 'If-None-Match': plainEtag } })).status).toBe(304);
  });

  it('answers HEAD with the headers GET has, the compressed length included, and no body', async () => {
    const got = await get(handler, '/checkout/svc-checkout.js', { headers: { 'Accept-Encoding': BROWSER } });
    const head = await get(handler, '/checkout/svc-checkout.js', { method: 'HEAD', headers: { 'Accept-Encoding': BROWSER } });
    expect(head.status).toBe(200);
    expect(Object.fromEntries(head.headers)).toEqual(Object.fromEntries(got.headers));
    expect(await head.text()).toBe('');
  });

  it('answers 406 when the request refuses every encoding the file has', async () => {
    expect((await get(handler, '/checkout/svc-checkout.js', { headers: { 'Accept-Encoding': 'gzip, identity;q=0' } })).headers.get('content-encoding')).toBe('gzip');
    const refused = await get(handler, '/checkout/svc-checkout.js', { headers: { 'Accept-Encoding': 'br;q=0, identity;q=0' } });
    expect(refused.status).toBe(406);
    expect(refused.headers.get('vary')).toBe('Accept-Encoding');
  });

  it('gives the isolated frame’s page the same policy compressed or not: the policy hashes the page itself', async () => {
    const plain = await get(handler, '/checkout/svc-checkout-frame.html');
    const br = await get(handler, '/checkout/svc-checkout-frame.html', { headers: { 'Accept-Encoding': BROWSER } });
    expect(br.headers.get('content-encoding')).toBe('br');
    expect(br.headers.get('content-security-policy')).toBe(plain.headers.get('content-security-policy'));
    expect(br.headers.get('cross-origin-embedder-policy')).toBe('require-corp');
  });

  it('never sends a copy that does not hold the file (one left beside a file replaced), nor Vary for a file without copies', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'svc-element-'));
    try {
      await cp(cdn, folder, { recursive: true });
      const replaced = new TextEncoder().encode('export const replaced = "by hand";\n');
      await writeFile(join(folder, 'svc-checkout.js'), replaced);
      await writeFile(join(folder, 'svc-checkout-ar.js.br'), brotliCompressSync('export const other = "build";\n'));
      await writeFile(join(folder, 'svc-checkout-ar.js.gz'), 'not gzip at all');
      await unlink(join(folder, 'svc-checkout.css.br'));
      await unlink(join(folder, 'svc-checkout.css.gz'));
      const kit = createMerchantHandler(options({ elementFiles: folder }));
      for (const file of ['svc-checkout.js', 'svc-checkout-ar.js']) {
        const answer = await get(kit, `/checkout/${file}`, { headers: { 'Accept-Encoding': BROWSER } });
        expect(answer.headers.get('content-encoding'), file).toBeNull();
        expect(Buffer.compare(await bytesOf(answer), await readFile(join(folder, file))), file).toBe(0);
      }
      expect(kit.element.integrity).toBe(sha384(replaced));
      const css = await get(kit, '/checkout/svc-checkout.css', { headers: { 'Accept-Encoding': BROWSER } });
      expect([css.headers.get('content-encoding'), css.headers.get('vary')]).toEqual([null, null]);
      expect((await get(kit, '/checkout/svc-checkout.css', { headers: { 'Accept-Encoding': 'identity;q=0' } })).status).toBe(406);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
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

  it('sends the compressed copies as they are: the bytes on the wire are the build’s, counted by Content-Length', async () => {
    for (const [acceptEncoding, copy] of [[BROWSER, 'svc-checkout.js.br'], ['gzip', 'svc-checkout.js.gz'], ['', 'svc-checkout.js']] as const) {
      const answer = await onTheWire(`${base}/checkout/svc-checkout.js`, { 'Accept-Encoding': acceptEncoding });
      const built = await readFile(new URL(copy, cdn));
      expect(Buffer.compare(answer.body, built), copy).toBe(0);
      expect(answer.headers['content-length'], copy).toBe(String(built.byteLength));
      expect(answer.headers['transfer-encoding'], copy).toBeUndefined();
      expect(answer.headers['vary'], copy).toBe('Accept-Encoding');
    }
    const entry = await onTheWire(`${base}/checkout/svc-checkout.js`, { 'Accept-Encoding': BROWSER });
    expect(entry.headers['content-encoding']).toBe('br');
    const head = await onTheWire(`${base}/checkout/svc-checkout.js`, { 'Accept-Encoding': BROWSER }, 'HEAD');
    expect([head.headers['content-encoding'], head.headers['content-length'], head.body.byteLength]).toEqual(['br', entry.headers['content-length'], 0]);
    const again = await onTheWire(`${base}/checkout/svc-checkout.js`, { 'Accept-Encoding': BROWSER, 'If-None-Match': String(entry.headers.etag) });
    expect([again.status, again.body.byteLength, again.headers.vary]).toEqual([304, 0, 'Accept-Encoding']);
  });
});
