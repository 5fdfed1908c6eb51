// dist/cdn/: the element as ES modules for <script type="module" src=".../svc-checkout.js">, Lit inside. The entry
// holds the first frame (the shell, the method picker, the POS form, English form words) and everything the
// chunks share; it imports the rest on demand, relative to itself: from dist/cdn/chunks/ the session, the steps and
// the other forms, one file (cdn-build.mjs, sessionLayout), once the first frame is painted or another method is
// chosen; Arabic's words, when a page speaks it,
// from dist/cdn/svc-checkout-ar.js beside it (a fixed name, for a page's preload link). One
// script tag still works, from any origin the page allows scripts from (`default-src 'self'`). How it is built:
// scripts/cdn-build.mjs. Its description (build/cdn.meta.json, not shipped) lists every input and output, so that a
// test can prove no server or sandbox code is inside, and the size budget (scripts/size-budget.mjs) can say what
// the first frame fetches.
import { copyFile, mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { brotliCompressSync } from 'node:zlib';
import { buildCdn, buildFrame, FRAME_FILE } from './cdn-build.mjs';
import { precompress } from './precompress.mjs';

const outdir = 'dist/cdn';
// Written into the folder being built (scripts/build.mjs), which then becomes dist/; named as in dist/.
const writeDir = `${process.env.SVC_BUILD_DIR ?? 'dist'}/cdn`;
await rm(writeDir, { recursive: true, force: true });
const { files, meta } = await buildCdn({ outdir });
for (const [file, contents] of Object.entries(files)) {
  await mkdir(dirname(`${writeDir}/${file}`), { recursive: true });
  await writeFile(`${writeDir}/${file}`, contents);
  if (file.endsWith('.js')) console.log(`${outdir}/${file}: ${contents.length} bytes, ${brotliCompressSync(contents).length} brotli`);
}
// The isolated frame's page (src/isolated-fields), one file with its script and styles inside.
const frame = await buildFrame();
await writeFile(`${writeDir}/${FRAME_FILE}`, frame.html);
console.log(`${outdir}/${FRAME_FILE}: ${frame.html.length} bytes, ${brotliCompressSync(frame.html).length} brotli`);
// What holds the element's place until its script has run and painted: CSS of the page (no dir yet), not of the
// element, so none of it is in the first frame.
await copyFile('src/element/svc-checkout.css', `${writeDir}/svc-checkout.css`);
// Last, once every file is there: each text file's brotli and gzip copies beside it, which the kit sends as they are.
const copies = await precompress(writeDir);
console.log(`${outdir}: ${copies.length} compressed copies (.br, .gz) beside its files`);
await mkdir('build', { recursive: true });
await writeFile('build/cdn.meta.json', JSON.stringify(meta, null, 2));
