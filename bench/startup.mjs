// Start-up in headless Chromium: from the module script that imports the bundle to the element's first frame, and
// to a form the payer can type in; the CDN file against the floor element (bench/floor/), page by page, cold.
import { createServer } from 'node:http';
import { readdir, readFile } from 'node:fs/promises';
import puppeteer from 'puppeteer-core';
import { ARABIC_FILE } from '../scripts/cdn-build.mjs';
import { LOAD } from './load.mjs';
import { median, quantile } from './stats.mjs';

const { runs: RUNS, warmUpRuns: WARM_UP_RUNS } = LOAD.startUp;
/** One frame at 60 Hz: the start-up target is the floor's time plus this. */
export const FRAME_MS = 16;

export const BROWSER_OPTIONS = {
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  headless: true,
};

/** The pages measured: the same markup around each element, a full valid configuration for the widget. */
const ELEMENTS = {
  widget: {
    // Under its own name: its chunks import it as ../svc-checkout.js (another name would load a second copy).
    script: '/svc-checkout.js',
    markup: `<svc-checkout endpoint="/checkout" merchant-id="256612345678901" merchant-name="Nile Coffee Roasters"
      reference="bench-start-up" country-code="EG" currency="EGP" pay-amount="12500" product-name="Espresso beans, 1 kg"
      product-description="Single-origin Ethiopian beans" expire-at="30" methods="Pos BankAccount ReferenceCode"
      locale="en"></svc-checkout>`,
  },
  floor: { script: '/floor.js', markup: '<floor-element label="Name"></floor-element>' },
};
// The same widget speaking Arabic: its words come in a file of their own, fetched before its first frame. As the
// README writes an Arabic page, with a preload link for that file (ARABIC_FILE), so that the words arrive while the
// entry does; the link is put in as the bundle is imported, so that its fetch starts when the entry's does.
// And the same page without the link, for comparison.
const ARABIC_MARKUP = ELEMENTS.widget.markup.replace('locale="en"', 'locale="ar"');
ELEMENTS.arabic = { script: ELEMENTS.widget.script, markup: ARABIC_MARKUP, preload: [`/${ARABIC_FILE}`] };
ELEMENTS['arabic-unlinked'] = { script: ELEMENTS.widget.script, markup: ARABIC_MARKUP };
/** An Arabic page fetches its words before its first frame: its target is two frames. */
export const ARABIC_FRAME_MS = 32;

/**
 * The page's only script. `start` is taken as the module runs, just before it imports the bundle; then either the
 * frame that paints the element's first update (the first requestAnimationFrame that finds it updated, then a
 * message task: the frame has been painted by then), or the moment the first text input inside the element's shadow
 * roots exists, is enabled and takes focus. Each page measures one of the two, so that the focus check does not move the frame's work.
 */
const PAGE_SCRIPT = String.raw`
const measure = new URLSearchParams(location.search).get('measure');
const start = performance.now();
for (const href of __PRELOAD__) document.head.append(Object.assign(document.createElement('link'), { rel: 'modulepreload', href }));
await import(__BUNDLE__);
const imported = performance.now();
const host = document.body.firstElementChild;

const afterMessage = () => new Promise((resolve) => {
  const channel = new MessageChannel();
  channel.port1.onmessage = () => resolve();
  channel.port2.postMessage(0);
});
const litElements = (node) => {
  const scope = node.shadowRoot ?? node;
  const found = node.shadowRoot ? [node] : [];
  for (const element of scope.querySelectorAll('*')) if (element.shadowRoot) found.push(...litElements(element));
  return found.filter((element) => 'updateComplete' in element);
};
const TEXT_TYPES = new Set(['text', 'email', 'tel', 'number', 'search', 'url', 'password']);
const firstTextInput = (node) => {
  const scope = node.shadowRoot ?? node;
  for (const element of scope.querySelectorAll('*')) {
    if (element.localName === 'input' && TEXT_TYPES.has(element.type)) return element;
    if (element.shadowRoot) {
      const inner = firstTextInput(element);
      if (inner) return inner;
    }
  }
  return undefined;
};
const deepActiveElement = () => {
  let active = document.activeElement;
  while (active?.shadowRoot?.activeElement) active = active.shadowRoot.activeElement;
  return active;
};
const canType = (input) => {
  if (!input || input.disabled || input.readOnly) return false;
  input.focus({ preventScroll: true });
  const focused = deepActiveElement() === input;
  input.blur();
  return focused;
};

let end;
if (measure === 'frame') {
  // The frame that paints the element's first update (not its updateComplete, which <svc-checkout> resolves once its
  // session has loaded): a frame's animation callbacks run before it renders, so the first one that finds the element
  // updated belongs to it. (Waiting for the update with timeouts first, as before, could notice an update that came
  // after the import, an Arabic page's, only once its frame had passed, and count the frame after it.)
  do await new Promise((resolve) => requestAnimationFrame(resolve));
  while (!host.hasUpdated);
  await afterMessage();
  end = performance.now();
} else {
  // The element's first update, then its parts', until the first text input takes focus.
  for (let turn = 0; !host.hasUpdated; turn++) await (turn < 10 ? Promise.resolve() : new Promise((resolve) => setTimeout(resolve)));
  for (;;) {
    if (canType(firstTextInput(host))) break;
    if (performance.now() - start > 10000) throw new Error('no text input became usable within 10 s');
    const pending = litElements(host).filter((element) => element !== host && (!element.hasUpdated || element.isUpdatePending));
    if (pending.length > 0) await Promise.all(pending.map((element) => element.updateComplete));
    else await afterMessage();
  }
  end = performance.now();
}
window.__bench = { imported: imported - start, end: end - start };
`;

/** Lists the custom elements a bundle defines and the CSS rules of each, as the browser parsed them. */
const CSSOM_SCRIPT = String.raw`
const names = [];
const define = customElements.define.bind(customElements);
customElements.define = (name, constructor, options) => {
  names.push(name);
  return define(name, constructor, options);
};
await import(new URLSearchParams(location.search).get('bundle'));
// Every part is defined once an element has loaded its session and its forms (the chunks after the first frame).
document.body.innerHTML = __MARKUP__;
await document.body.firstElementChild.updateComplete;
for (let count = -1; count !== names.length; ) {
  count = names.length;
  await new Promise((resolve) => setTimeout(resolve, 200));
}
const rulesOf = (result) => {
  let sheet = result.styleSheet;
  if (!sheet) {
    sheet = new CSSStyleSheet();
    sheet.replaceSync(result.cssText);
  }
  return [...sheet.cssRules].map((rule) => rule.cssText);
};
window.__bench = names.map((name) => ({ name, sheets: (customElements.get(name).elementStyles ?? []).map(rulesOf) }));
`;

function page(body, script) {
  return `<!doctype html>
<html lang="en">
  <head><meta charset="utf-8"><title>svc-checkout start-up</title></head>
  <body>${body}<script type="module">${script}</script></body>
</html>`;
}

async function serve(files) {
  const misses = [];
  const server = createServer((request, response) => {
    const path = new URL(request.url, 'http://bench.invalid').pathname;
    const file = files[path];
    if (!file) {
      misses.push(`${request.method} ${path}`);
      response.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
      return;
    }
    response.writeHead(200, { 'Content-Type': file.type, 'Cache-Control': 'no-store' }).end(file.body);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, base: `http://127.0.0.1:${server.address().port}`, misses };
}

/** Loads `url` in a new browser context with its cache disabled, and answers what its script left in `window.__bench`. */
export async function load(browser, url) {
  const context = await browser.createBrowserContext();
  try {
    const tab = await context.newPage();
    await tab.setCacheEnabled(false);
    const errors = [];
    tab.on('pageerror', (error) => errors.push(error.message));
    await tab.goto(url, { waitUntil: 'load' });
    const handle = await tab.waitForFunction(() => window.__bench, { timeout: 20_000 }).catch((error) => {
      throw new Error(`${url}: ${errors.join('; ') || error.message}`);
    });
    return await handle.jsonValue();
  } finally {
    await context.close();
  }
}

export async function measureStartUp(row, note, { floor, asWritten }) {
  const js = (body) => ({ type: 'text/javascript; charset=utf-8', body });
  const html = (body) => ({ type: 'text/html; charset=utf-8', body });
  const files = {
    '/floor.js': js(floor),
    '/cssom.html': html(page('', CSSOM_SCRIPT.replace('__MARKUP__', JSON.stringify(ELEMENTS.widget.markup)))),
  };
  // Every script of the CDN build under its own path (the entry imports them relative to itself); the build with the
  // CSS as written under its own folder.
  for (const file of await readdir('dist/cdn', { recursive: true })) if (file.endsWith('.js')) files[`/${file}`] = js(await readFile(`dist/cdn/${file}`));
  for (const [file, contents] of Object.entries(asWritten)) files[`/as-written/${file}`] = js(contents);
  // What a page's first amount costs through Intl, alone: the first Intl.NumberFormat of a page starts ICU (the floor
  // shows no amount; a page in pounds in en or ar writes its amount without Intl, an ar-EG page does not).
  files['/intl.html'] = html(page('', "const start = performance.now(); new Intl.NumberFormat('ar', { style: 'currency', currency: 'EGP' }).format(125); window.__bench = { end: performance.now() - start };"));
  for (const [name, element] of Object.entries(ELEMENTS)) {
    const script = PAGE_SCRIPT.replace('__BUNDLE__', JSON.stringify(element.script)).replace('__PRELOAD__', JSON.stringify(element.preload ?? []));
    files[`/${name}.html`] = html(page(element.markup, script));
  }
  const { server, base, misses } = await serve(files);
  const browser = await puppeteer.launch(BROWSER_OPTIONS);
  try {
    const version = await browser.version();
    // The CSS minified in the CDN build parses to the same rules as the CSS as written.
    const minified = await load(browser, `${base}/cssom.html?bundle=/svc-checkout.js`);
    const written = await load(browser, `${base}/cssom.html?bundle=/as-written/svc-checkout.js`);
    // Chromium keeps a value holding var() as its tokens were written, spaces included; a space after a comma or
    // an opening bracket, before a closing one, or around `*` and `/` in calc() (which, unlike + and -, need none)
    // separates no tokens and is left out of the comparison.
    // By element name: the chunks define their parts in the order they arrive.
    const rulesOf = (elements) => [...elements].sort((a, b) => a.name.localeCompare(b.name)).flatMap(({ name, sheets }) => sheets.flatMap((rules, sheet) => rules.map((rule) => `${name} ${sheet} ${rule}`)));
    const loose = (rule) => rule.replace(/([,(])\s+/g, '$1').replace(/\s+\)/g, ')').replace(/\s*([*/])\s*/g, '$1');
    const [after, before] = [rulesOf(minified), rulesOf(written)];
    const same = after.length === before.length && after.every((rule, index) => loose(rule) === loose(before[index]));
    const spacing = after.filter((rule, index) => rule !== before[index]).length;
    row({
      what: 'CSS rules of the CDN file with css`` minified (Chromium CSSOM)',
      figure: same ? `the same ${after.length} rules (${spacing} spaced differently in var() values)` : 'DIFFERENT rules',
      compared: `CSS as written: ${written.length} elements, ${before.length} rules`,
      target: 'the same rules',
      met: same,
    });

    const kinds = ['widget frame', 'floor frame', 'widget interactive', 'floor interactive', 'arabic frame', 'arabic-unlinked frame'];
    const times = Object.fromEntries(kinds.map((kind) => [kind, []]));
    const imports = Object.fromEntries(Object.keys(ELEMENTS).map((name) => [name, []]));
    for (let run = 0; run < WARM_UP_RUNS + RUNS; run++) {
      // The order turns every run, so that no page always follows the same one.
      for (let index = 0; index < kinds.length; index++) {
        const kind = kinds[(index + run) % kinds.length];
        const [element, measure] = kind.split(' ');
        const result = await load(browser, `${base}/${element}.html?measure=${measure}`);
        if (run < WARM_UP_RUNS) continue;
        times[kind].push(result.end);
        imports[element].push(result.imported);
      }
    }
    const fmt = (values) => `${median(values).toFixed(1)} ms (p90 ${quantile(values, 0.9).toFixed(1)})`;
    note(`\nStart-up in ${version}, headless, ${RUNS} runs of each after ${WARM_UP_RUNS} discarded; a new browser context per page, cache disabled:`);
    row({
      what: 'import of the bundle (fetch, parse, run), median (p90), Chromium',
      figure: fmt(imports.widget),
      compared: `floor ${fmt(imports.floor)}: +${(median(imports.widget) - median(imports.floor)).toFixed(1)} ms`,
    });
    for (const [measure, label] of [
      ['frame', 'start-up to first frame'],
      ['interactive', 'start-up to a form the payer can type in'],
    ]) {
      const widget = times[`widget ${measure}`];
      const floorTimes = times[`floor ${measure}`];
      const difference = median(widget) - median(floorTimes);
      row({
        what: `${label}, median (p90), Chromium`,
        figure: fmt(widget),
        compared: `floor ${fmt(floorTimes)}: ${difference >= 0 ? '+' : ''}${difference.toFixed(1)} ms`,
        target: `≤ floor + ${FRAME_MS} ms`,
        met: difference <= FRAME_MS,
      });
    }
    for (const [kind, label] of [
      ['arabic', 'an Arabic page as the README writes it (its words preloaded)'],
      ['arabic-unlinked', 'an Arabic page without the preload link (its words asked for by the entry)'],
    ]) {
      const arabic = times[`${kind} frame`];
      const arabicDifference = median(arabic) - median(times['floor frame']);
      row({
        what: `start-up to first frame of ${label}, median (p90), Chromium`,
        figure: fmt(arabic),
        compared: `floor ${fmt(times['floor frame'])}: +${arabicDifference.toFixed(1)} ms`,
        target: `≤ floor + ${ARABIC_FRAME_MS} ms`,
        met: arabicDifference <= ARABIC_FRAME_MS,
      });
    }
    const intl = [];
    for (let run = 0; run < RUNS; run++) intl.push((await load(browser, `${base}/intl.html`)).end);
    row({
      what: "ICU's start: a page's first Intl.NumberFormat (Arabic, pounds), alone, median (p90), Chromium",
      figure: fmt(intl),
      compared: 'the floor formats no amount; a page in pounds in en or ar formats without Intl (ar-EG does not)',
    });
    const stray = [...new Set(misses.filter((miss) => !miss.endsWith('/favicon.ico')))];
    note(`  requests the pages made besides the page and the bundle: ${stray.length > 0 ? stray.join(', ') : 'none'}`);
  } finally {
    await browser.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}
