// Every program of the README, llms.txt and docs/ runs (docs/README.md, "Code samples"): extracted by
// scripts/doc-samples.mjs, completed only by the fixtures of test/docs/sample-fixture.mjs (a sandbox of its own,
// its merchant in the environment, servers on free ports), ending by itself with exit code 0 or, a server, checked
// and stopped: a page with <svc-checkout> is paid through in Chromium, and the program's kit must have taken the
// sandbox's callback.
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { transform } from 'esbuild';
import puppeteer, { type Browser } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, SandboxControl, type Sandbox } from '../../src/sandbox/index.js';
import { askForReferenceCode } from '../support/shop-payer.js';
// @ts-expect-error a plain JavaScript module without types
import { root, writeSamples } from '../../scripts/doc-samples.mjs';
// @ts-expect-error a plain JavaScript module without types
import { assertDistFresh } from '../../scripts/dist-is-fresh.mjs';

interface Sample {
  document: string;
  line: number;
  language: string;
  kind: 'program' | 'fragment' | 'parse';
  code: string;
  file?: string;
}

const fixture = new URL('./sample-fixture.mjs', import.meta.url).pathname;
const programs: Sample[] = ((await writeSamples()) as Sample[]).filter((sample) => sample.kind === 'program');
let browser: Promise<Browser> | undefined;
const work = await mkdtemp(join(tmpdir(), 'svc-doc-samples-'));

beforeAll(() => assertDistFresh());
afterAll(async () => {
  await (await browser)?.close();
  await rm(work, { recursive: true, force: true });
});

function chromium(): Promise<Browser> {
  browser ??= puppeteer.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'],
  });
  return browser;
}

async function until<T>(what: string, check: () => Promise<T | undefined | false>, timeoutMs = 15_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A payer at `url`: the reference code method, the code paid in the sandbox, "Payment received" on the page. */
async function payThroughPage(url: string, sandbox: Sandbox): Promise<string> {
  const page = await (await chromium()).newPage();
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(String(error)));
  try {
    await page.goto(url, { waitUntil: 'load' });
    await askForReferenceCode(page, 15_000);
    const control = new SandboxControl(sandbox.url);
    const order = await until('the reference code order', async () => (await control.orders()).find((item) => item.referenceCode));
    await control.payReferenceCode(order.referenceCode!);
    await page.waitForFunction(() => document.querySelector('svc-checkout')!.shadowRoot!.textContent!.includes('Payment received'), { timeout: 15_000 });
    // The program's kit verified the callback and its onCallback returned: the sandbox's delivery was acknowledged.
    await until('the callback acknowledged by the program’s kit', async () =>
      (await control.deliveries({ orderNo: order.orderNo })).some((delivery) => delivery.state === 'acknowledged'),
    );
    expect(problems).toEqual([]);
    return order.orderNo;
  } finally {
    await page.close();
  }
}

/** Runs one program: resolves with what happened, rejects with its output when it fails. */
async function runProgram(sample: Sample): Promise<{ output: string; server?: { page: boolean } }> {
  const sandbox = await createSandbox({ tickMs: 50 });
  const merchant = sandbox.merchants[0]!;
  let file = join(root, sample.file!);
  if (sample.language === 'ts' || sample.language === 'typescript') {
    const { code } = await transform(sample.code, { loader: 'ts', format: 'esm', target: 'node20' });
    file = file.replace(/\.mts$/, '.compiled.mjs');
    await writeFile(file, code);
  }
  const cwd = await mkdtemp(join(work, 'run-'));
  const child = spawn(process.execPath, ['--import', fixture, file], {
    cwd,
    env: {
      ...process.env,
      SVC_MERCHANT_ID: merchant.merchantId,
      SVC_PRIVATE_KEY: merchant.privateKey,
      SVC_BASE_URL: sandbox.url,
      SVC_SAMPLE_SANDBOX: sandbox.url,
    },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const served = new Promise<number>((resolve) => {
    child.on('message', (message: { listening?: { asked: number; port: number } }) => {
      // A server is what the program asked a port of its own for; the servers of the libraries it uses ask for none.
      if (message.listening && message.listening.asked !== 0) resolve(message.listening.port);
    });
  });
  const timeout = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), 30_000).unref());
  try {
    const first = await Promise.race([exited.then((code) => ({ code })), served.then((port) => ({ port })), timeout]);
    if (first === 'timeout') throw new Error(`it neither ended nor served within 30 s`);
    if ('code' in first) {
      if (first.code !== 0) throw new Error(`it ended with exit code ${first.code}`);
      return { output };
    }
    const url = `http://127.0.0.1:${first.port}/`;
    const answer = await fetch(url);
    const body = await answer.text();
    const page = /html/.test(answer.headers.get('content-type') ?? '') && body.includes('<svc-checkout');
    if (page) await payThroughPage(url, sandbox);
    return { output, server: { page } };
  } catch (error) {
    throw new Error(`${sample.document}, line ${sample.line}: ${(error as Error).message}\n--- its output:\n${output}`);
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5_000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
    }
    await sandbox.close();
  }
}

describe('the documents’ programs', () => {
  it('are many, from the README and the pages', () => {
    expect(programs.filter((sample) => sample.document === 'README.md').length).toBeGreaterThan(0);
    expect(new Set(programs.map((sample) => sample.document)).size).toBeGreaterThan(4);
  });

  it.concurrent.each(programs.map((sample) => [`${sample.document}, line ${sample.line}`, sample] as const))('%s runs', async (_name, sample) => {
    await runProgram(sample);
  }, 90_000);

  it('include the README’s shop, paid through in Chromium, its kit called back', async () => {
    const shop = programs.find((sample) => sample.document === 'README.md' && sample.code.includes('checkout.element.tags()'))!;
    expect(shop, 'the README’s "What the shop is made of"').toBeDefined();
    expect((await runProgram(shop)).server).toEqual({ page: true });
  }, 90_000);

  it('include the chat seller of docs/pay-links.md: its link opens the kit’s pay page, paid through in Chromium', async () => {
    const seller = programs.find((sample) => sample.document === 'docs/pay-links.md' && sample.code.includes('checkout.paymentLink('))!;
    expect(seller, 'docs/pay-links.md’s chat seller').toBeDefined();
    expect((await runProgram(seller)).server).toEqual({ page: true });
  }, 90_000);
});
