// What the element never does: keep the payer's secrets, follow a redirect that is not http(s), or render a
// server's text as HTML. Against this file's own sandbox and merchant kit.
import { expect } from '@open-wc/testing';
import { BANK_ACCOUNT_FIELDS } from '../../src/checkout/bank-account-fields.js';
import { checkout, clickButton, deepQuery, deepQueryAll, fillBankAccount, record, referenceOf, settle, type, typeCode, uniqueReference, until, untilText, visibleText } from './support/checkout.js';
import { frameField } from './support/isolated.js';
import { requestPath } from './support/requests.js';
import { startStack, type Stack } from './support/stack.js';

const ACCOUNT = '2215381176'; // the sandbox's OTP test account
const DATE_OF_BIRTH = ['05', '01', '1990']; // the one the test account checks

/** Everything this page could have stored: session and local storage, and cookies. */
function stored(): string {
  const entries: string[] = [document.cookie];
  for (const storage of [sessionStorage, localStorage]) {
    for (let index = 0; index < storage.length; index++) {
      const key = storage.key(index) as string;
      entries.push(key, storage.getItem(key) ?? '');
    }
  }
  return entries.join('\n');
}

/** Every single value stored (JSON taken apart), to look for short secrets that could occur by chance in longer text. */
function storedValues(): unknown[] {
  const values: unknown[] = [];
  const walk = (value: unknown): void => {
    if (value !== null && typeof value === 'object') Object.values(value).forEach(walk);
    else values.push(value);
  };
  for (const entry of stored().split('\n')) {
    try {
      walk(JSON.parse(entry));
    } catch {
      values.push(entry);
    }
  }
  return values;
}

/** Passes every call through to the real kit, and lets `edit` change the create answer the page sees. */
function editCreateAnswer(edit: (answer: any) => void): () => void {
  const original = window.fetch;
  window.fetch = async (input, init) => {
    const response = await original(input, init);
    if (!requestPath(input).endsWith('/payments')) return response;
    const answer = await response.json();
    edit(answer);
    return new Response(JSON.stringify(answer), { status: response.status, headers: response.headers });
  };
  return () => {
    window.fetch = original;
  };
}

describe('<svc-checkout> security', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  afterEach(() => {
    sessionStorage.clear();
    delete (window as unknown as Record<string, unknown>)['pwned'];
  });

  for (const isolated of [true, false]) {
    const where = isolated ? 'in the isolated frame' : 'in the element (isolated="false")';
    /** A field's value: read through the browser's automation in the frame, or in the element. */
    // The field once it is there (a new attempt renders the form again).
    const valueOf = async (element: Element, name: string) =>
      isolated ? (await frameField(element, name))?.value : (await until(`the field ${name}`, () => deepQuery<HTMLInputElement>(element, `input[name=${name}]`))).value;

    it(`never stores the account number, the birth date or a code, and forgets each once it is sent, ${where}`, async () => {
      // The account that fails after its code: a new attempt follows an unpaid order only (a paid checkout is never
      // left: docs/one-payment.md).
      const ACCOUNT = '2215381190';
      const element = await checkout(stack, { payMethod: 'BankAccount', isolated });
      await fillBankAccount(element, ACCOUNT, { dob: DATE_OF_BIRTH });
      await clickButton(element, /^Pay/);
      await untilText(element, 'Enter the code');
      expect(stored()).to.contain(referenceOf(element), 'the order is saved to resume it');
      expect(stored()).not.to.contain(ACCOUNT);
      for (const part of DATE_OF_BIRTH) expect(storedValues()).not.to.include(part);
      expect(storedValues()).not.to.include(1990);

      // A wrong code: refused, and gone from the field.
      await typeCode(element, '99999999');
      await clickButton(element, 'Confirm');
      await untilText(element, 'That code is not right');
      await settle(element);
      expect(await valueOf(element, 'otp')).to.equal('');
      await typeCode(element, '11315632');
      await clickButton(element, 'Confirm');
      await untilText(element, 'The payment did not go through');
      expect(stored()).not.to.contain('99999999');
      expect(stored()).not.to.contain('11315632');
      expect(stored()).not.to.contain(ACCOUNT);

      // A new attempt asks for the secrets again. What is not secret is kept where the page held it; the isolated
      // frame of the new attempt is a new one, and the page never had the bank code to give it back.
      // As the payer's "Try again" is there: once nothing is in flight (a new attempt waits for the code's answer).
      await until('the checkout idle', () => element.session?.state.busy === false);
      element.reset();
      await settle(element);
      // The rows' `secret` column: forgotten; the rest (the bank code) kept where the page held it.
      for (const { name } of BANK_ACCOUNT_FIELDS.filter((field) => 'secret' in field && field.secret)) expect(await valueOf(element, name), name).to.equal('');
      expect(await valueOf(element, 'bankCode')).to.equal(isolated ? '' : '033');
    });

    it(`keeps what the payer typed when the service refused it, so that it can be corrected, ${where}`, async () => {
      const element = await checkout(stack, { payMethod: 'BankAccount', isolated });
      // The test account checks the birth date: a wrong one is refused at create, and no order is made.
      await fillBankAccount(element, ACCOUNT, { dob: ['01', '01', '1950'] });
      await clickButton(element, /^Pay/);
      await untilText(element, 'The date of birth does not match the account.');
      expect(await valueOf(element, 'bankAccountNumber')).to.equal(ACCOUNT);
      expect(stored()).not.to.contain(ACCOUNT);
    });
  }

  for (const hostile of ['javascript:window.pwned=1', 'data:text/html,<script>parent.pwned=1</script>', '//evil.example/3ds']) {
    it(`refuses to go to a 3-D Secure address that is not absolute http(s): ${hostile.slice(0, 16)}…`, async () => {
      // The create goes through this page's fetch, where the test changes its answer: not through an isolated frame.
      const element = await checkout(stack, { payMethod: 'BankAccount', redirectMode: 'same-window', isolated: false });
      const errors = record(element, 'svc-error');
      const before = location.href;
      const restore = editCreateAnswer((answer) => {
        if (answer.data?.nextAction) answer.data.nextAction.redirectUrl = hostile;
      });
      try {
        await fillBankAccount(element, '2215381200');
        await clickButton(element, /^Pay/);
        await until('the refusal', () => errors.length > 0);
      } finally {
        restore();
      }
      expect(errors[0]!.detail).to.deep.equal({ code: 'REDIRECT_URL', message: 'the 3-D Secure address is not an http(s) URL', retryable: false });
      await untilText(element, 'Something went wrong.');
      expect(location.href).to.equal(before);
      expect((window as unknown as Record<string, unknown>)['pwned']).to.equal(undefined);
      expect(deepQueryAll(element, 'a[href], iframe')).to.deep.equal([]);
    });
  }

  it("shows the service's failure reason as text, never as HTML", async () => {
    const element = await checkout(stack, { payMethod: 'Pos' });
    const events = record(element, 'svc-http-response');
    await type(element, 'input[name=sn]', 'N78101818501');
    await clickButton(element, /^Pay/);
    await untilText(element, 'Swipe or insert');
    const orderNo = events[0]!.detail.data.orderNo as string;
    const reason = '<img src=x onerror="window.pwned=1">Card <b>declined</b>';
    await stack.control('POST', `/sandbox/v1/orders/${orderNo}/complete`, { status: 'FAIL', failureCode: 'DECLINED', failureReason: reason });
    await untilText(element, 'The payment did not go through');
    expect(visibleText(element)).to.contain(`Reason: ${reason}`);
    expect(deepQueryAll(element, 'img, b')).to.deep.equal([]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect((window as unknown as Record<string, unknown>)['pwned']).to.equal(undefined);
  });

  describe('attacks on the order', () => {
    /** Changes one claim of a checkout token and keeps its tag, as someone editing the page would. */
    function alter(token: string, change: (claims: Record<string, any>) => void): string {
      const [kind, payload, tag] = token.split('.') as [string, string, string];
      const claims = JSON.parse(atob(payload.replace(/-/g, '+').replace(/_/g, '/')));
      change(claims);
      const edited = btoa(JSON.stringify(claims)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
      return [kind, edited, tag].join('.');
    }

    it('shows a checkout token edited to pay 1 piastre as refused, and no order is made', async () => {
      const reference = uniqueReference('tampered');
      const token = alter(await stack.checkoutToken({ reference }), (claims) => {
        claims.a = 1;
      });
      const element = await checkout(stack, { payMethod: 'Pos', checkoutToken: token });
      const errors = record(element, 'svc-error');
      await type(element, 'input[name=sn]', 'N78101818601');
      await clickButton(element, /^Pay/);
      await untilText(element, 'This checkout cannot be used any more. Reload the page.');
      expect(errors.map((error) => error.detail.code)).to.deep.equal(['02000']);
      const { orders } = (await stack.control('GET', '/sandbox/v1/orders')).body;
      expect(orders.filter((order: { reference: string }) => order.reference.startsWith(reference))).to.deep.equal([]);
    });

    it('never shows a cart paid at another amount as this payment, and says why (CHECKOUT_CHANGED)', async () => {
      const reference = uniqueReference('mismatch');
      await stack.createPosOrderElsewhere(reference, 'N78101818602', await stack.checkoutToken({ reference, amount: { total: 100, currency: 'EGP' } }));
      await stack.control('POST', '/sandbox/v1/pos/N78101818602/swipe', { outcome: 'success' });
      const element = await checkout(stack, { payMethod: 'Pos', reference });
      const events = record(element, 'svc-error', 'svc-pay-result');
      await type(element, 'input[name=sn]', 'N78101818602');
      await clickButton(element, /^Pay/);
      await untilText(element, 'This order cannot be paid here');
      expect(visibleText(element)).not.to.contain('Payment received');
      // The kit knows the cart was paid at EGP 1.00: it makes no order, and says so; the page says it cannot be paid here.
      expect(events.filter((event) => event.name === 'svc-error').map((event) => event.detail.code)).to.deep.equal(['CHECKOUT_CHANGED']);
      expect(events.filter((event) => event.name === 'svc-pay-result')).to.have.length(0);
      const { orders } = (await stack.control('GET', '/sandbox/v1/orders')).body as { orders: { reference: string }[] };
      expect(orders.filter((order) => order.reference.startsWith(reference))).to.have.length(1);
    });

    it('opens 3-D Secure in a window with no way back to this tab, and its return page only tells this tab and closes', async () => {
      const element = await checkout(stack, { payMethod: 'BankAccount', redirectMode: 'new-window' });
      const open = window.open;
      let popup: Window | null = null;
      window.open = ((...args: Parameters<typeof window.open>) => (popup = open.apply(window, args))) as typeof window.open;
      try {
        await fillBankAccount(element, '2215381200');
        await clickButton(element, /^Pay/);
        await untilText(element, 'Confirm with your bank');
      } finally {
        window.open = open;
      }
      const bank = popup as Window | null;
      if (!bank) throw new Error('the browser blocked the window');
      // Reverse tabnabbing: the bank's page (or anything it navigates to) cannot reach this tab.
      expect(bank.opener).to.equal(null);
      await until('the bank page', () => bank.document?.querySelector?.('form button'));
      expect(bank.location.pathname).to.contain('/sandbox/3ds/');
      (bank.document.querySelector('form[action$="/approve"] button') as HTMLButtonElement).click();
      // The kit's return page tells this tab over a BroadcastChannel, then closes itself.
      await until('the bank window closed', () => bank.closed, 10_000);
      await untilText(element, 'Payment received');
      const page = await fetch(`${stack.endpoint}/return`);
      const html = await page.text();
      expect(html).not.to.contain('svc-checkout>');
      expect(page.headers.get('content-security-policy')).to.contain("frame-ancestors 'none'");
    });
  });
});

