// What a merchant installs: the package's exports resolve to the built files, and they work from plain Node.
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { ATTRIBUTES, attributeOf } from '../../src/checkout/config.js';
import { EVENTS } from '../../src/element/events/table.js';
// @ts-expect-error a plain JavaScript module without types
import { assertDistFresh } from '../../scripts/dist-is-fresh.mjs';

// These run the built package: never an old one.
beforeAll(() => assertDistFresh());

const run = promisify(execFile);
const root = new URL('../../', import.meta.url).pathname;

/** Runs an ES module in a fresh Node process in the package's folder: imports resolve as for a merchant. */
async function node(source: string): Promise<string> {
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', source], { cwd: root, timeout: 30_000 });
  return stdout.trim();
}

describe('the built package', () => {
  it('serves svc-checkout/server and svc-checkout/sandbox to plain Node, working together', async () => {
    const output = await node(`
      import { createSandbox } from 'svc-checkout/sandbox';
      import { ServiceClient, signRequest } from 'svc-checkout/server';
      const sandbox = await createSandbox({ merchantId: '256612345678901', privateKey: 'k' });
      const client = new ServiceClient({ merchantId: '256612345678901', privateKey: 'k', environment: { baseUrl: sandbox.url } });
      const answer = await client.createPayment({
        reference: 'built-1', amount: { total: 100, currency: 'EGP' }, product: { name: 'Beans' }, payMethod: 'Pos', sn: 'N1',
      });
      console.log(JSON.stringify({ code: answer.code, action: answer.data.nextAction.actionType, signature: (await signRequest('{}', 'k')).length }));
      await sandbox.close();
    `);
    expect(JSON.parse(output)).toEqual({ code: '00000', action: 'SWIPE_CARD', signature: 128 });
  });

  it('maps every entry to built files, types first', async () => {
    const pkg = JSON.parse(await readFile(`${root}package.json`, 'utf8'));
    for (const entry of ['.', './server', './sandbox', './react', './jsx/react', './jsx/preact', './jsx/solid', './jsx/vue', './jsx/svelte']) {
      const target = pkg.exports[entry];
      expect(Object.keys(target)[0], entry).toBe('types');
      await expect(readFile(`${root}${target.default}`, 'utf8')).resolves.toBeTypeOf('string');
      await expect(readFile(`${root}${target.types}`, 'utf8')).resolves.toBeTypeOf('string');
    }
    expect(pkg.exports['./package.json']).toBe('./package.json');
    expect(pkg.customElements).toBe('dist/custom-elements.json');
    expect(pkg['web-types']).toBe('./dist/web-types.json');
    for (const data of ['./vscode.html-data.json', './vscode.css-data.json', './web-types.json']) {
      await expect(readFile(`${root}${pkg.exports[data]}`, 'utf8')).resolves.toBeTypeOf('string');
    }
    expect(pkg.bin).toEqual({ 'svc-checkout': 'bin/svc-checkout.js', 'svc-sandbox': 'bin/svc-sandbox.js' });
  });

  it('packs the built files, the command and the documents for people and assistants, not the sources or tests', async () => {
    const { stdout } = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, timeout: 60_000 });
    const files: string[] = JSON.parse(stdout)[0].files.map((file: { path: string }) => file.path);
    for (const expected of [
      'dist/cdn/svc-checkout.js',
      'dist/cdn/svc-checkout.css',
      'dist/scaffold/init.js',
      'dist/element/index.js',
      'dist/element/index.d.ts',
      'dist/server/index.js',
      'dist/sandbox/index.js',
      'dist/react/index.js',
      'dist/custom-elements.json',
      'dist/web-types.json',
      'dist/vscode.html-data.json',
      'dist/vscode.css-data.json',
      'dist/jsx/react.d.ts',
      'dist/jsx/preact.d.ts',
      'dist/jsx/solid.d.ts',
      'dist/jsx/vue.d.ts',
      'dist/jsx/svelte.d.ts',
      'bin/svc-sandbox.js',
      'bin/svc-checkout.js',
      'README.md',
      'llms.txt',
      'docs/integration-guide.md',
      'docs/sandbox.md',
      'docs/limits.md',
    ]) {
      expect(files).toContain(expected);
    }
    expect(files.some((file) => file.startsWith('src/') || file.startsWith('test/'))).toBe(false);
  });

  it('keeps lit a bare import in the npm build, so that apps share one copy', async () => {
    const element = await readFile(`${root}dist/element/svc-checkout.js`, 'utf8');
    expect(element).toMatch(/from ['"]lit['"]/);
    // The session comes after the first frame, in the npm build too: a bundler makes it a chunk of the app.
    const loader = await readFile(`${root}dist/element/controllers/checkout.js`, 'utf8');
    expect(loader).toMatch(/import\(['"]\.\.\/engine\.js['"]\)/);
  });

  it('describes the element in custom-elements.json: summary, attributes, events, parts, properties, slots', async () => {
    const manifest = JSON.parse(await readFile(`${root}dist/custom-elements.json`, 'utf8'));
    const declaration = manifest.modules.flatMap((module: { declarations?: unknown[] }) => module.declarations ?? []).find(
      (item: { tagName?: string }) => item.tagName === 'svc-checkout',
    );
    expect(declaration.summary).toMatch(/Takes a payment/);
    // Its events and attributes: the rows of their tables (src/element/events/table.ts, src/checkout/config.ts).
    expect(declaration.events.map((event: { name: string }) => event.name).sort()).toEqual(Object.values(EVENTS).map((row) => row.name).sort());
    expect(declaration.attributes.map((attribute: { name: string }) => attribute.name).sort()).toEqual(ATTRIBUTES.map((row) => attributeOf(row.property)).sort());
    expect(declaration.cssParts.map((part: { name: string }) => part.name)).toEqual(expect.arrayContaining(['base', 'input', 'button', 'code']));
    expect(declaration.cssProperties.map((property: { name: string }) => property.name)).toEqual(
      expect.arrayContaining(['--svc-color-primary', '--svc-radius', '--svc-spacing', '--svc-font-family']),
    );
    expect(declaration.slots.map((slot: { name: string }) => slot.name).sort()).toEqual(['footer', 'header', 'result']);
  });
});
