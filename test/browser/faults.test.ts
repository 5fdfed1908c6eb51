// Faults between the element, the merchant kit and the sandbox, made for real with the sandbox's fault
// control: answers that come too late or never, dropped connections, outages and slow answers.
import { expect } from '@open-wc/testing';
import { buttonNamed, checkout, clickButton, deepQuery, fillBankAccount, record, referenceOf, type, until, untilText } from './support/checkout.js';
import { countRequests, requestPath } from './support/requests.js';
import { startStack, type Stack } from './support/stack.js';

const OFFLINE_NOTICE = 'We could not check the payment status. We keep trying.';

describe('<svc-checkout> under faults', () => {
  let stack: Stack;
  before(async () => {
    // A kit that gives up on the service after 400 ms, and does not repeat queries: every fault is seen. Without
    // its status stream: these faults are the polling element's (test/browser/live-status.test.ts has the stream's).
    stack = await startStack({ handler: { timeoutMs: 400, retries: 0, streams: false } });
  });
  afterEach(async () => {
    sessionStorage.clear();
    await stack.control('DELETE', '/sandbox/v1/faults');
  });

  async function ordersOf(element: Element): Promise<{ reference: string; orderNo: string; status: string; referenceCode: string | null }[]> {
    const base = referenceOf(element);
    const { orders } = (await stack.control('GET', '/sandbox/v1/orders')).body;
    return orders.filter((order: { reference: string }) => order.reference === base || order.reference.startsWith(`${base}-`));
  }

  it('finds the order by its reference when the create answer comes too late, and makes no second one', async () => {
    const element = await checkout(stack, { payMethod: 'Pos' });
    const errors = record(element, 'svc-error');
    const creates = countRequests('/payments');
    try {
      await type(element, 'input[name=sn]', 'N78101818401');
      // The service makes the order, but answers after the kit stopped waiting: the kit answers 50003.
      await stack.control('POST', '/sandbox/v1/faults', { kind: 'slow', count: 1, delayMs: 1_500 });
      await clickButton(element, /^Pay/);
      await untilText(element, 'Swipe or insert the card at terminal N78101818401.');
    } finally {
      creates.restore();
    }
    expect(creates.count, 'one create sent').to.equal(1);
    expect(errors, 'the payer is not told of a failure').to.deep.equal([]);
    const orders = await ordersOf(element);
    expect(orders.map((order) => order.reference)).to.deep.equal([referenceOf(element)]);
    await stack.control('POST', '/sandbox/v1/pos/N78101818401/swipe', { outcome: 'success' });
    await untilText(element, 'Payment received');
    expect(await ordersOf(element)).to.have.length(1);
  });

  it('finds a reference code order whose answer was lost, and says where the code was sent', async () => {
    const element = await checkout(stack, { payMethod: 'ReferenceCode' });
    await type(element, 'input[name=notifyUserName]', 'Mona Hassan');
    await type(element, 'input[name=notifyUserEmail]', 'mona@example.com');
    await type(element, 'input[name=notifyUserMobile]', '+20 100 123 4567');
    await stack.control('POST', '/sandbox/v1/faults', { kind: 'lost', count: 1, delayMs: 600 });
    await clickButton(element, 'Get my code');
    await untilText(element, 'Your reference code was sent by SMS to •••• 4567 and by email to m•••@example.com.');
    await expect(element).to.be.accessible();
    // The payer holds a code that can be paid: no second attempt (and second code) is offered.
    expect(buttonNamed(element, 'Start again')).to.equal(undefined);
    const [order, ...others] = await ordersOf(element);
    expect(others).to.deep.equal([]);
    await stack.control('POST', `/sandbox/v1/reference-codes/${order!.referenceCode}/pay`);
    await untilText(element, 'Payment received');
  });

  it('follows a bank account order whose answer was lost, saying its next step did not arrive', async () => {
    const element = await checkout(stack, { payMethod: 'BankAccount' });
    await fillBankAccount(element, '4000123412341234', { bankCode: '044' });
    await stack.control('POST', '/sandbox/v1/faults', { kind: 'lost', count: 1, delayMs: 600 });
    await clickButton(element, /^Pay/);
    await untilText(element, 'Your payment has started, but its next step did not reach this page.');
    await expect(element).to.be.accessible();
    const [order, ...others] = await ordersOf(element);
    expect(others).to.deep.equal([]);
    await stack.control('POST', `/sandbox/v1/orders/${order!.orderNo}/complete`, { status: 'SUCCESS' });
    await untilText(element, 'Payment received');
  });

  it('finds the order when the connection to the shop breaks after the create was sent', async () => {
    const element = await checkout(stack, { payMethod: 'Pos' });
    const original = window.fetch;
    let cut = 0;
    // The request goes through and the kit and service make the order; its answer never reaches the page.
    window.fetch = async (input, init) => {
      const response = await original(input, init);
      if (requestPath(input).endsWith('/payments') && cut++ === 0) {
        await response.arrayBuffer();
        throw new TypeError('Failed to fetch');
      }
      return response;
    };
    try {
      await type(element, 'input[name=sn]', 'N78101818402');
      await clickButton(element, /^Pay/);
      await untilText(element, 'Swipe or insert the card at terminal N78101818402.');
    } finally {
      window.fetch = original;
    }
    expect(cut).to.equal(1);
    expect(await ordersOf(element)).to.have.length(1);
  });

  it('tells the payer only when the answer is really missing, and the same reference goes through afterwards', async () => {
    const element = await checkout(stack, { payMethod: 'Pos' });
    const errors = record(element, 'svc-error');
    await type(element, 'input[name=sn]', 'N78101818403');
    // Not processed: the service never made the order, so the status query finds nothing.
    await stack.control('POST', '/sandbox/v1/faults', { kind: 'timeout', count: 1, delayMs: 1_000 });
    await clickButton(element, /^Pay/);
    await untilText(element, 'Payments are not available right now. Try again in a moment.');
    expect(errors.map((error) => error.detail.code)).to.deep.equal(['50003']);
    expect(await ordersOf(element)).to.deep.equal([]);
    await clickButton(element, /^Pay/);
    await untilText(element, 'Swipe or insert');
    expect((await ordersOf(element)).map((order) => order.reference)).to.deep.equal([referenceOf(element)]);
  });

  it('keeps polling through dropped connections, outages and slow answers, and tells the payer while it cannot check', async () => {
    const element = await checkout(stack, { payMethod: 'Pos' });
    const errors = record(element, 'svc-error');
    await type(element, 'input[name=sn]', 'N78101818404');
    await clickButton(element, /^Pay/);
    await untilText(element, 'Swipe or insert');
    const polls = countRequests('/payments/status');
    try {
      await stack.control('POST', '/sandbox/v1/faults', { kind: 'drop', count: 3 });
      await stack.control('POST', '/sandbox/v1/faults', { kind: '50003', count: 2 });
      await stack.control('POST', '/sandbox/v1/faults', { kind: 'slow', count: 2, delayMs: 250 });
      await until('the notice', () => deepQuery(element, '.notice')?.textContent?.trim() === OFFLINE_NOTICE);
      expect(deepQuery(element, '.notice')!.matches('[part~=alert-warning]'), 'a warning, not an error').to.equal(true);
      // Once the faults are spent, the checks answer again and the notice goes away.
      await until('the faults to be spent', async () => (await stack.control('GET', '/sandbox/v1/faults')).body.faults.length === 0);
      await until('the notice to go', () => deepQuery(element, '.notice') === null);
      await stack.control('POST', '/sandbox/v1/pos/N78101818404/swipe', { outcome: 'success' });
      await untilText(element, 'Payment received');
    } finally {
      polls.restore();
    }
    expect(polls.maxInFlight, 'never two checks at once, even when one is slow').to.equal(1);
    expect(polls.count).to.be.at.least(8);
    // Told once, as a retryable error, while the element kept trying.
    expect(errors.map((error) => error.detail)).to.deep.equal([{ code: 'STATUS_UNKNOWN', message: 'the order status could not be checked', retryable: true }]);
  });

  it('checks at once when the browser is back online after the connection to the shop was lost', async () => {
    const element = await checkout(stack, { payMethod: 'Pos' });
    await type(element, 'input[name=sn]', 'N78101818405');
    await clickButton(element, /^Pay/);
    await untilText(element, 'Swipe or insert');
    const original = window.fetch;
    let offline = true;
    let failedChecks = 0;
    window.fetch = async (input, init) => {
      if (offline && requestPath(input).endsWith('/payments/status')) {
        failedChecks++;
        throw new TypeError('Failed to fetch');
      }
      return original(input, init);
    };
    try {
      await until('the notice', () => deepQuery(element, '.notice')?.textContent?.trim() === OFFLINE_NOTICE);
      // Once the check already planned has run, the next is a minute away or more: the check that sees the
      // payment can only be the one made when the browser is back online.
      element.pollInterval = 60_000;
      const planned = failedChecks;
      await until('the check already planned', () => failedChecks > planned);
      await stack.control('POST', '/sandbox/v1/pos/N78101818405/swipe', { outcome: 'success' });
      // The kit shares an order's status answer for a second, unless it hears news of the order (docs/limits.md):
      // once it has verified the payment's callback, no answer it shares hides the payment.
      const [order] = await ordersOf(element);
      await until('the callback verified', async () => (await stack.callbacks(order!.orderNo)).some((attempt) => attempt.acknowledged));
      offline = false;
      window.dispatchEvent(new Event('online'));
      await untilText(element, 'Payment received', 5_000);
      expect(deepQuery(element, '.notice')).to.equal(null);
    } finally {
      window.fetch = original;
    }
  });
});
