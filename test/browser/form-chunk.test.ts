// A payment form's own chunk (its element and its English words) held back by the test server (`moduleGate` in
// web-test-runner.config.mjs) while the session judges the form: a page of its own, so that no earlier test has
// loaded the chunk.
import { expect } from '@open-wc/testing';
import { html } from 'lit';
import { CheckoutPart } from '../../src/element/parts/checkout-part.js';
import type { CheckoutContext } from '../../src/element/state.js';
import { deepQuery, untilText } from './support/checkout.js';
import { moduleGate, placeCheckout } from './support/chunks.js';
import { startStack, type Stack } from './support/stack.js';

describe('<svc-checkout> with a form whose chunk has not come', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  afterEach(async () => {
    await moduleGate('bankForm', 'open');
    for (const element of document.querySelectorAll('svc-checkout')) element.remove();
    sessionStorage.clear();
  });

  it('judges the form without failing, and words its errors once the words come', async () => {
    await moduleGate('bankForm', 'close');
    const element = await placeCheckout(stack, { 'pay-method': 'BankAccount', locale: 'en' });
    // The page sends the form before the payer could see it: its chunk is held back.
    await element.submit();
    await element.updateComplete;
    expect(element.session!.state.errors.bankAccountNumber).to.deep.include({ rule: 'required' });
    expect(deepQuery(element, 'input[name=bankAccountNumber]')).to.equal(null);
    await moduleGate('bankForm', 'open');
    // What the payer sees, the isolated frame's fields included.
    const seen = await untilText(element, 'Enter account number.');
    expect(seen).to.contain('Account number');
    expect(seen).not.to.contain('bankAccountNumber');
  });

  it('gives a part rendered before its chunk came the newest context, not the one it was rendered with', async () => {
    // As the element does: it renders the part (an own property on an element not yet defined), the chunk defines
    // it, and the element updates again before the part's first update.
    class Probe extends CheckoutPart {
      protected override renderPart(context: CheckoutContext) {
        return html`${(context as unknown as { name: string }).name}`;
      }
    }
    const tag = `svc-probe-${Math.random().toString(36).slice(2, 8)}`;
    const part = document.createElement(tag) as Probe;
    document.body.append(part);
    const context = (name: string) => ({ name, state: { submitCount: 0 } }) as unknown as CheckoutContext;
    part.context = context('rendered with');
    customElements.define(tag, Probe);
    part.context = context('newest');
    await part.updateComplete;
    expect(part.shadowRoot!.textContent).to.equal('newest');
    part.remove();
  });
});
