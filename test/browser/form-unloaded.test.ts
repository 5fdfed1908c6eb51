// The bank account form's chunk answered 503 by the test server (`moduleGate` in web-test-runner.config.mjs): the
// network lost it (the session's chunk: engine-unloaded.test.ts). A page of its own, since the module map keeps a
// module that failed to load as failed for the rest of the page's life.
import { expect } from '@open-wc/testing';
import type { SvcCheckout } from '../../src/element/index.js';
import { deepQuery, uniqueReference, until, untilText, visibleText } from './support/checkout.js';
import { startStack, type Stack } from './support/stack.js';

const gate = (action: 'fail' | 'open') => fetch(`/module-gates/bankForm/${action}`, { method: 'POST' });

async function place(stack: Stack, payMethod: string): Promise<SvcCheckout> {
  const element = document.createElement('svc-checkout') as SvcCheckout;
  const token = await stack.checkoutToken({ reference: uniqueReference('unloaded'), amount: { total: 12_500, currency: 'EGP' } });
  for (const [name, value] of Object.entries({ endpoint: stack.endpoint, 'checkout-token': token, 'pay-method': payMethod, locale: 'en' })) {
    element.setAttribute(name, value);
  }
  document.body.append(element);
  return element;
}

describe('<svc-checkout> whose chosen form cannot load', () => {
  let stack: Stack;
  const unhandled: unknown[] = [];
  const onUnhandled = (event: PromiseRejectionEvent) => {
    unhandled.push(event.reason);
    event.preventDefault();
  };
  before(async () => {
    stack = await startStack();
    window.addEventListener('unhandledrejection', onUnhandled);
  });
  afterEach(() => {
    for (const element of document.querySelectorAll('svc-checkout')) element.remove();
    sessionStorage.clear();
  });
  after(async () => {
    window.removeEventListener('unhandledrejection', onUnhandled);
    await gate('open');
  });

  it('says so once, above what could be shown, and fetches the other forms ahead without a word', async () => {
    await gate('fail');
    const element = await place(stack, 'BankAccount');
    await untilText(element, 'The payment could not load.');
    // The session came: the failure said is the form's.
    await until('the session', () => element.session);
    expect(element.shadowRoot!.querySelectorAll('p[role=alert]')).to.have.length(1);
    expect(deepQuery(element, 'input[name=bankAccountNumber]')).to.equal(null);
    expect(visibleText(element)).to.contain('Pay from your bank account');
    expect(unhandled).to.deep.equal([]);
  });
});
