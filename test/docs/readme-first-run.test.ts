// The README's first section, "A payment in five minutes", followed as written: its shell lines run one by one in a
// fresh folder, with the package as npm packs it (the README's own line for a package not yet on npm), `npm start`
// left running, a payer in Chromium who chooses Reference code and presses Pay, the README's curl line paying the
// code, and then what the README promises: "Payment received" on the page, and the shop's `order …: SUCCESS`.
//
// Declared, and nothing else: PORT=0 and SVC_SANDBOX_PORT=0 (the README's own way to pick other ports: this machine
// is shared), npm's cache preferred (npm_config_prefer_offline), and in the curl line the code the page showed and
// the sandbox's port in place of the README's examples.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import puppeteer, { type Browser } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error a plain JavaScript module without types
import { fencedBlocks, root } from '../../scripts/doc-samples.mjs';
import { packedTarball } from '../support/tarball.js';
import { askForReferenceCode } from '../support/shop-payer.js';
// @ts-expect-error a plain JavaScript module without types
import { assertDistFresh } from '../../scripts/dist-is-fresh.mjs';

const run = promisify(execFile);
let folder: string;
let shop: ChildProcess | undefined;
let browser: Browser | undefined;

beforeAll(async () => {
  await assertDistFresh();
  folder = await mkdtemp(join(tmpdir(), 'svc-readme-'));
});
afterAll(async () => {
  await browser?.close();
  // npm start, and the sandbox and shop under it: a process group of its own, started here.
  if (shop?.pid && shop.exitCode === null) process.kill(-shop.pid, 'SIGTERM');
  await rm(folder, { recursive: true, force: true });
});

/** The README's first section: its text and its blocks. */
async function firstSection() {
  const readme = await readFile(join(root, 'README.md'), 'utf8');
  const text = /^## A payment in five minutes\n([\s\S]*?)^## /m.exec(readme)?.[1];
  if (!text) throw new Error('the README has no section "A payment in five minutes"');
  return { text, blocks: fencedBlocks(text) as { language: string; code: string }[] };
}

describe('the README’s first section, followed as written', () => {
  it('reaches a paid order and the shop’s onCallback, from the packed package in a fresh folder', async () => {
    const { text, blocks } = await firstSection();
    const [setup, output, pay] = blocks;
    expect([setup?.language, output?.language, pay?.language]).toEqual(['sh', 'text', 'sh']);
    // The README's line for a package not yet on npm, with this run's tarball as its path.
    const fromClone = /`(npm install \/path\/to\/(svc-checkout-[\d.]+\.tgz) express)`/.exec(text);
    expect(fromClone, 'the README says how to install the package from a clone').not.toBeNull();
    const tarball = await packedTarball();
    expect(tarball.endsWith(fromClone![2]!)).toBe(true);
    const env = { ...process.env, PORT: '0', SVC_SANDBOX_PORT: '0', npm_config_prefer_offline: 'true', npm_config_audit: 'false', npm_config_fund: 'false' };

    let cwd = folder;
    let output_ = '';
    for (const line of setup!.code.split('\n').map((item) => item.trim()).filter(Boolean)) {
      const command = line === 'npm install svc-checkout express' ? fromClone![1]!.replace(/\/path\/to\/\S+\.tgz/, tarball) : line;
      if (command === 'npm start') {
        shop = spawn('sh', ['-c', command], { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
        shop.stdout!.on('data', (chunk) => (output_ += chunk));
        shop.stderr!.on('data', (chunk) => (output_ += chunk));
        continue;
      }
      // Each line in the folder the lines before it left, as a terminal would run them.
      const { stdout } = await run('sh', ['-c', `${command}\npwd`], { cwd, env, timeout: 180_000 });
      cwd = stdout.trim().split('\n').at(-1)!;
    }
    expect(shop, 'the section ends with npm start').toBeDefined();

    const printed = async (pattern: RegExp, what: string) => {
      const end = Date.now() + 30_000;
      for (;;) {
        const match = pattern.exec(output_);
        if (match) return match;
        if (Date.now() > end) throw new Error(`timed out waiting for ${what}: ${output_}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    // What the README shows npm start printing, line by line.
    const shown = output!.code.split('\n').map((line) => line.trim());
    expect(shown[0]).toMatch(/^svc-sandbox listening on http:\/\/127\.0\.0\.1:4010$/);
    const sandboxUrl = (await printed(/svc-sandbox listening on (http:\/\/127\.0\.0\.1:\d+)/, 'the sandbox'))[1]!;
    expect(shown.at(-1)).toMatch(/^My Shop listening on http:\/\/127\.0\.0\.1:3000\/ \(payment service: http:\/\/127\.0\.0\.1:4010\)$/);
    const shopUrl = (await printed(/My Shop listening on (http:\/\/127\.0\.0\.1:\d+)\/ \(payment service: (\S+)\)/, 'the shop'))[1]!;
    for (const line of shown.slice(1, -1)) expect(output_, line).toContain(line.replace(':4010', `:${new URL(sandboxUrl).port}`));

    // "Open http://127.0.0.1:3000/, choose Reference code, give a name, an email and a mobile number, and press Pay."
    expect(text).toContain('choose **Reference code**, give a name, an email and a mobile number, and press\nPay');
    browser = await puppeteer.launch({
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'],
    });
    const page = await browser.newPage();
    await page.setViewport({ width: 390, height: 900 });
    await page.goto(`${shopUrl}/`, { waitUntil: 'load' });
    // What the payer reads: the text of the element and of every part inside it.
    const seen = () =>
      page.evaluate(() => {
        const parts: string[] = [];
        const walk = (node: Node) => {
          if ((node as Element).shadowRoot) walk((node as Element).shadowRoot!);
          if (node.nodeType === Node.TEXT_NODE) parts.push(node.textContent ?? '');
          node.childNodes.forEach(walk);
        };
        walk(document.querySelector('svc-checkout')!);
        return parts.join(' ').replace(/\s+/g, ' ');
      });
    const untilSeen = async (pattern: RegExp) => {
      const end = Date.now() + 20_000;
      for (;;) {
        const match = pattern.exec(await seen());
        if (match) return match;
        if (Date.now() > end) throw new Error(`the page never showed ${pattern}: ${await seen()}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };
    await askForReferenceCode(page, 20_000);
    // "The page shows a 9-digit code (grouped 123 456 789)."
    await untilSeen(/Your reference code/);
    const grouped = (await page.evaluate(() => {
      const find = (root: ParentNode): string | undefined => {
        const digits = root.querySelector('.digits');
        if (digits) return digits.textContent ?? undefined;
        for (const element of root.querySelectorAll('*')) {
          const found = element.shadowRoot && find(element.shadowRoot);
          if (found) return found;
        }
        return undefined;
      };
      return find(document.querySelector('svc-checkout')!.shadowRoot!);
    }))!;
    expect(grouped).toMatch(/^\d{3} \d{3} \d{3}$/);

    // The README's curl line, with this code and this sandbox's port.
    const curl = pay!.code.trim();
    expect(curl).toContain('/sandbox/v1/reference-codes/123456789/pay');
    const { stdout: paid } = await run('sh', ['-c', curl.replace('123456789', grouped.replaceAll(' ', '')).replace(':4010', `:${new URL(sandboxUrl).port}`)], { timeout: 30_000 });
    expect(JSON.parse(paid), paid).toMatchObject({ status: 'SUCCESS' });

    // "The page says "Payment received", and the terminal of npm start prints order ORDER-…: SUCCESS".
    expect(text).toContain('The page says "Payment received", and the terminal of `npm start` prints `order ORDER-…: SUCCESS`');
    await untilSeen(/Payment received/);
    await printed(/order ORDER-[\w-]+: SUCCESS/, 'the shop’s onCallback');
  }, 300_000);
});
