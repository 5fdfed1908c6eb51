// How the CDN build is made, shared by scripts/build-cdn.mjs and by `npm run bench` (which builds its floor element,
// bench/floor/, and the CDN build with its CSS as written the same way). Rollup bundles, because it keeps what the
// entry already holds inside the entry: a chunk loaded on demand imports Lit and the shared code from the entry
// (`../svc-checkout.js`), so the first frame is one file, one request, with no shared chunk to wait for. esbuild
// turns each TypeScript module into JavaScript; terser minifies each output file. Lit's production build is used (no
// `development` condition), and the text of our css`` and html`` templates is minified (scripts/minify-css-templates.mjs).
import { nodeResolve } from '@rollup/plugin-node-resolve';
import { transform } from 'esbuild';
import { readFile } from 'node:fs/promises';
import { dirname, relative, resolve } from 'node:path';
import { rollup } from 'rollup';
import { minify as terser } from 'terser';
import { decodedMappings, TraceMap } from '@jridgewell/trace-mapping';
import MagicString from 'magic-string';
import { cssTemplateEdits, htmlTemplateEdits } from './minify-css-templates.mjs';

const TARGET = 'es2022';

/**
 * Where Arabic's words go, and the module they are built from. A page in Arabic preloads the file
 * (`<link rel="modulepreload" href=".../svc-checkout-ar.js">`), so that the words arrive while the entry does,
 * rather than after it has run; the README says so.
 */
export const ARABIC_FILE = 'svc-checkout-ar.js';
const ARABIC_SOURCE = '/src/element/i18n/ar.ts';
const isArabic = (chunk) => chunk.facadeModuleId?.replaceAll('\\', '/').endsWith(ARABIC_SOURCE) ?? false;

/** The session's chunk: what the element fetches once its first frame is painted (src/element/engine.ts). */
const SESSION_SOURCE = '/src/element/engine.ts';

/**
 * The chunks as Rollup would cut them, but one: the session's chunk takes in every chunk it imports statically (the
 * isolated frame's host, the payer fields' table), which a browser fetches with it whenever it fetches it, and then
 * each chunk the entry fetches that imports one of those (the bank account and reference code forms), which could
 * not run before it came and which the element fetches ahead at the same moment (controllers/checkout.ts,
 * fetchAfterPaint); without the session no form is sent anyway. One file compresses better than several (brotli's
 * window spans them, and no chunk names another's exports), and costs one request. A chunk the Arabic file imports
 * too (the wording of a wait) stays apart: a page in Arabic preloads that file beside the entry, and must not fetch
 * the session with it; so does a chunk the session fetches only on demand (the offer to pay elsewhere). The entry
 * keeps exactly what Rollup put in it, and every other chunk too (each named here, so that none of its modules
 * follows a dependency into the session's chunk).
 */
function sessionLayout(natural) {
  const chunks = natural.filter((chunk) => chunk.type === 'chunk');
  const session = chunks.find((chunk) => chunk.facadeModuleId?.replaceAll('\\', '/').endsWith(SESSION_SOURCE));
  const entry = chunks.find((chunk) => chunk.isEntry);
  // A build without the session (the bench's floor element, bench/floor/) keeps Rollup's layout.
  if (!session) return undefined;
  if (!entry) throw new Error('the CDN build has no entry');
  const arabic = new Set(chunks.filter(isArabic).flatMap((chunk) => chunk.imports));
  const merged = [session, ...chunks.filter((chunk) => session.imports.includes(chunk.fileName) && chunk !== entry && !arabic.has(chunk.fileName))];
  // Then each chunk the entry fetches that imports one of those, and so could not run before the session's chunk
  // came (the bank account and reference code forms, which the element fetches ahead at the same moment).
  const inSession = (file) => merged.some((chunk) => chunk.fileName === file);
  const joins = (chunk) => !merged.includes(chunk) && entry.dynamicImports.includes(chunk.fileName) && !isArabic(chunk) && chunk.imports.some(inSession);
  for (let joining = chunks.filter(joins); joining.length > 0; joining = chunks.filter(joins)) merged.push(...joining);
  const place = new Map();
  for (const chunk of chunks) {
    const name = merged.includes(chunk) ? session.name : chunk.name;
    if (!merged.includes(chunk) && chunks.some((other) => other !== chunk && other.name === chunk.name)) throw new Error(`two chunks named ${chunk.name}`);
    for (const id of Object.keys(chunk.modules)) place.set(id, name);
  }
  return (id) => place.get(id);
}

/**
 * Our own modules' templates made smaller as written: the CSS of css`` templates minified, the indentation of html``
 * templates one space (scripts/minify-css-templates.mjs). With a source map of its own, which Rollup composes with
 * the next step's: the lines these edits join would otherwise shift every position after them.
 */
function templates({ minifyCss }) {
  return {
    name: 'templates',
    transform(code, id) {
      if (!id.endsWith('.ts') || id.includes('/node_modules/')) return null;
      const edits = [...(minifyCss ? cssTemplateEdits(code) : []), ...htmlTemplateEdits(code)];
      if (edits.length === 0) return null;
      const text = new MagicString(code);
      for (const edit of edits) text.overwrite(edit.from, edit.to, edit.text);
      return { code: text.toString(), map: text.generateMap({ hires: true, source: id, includeContent: true }) };
    },
  };
}

/** TypeScript to JavaScript, module by module. */
function typescript() {
  return {
    name: 'typescript',
    async transform(code, id) {
      if (!id.endsWith('.ts') || id.includes('/node_modules/')) return null;
      const result = await transform(code, { loader: 'ts', target: TARGET, sourcefile: id, sourcemap: true });
      return { code: result.code, map: result.map };
    },
  };
}

// Licence comments (a bang comment, or one saying @license), each once.
function licences(code) {
  const comments = code.match(/\/\*[\s\S]*?\*\//g) ?? [];
  return [...new Set(comments.filter((comment) => comment.startsWith('/*!') || comment.includes('@license')))];
}

/** The licences of what a build bundles, in the file that sits beside its scripts. */
const LICENCES_FILE = 'LICENCES.txt';

/**
 * Each output file minified whole by terser (two passes of its compressor: a few per cent smaller than esbuild's
 * minifier here, which counts against a 15 kB first frame). The licence comments of the modules it bundles go to
 * `LICENCES.txt` beside the scripts (once each), and the file names it at its end.
 */
/** V8's explicit compile hint for a whole file: its first line. */
export const COMPILE_HINT = '//# allFunctionsCalledOnLoad';

function minify(notices) {
  return {
    name: 'minify',
    async renderChunk(code, chunk) {
      // The entry holds what the first frame runs: V8 (Chrome 136 on) compiles every function of a file that opens
      // with this comment while the file streams in, off the main thread, instead of each at its first call on it.
      const format = { comments: false, ...(chunk.isEntry ? { preamble: COMPILE_HINT } : {}) };
      const result = await terser(code, { module: true, ecma: 2020, compress: { passes: 2 }, mangle: true, format, sourceMap: { asObject: true } });
      const found = licences(code);
      for (const notice of found) notices.set(notice, [...(notices.get(notice) ?? []), chunk.fileName]);
      return { code: found.length > 0 ? `${result.code}\n/*! licences: ${LICENCES_FILE} */` : result.code, map: result.map };
    },
  };
}

/** The output text each source of a file's map produced (unmapped text under `undefined`). */
export function textBySource(code, map) {
  const texts = new Map();
  const add = (source, text) => texts.set(source, (texts.get(source) ?? '') + text);
  const lines = code.split('\n');
  decodedMappings(new TraceMap(map)).forEach((marks, lineIndex) => {
    const line = lines[lineIndex] ?? '';
    if (marks.length === 0 || marks[0][0] > 0) add(undefined, line.slice(0, marks[0]?.[0] ?? line.length));
    marks.forEach(([column, source], index) => {
      const end = marks[index + 1]?.[0] ?? line.length;
      add(source === undefined ? undefined : map.sources[source], line.slice(column, end));
    });
  });
  return texts;
}

/**
 * Builds an entry as the CDN build is built: `svc-checkout.js` and `chunks/…`, in memory. Returns the files by path
 * relative to `outdir` (each `.js` with its `.js.map`), and a description in the shape of esbuild's metafile, paths
 * relative to the project: every input, and for each output its bytes, its imports (`import-statement` or
 * `dynamic-import`) and the minified bytes each input put in it (through the source map).
 */
export async function buildCdn({ entry = 'src/element/cdn.ts', outdir = 'dist/cdn', minifyCss = true } = {}) {
  const notices = new Map();
  const bundle = await rollup({
    input: { 'svc-checkout': entry },
    // The entry may export more than its own names: the bindings its chunks take from it.
    preserveEntrySignatures: 'allow-extension',
    plugins: [nodeResolve({ browser: true, extensions: ['.ts', '.js'] }), templates({ minifyCss }), typescript()],
    onwarn(warning, warn) {
      // Lit's modules say `this` at the top level of a module; Rollup reads it as undefined, as a browser does.
      if (warning.code !== 'THIS_IS_UNDEFINED') warn(warning);
    },
  });
  const options = {
    dir: outdir,
    format: 'es',
    entryFileNames: '[name].js',
    // Each chunk's name carries its content's hash (a site may keep it for good: a new entry never meets an old
    // chunk); six characters, not Rollup's eight: the entry names every chunk, and brotli cannot shrink a hash.
    // Arabic's words are the exception: a page writes their address in a preload link, so it stays the same from
    // one version to the next, beside the entry, whose name does not change either (ARABIC_FILE); a site serving a
    // fixed path revalidates both (README, "From a CDN").
    chunkFileNames: (chunk) => (isArabic(chunk) ? ARABIC_FILE : 'chunks/[name]-[hash:6].js'),
    sourcemap: true,
  };
  // Rollup's own layout first, in memory; then the session's chunk takes in what always comes with it (sessionLayout).
  const { output: natural } = await bundle.generate(options);
  const { output } = await bundle.generate({ ...options, manualChunks: sessionLayout(natural), plugins: [minify(notices)] });
  await bundle.close();
  const project = process.cwd();
  const files = {};
  const meta = { inputs: {}, outputs: {} };
  for (const chunk of output) {
    if (chunk.type !== 'chunk') continue;
    const code = chunk.code; // it ends with its sourceMappingURL comment
    files[chunk.fileName] = Buffer.from(code);
    files[`${chunk.fileName}.map`] = Buffer.from(chunk.map.toString());
    const fromFile = (source) => relative(project, resolve(project, outdir, dirname(chunk.fileName), source));
    const inputs = {};
    for (const [source, text] of textBySource(chunk.code, chunk.map)) {
      if (source === undefined) continue;
      const input = fromFile(source);
      inputs[input] = { bytesInOutput: (inputs[input]?.bytesInOutput ?? 0) + Buffer.byteLength(text) };
    }
    for (const id of Object.keys(chunk.modules)) meta.inputs[relative(project, id)] = {};
    meta.outputs[`${outdir}/${chunk.fileName}`] = {
      bytes: Buffer.byteLength(code),
      imports: [
        ...chunk.imports.map((path) => ({ path: `${outdir}/${path}`, kind: 'import-statement' })),
        ...chunk.dynamicImports.map((path) => ({ path: `${outdir}/${path}`, kind: 'dynamic-import' })),
      ],
      inputs,
    };
  }
  if (notices.size > 0) files[LICENCES_FILE] = Buffer.from(await licencesText(notices, output));
  return { files, meta };
}

/** The isolated frame's page, beside the entry (src/isolated-fields/frame.html): fixed, as the element asks for it by name. */
export const FRAME_FILE = 'svc-checkout-frame.html';

/**
 * The isolated frame's page: its template with its styles and its one script inline (src/isolated-fields). A classic
 * script, not a module: a document of an opaque origin would fetch a module in CORS mode, and inline it costs no
 * second request; the kit's Content-Security-Policy names the script and the styles by their hashes
 * (src/server/element/element-files.ts). Nothing of the element is in it, nor of it in the element's files.
 */
export async function buildFrame() {
  const bundle = await rollup({
    input: 'src/isolated-fields/frame.ts',
    plugins: [nodeResolve({ browser: true, extensions: ['.ts', '.js'] }), typescript()],
  });
  const { output } = await bundle.generate({ format: 'iife' });
  await bundle.close();
  const script = (await terser(output[0].code, { ecma: 2020, compress: { passes: 2 }, mangle: true, format: { comments: false } })).code;
  const css = (await readFile('src/isolated-fields/frame.css', 'utf8'))
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/\s+/g, ' ')
    .replace(/\s*([{}:;,>])\s*/g, '$1')
    .replace(/;}/g, '}')
    .trim();
  const template = await readFile('src/isolated-fields/frame.html', 'utf8');
  // Inserted by function: `$` in the script is not a replacement pattern. `</` never closes the element early.
  const html = template
    .replace('/* frame.css */', () => css)
    .replace('/* frame.ts */', () => script.replaceAll('</', '<\\/'))
    .replace(/>\s+</g, '><')
    .trim();
  return { html: Buffer.from(`${html}\n`), script };
}

/** LICENCES.txt: each notice and the files it was in, then the licence of each bundled package, whole. */
async function licencesText(notices, output) {
  const packages = new Map();
  for (const chunk of output) {
    if (chunk.type !== 'chunk') continue;
    for (const id of Object.keys(chunk.modules)) {
      const root = /^(.*\/node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(id)?.[1];
      if (root && !packages.has(root)) packages.set(root, JSON.parse(await readFile(`${root}/package.json`, 'utf8')));
    }
  }
  const texts = new Map();
  for (const [root, { name, version }] of packages) {
    // Grouped by their words: the same licence with or without a last line break is one.
    const text = (await readFile(`${root}/LICENSE`, 'utf8').catch(() => '')).trim();
    if (text) texts.set(text, [...(texts.get(text) ?? []), `${name} ${version}`]);
  }
  return [
    'The code bundled in these files, with its licence notices. svc-checkout itself: MIT (its package.json).',
    ...[...notices].map(([notice, files]) => `In ${files.join(', ')}:\n${notice}`),
    ...[...texts].map(([text, names]) => `The licence of ${names.join(', ')}:\n\n${text}`),
  ].join('\n\n') + '\n';
}
