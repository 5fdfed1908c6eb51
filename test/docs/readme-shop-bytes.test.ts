// The payer gets the bytes we count (issue 43, point 6). The README's shop ("What the shop is made of": plain
// node:http, no compression of its own) runs as test/docs/samples.test.ts runs it (its fixtures: a sandbox of its
// own, a free port of 127.0.0.1), and its page's files are fetched as a browser fetches them: the script arrives as
// the build's brotli copy, at most 15 KiB on the wire where it is 46 kB as written, with Vary and a 304 when it is
// asked again; gzip goes to a client that takes only gzip, and the file as it is to one that takes none.
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../src/sandbox/index.js';
// @ts-expect-error a plain JavaScript module without types
import { root, samples } from '../../scripts/doc-samples.mjs';
// @ts-expect-error a plain JavaScript module without types
import { assertDistFresh } from '../../scripts/dist-is-fresh.mjs';
import { onTheWire } from '../support/on-the-wire.js';
import { expectCartsHeld } from '../support/shop-carts.js';

/** The first frame's bytes on the wire, headers included: the 15 kB the size budget counts, and room for headers. */
const FIRST_FRAME_ON_THE_WIRE = 15_360;
/** What Chromium sends for a module script of its page. */
const AS_A_BROWSER = { 'Accept-Encoding': 'gzip, deflate, br, zstd', Accept: '*/*', 'Sec-Fetch-Dest': 'script', 'Sec-Fetch-Mode': 'cors' };
const fixture = new URL('./sample-fixture.mjs', import.meta.url).pathname;

const sha384 = (bytes: Uint8Array) => `sha384-${createHash('sha384').update(bytes).digest('base64')}`;

let sandbox: Sandbox;
let folder: string;

let output = '';
let shopUrl: string;
let program: string;
const started: ChildProcess[] = [];

/**
 * The README's shop as its text says to run it (`npx svc-sandbox -- node shop.mjs`: the sandbox's merchant in its
 * environment), with `env` added; its address once it listens, and the port it asked for.
 */
async function startShop(env: Record<string, string | undefined>): Promise<{ shop: ChildProcess; url: string; asked: number }> {
  const merchant = sandbox.merchants[0]!;
  const child = spawn(process.execPath, ['--import', fixture, program], {
    cwd: folder,
    env: { ...process.env, SVC_MERCHANT_ID: merchant.merchantId, SVC_PRIVATE_KEY: merchant.privateKey, SVC_BASE_URL: sandbox.url, SVC_SAMPLE_SANDBOX: sandbox.url, ...env },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  started.push(child);
  let printed = '';
  child.stdout!.on('data', (chunk) => ((printed += chunk), (output += chunk)));
  child.stderr!.on('data', (chunk) => ((printed += chunk), (output += chunk)));
  const listening = await new Promise<{ asked: number; port: number }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the README's shop did not listen within 15 s:\n${printed}`)), 15_000);
    child.on('message', (message: { listening?: { asked: number; port: number } }) => {
      if (message.listening && message.listening.asked !== 0) {
        clearTimeout(timer);
        resolve(message.listening);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(Object.assign(new Error(`the README's shop exited (${code}):\n${printed}`), { printed, code }));
    });
  });
  return { shop: child, url: `http://127.0.0.1:${listening.port}`, asked: listening.asked };
}
/** The page's script and stylesheet, and the script's integrity, as the page names them. */
let page: { script: string; integrity: string; stylesheet: string };

beforeAll(async () => {
  await assertDistFresh();
  const sample = ((await samples()) as { document: string; kind: string; code: string }[]).find(
    (block) => block.document === 'README.md' && block.kind === 'program' && block.code.includes("from 'node:http'") && block.code.includes('element.tags()'),
  );
  if (!sample) throw new Error('the README has no node:http shop ("What the shop is made of")');
  // In the package's folder, so that `svc-checkout/server` is this build; a folder of its own, as samples.test.ts
  // empties build/doc-samples.
  await mkdir(join(root, 'build'), { recursive: true });
  folder = await mkdtemp(join(root, 'build', 'readme-shop-'));
  program = join(folder, 'shop.mjs');
  await writeFile(program, sample.code);
  sandbox = await createSandbox({ tickMs: 50 });
  ({ url: shopUrl } = await startShop({}));
  const html = (await onTheWire(`${shopUrl}/`, { 'Accept-Encoding': AS_A_BROWSER['Accept-Encoding'] })).body.toString('utf8');
  const script = /<script type="module" src="([^"]+)" integrity="([^"]+)"><\/script>/.exec(html);
  const stylesheet = /<link rel="stylesheet" href="([^"]+)">/.exec(html);
  if (!script || !stylesheet) throw new Error(`the README's shop wrote no script or stylesheet tag:\n${html}`);
  page = { script: script[1]!, integrity: script[2]!, stylesheet: stylesheet[1]! };
}, 30_000);

afterAll(async () => {
  for (const child of started) child.kill('SIGTERM');
  await sandbox?.close();
  if (folder) await rm(folder, { recursive: true, force: true });
});

describe("the README's node:http shop sends its page's files compressed", () => {
  it('sends the script as brotli, at most 15 KiB on the wire, the bytes its integrity names once decoded', async () => {
    const answer = await onTheWire(`${shopUrl}${page.script}`, AS_A_BROWSER);
    expect(answer.status).toBe(200);
    expect(answer.headers['content-encoding']).toBe('br');
    expect(answer.headers.vary).toBe('Accept-Encoding');
    expect(answer.headers['content-length']).toBe(String(answer.body.byteLength));
    expect(answer.received, `svc-checkout.js took ${answer.received} B on the wire`).toBeLessThanOrEqual(FIRST_FRAME_ON_THE_WIRE);
    const script = brotliDecompressSync(answer.body);
    expect(sha384(script)).toBe(page.integrity);
    expect(script.byteLength, 'the script as written, three times what is sent').toBeGreaterThan(3 * answer.body.byteLength);
  });

  it('sends the placeholder’s stylesheet as brotli too', async () => {
    const answer = await onTheWire(`${shopUrl}${page.stylesheet}`, { ...AS_A_BROWSER, 'Sec-Fetch-Dest': 'style', 'Sec-Fetch-Mode': 'no-cors' });
    expect([answer.status, answer.headers['content-encoding'], answer.headers.vary]).toEqual([200, 'br', 'Accept-Encoding']);
    expect(brotliDecompressSync(answer.body).toString('utf8')).toContain('svc-checkout:is(:not(:defined), :not([dir]))');
  });

  it('answers 304 when the browser asks again with the brotli ETag, with Vary, and no body', async () => {
    const first = await onTheWire(`${shopUrl}${page.script}`, AS_A_BROWSER);
    expect(first.headers.etag).toMatch(/-br"$/);
    const again = await onTheWire(`${shopUrl}${page.script}`, { ...AS_A_BROWSER, 'If-None-Match': first.headers.etag! });
    expect(again.status).toBe(304);
    expect(again.headers.etag).toBe(first.headers.etag);
    expect(again.headers.vary).toBe('Accept-Encoding');
    expect(again.body.byteLength).toBe(0);
  });

  it('sends gzip to a client that takes only gzip, and the script as written to one that takes nothing', async () => {
    const gzip = await onTheWire(`${shopUrl}${page.script}`, { 'Accept-Encoding': 'gzip, deflate' });
    expect([gzip.headers['content-encoding'], gzip.headers.vary]).toEqual(['gzip', 'Accept-Encoding']);
    expect(sha384(gunzipSync(gzip.body))).toBe(page.integrity);
    const plain = await onTheWire(`${shopUrl}${page.script}`);
    expect([plain.headers['content-encoding'], plain.headers.vary]).toEqual([undefined, 'Accept-Encoding']);
    expect(sha384(plain.body)).toBe(page.integrity);
    expect(plain.body.byteLength).toBe((await readFile(join(root, 'dist/cdn/svc-checkout.js'))).byteLength);
  });
});

describe("the README's node:http shop, as a first shop", () => {
  it('keeps its carts to their visitors: a secret in the cookie, never the reference; HttpOnly, SameSite', async () => {
    await expectCartsHeld(shopUrl, { secure: false });
  });

  it('listens on PORT, sets its cookies Secure behind an https: SHOP_URL, and serves a page a phone renders at its width', async () => {
    const live = await startShop({ PORT: '4123', SHOP_URL: 'https://shop.example' });
    expect(live.asked).toBe(4123);
    await expectCartsHeld(live.url, { secure: true });
    const page = await (await fetch(`${live.url}/`)).text();
    expect(page).toMatch(/^<!doctype html>/i);
    expect(page).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
  });

  it('names the variables it needs and the command that sets them, when run without them', async () => {
    const failed = await startShop({ SVC_MERCHANT_ID: '', SVC_PRIVATE_KEY: '' }).then(
      () => undefined,
      (error: { printed: string }) => error.printed,
    );
    expect(failed).toContain('SVC_MERCHANT_ID');
    expect(failed).toContain('npx svc-sandbox -- <command>');
  });
});
