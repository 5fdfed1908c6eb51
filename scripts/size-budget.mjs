// The CDN build's size budget, decided in one place (test/build/size-budget.json): the brotli bytes of its first
// frame (the entry, dist/cdn/svc-checkout.js, and the chunks it imports statically: what a page fetches before the
// form is there), of all its scripts, and of the isolated frame's page, and each module's minified bytes in the first frame when the budget was
// last set, so that a first frame over budget says which modules grew. `node scripts/size-budget.mjs --write`
// records the modules of the current build (the budgets themselves are changed by hand, as a decision);
// test/build/size-budget.test.ts checks them.
import { readFile, writeFile } from 'node:fs/promises';
import { brotliCompressSync } from 'node:zlib';

export const BUDGET_FILE = 'test/build/size-budget.json';
export const CDN_ENTRY = 'dist/cdn/svc-checkout.js';
/** The isolated frame's page (src/isolated-fields): a document of its own, its script and styles inside. */
export const FRAME_PAGE_FILE = 'dist/cdn/svc-checkout-frame.html';

const brotliOf = async (file) => brotliCompressSync(await readFile(file)).length;

/** A chunk's name with its content hash (`chunks/engine-BQKsBd.js`): the hash alone. */
const HASHED = /-([A-Za-z0-9_-]{6})\.js$/;

/**
 * A script's brotli bytes with the chunks' content hashes, wherever it names them, written as `000000`: six
 * characters of hash alone move a file's brotli size by up to ±30 B (a merge that touches any chunk re-rolls them):
 * the budget counts the code, not the dice.
 */
async function scriptBrotliOf(file, hashedNames) {
  let text = await readFile(file, 'utf8');
  for (const name of hashedNames) text = text.replaceAll(name, name.replace(HASHED, '-000000.js'));
  return brotliCompressSync(Buffer.from(text)).length;
}

/** The output files a page fetches before the first frame: the entry and its static imports, transitively. */
export function firstFrameFiles(meta, entry = CDN_ENTRY) {
  const files = new Set();
  const visit = (file) => {
    if (files.has(file)) return;
    files.add(file);
    for (const imported of meta.outputs[file].imports) if (imported.kind === 'import-statement') visit(imported.path);
  };
  visit(entry);
  return [...files];
}

/**
 * The built CDN files: the first frame's brotli bytes and the minified bytes each module put in it (esbuild's
 * metafile), all files' brotli bytes, and the modules of the chunks loaded later.
 */
export async function cdnSizes() {
  const meta = JSON.parse(await readFile('build/cdn.meta.json', 'utf8'));
  const scripts = Object.keys(meta.outputs).filter((file) => file.endsWith('.js'));
  const first = firstFrameFiles(meta);
  const modulesOf = (files) =>
    Object.fromEntries(
      files.flatMap((file) =>
        Object.entries(meta.outputs[file].inputs)
          .filter(([, input]) => input.bytesInOutput > 0)
          .map(([input, { bytesInOutput }]) => [input.replace(/^.*node_modules\//, 'node_modules/'), bytesInOutput]),
      ),
    );
  const hashedNames = scripts.map((file) => file.slice(file.lastIndexOf('/') + 1)).filter((name) => HASHED.test(name));
  let firstFrame = 0;
  for (const file of first) firstFrame += await scriptBrotliOf(file, hashedNames);
  let total = 0;
  for (const file of scripts) total += await scriptBrotliOf(file, hashedNames);
  return {
    firstFrame,
    total,
    frame: await brotliOf(FRAME_PAGE_FILE),
    files: scripts.length,
    modules: modulesOf(first),
    later: modulesOf(scripts.filter((file) => !first.includes(file))),
  };
}

/** The modules that grew since the budget was set, most first: `src/x.ts +1,234 B`. */
export function grownModules(now, then, top = 5) {
  return Object.entries(now)
    .map(([file, bytes]) => [file, bytes - (then[file] ?? 0)])
    .filter(([, grown]) => grown > 0)
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([file, grown]) => `${file} +${grown} B${then[file] === undefined ? ' (new)' : ''}`);
}

if (process.argv.includes('--write')) {
  const budget = JSON.parse(await readFile(BUDGET_FILE, 'utf8'));
  const { firstFrame, total, modules } = await cdnSizes();
  await writeFile(BUDGET_FILE, `${JSON.stringify({ ...budget, recorded: { firstFrameBrotliBytes: firstFrame, totalBrotliBytes: total }, modules }, null, 2)}\n`);
  console.log(`${BUDGET_FILE}: ${Object.keys(modules).length} first-frame modules; first frame ${firstFrame} B brotli (budget ${budget.firstFrameBrotliBytes}), all files ${total} B (budget ${budget.totalBrotliBytes})`);
}
