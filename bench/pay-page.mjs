// The kit's pay page (docs/pay-links.md): its bytes before the payer can act (its HTML as the kit serves it, and the
// element's first frame) and its start-up in headless Chromium, beside the element on a plain page of the same kit:
// from the navigation's start to the element's first frame (the choice of method, which the payer acts on first),
// each page cold (a browser context of its own). Against the sandbox, through the built kit.
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { brotliCompressSync } from 'node:zlib';
import puppeteer from 'puppeteer-core';
import { startStack } from '../dist/sandbox/index.js';
import { toNodeListener } from '../dist/server/index.js';
import { LOAD } from './load.mjs';
import { BROWSER_OPTIONS } from './startup.mjs';
import { median, quantile } from './stats.mjs';

const { runs: RUNS, warmUpRuns: WARM_UP_RUNS } = LOAD.startUp;
const kB = (bytes) => `${(bytes / 1000).toFixed(1)} kB`;
const ORDER = { amount: { total: 12_500, currency: 'EGP' }, country: 'EG', product: { name: 'Coffee beans', description: 'Ethiopian, 250 g' } };

/** Milliseconds from the navigation's start to the element's method picker, drawn, in a fresh browser context. */
async function firstFrame(browser, url) {
  const context = await browser.createBrowserContext();
  try {
    const page = await context.newPage();
    await page.goto(url, { waitUntil: 'domcontentloaded' });
    await page.waitForFunction(
      () => document.querySelector('svc-checkout')?.shadowRoot?.querySelector('svc-method-picker')?.shadowRoot?.querySelector('input[type=radio]'),
      { polling: 'raf', timeout: 15_000 },
    );
    return await page.evaluate(() => performance.now());
  } finally {
    await context.close();
  }
}

export async function measurePayPage(row, note) {
  const stack = await startStack({ basePath: '/checkout', handler: { merchantName: 'Nile Coffee Roasters', logger: { warn() {}, error() {} } } });
  // The plain page: the same kit's element tags and a checkout token, nothing else, on the same origin.
  const kit = toNodeListener(stack.handler);
  let serial = 0;
  const plain = createServer(async (request, response) => {
    if (request.url.startsWith('/checkout/')) return kit(request, response);
    serial += 1;
    const token = await stack.handler.checkoutToken({ ...ORDER, reference: `bench-plain-${Date.now().toString(36)}-${serial}` });
    response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' });
    response.end(`<!doctype html><html lang="en"><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Plain</title>${stack.handler.element.tags()}<svc-checkout endpoint="/checkout" checkout-token="${token}"></svc-checkout></html>`);
  });
  await new Promise((resolve) => plain.listen(0, '127.0.0.1', resolve));
  const plainUrl = `http://127.0.0.1:${plain.address().port}/`;
  const browser = await puppeteer.launch(BROWSER_OPTIONS);
  try {
    const made = await stack.paymentLink({ ...ORDER, reference: `bench-link-${Date.now().toString(36)}` });
    const raw = Buffer.from(await (await fetch(made.url, { headers: { 'Accept-Encoding': 'identity' } })).arrayBuffer());
    // As a browser gets it: the kit's own gzip (fetch decodes the body; the length is the bytes on the wire).
    const served = Number((await fetch(made.url, { headers: { 'Accept-Encoding': 'gzip, deflate, br' } })).headers.get('content-length'));
    const budget = JSON.parse(await readFile('test/build/size-budget.json', 'utf8'));
    const frame = budget.recorded.firstFrameBrotliBytes;
    row({ what: 'pay page: its HTML as the kit serves it (gzip)', figure: kB(served), compared: `${kB(raw.length)} as it is, ${kB(brotliCompressSync(raw).length)} brotli` });
    row({ what: 'pay page: bytes before the payer acts (HTML + the element’s first frame)', figure: kB(served + frame), compared: `the first frame alone ${kB(frame)} brotli (size budget)` });

    const samples = { pay: [], plain: [] };
    for (let run = 0; run < WARM_UP_RUNS + RUNS; run += 1) {
      // Each run a new link and a new cart, alternating the two pages.
      const link = await stack.paymentLink({ ...ORDER, reference: `bench-link-${Date.now().toString(36)}-${run}` });
      const pay = await firstFrame(browser, link.url);
      const bare = await firstFrame(browser, plainUrl);
      if (run < WARM_UP_RUNS) continue;
      samples.pay.push(pay);
      samples.plain.push(bare);
    }
    const ms = (values) => `${median(values).toFixed(0)} ms median, p90 ${quantile(values, 0.9).toFixed(0)} ms`;
    row({ what: 'pay page: navigation to the element’s first frame', figure: ms(samples.pay), compared: `the element on a plain page of the same kit: ${ms(samples.plain)}` });
    note(`  (${RUNS} cold loads of each, after ${WARM_UP_RUNS} discarded)`);
  } finally {
    await browser.close();
    plain.closeAllConnections();
    await new Promise((resolve) => plain.close(resolve));
    await stack.close();
  }
}
