// The CDN file's size budget, decided in one place (test/build/size-budget.json): its brotli bytes at most,
// and each module's minified bytes in it when the budget was last set, so that a file over budget says which
// modules grew. `node scripts/size-budget.mjs --write` records the modules of the current build (the budget
// itself is changed by hand, as a decision); test/build/size-budget.test.ts checks it.
import { readFile, writeFile } from 'node:fs/promises';
import { brotliCompressSync } from 'node:zlib';

export const BUDGET_FILE = 'test/build/size-budget.json';
const CDN_FILE = 'dist/cdn/svc-checkout.js';

/** The built CDN file: its brotli bytes, and the minified bytes each module put in it (esbuild's metafile). */
export async function cdnSizes() {
  const meta = JSON.parse(await readFile('build/cdn.meta.json', 'utf8'));
  const modules = Object.fromEntries(
    Object.entries(meta.outputs[CDN_FILE].inputs)
      .filter(([, input]) => input.bytesInOutput > 0)
      .map(([file, input]) => [file.replace(/^.*node_modules\//, 'node_modules/'), input.bytesInOutput]),
  );
  return { brotli: brotliCompressSync(await readFile(CDN_FILE)).length, modules };
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
  const { brotli, modules } = await cdnSizes();
  await writeFile(BUDGET_FILE, `${JSON.stringify({ ...budget, recordedBrotliBytes: brotli, modules }, null, 2)}\n`);
  console.log(`${BUDGET_FILE}: ${Object.keys(modules).length} modules, ${brotli} B brotli now, budget ${budget.brotliBytes} B`);
}
