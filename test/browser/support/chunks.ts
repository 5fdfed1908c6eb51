// The element's chunks under the test server's control (`moduleGate` in web-test-runner.config.mjs), and what a
// test of them needs: an element placed with a checkout token, and the page's unhandled rejections.
import type { SvcCheckout, SvcErrorDetail, SvcErrorEvent } from '../../../src/element/index.js';
import { uniqueReference } from './checkout.js';
import { startStack, type Stack } from './stack.js';

export type ModuleGate = 'engine' | 'ar' | 'bankForm' | 'referenceForm';

/** Holds a chunk back (`close`), answers it 503 (`fail`: the network lost it), or lets it through (`open`). */
export function moduleGate(name: ModuleGate, action: 'close' | 'open' | 'fail'): Promise<Response> {
  return fetch(`/module-gates/${name}/${action}`, { method: 'POST' });
}

/**
 * The hooks of a page (a test file) whose chunk behind `gate` the network loses: its stack, and the page's unhandled
 * rejections from the start; after each test its elements and storage go; after all, the gate opens again for the
 * browser's later pages.
 */
export function lostChunkPage(gate: ModuleGate): { readonly stack: Stack; readonly unhandled: ReturnType<typeof collectUnhandled> } {
  const page = {} as { stack: Stack; unhandled: ReturnType<typeof collectUnhandled> };
  before(async () => {
    page.stack = await startStack();
    page.unhandled = collectUnhandled();
  });
  afterEach(() => {
    for (const element of document.querySelectorAll('svc-checkout')) element.remove();
    sessionStorage.clear();
  });
  after(async () => {
    page.unhandled.stop();
    await moduleGate(gate, 'open');
  });
  return page;
}

/** An element for an order of EGP 125.00 from a checkout token, with `attributes` on top, added to the page. */
export async function placeCheckout(stack: Stack, attributes: Record<string, string>, prefix = 'chunk'): Promise<SvcCheckout> {
  const element = document.createElement('svc-checkout') as SvcCheckout;
  const token = await stack.checkoutToken({ reference: uniqueReference(prefix), amount: { total: 12_500, currency: 'EGP' } });
  for (const [name, value] of Object.entries({ endpoint: stack.endpoint, 'checkout-token': token, ...attributes })) {
    element.setAttribute(name, value);
  }
  document.body.append(element);
  return element;
}

/** The reasons of the page's unhandled rejections from now on (kept from the console) until `stop`. */
export function collectUnhandled(): { reasons: unknown[]; stop(): void } {
  const reasons: unknown[] = [];
  const listener = (event: PromiseRejectionEvent) => {
    reasons.push(event.reason);
    event.preventDefault();
  };
  window.addEventListener('unhandledrejection', listener);
  return { reasons, stop: () => window.removeEventListener('unhandledrejection', listener) };
}

/** The `svc-error` events that reach the page from now on (they bubble out of the element) until `stop`. */
export function collectErrors(): { details: SvcErrorDetail[]; stop(): void } {
  const details: SvcErrorDetail[] = [];
  const listener = (event: SvcErrorEvent) => details.push(event.detail);
  document.addEventListener('svc-error', listener);
  return { details, stop: () => document.removeEventListener('svc-error', listener) };
}
