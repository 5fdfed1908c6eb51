// dist/cdn/svc-checkout.js: one self-contained ES module, Lit inside, for <script type="module" src="…">.
// Lit's production build is used (no dev-mode checks), and the CSS inside css`` templates is minified
// (scripts/minify-css-templates.mjs); the options are shared with the bench (scripts/cdn-options.mjs). Its
// metafile (build/, not shipped) lists every input, so that a test can prove no server or sandbox code is inside
// and `npm run bench` can say what the bytes are.
import { build } from 'esbuild';
import { mkdir, writeFile } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';
import { cdnBuildOptions } from './cdn-options.mjs';

const outfile = 'dist/cdn/svc-checkout.js';
const result = await build({
  ...cdnBuildOptions(),
  entryPoints: ['src/element/index.ts'],
  sourcemap: true,
  metafile: true,
  outfile,
  logLevel: 'warning',
});
await mkdir('build', { recursive: true });
await writeFile('build/cdn.meta.json', JSON.stringify(result.metafile, null, 2));
const output = result.metafile.outputs[outfile];
const { readFile } = await import('node:fs/promises');
const bytes = await readFile(outfile);
console.log(`${outfile}: ${output.bytes} bytes, ${gzipSync(bytes, { level: 9 }).length} gzip`);
