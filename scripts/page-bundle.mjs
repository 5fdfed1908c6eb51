// What a merchant's bundler makes of a page that imports part of the package by its public names
// (`svc-checkout/checkout`…), as it resolves them from node_modules: esbuild, minified, tree-shaken under the
// package's `sideEffects`. Used by the bench (the size of a page with the headless session only) and by
// test/build/tree-shaking.test.ts (what such a page pulls in).
import { brotliCompressSync } from 'node:zlib';
import { build } from 'esbuild';

const root = new URL('../', import.meta.url).pathname;

/** Bundles `code` (an ES module importing the package) as a page would; its bytes and the files in them. */
export async function pageBundle(code) {
  const result = await build({
    stdin: { contents: code, resolveDir: root, sourcefile: 'page.mjs', loader: 'js' },
    bundle: true,
    format: 'esm',
    minify: true,
    write: false,
    metafile: true,
    logLevel: 'silent',
    platform: 'browser',
  });
  const bytes = result.outputFiles[0].contents;
  const [output] = Object.values(result.metafile.outputs);
  // Only the files that put bytes into the output: what tree-shaking left.
  const files = Object.entries(output.inputs)
    .filter(([, input]) => input.bytesInOutput > 0)
    .map(([file]) => file);
  return { minified: bytes.length, brotli: brotliCompressSync(bytes).length, files };
}
