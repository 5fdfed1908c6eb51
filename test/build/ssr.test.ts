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

  it('loads svc-checkout/checkout, and a session runs its first state on the server from a real checkout token', async () => {
    const output = await node(`
      const checkout = await import('svc-checkout/checkout');
      const { issueCheckoutToken } = await import('svc-checkout/server');
      const checkoutToken = await issueCheckoutToken(
        { merchantId: '256612345678901', privateKey: 'ssr-test-key' },
        { reference: 'NCR-SSR-1', amount: { total: 12500, currency: 'EGP' }, country: 'EG', product: { name: 'Beans', description: '1 kg' } },
      );
      const session = new checkout.CheckoutSession({ endpoint: '/checkout', checkoutToken });
      const { phase, methods, amount } = session.state;
      session.dispose();
      console.log(JSON.stringify({
        window: typeof window,
        document: typeof document,
        session: typeof checkout.CheckoutSession,
        phase: phase.kind,
        methods,
        amount,
      }));
    `);
    // The process ends on its own: a session left on the server holds no timer or listener.
    expect(JSON.parse(output)).toEqual({
      window: 'undefined',
      document: 'undefined',
      session: 'function',
      phase: 'form',
      methods: ['Pos', 'BankAccount', 'ReferenceCode'],
      amount: { total: 12500, currency: 'EGP' },
    });
  });

  it('loads svc-checkout/react, svc-checkout/sandbox, svc-checkout/sandbox/control and every svc-checkout/jsx entry too', async () => {
    const entries = ['svc-checkout/react', 'svc-checkout/sandbox', 'svc-checkout/sandbox/control', ...['react', 'preact', 'solid', 'vue', 'svelte'].map((name) => `svc-checkout/jsx/${name}`)];
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
