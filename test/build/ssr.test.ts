// Server-side rendering and plain Node: the built package imports where there is no DOM (no window, no
// document), as in an SSR framework's server build. Lit's Node build stands in for HTMLElement and
// customElements there; nothing of the element may touch the DOM before it is connected.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error a plain JavaScript module without types
import { assertDistFresh } from '../../scripts/dist-is-fresh.mjs';

beforeAll(() => assertDistFresh());

const run = promisify(execFile);
const root = new URL('../../', import.meta.url).pathname;

/** Runs an ES module in a fresh Node process in the package's folder: imports resolve as for a merchant. */
async function node(source: string): Promise<string> {
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', source], { cwd: root, timeout: 30_000 });
  return stdout.trim();
}

describe('importing the package in Node, with no DOM', () => {
  it('loads svc-checkout, svc-checkout/server and the element module without throwing', async () => {
    const output = await node(`
      const dom = () => ({ window: typeof window, document: typeof document });
      const before = dom();
      const entry = await import('svc-checkout');
      const server = await import('svc-checkout/server');
      const element = await import('./dist/element/svc-checkout.js');
      console.log(JSON.stringify({
        before,
        after: dom(),
        tagName: entry.TAG_NAME,
        sameClass: entry.SvcCheckout === element.SvcCheckout,
        element: typeof element.SvcCheckout,
        handler: typeof server.createMerchantHandler,
      }));
    `);
    expect(JSON.parse(output)).toEqual({
      before: { window: 'undefined', document: 'undefined' },
      after: { window: 'undefined', document: 'undefined' },
      tagName: 'svc-checkout',
      sameClass: true,
      element: 'function',
      handler: 'function',
    });
  });

  it('loads svc-checkout/react, svc-checkout/sandbox and every svc-checkout/jsx entry too', async () => {
    const entries = ['svc-checkout/react', 'svc-checkout/sandbox', ...['react', 'preact', 'solid', 'vue', 'svelte'].map((name) => `svc-checkout/jsx/${name}`)];
    const output = await node(`
      const loaded = [];
      for (const entry of ${JSON.stringify(entries)}) {
        await import(entry);
        loaded.push(entry);
      }
      console.log(JSON.stringify(loaded));
    `);
    expect(JSON.parse(output)).toEqual(entries);
  });
});
