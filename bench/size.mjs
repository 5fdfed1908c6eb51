// Size: the CDN file against a one-input Lit element built the same way (the floor), the CDN file with its CSS
// as written (before scripts/minify-css-templates.mjs), and what takes the bytes.
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { pageBundle } from '../scripts/page-bundle.mjs';
import { buildCdn, textBySource } from '../scripts/cdn-build.mjs';
import { cdnSizes, firstFrameFiles } from '../scripts/size-budget.mjs';

const CDN_FILE = 'dist/cdn/svc-checkout.js';
/** What a page fetches before the form is there, brotli: the first frame's target, in bytes. */
export const BROTLI_TARGET_BYTES = 15_000;
/** Every file of the CDN build together, brotli. */
export const ALL_FILES_TARGET_BYTES = 30_000;
/**
 * The isolated fields' page (docs/isolated-fields.md): its own target, the size budget's (5.5 kB brotli since the frame
 * shows the payer what they pay), read from the one place the budget is decided.
 */
export const FRAME_TARGET_BYTES = JSON.parse(readFileSync(new URL('../test/build/size-budget.json', import.meta.url), 'utf8')).frameBrotliBytes;

export const brotli = (bytes) => brotliCompressSync(bytes).length;
export const gzip = (bytes) => gzipSync(bytes, { level: 9 }).length;
export const kB = (bytes) => `${(bytes / 1000).toFixed(1)} kB`;

/** One entry built in memory as the CDN build is built (the floor element imports nothing on demand): its one file. */
async function bundle(entry) {
  return (await buildCdn({ entry })).files['svc-checkout.js'];
}

/** Which part of the package a bundled input belongs to (source maps name Lit's own TypeScript sources). */
function groupOf(path) {
  const input = path.replace(/^(\.\.\/)+/, '');
  if (/node_modules\/@lit\/context\//.test(input)) return '@lit/context';
  if (/node_modules\/(lit|lit-html|lit-element|@lit\/reactive-element)\//.test(input)) return 'lit (lit-html, lit-element, reactive-element)';
  if (input.startsWith('node_modules/')) return `other: ${input.split('/').slice(1, 2).join('/')}`;
  if (input.startsWith('src/core/')) return 'src/core (rules, validator, formats, errors)';
  if (input === 'src/element/i18n/ar.ts') return 'src/element/i18n/ar.ts (Arabic)';
  if (input === 'src/element/i18n/en.ts') return 'src/element/i18n/en.ts (English)';
  if (input.startsWith('src/element/i18n/')) return 'src/element/i18n (registry)';
  if (input === 'src/element/svc-checkout.ts') return 'src/element/svc-checkout.ts (the element)';
  if (/\.styles\.ts$/.test(input)) return 'src/element styles (*.styles.ts)';
  if (input.startsWith('src/element/parts/')) return 'src/element/parts (forms, steps)';
  if (input.startsWith('src/element/controllers/')) return 'src/element/controllers (poller, countdown, localize)';
  if (input.startsWith('src/element/events/')) return 'src/element/events';
  if (input.startsWith('src/element/')) return 'src/element (config, fields, endpoint client, session)';
  return input;
}

/** The output text attributed to each group, through the source map: the basis of the brotli estimate. */
function textByGroup(code, map) {
  const texts = new Map();
  for (const [source, text] of textBySource(code, map)) {
    const group = source === undefined ? 'bundler glue (unmapped)' : groupOf(source);
    texts.set(group, (texts.get(group) ?? '') + text);
  }
  return texts;
}

export async function measureSize(row, note) {
  const meta = JSON.parse(await readFile('build/cdn.meta.json', 'utf8'));
  const first = firstFrameFiles(meta);
  const shipped = Buffer.concat(await Promise.all(first.map((file) => readFile(file))));
  const floor = await bundle('bench/floor/floor-element.ts');
  const written = await buildCdn({ minifyCss: false });
  const asWritten = written.files;
  const writtenFirst = Buffer.concat(firstFrameFiles(written.meta).map((file) => asWritten[file.slice('dist/cdn/'.length)]));
  const budget = await cdnSizes();
  const sum = (values) => values.reduce((total, value) => total + value, 0);
  const sizes = {
    // The first frame: each file compressed on its own, as a server sends it.
    shipped: { raw: shipped.length, gzip: sum(await Promise.all(first.map(async (file) => gzip(await readFile(file))))), brotli: budget.firstFrame },
    floor: { raw: floor.length, gzip: gzip(floor), brotli: brotli(floor) },
    asWritten: { raw: writtenFirst.length, gzip: gzip(writtenFirst), brotli: brotli(writtenFirst) },
  };
  const { shipped: s, floor: f, asWritten: w } = sizes;
  row({
    what: `first frame: ${CDN_FILE}${first.length > 1 ? ` and the ${first.length - 1} chunks it imports statically` : ', one file (no chunk before the form)'}, brotli`,
    figure: `${kB(s.brotli)} (${s.brotli} B)`,
    compared: `floor ${kB(f.brotli)} (${f.brotli} B): ${(s.brotli / f.brotli).toFixed(1)}×`,
    target: `≤ ${kB(BROTLI_TARGET_BYTES)}`,
    met: s.brotli <= BROTLI_TARGET_BYTES,
  });
  row({
    what: `all ${budget.files} files of dist/cdn (both languages, every step), brotli`,
    figure: `${kB(budget.total)} (${budget.total} B)`,
    compared: `first frame ${kB(s.brotli)}; loaded after it ${kB(budget.total - s.brotli)}`,
    target: `≤ ${kB(ALL_FILES_TARGET_BYTES)}`,
    met: budget.total <= ALL_FILES_TARGET_BYTES,
  });
  row({
    what: 'the isolated fields\' page (dist/cdn/svc-checkout-frame.html: its script and styles inside), brotli',
    figure: `${kB(budget.frame)} (${budget.frame} B)`,
    compared: 'loaded when Bank account is chosen, or a code step opens; never in the first frame',
    target: `≤ ${kB(FRAME_TARGET_BYTES)}`,
    met: budget.frame <= FRAME_TARGET_BYTES,
  });
  row({
    what: 'first frame, gzip -9',
    figure: `${kB(s.gzip)} (${s.gzip} B)`,
    compared: `floor ${kB(f.gzip)} (${f.gzip} B): ${(s.gzip / f.gzip).toFixed(1)}×`,
  });
  row({
    what: 'first frame, minified',
    figure: `${kB(s.raw)} (${s.raw} B)`,
    compared: `floor ${kB(f.raw)} (${f.raw} B): ${(s.raw / f.raw).toFixed(1)}×`,
  });
  row({
    what: 'CSS of css`` templates minified (the first frame): minified',
    figure: `${s.raw} B`,
    compared: `CSS as written ${w.raw} B: ${s.raw - w.raw} B (${(((s.raw - w.raw) / w.raw) * 100).toFixed(1)} %)`,
  });

  // What takes the first frame's bytes: minified bytes through the build's source maps; brotli bytes estimated by
  // compressing each group's output text alone (found through the source maps) and sharing the first frame's
  // brotli size in proportion, since a compressed byte belongs to no one input.
  const minified = new Map();
  const texts = new Map();
  for (const file of first) {
    for (const [input, { bytesInOutput }] of Object.entries(meta.outputs[file].inputs)) {
      minified.set(groupOf(input), (minified.get(groupOf(input)) ?? 0) + bytesInOutput);
    }
    const map = JSON.parse(await readFile(`${file}.map`, 'utf8'));
    for (const [group, text] of textByGroup((await readFile(file)).toString('utf8'), map)) texts.set(group, (texts.get(group) ?? '') + text);
  }
  const alone = new Map([...texts].map(([group, text]) => [group, brotli(Buffer.from(text))]));
  const aloneTotal = [...alone.values()].reduce((total, bytes) => total + bytes, 0);
  const groups = [...new Set([...minified.keys(), ...alone.keys()])]
    .map((group) => ({ group, minified: minified.get(group) ?? 0, brotli: ((alone.get(group) ?? 0) * s.brotli) / aloneTotal }))
    .sort((a, b) => b.brotli - a.brotli);
  note(`\nWhat takes the bytes of the first frame (${first.join(', ')}: ${s.raw} B minified, ${s.brotli} B brotli):`);
  note(`  ${'part'.padEnd(56)} ${'minified'.padStart(9)} ${'share'.padStart(6)} ${'brotli (est.)'.padStart(14)}`);
  for (const { group, minified: bytes, brotli: estimate } of groups) {
    if (bytes === 0 && estimate < 1) continue;
    const share = `${((bytes / s.raw) * 100).toFixed(0)} %`;
    note(`  ${group.padEnd(56)} ${`${bytes} B`.padStart(9)} ${share.padStart(6)} ${`${Math.round(estimate)} B`.padStart(14)}`);
  }
  note('  (minified: through the source maps, exact; brotli: each part compressed alone, scaled to the first frame)');
  const top = groups.slice(0, 3).map(({ group, brotli: estimate }) => `${group.replace(/ \(.*$/, '')} ${(estimate / 1000).toFixed(1)} kB`);
  row({ what: 'largest parts of the first frame, brotli (estimated)', figure: top.join('; '), compared: 'see the list above the table' });

  // Tree-shaking (the npm build, as a merchant's bundler makes a page of it): the headless session alone.
  const lit = (files) => files.filter((file) => /(^|\/)(lit|lit-html|lit-element|@lit)\//.test(file)).length;
  const sessionPage = await pageBundle("import { CheckoutSession } from 'svc-checkout/checkout'; new CheckoutSession();");
  const elementPage = await pageBundle("import 'svc-checkout';");
  row({
    what: 'a page with only the headless session (svc-checkout/checkout), brotli',
    figure: `${kB(sessionPage.brotli)}; files of Lit in it: ${lit(sessionPage.files)}`,
    compared: `a page with the element (svc-checkout): ${kB(elementPage.brotli)}, files of Lit: ${lit(elementPage.files)}`,
    target: 'no Lit',
    met: lit(sessionPage.files) === 0,
  });
  return { sizes, floor, asWritten };
}
