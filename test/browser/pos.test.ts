// POS terminal, end to end against this file's own sandbox and merchant kit.
import { expect } from '@open-wc/testing';
import { checkout, clickButton, deepQuery, record, settle, type, until, untilText, visibleText } from './support/checkout.js';
import { countRequests } from './support/requests.js';
import { startStack, type Stack } from './support/stack.js';

describe('<svc-checkout> POS terminal', () => {
  let stack: Stack;
  /** A kit without its status stream (`streams: false`), for the tests of the element's polling. */
  let polling: Stack;
  before(async () => {
    stack = await startStack();
    polling = await startStack({ handler: { streams: false } });
  });
  afterEach(() => sessionStorage.clear());

  it('asks for the swipe at the terminal, and shows the payment as it succeeds', async () => {
    const element = await checkout(stack, { payMethod: 'Pos' });
    await expect(element).to.be.accessible();
    const events = record(element, 'svc-http-response', 'svc-pay-result', 'svc-action');
    await type(element, 'input[name=sn]', 'N78101818218');
    await clickButton(element, /^Pay/);
    await untilText(element, 'Swipe or insert the card at terminal N78101818218.');
    await expect(element).to.be.accessible();
    const swipe = await stack.control('POST', '/sandbox/v1/pos/N78101818218/swipe', { outcome: 'success' });
    expect(swipe.status).to.equal(200);
    await untilText(element, 'Payment received');
    expect(visibleText(element)).to.contain(swipe.body.orderNo);
    await expect(element).to.be.accessible();
    expect(events.map((event) => event.name)).to.deep.equal(['svc-http-response', 'svc-pay-result', 'svc-action', 'svc-pay-result']);
    expect(events[2]!.detail).to.deep.equal({ actionType: 'SWIPE_CARD', orderNo: swipe.body.orderNo, reference: swipe.body.reference });
    expect(events[3]!.detail).to.include({ orderStatus: 'SUCCESS', orderNo: swipe.body.orderNo });
    await until('the callback acknowledged by the merchant kit', async () =>
      (await stack.callbacks(swipe.body.orderNo)).some((callback) => callback.acknowledged),
    );
  });

  it('leaves the caret where the payer types, in the middle of a value, as the element writes the value back', async () => {
    const element = await checkout(stack, { payMethod: 'Pos' });
    await type(element, 'input[name=sn]', 'N7810181');
    const input = deepQuery<HTMLInputElement>(element, 'input[name=sn]')!;
    input.focus();
    input.setSelectionRange(3, 3);
    input.setRangeText('X', 3, 3, 'end');
    input.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
    await settle(element);
    expect(input.value).to.equal('N78X10181');
    expect([input.selectionStart, input.selectionEnd]).to.deep.equal([4, 4]);
    expect(element.session?.state.values.Pos.sn).to.equal('N78X10181');
  });

  it('shows why the payment failed, and pays again with a new reference without reloading', async () => {
    const reference = `pos-fail-${Date.now()}`;
    const element = await checkout(stack, { payMethod: 'Pos', reference });
    await type(element, 'input[name=sn]', 'N78101818201');
    await clickButton(element, /^Pay/);
    await untilText(element, 'terminal N78101818201');
    await stack.control('POST', '/sandbox/v1/pos/N78101818201/swipe', { outcome: 'fail' });
    await untilText(element, 'The payment did not go through');
    expect(visibleText(element)).to.contain('Your card was declined. Try another card or another method.');
    await expect(element).to.be.accessible();

    const created = record(element, 'svc-http-response');
    await clickButton(element, 'Try again');
    const input = await until('the serial number kept', () => deepQuery<HTMLInputElement>(element, 'input[name=sn]'));
    expect(input.value).to.equal('N78101818201');
    await clickButton(element, /^Pay/);
    await untilText(element, 'Swipe or insert');
    expect(created[0]!.detail.code).to.equal('00000');
    expect(created[0]!.detail.data.reference).to.equal(`${reference}--2`);
    await stack.control('POST', '/sandbox/v1/pos/N78101818201/swipe', { outcome: 'success' });
    await untilText(element, 'Payment received');
  });

  it("shows the shop's result slot (a continue link) with the result only", async () => {
    const element = await checkout(stack, { payMethod: 'Pos' });
    const link = document.createElement('a');
    link.slot = 'result';
    link.href = '/orders/1';
    link.textContent = 'Continue to your order';
    element.append(link);
    await settle(element);
    expect(link.assignedSlot, 'not during the form').to.equal(null);
    await type(element, 'input[name=sn]', 'N78101818219');
    await clickButton(element, /^Pay/);
    await untilText(element, 'Swipe or insert the card');
    expect(link.assignedSlot, 'not during the step').to.equal(null);
    await stack.control('POST', '/sandbox/v1/pos/N78101818219/swipe', { outcome: 'success' });
    await untilText(element, 'Payment received');
    await until('the link under the result', () => link.assignedSlot !== null);
    expect(link.getBoundingClientRect().height).to.be.above(0);
  });

  it('stops polling at a terminal status', async () => {
    const element = await checkout(polling, { payMethod: 'Pos' });
    const status = countRequests('/payments/status');
    try {
      await type(element, 'input[name=sn]', 'N78101818202');
      await clickButton(element, /^Pay/);
      await untilText(element, 'terminal N78101818202');
      await until('a few status checks', () => status.count >= 2);
      expect(status.maxInFlight).to.equal(1);
      await polling.control('POST', '/sandbox/v1/pos/N78101818202/swipe', { outcome: 'success' });
      await untilText(element, 'Payment received');
      const atEnd = status.count;
      // With poll-interval 100 ms the element would have checked several more times in this second.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(status.count).to.equal(atEnd);
      expect(status.maxInFlight).to.equal(1);
    } finally {
      status.restore();
    }
  });
});
