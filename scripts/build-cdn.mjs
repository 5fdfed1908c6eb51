// dist/cdn/: the element as ES modules for <script type="module" src=".../svc-checkout.js">, Lit inside. The entry
// holds the first frame (the shell, the method picker, the forms, English); it imports the rest on demand, relative
// to itself (dist/cdn/chunks/): the session and the steps once the first frame is painted, Arabic when a page
// speaks it. One script tag still works, from any origin the page allows scripts from (`default-src 'self'`).
// Lit's production build is used (no dev-mode checks), and the CSS inside css`` templates is minified
// (scripts/minify-css-templates.mjs); the options are shared with the bench (scripts/cdn-options.mjs). Its
// metafile (build/, not shipped) lists every input and output, so that a test can prove no server or sandbox
// code is inside, and the size budget (scripts/size-budget.mjs) can say what the first frame fetches.
import { build } from 'esbuild';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { brotliCompressSync } from 'node:zlib';
import { cdnBuildOptions } from './cdn-options.mjs';

const outdir = 'dist/cdn';
await rm(outdir, { recursive: true, force: true });
const result = await build({
  ...cdnBuildOptions(),
  entryPoints: { 'svc-checkout': 'src/element/index.ts' },
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  sourcemap: true,
  metafile: true,
  outdir,
  logLevel: 'warning',
});
await mkdir('build', { recursive: true });
await writeFile('build/cdn.meta.json', JSON.stringify(result.metafile, null, 2));
for (const file of Object.keys(result.metafile.outputs).filter((file) => file.endsWith('.js'))) {
  console.log(`${file}: ${result.metafile.outputs[file].bytes} bytes, ${brotliCompressSync(await readFile(file)).length} brotli`);
}
