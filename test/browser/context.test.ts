// checkoutContext: a shop's own Lit element slotted into <svc-checkout> follows the checkout through @lit/context,
// whether it asked before the element's session had loaded or after; it never sees what the payer typed.
import { ContextConsumer } from '@lit/context';
import { expect, fixture, html as testHtml } from '@open-wc/testing';
import { html, LitElement } from 'lit';
import { checkoutContext, type CheckoutContextValue } from '../../src/element/index.js';
import { clickButton, deepQuery, type, until, untilText, uniqueReference } from './support/checkout.js';
import { startStack, type Stack } from './support/stack.js';

/** What a shop writes: a note that follows the chosen method and the step. */
class ShopNote extends LitElement {
  readonly seen: CheckoutContextValue[] = [];
  readonly #checkout = new ContextConsumer(this, {
    context: checkoutContext,
    subscribe: true,
    callback: (value) => this.seen.push(value),
  });

  protected override render() {
    const value = this.#checkout.value;
    if (!value) return html`<p>…</p>`;
    const step = value.phase.kind === 'action' ? value.phase.order.actionType : value.phase.kind;
    return html`<p>${value.method} · ${step}</p>`;
  }
}
customElements.define('shop-note', ShopNote);

describe('checkoutContext', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  afterEach(() => sessionStorage.clear());

  it("reaches a slotted element that asked before the session loaded, and follows the method and the step; never the payer's values", async () => {
    const token = await stack.checkoutToken({ reference: uniqueReference('context'), amount: { total: 12_500, currency: 'EGP' }, expireAt: 30 });
    const element = await fixture<HTMLElement & { updateComplete: Promise<boolean> }>(testHtml`
      <svc-checkout endpoint=${stack.endpoint} checkout-token=${token} poll-interval="100" locale="en" sandbox>
        <shop-note slot="footer"></shop-note>
      </svc-checkout>
    `);
    const note = element.querySelector('shop-note') as ShopNote;
    await element.updateComplete;
    // Asked before the session came: answered once it has, from `idle` (not yet set up) to the form.
    await until('the form', () => note.seen.at(-1)?.phase.kind === 'form');
    expect(note.seen.every((value) => value.phase.kind === 'idle' || value.phase.kind === 'form')).to.equal(true);
    await until('the note rendered', () => note.shadowRoot!.textContent!.includes('Pos · form'));
    await type(element, 'input[name=sn]', 'N78101818218');
    deepQuery<HTMLInputElement>(element, 'input[value=BankAccount]')!.click();
    await until('the chosen method', () => note.seen.at(-1)?.method === 'BankAccount');
    deepQuery<HTMLInputElement>(element, 'input[value=Pos]')!.click();
    await until('the method chosen again', () => note.seen.at(-1)?.method === 'Pos');
    await clickButton(element, /^Pay/);
    await untilText(element, 'terminal N78101818218');
    await until('the step', () => note.shadowRoot!.textContent!.includes('Pos · SWIPE_CARD'));
    const last = note.seen.at(-1)!;
    expect(last.phase.kind === 'action' && last.phase.order).to.include({ actionType: 'SWIPE_CARD', status: 'PENDING' });
    // Nothing the payer typed (their values, the terminal number: neither the order's `sn` nor its create's while the
    // create was under way, `creating`), and not the token of the order's own calls.
    const text = JSON.stringify(note.seen);
    expect(note.seen.some((value) => value.busy)).to.equal(true);
    expect(text).not.to.contain('"values"');
    expect(text).not.to.contain('N78101818218');
    expect(text).not.to.contain('"creating"');
    expect(text).not.to.contain('"token"');
    await stack.control('POST', '/sandbox/v1/pos/N78101818218/swipe', { outcome: 'success' });
    await until('the result', () => note.seen.at(-1)?.phase.kind === 'result');
  });

  it('reaches an element slotted once the session is there', async () => {
    const token = await stack.checkoutToken({ reference: uniqueReference('context'), amount: { total: 12_500, currency: 'EGP' }, expireAt: 30 });
    const element = await fixture<HTMLElement & { updateComplete: Promise<boolean> }>(testHtml`
      <svc-checkout endpoint=${stack.endpoint} checkout-token=${token} locale="en" sandbox></svc-checkout>
    `);
    await element.updateComplete;
    const note = document.createElement('shop-note') as ShopNote;
    note.slot = 'footer';
    element.append(note);
    await until('the context', () => note.seen.length > 0);
    expect(note.seen[0]).to.include({ method: 'Pos', busy: false });
    expect(note.seen[0]!.amount).to.deep.equal({ total: 12_500, currency: 'EGP' });
  });

  it('stops telling an element taken out of it: its subscription ends, and it is told again once put back', async () => {
    const token = await stack.checkoutToken({ reference: uniqueReference('context'), amount: { total: 12_500, currency: 'EGP' }, expireAt: 30 });
    const element = await fixture<HTMLElement & { updateComplete: Promise<boolean> }>(testHtml`
      <svc-checkout endpoint=${stack.endpoint} checkout-token=${token} locale="en" sandbox>
        <shop-note slot="footer"></shop-note>
      </svc-checkout>
    `);
    const note = element.querySelector('shop-note') as ShopNote;
    await until('the form', () => note.seen.at(-1)?.phase.kind === 'form');
    note.remove();
    const told = note.seen.length;
    deepQuery<HTMLInputElement>(element, 'input[value=BankAccount]')!.click();
    await element.updateComplete;
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(note.seen.length, 'told after it was taken out').to.equal(told);
    element.append(note);
    await until('told again, of the method chosen meanwhile', () => note.seen.at(-1)?.method === 'BankAccount');
  });
});
