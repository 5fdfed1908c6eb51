// The shops of examples/deno, examples/bun and examples/worker as a newcomer runs them, each started once, from the
// binaries the runtimes' npm packages install: a sandbox, the shop in its runtime with the settings its comment
// shows, and a payer in Chromium who pays a reference code through the shop's page, the shop printing the order's
// verified callback. The samples docs/runtimes.md shows are excerpts of these files, word for word.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer, { type Browser } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, DEFAULT_MERCHANT, SandboxControl, type Sandbox } from '../../src/sandbox/index.js';
// @ts-expect-error a plain JavaScript module without types
import { assertDistFresh } from '../../scripts/dist-is-fresh.mjs';
import { bin, quietEnv, spawnListening, stopProcess } from '../support/runtimes/start.js';
import { CHROMIUM_ARGS, payReferenceCode } from '../support/shop-payer.js';

const root = new URL('../../', import.meta.url).pathname;

/** Each example and the command its comment gives (Deno limited to loopback, as tests are). */
const EXAMPLES = {
  deno: { file: 'examples/deno/server.ts', command: () => [bin('deno'), 'run', '--no-prompt', '--allow-net=127.0.0.1', '--allow-env', '--allow-read', 'examples/deno/server.ts'] },
  bun: { file: 'examples/bun/server.ts', command: () => [bin('bun'), 'examples/bun/server.ts'] },
  worker: { file: 'examples/worker/worker.js', command: () => [process.execPath, 'examples/worker/dev.mjs'] },
} as const;

let sandbox: Sandbox;
let browser: Browser;
const scratch = mkdtempSync(join(tmpdir(), 'svc-runtime-shops-'));

beforeAll(async () => {
  await assertDistFresh(); // the pages load the built CDN files, the shops the built kit
  sandbox = await createSandbox();
  browser = await puppeteer.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
}, 30_000);

afterAll(async () => {
  await browser?.close();
  await sandbox?.close();
  rmSync(scratch, { recursive: true, force: true });
});

describe.each(Object.entries(EXAMPLES))('the %s shop', (name, example) => {
  let shop: Awaited<ReturnType<typeof spawnListening>>;

  beforeAll(async () => {
    const [command, ...args] = example.command();
    shop = await spawnListening(
      command!,
      args,
      { ...quietEnv(join(scratch, name)), PORT: '0', SVC_MERCHANT_ID: DEFAULT_MERCHANT.merchantId, SVC_PRIVATE_KEY: DEFAULT_MERCHANT.privateKey, SVC_BASE_URL: sandbox.url },
      root,
    );
  }, 30_000);

  afterAll(async () => {
    if (shop) await stopProcess(shop.child);
  });

  it('serves the element’s files and takes a reference code payment through its own kit, in Chromium', async () => {
    const entry = await fetch(`${shop.url}/svc-checkout.js`);
    expect(entry.status).toBe(200);
    expect(entry.headers.get('content-type')).toMatch(/^(text|application)\/javascript/);
    for (const file of [...(await entry.text()).matchAll(/import\("\.\/([^"]+)"\)/g)].map((match) => match[1]!)) {
      expect((await fetch(`${shop.url}/${file}`)).status, file).toBe(200);
    }
    const reference = await payReferenceCode(browser, shop.url, new SandboxControl(sandbox.url), shop.output);
    expect(reference).toMatch(/^NCR-[0-9A-F]{8}$/);
  }, 60_000);

  it('is the code docs/runtimes.md shows', () => {
    const source = readFileSync(`${root}${example.file}`, 'utf8');
    const docs = readFileSync(`${root}docs/runtimes.md`, 'utf8');
    const samples = [...docs.matchAll(new RegExp(`<!-- from ${example.file} -->\\n\`\`\`\\w+\\n([\\s\\S]*?)\\n\`\`\``, 'g'))].map((match) => match[1]!);
    expect(samples.length, `docs/runtimes.md has a sample from ${example.file}`).toBeGreaterThan(0);
    for (const sample of samples) expect(source, 'a sample that is not in the file that ran').toContain(sample);
  });
});
