// Builds a test app (test/apps/<name>/, an index.html, its sources and a vite.config.ts of its own) with Vite, as
// the shop would with `vite build`, and keeps the output in memory: { 'index.html': {body, type}, 'assets/…': … }.
import { fileURLToPath } from 'node:url';
import { build } from 'vite';

const here = fileURLToPath(new URL('.', import.meta.url));

const TYPES = { html: 'html', js: 'js', css: 'css', map: 'json' };

/** @returns {Promise<Map<string, { body: string | Uint8Array, type: string }>>} */
export async function buildApp(name) {
  const root = `${here}${name}`;
  const output = await build({
    root,
    configFile: `${root}/vite.config.ts`,
    logLevel: 'warn',
    build: { write: false, minify: false, sourcemap: false, reportCompressedSize: false },
  });
  const files = new Map();
  for (const result of Array.isArray(output) ? output : [output]) {
    for (const file of result.output) {
      const body = file.type === 'chunk' ? file.code : file.source;
      files.set(file.fileName, { body, type: TYPES[file.fileName.split('.').pop()] ?? 'application/octet-stream' });
    }
  }
  return files;
}
