// The CDN file is the element alone: Lit inside, no bare import, and nothing of the kit or the sandbox.
import { readdir, readFile } from 'node:fs/promises';
import { originalPositionFor, TraceMap } from '@jridgewell/trace-mapping';
import { DEFAULT_MERCHANT } from '../../src/sandbox/index.js';
import { beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error a plain JavaScript module without types
import { COMPILE_HINT } from '../../scripts/cdn-build.mjs';
// @ts-expect-error a plain JavaScript module without types
import { assertDistFresh } from '../../scripts/dist-is-fresh.mjs';

// These run the built package: never an old one.
beforeAll(() => assertDistFresh());

const root = new URL('../../', import.meta.url).pathname;

/** Every script of the CDN build: the entry and its chunks. */
async function cdnFiles(): Promise<string[]> {
  const entries = await readdir(`${root}dist/cdn`, { recursive: true });
  return entries.map(String).filter((entry) => entry.endsWith('.js')).map((entry) => `dist/cdn/${entry}`);
}

describe('dist/cdn/svc-checkout.js', () => {
  it('is built from the element, the session, the isolated frame\'s page side, core and Lit only', async () => {
    const meta = JSON.parse(await readFile(`${root}build/cdn.meta.json`, 'utf8'));
    const inputs = Object.keys(meta.inputs);
    expect(inputs.filter((input) => /src\/(server|sandbox|react)\//.test(input))).toEqual([]);
    expect(inputs.filter((input) => input.startsWith('src/')).every((input) => /^src\/(element|checkout|isolated-fields|core)\//.test(input))).toBe(true);
    // The frame's own script is its page's, never the element's.
    expect(inputs).not.toContain('src/isolated-fields/frame.ts');
    expect(inputs.some((input) => input.includes('node_modules/lit-html/'))).toBe(true);
    expect(inputs.some((input) => input.includes('/development/'))).toBe(false);
  });

  it('imports only its own chunks, relative to itself, and holds no server-side code', async () => {
    const files = await cdnFiles();
    expect(files.length).toBeGreaterThan(3);
    for (const file of files) {
      const text = await readFile(`${root}${file}`, 'utf8');
      // No bare import (a page has no import map), no absolute URL: every import is a file beside it.
      expect(text, file).not.toMatch(/\bimport\s*(?:[\w{}*\s,]+from\s*)?["'](?!\.\.?\/)/);
      expect(text, file).not.toMatch(/\bimport\(\s*["'](?!\.\.?\/)/);
      expect(text, file).not.toMatch(/node:|createHmac|subtle\.sign|svc-sandbox|createSandbox|MerchantId/);
    }
    expect(await readFile(`${root}dist/cdn/svc-checkout.js`, 'utf8')).toMatch(/customElements\.define\(\s*["']svc-checkout["']/);
  });

  it('puts Arabic\'s words at a name of their own beside the entry, which a page can preload: the entry imports that name', async () => {
    const files = await cdnFiles();
    // Every other file but the entry is named by its content's hash.
    expect(files.filter((file) => !/^dist\/cdn\/chunks\/[\w-]+-[\w-]{6}\.js$/.test(file)).sort()).toEqual(['dist/cdn/svc-checkout-ar.js', 'dist/cdn/svc-checkout.js']);
    expect(await readFile(`${root}dist/cdn/svc-checkout.js`, 'utf8')).toContain('import("./svc-checkout-ar.js")');
    expect(await readFile(`${root}dist/cdn/svc-checkout-ar.js`, 'utf8')).toContain('ادفع');
  });

  it('fetches the session as one file with what always comes with it, and Arabic without the session', async () => {
    const meta = JSON.parse(await readFile(`${root}build/cdn.meta.json`, 'utf8'));
    const outputs = meta.outputs as Record<string, { imports: { path: string; kind: string }[]; inputs: Record<string, unknown> }>;
    const holding = (module: string) => Object.keys(outputs).filter((file) => module in outputs[file]!.inputs);
    const [session] = holding('src/checkout/session.ts');
    expect(session).toMatch(/^dist\/cdn\/chunks\/engine-[\w-]{6}\.js$/);
    // The isolated frame's host and the payer fields' table are in it, not in chunks of their own fetched beside it;
    // so are the forms the element fetches ahead with it, which need them.
    const within = [
      'src/isolated-fields/host.ts',
      'src/element/controllers/isolated-frame.ts',
      'src/checkout/fields.ts',
      'src/element/parts/bank-account-form/bank-account-form.ts',
      'src/element/parts/reference-code-form/reference-code-form.ts',
    ];
    for (const module of within) expect(holding(module), module).toEqual([session]);
    // What the session fetches on demand stays apart: the offer to pay elsewhere.
    expect(holding('src/element/parts/pay-elsewhere/pay-elsewhere.ts')).not.toContain(session);
    // What it imports statically: the entry, and only what the Arabic file imports too.
    const statics = (file: string) => outputs[file]!.imports.filter((entry) => entry.kind === 'import-statement').map((entry) => entry.path);
    const arabic = statics('dist/cdn/svc-checkout-ar.js');
    expect(arabic).not.toContain(session);
    expect(statics(session!).filter((file) => file !== 'dist/cdn/svc-checkout.js' && !arabic.includes(file))).toEqual([]);
  });

  it('leaves the rules of a checkout token\'s claims to the kit, which checked them when it signed the token', async () => {
    // The words of two of those rules (src/core/tokens.ts): the browser reads the claims in the shape it shows them.
    for (const file of await cdnFiles()) {
      const text = await readFile(`${root}${file}`, 'utf8');
      expect(text, file).not.toContain('unix seconds');
      expect(text, file).not.toContain('must be at most attempts');
    }
  });

  it('opens with V8\'s compile hint, and only the entry does: its chunks hold code the first frame does not run', async () => {
    for (const file of await cdnFiles()) {
      const firstLine = (await readFile(`${root}${file}`, 'utf8')).split('\n', 1)[0];
      expect(firstLine === COMPILE_HINT, file).toBe(file === 'dist/cdn/svc-checkout.js');
    }
  });

  it('holds no private key: searched in the CDN file and in every module a browser loads', async () => {
    const browserFiles = await cdnFiles();
    for (const folder of ['dist/element', 'dist/core', 'dist/react']) {
      for (const entry of await readdir(`${root}${folder}`, { recursive: true })) {
        if (String(entry).endsWith('.js')) browserFiles.push(`${folder}/${entry}`);
      }
    }
    expect(browserFiles.length).toBeGreaterThan(20);
    for (const file of browserFiles) {
      const text = await readFile(`${root}${file}`, 'utf8');
      expect(text, file).not.toContain(DEFAULT_MERCHANT.privateKey);
      expect(text, file).not.toMatch(/private-key-|privateKey\s*[:=]\s*["'`][^"'`]/);
    }
  });
});

describe('the CDN build\'s source maps', () => {
  // Text after a template whose lines the build joined (html`` indentation, css`` minified): each names the line it
  // was written on.
  const marks = [
    ['src/element/svc-checkout.ts', "hasAttribute('dir')"],
    ['src/element/parts/bank-account-form/bank-account-form.ts', "'svc-bank-account-form'"],
    ['src/element/parts/steps.ts', "'config-error'"],
    ['src/element/parts/reference-code-form/reference-code-form.ts', "'svc-reference-code-form'"],
  ] as const;

  it.each(marks)('maps %s back to the line it was written on', async (source, text) => {
    const lines = (await readFile(`${root}${source}`, 'utf8')).split('\n');
    const written = lines.findIndex((line) => line.includes(text));
    expect(lines.filter((line) => line.includes(text)), `${text} once in ${source}`).toHaveLength(1);
    const traced = [];
    for (const file of await cdnFiles()) {
      const code = await readFile(`${root}${file}`, 'utf8');
      const map = new TraceMap(await readFile(`${root}${file}.map`, 'utf8'));
      for (let at = code.indexOf(text.replaceAll("'", '"')); at >= 0; at = code.indexOf(text.replaceAll("'", '"'), at + 1)) {
        const before = code.slice(0, at).split('\n');
        const position = originalPositionFor(map, { line: before.length, column: before.at(-1)!.length });
        if (position.source?.endsWith(source)) traced.push(position.line);
        // Elsewhere, the same text written in another module: that module's, then.
        else expect(await readFile(`${root}${position.source?.replace(/^(\.\.\/)+/, '')}`, 'utf8'), `${text} at ${position.source}:${position.line}`).toContain(text);
      }
    }
    expect(traced.length, `${text} in the build`).toBeGreaterThan(0);
    expect(new Set(traced)).toEqual(new Set([written + 1]));
  });
});

describe('dist/cdn/LICENCES.txt', () => {
  it('names every bundled package, and holds each licence once, with the packages under it', async () => {
    const text = await readFile(`${root}dist/cdn/LICENCES.txt`, 'utf8');
    const meta = JSON.parse(await readFile(`${root}build/cdn.meta.json`, 'utf8'));
    const packages = new Set(Object.keys(meta.inputs).map((input) => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input)?.[1]).filter(Boolean));
    expect(packages.size).toBeGreaterThan(0);
    const headings = text.split('\n').filter((line) => line.startsWith('The licence of '));
    for (const name of packages) expect(headings.filter((line) => line.includes(`${name} `)), name).toHaveLength(1);
    // Packages with the same licence, word for word, share one heading (Lit's core packages do; @lit/context's
    // names another year): no licence text is written twice.
    const bodies = text.split(/^The licence of .*$/m).slice(1).map((body) => body.trim());
    expect(bodies).toHaveLength(headings.length);
    expect(new Set(bodies).size).toBe(bodies.length);
    expect(headings.filter((line) => line.includes('lit-html ') && line.includes('lit-element '))).toHaveLength(1);
  });
});
