// The isolated fields' cost (docs/isolated-fields.md): the time from choosing Bank account to a field the payer can
// type in, the isolated frame against the element's own form (isolated="false"), in headless Chromium on loopback.
// Each page in a new browser context with its cache disabled: the bank account form's chunk comes over the network
// in both, the frame's page too when isolated. The frame's page is served by the kit's own code
// (dist/server/element/element-files.js), with its headers.
import { createServer } from 'node:http';
import { readdir, readFile } from 'node:fs/promises';
import puppeteer from 'puppeteer-core';
import { ElementFiles } from '../dist/server/element/element-files.js';
import { issueCheckoutToken } from '../dist/server/index.js';
import { DEFAULT_MERCHANT } from '../dist/sandbox/index.js';
import { LOAD } from './load.mjs';
import { BROWSER_OPTIONS, load } from './startup.mjs';
import { median, quantile } from './stats.mjs';

const { runs: RUNS, warmUpRuns: WARM_UP_RUNS } = LOAD.isolated;
/** The issue's target: the frame may cost this much over the inline form. */
export const ISOLATION_TARGET_MS = 50;


/**
 * The shop's page as the kit's checkouts render it: the order in a checkout token (the isolated frame proves its create
 * with it; without one the bank account details stay in the page, and no frame is drawn).
 */
const MARKUP = (isolated, token) => `<svc-checkout endpoint="/checkout" checkout-token="${token}" methods="Pos BankAccount ReferenceCode" locale="en"
  ${isolated ? '' : 'isolated="false"'}></svc-checkout>`;

const TOKEN = issueCheckoutToken(
  { merchantId: DEFAULT_MERCHANT.merchantId, privateKey: DEFAULT_MERCHANT.privateKey },
  {
    reference: 'bench-isolated',
    amount: { total: 12_500, currency: 'EGP' },
    country: 'EG',
    product: { name: 'Espresso beans, 1 kg', description: 'Single-origin Ethiopian beans' },
    merchantName: 'Nile Coffee Roasters',
    expireAt: 30,
  },
  { expiresInSeconds: 7 * 86_400 },
);

/**
 * Waits for the session (the element's updateComplete), then chooses Bank account as the payer does (its radio) and
 * waits for a field to type in: the element's own input, enabled and focusable; or the frame, connected (it greets
 * the element once its fields are drawn, then says its height, which the element sets in pixels).
 */
const PAGE_SCRIPT = String.raw`
await import('/svc-checkout.js');
const host = document.body.firstElementChild;
await host.updateComplete;
await new Promise((resolve) => setTimeout(resolve, 100));
const all = (node, selector) => {
  const scope = node.shadowRoot ?? node;
  return [...scope.querySelectorAll(selector), ...[...scope.querySelectorAll('*')].filter((element) => element.shadowRoot).flatMap((element) => all(element, selector))];
};
const radio = all(host, 'input[type=radio]').find((input) => input.value === 'BankAccount');
const start = performance.now();
radio.click();
const ready = () => {
  const frame = all(host, 'iframe')[0];
  if (frame) return frame.style.blockSize.endsWith('px');
  const input = all(host, 'input[name=bankAccountNumber]')[0];
  if (!input || input.disabled) return false;
  input.focus();
  return input.matches(':focus');
};
while (!ready()) {
  if (performance.now() - start > 10000) throw new Error('no field within 10 s');
  await new Promise((resolve) => setTimeout(resolve, 1));
}
window.__bench = { end: performance.now() - start, isolated: all(host, 'iframe').length > 0 };
`;

const page = (isolated, token) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>bench</title></head>
<body>${MARKUP(isolated, token)}<script type="module">${PAGE_SCRIPT}</script></body></html>`;

async function serve() {
  const token = await TOKEN;
  const files = {};
  for (const file of await readdir('dist/cdn', { recursive: true })) if (file.endsWith('.js')) files[`/${file}`] = await readFile(`dist/cdn/${file}`);
  const kitFiles = new ElementFiles(new URL('../dist/cdn/', import.meta.url), '/checkout');
  const server = createServer(async (request, response) => {
    const path = new URL(request.url, 'http://bench.invalid').pathname;
    if (path === '/isolated.html' || path === '/inline.html') {
      response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' }).end(page(path === '/isolated.html', token));
      return;
    }
    if (files[path]) {
      response.writeHead(200, { 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': 'no-store' }).end(files[path]);
      return;
    }
    const answer = path.startsWith('/checkout/') && kitFiles.serve(path.slice('/checkout'.length), new Request(`http://${request.headers.host}${request.url}`));
    if (!answer) {
      response.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
      return;
    }
    response.writeHead(answer.status, Object.fromEntries(answer.headers)).end(Buffer.from(await answer.arrayBuffer()));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, base: `http://127.0.0.1:${server.address().port}` };
}

export async function measureIsolated(row, note) {
  const { server, base } = await serve();
  const browser = await puppeteer.launch(BROWSER_OPTIONS);
  try {
    const times = { isolated: [], inline: [] };
    for (let run = 0; run < WARM_UP_RUNS + RUNS; run++) {
      for (const kind of run % 2 ? ['inline', 'isolated'] : ['isolated', 'inline']) {
        const result = await load(browser, `${base}/${kind}.html`);
        if (result.isolated !== (kind === 'isolated')) throw new Error(`${kind}: the page ${result.isolated ? 'has' : 'has no'} isolated frame`);
        if (run >= WARM_UP_RUNS) times[kind].push(result.end);
      }
    }
    const fmt = (values) => `${median(values).toFixed(1)} ms (p90 ${quantile(values, 0.9).toFixed(1)})`;
    const difference = median(times.isolated) - median(times.inline);
    note(`\nChoosing Bank account to a field to type in, ${await browser.version()}, ${RUNS} runs of each after ${WARM_UP_RUNS} discarded; a new context per page, cache disabled:`);
    row({
      what: 'Bank account chosen to a field the payer can type in: isolated frame, median (p90), Chromium',
      figure: fmt(times.isolated),
      compared: `inline form (isolated="false") ${fmt(times.inline)}: ${difference >= 0 ? '+' : ''}${difference.toFixed(1)} ms`,
      target: `≤ inline + ${ISOLATION_TARGET_MS} ms`,
      met: difference <= ISOLATION_TARGET_MS,
    });
  } finally {
    await browser.close();
    server.close();
  }
}
