// Lighthouse on the whole-shop example (examples/shop/server.mjs beside a sandbox), as a payer's phone sees it:
// npm's lighthouse driving Debian's Chromium (CHROME_PATH, else /usr/bin/chromium), mobile, its simulated slow 4G.
// Not in npm test: three runs of each page take about four and a half minutes, and a score moves from run to run.
//
// The shop's page as the kit writes it: the performance score, what "Enable text compression" would still save
// (nothing, now that the kit serves the element's files compressed), the render-blocking requests, the layout shift,
// and the bytes of the entry on the wire. Then the placeholder's stylesheet, blocking as `tags()` writes it against
// the two ways of not blocking (inlined, or loaded without blocking), on the same page with a footer below the
// checkout, which is what the placeholder holds in place (the shop's own page has nothing below it to shift). That
// comparison loads through Chromium's own throttling (slow 4G, for real): a late stylesheet shifts the page only
// when it really comes late.
//
//   node bench/lighthouse.mjs        this section alone (after npm run build); LIGHTHOUSE_RUNS=1 for a quick look
//                                    (bench/load.mjs: how many runs, and the smoke load's settings)
import { createHash } from 'node:crypto';
import { createServer, request as forward } from 'node:http';
import { readFile } from 'node:fs/promises';
import { register } from 'node:module';
import { fileURLToPath } from 'node:url';
import puppeteer from 'puppeteer-core';
import { createSandbox, DEFAULT_MERCHANT } from '../dist/sandbox/index.js';
import { start, stop } from './kit-overhead.mjs';
import { LOAD } from './load.mjs';

// Lighthouse is pinned at 12.2.3: 13 wants Node 22, and npm ci was seen to refuse locks made with 12.3 to 13.4. Its
// trace engine is older than Debian's Chromium: frames reported without `chrome_frame_reporter` throw, and the
// render-blocking and layout-shift audits fail with "Cannot read properties of undefined (reading 'frame_sequence')".
// Those frames are passed over as it loads (they only correct the timestamps of screenshots); if the engine's text
// ever differs, the audits fail again and this section says so rather than reading "nothing found".
const TRACE_ENGINE_FIX = `export async function load(url, context, next) {
  const loaded = await next(url, context);
  if (!url.endsWith('/trace_engine/models/trace/handlers/ScreenshotsHandler.js')) return loaded;
  return { ...loaded, source: String(loaded.source).replace('.chrome_frame_reporter.frame_sequence', '.chrome_frame_reporter?.frame_sequence') };
}`;
register(`data:text/javascript,${encodeURIComponent(TRACE_ENGINE_FIX)}`);
const { default: lighthouse } = await import('lighthouse');
const { version: LIGHTHOUSE_VERSION } = (await import('lighthouse/package.json', { with: { type: 'json' } })).default;

const RUNS = LOAD.lighthouse.runs;
const CHROMIUM = process.env.CHROME_PATH ?? process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'];
/** The stylesheet's link as `tags()` writes it. */
const STYLESHEET_LINK = /<link rel="stylesheet" href="([^"]+\/svc-checkout\.css)">/;
/** What a shop's page has below its checkout: what the placeholder keeps from jumping. */
const FOOTER = '<footer><p>Nile Coffee Roasters, 12 Corniche El Nil, Cairo. Delivery in 2 to 4 days; returns within 14 days.</p></footer>';
const LOADED_LATER = "this.media='all'";

const sha256 = (text) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

/**
 * The ways of writing the placeholder's stylesheet, each a rewrite of the shop's page and of its policy. The page's
 * `default-src 'self'` allows no inline style or handler: the other two need the policy to name them.
 */
const STYLESHEETS = {
  blocking: (html) => ({ html }),
  inlined: (html, css) => ({
    html: html.replace(STYLESHEET_LINK, () => `<style>${css}</style>`),
    policy: `default-src 'self'; style-src 'self' ${sha256(css)}`,
  }),
  'loaded without blocking': (html) => ({
    html: html.replace(STYLESHEET_LINK, (_link, href) => `<link rel="stylesheet" href="${href}" media="print" onload="${LOADED_LATER}">`),
    policy: `default-src 'self'; script-src 'self' 'unsafe-hashes' ${sha256(LOADED_LATER)}`,
  }),
};

/**
 * A server in front of the shop: everything passed through as it is (the kit's files with their encodings), but the
 * page, with its stylesheet written another way and a footer below the checkout.
 */
async function rewritingProxy(shopUrl, stylesheet) {
  const shop = new URL(shopUrl);
  const css = await readFile('dist/cdn/svc-checkout.css', 'utf8');
  const server = createServer((request, response) => {
    const upstream = forward({ host: shop.hostname, port: shop.port, path: request.url, method: request.method, headers: request.headers }, (answer) => {
      if (request.url !== '/' || answer.statusCode !== 200) {
        response.writeHead(answer.statusCode, answer.headers);
        answer.pipe(response);
        return;
      }
      const chunks = [];
      answer.on('data', (chunk) => chunks.push(chunk));
      answer.on('end', () => {
        const page = Buffer.concat(chunks).toString('utf8').replace('</svc-checkout>', `</svc-checkout>${FOOTER}`);
        const { html, policy } = stylesheet(page, css);
        const headers = { ...answer.headers, 'content-length': String(Buffer.byteLength(html)) };
        if (policy) headers['content-security-policy'] = policy;
        response.writeHead(200, headers).end(html);
      });
    });
    upstream.on('error', (error) => response.destroy(error));
    request.pipe(upstream);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${server.address().port}/` };
}

/** One Lighthouse run of the performance category (mobile): its report. */
async function audit(url, flags = {}) {
  const browser = await puppeteer.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
  try {
    const port = Number(new URL(browser.wsEndpoint()).port);
    const result = await lighthouse(url, { port, output: 'json', logLevel: 'error', onlyCategories: ['performance'], ...LOAD.lighthouse.flags, ...flags });
    if (!result?.lhr || result.lhr.runtimeError) throw new Error(`lighthouse: ${result?.lhr?.runtimeError?.message ?? 'no report'}`);
    return result.lhr;
  } finally {
    await browser.close();
  }
}

/** The audits the section reads: one that failed would read as "nothing found". */
const READ = ['uses-text-compression', 'render-blocking-resources', 'cumulative-layout-shift', 'layout-shifts', 'network-requests', 'total-byte-weight'];

/** What the section reads of a report. */
function figuresOf(lhr) {
  const audits = lhr.audits;
  const failed = READ.filter((id) => audits[id]?.scoreDisplayMode === 'error' || !audits[id]);
  if (failed.length > 0) throw new Error(`lighthouse: ${failed.map((id) => `${id}: ${audits[id]?.errorMessage ?? 'missing'}`).join('; ')}`);
  const requests = audits['network-requests'].details.items;
  const entry = requests.find((item) => new URL(item.url).pathname.endsWith('/svc-checkout.js'));
  return {
    score: Math.round(lhr.categories.performance.score * 100),
    compressionSavings: audits['uses-text-compression'].details?.overallSavingsBytes ?? 0,
    compressible: (audits['uses-text-compression'].details?.items ?? []).map((item) => `${new URL(item.url).pathname} ${item.wastedBytes} B`),
    blocking: (audits['render-blocking-resources'].details?.items ?? []).map((item) => ({ path: new URL(item.url).pathname, ms: item.wastedMs })),
    cls: audits['cumulative-layout-shift'].numericValue,
    shifted: (audits['layout-shifts'].details?.items ?? []).map((item) => `${item.node?.selector ?? 'an element'} ${item.score.toFixed(3)}`),
    fcp: audits['first-contentful-paint'].numericValue,
    lcp: audits['largest-contentful-paint'].numericValue,
    entryOnWire: entry?.transferSize,
    entryDecoded: entry?.resourceSize,
    totalOnWire: audits['total-byte-weight'].numericValue,
  };
}

/** `RUNS` reports of `url`; the run with the median score stands for them, with every run's layout shift. */
async function runs(url, flags) {
  const all = [];
  for (let run = 0; run < RUNS; run++) all.push(figuresOf(await audit(url, flags)));
  const middle = [...all].sort((a, b) => a.score - b.score)[Math.floor(all.length / 2)];
  return {
    ...middle,
    scores: all.map((run) => run.score),
    shifts: all.map((run) => run.cls),
    paints: all.map((run) => run.fcp),
    shifted: [...new Set(all.flatMap((run) => run.shifted))],
  };
}

const list = (values, digits = 0) => values.map((value) => value.toFixed(digits)).join(', ');

export async function measureLighthouse(row, note) {
  const sandbox = await createSandbox();
  const shop = await start('the shop', ['examples/shop/server.mjs'], {
    PORT: '0',
    SVC_MERCHANT_ID: DEFAULT_MERCHANT.merchantId,
    SVC_PRIVATE_KEY: DEFAULT_MERCHANT.privateKey,
    SVC_BASE_URL: sandbox.url,
  });
  try {
    const page = await runs(shop.url);
    note(`\nLighthouse ${LIGHTHOUSE_VERSION}, mobile, simulated slow 4G, ${RUNS} runs of examples/shop's page (the run of the median score):`);
    row({ what: 'Lighthouse performance score, examples/shop, mobile', figure: `${page.score} (runs: ${page.scores.join(', ')})`, target: '100', met: page.score === 100 });
    row({
      what: 'Lighthouse "Enable text compression": what compressing would still save',
      figure: `${(page.compressionSavings / 1024).toFixed(1)} KiB`,
      compared: page.compressible.join('; ') || 'every text file of the kit compressed',
      target: '0',
      met: page.compressionSavings === 0,
    });
    row({
      what: 'Lighthouse render-blocking requests',
      figure: page.blocking.map((item) => `${item.path} ${Math.round(item.ms)} ms`).join('; ') || 'none',
      compared: `first contentful paint ${Math.round(page.fcp)} ms, largest ${Math.round(page.lcp)} ms`,
      target: "only the placeholder's stylesheet, if it is what keeps the layout still",
      met: page.blocking.every((item) => item.path.endsWith('/svc-checkout.css')),
    });
    row({ what: 'Lighthouse cumulative layout shift, examples/shop', figure: list(page.shifts, 3), target: '0', met: page.shifts.every((shift) => shift === 0) });
    row({
      what: 'svc-checkout.js on the wire (Lighthouse: transfer size, headers included)',
      figure: `${page.entryOnWire} B`,
      compared: `${page.entryDecoded} B decoded; the page's whole load ${(page.totalOnWire / 1024).toFixed(1)} KiB on the wire`,
      target: '≤ 15 360 B',
      met: page.entryOnWire <= 15_360,
    });

    const { throttlingMethod } = LOAD.lighthouse.stylesheets;
    const throttled = throttlingMethod === 'devtools' ? "Chromium's own throttling (slow 4G)" : `throttling: ${throttlingMethod} (smoke load)`;
    note(`\nThe placeholder's stylesheet, three ways, on the shop's page with a footer below the checkout; ${throttled}, ${RUNS} runs each:`);
    for (const [way, stylesheet] of Object.entries(STYLESHEETS)) {
      const proxy = await rewritingProxy(shop.url, stylesheet);
      try {
        const result = await runs(proxy.url, { throttlingMethod });
        row({
          what: `placeholder's stylesheet ${way}: cumulative layout shift (each run)`,
          figure: list(result.shifts, 3),
          compared: `first contentful paint ${list(result.paints)} ms; render-blocking: ${result.blocking.map((item) => item.path.split('/').pop()).join(', ') || 'none'}${result.shifted.length ? `; shifted: ${result.shifted.join(', ')}` : ''}`,
          target: '0',
          met: result.shifts.every((shift) => shift === 0),
        });
      } finally {
        proxy.server.close();
      }
    }
  } finally {
    await stop(shop);
    await sandbox.close();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.chdir(fileURLToPath(new URL('..', import.meta.url)));
  const row = (entry) => console.log(`  ${entry.what}: ${entry.figure}${entry.compared ? ` | ${entry.compared}` : ''}${entry.target ? ` | target ${entry.target}${entry.met ? ' (met)' : ' (not met)'}` : ''}`);
  await measureLighthouse(row, console.log);
}
