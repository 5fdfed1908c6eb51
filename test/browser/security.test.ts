// What the element never does: keep the payer's secrets, follow a redirect that is not http(s), or render a
// server's text as HTML. Against this file's own sandbox and merchant kit.
import { expect } from '@open-wc/testing';
import { checkout, clickButton, deepQuery, deepQueryAll, fillBankAccount, record, settle, type, until, untilText, visibleText } from './support/checkout.js';
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

function inputValue(element: Element, name: string): string | undefined {
  return deepQuery<HTMLInputElement>(element, `input[name=${name}]`)?.value;
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

  it('never stores the account number, the birth date or a code, and forgets each once it is sent', async () => {
    const element = await checkout(stack, { payMethod: 'BankAccount' });
    await fillBankAccount(element, ACCOUNT, { dob: DATE_OF_BIRTH });
    await clickButton(element, /^Pay/);
    await untilText(element, 'Enter the code');
    expect(stored()).to.contain(element.getAttribute('reference') as string, 'the order is saved to resume it');
    expect(stored()).not.to.contain(ACCOUNT);
    for (const part of DATE_OF_BIRTH) expect(storedValues()).not.to.include(part);
    expect(storedValues()).not.to.include(1990);

    // A wrong code: refused, and gone from the field.
    await type(element, 'input[name=otp]', '99999999');
    await clickButton(element, 'Confirm');
    await untilText(element, 'That code is not right');
    await settle(element);
    expect(inputValue(element, 'otp')).to.equal('');
    await type(element, 'input[name=otp]', '11315632');
    await clickButton(element, 'Confirm');
    await untilText(element, 'Payment received');
    expect(stored()).not.to.contain('99999999');
    expect(stored()).not.to.contain('11315632');
    expect(stored()).not.to.contain(ACCOUNT);

    // A new attempt asks for the secrets again; what is not secret is kept.
    element.reset();
    await settle(element);
    expect(inputValue(element, 'bankAccountNumber')).to.equal('');
    expect(inputValue(element, 'dobDay')).to.equal('');
    expect(inputValue(element, 'dobMonth')).to.equal('');
    expect(inputValue(element, 'dobYear')).to.equal('');
    expect(inputValue(element, 'bankCode')).to.equal('033');
  });

  it('keeps what the payer typed when the service refused it, so that it can be corrected', async () => {
    const element = await checkout(stack, { payMethod: 'BankAccount' });
    // The test account checks the birth date: a wrong one is refused at create, and no order is made.
    await fillBankAccount(element, ACCOUNT, { dob: ['01', '01', '1950'] });
    await clickButton(element, /^Pay/);
    await untilText(element, 'The date of birth does not match the account.');
    expect(inputValue(element, 'bankAccountNumber')).to.equal(ACCOUNT);
    expect(stored()).not.to.contain(ACCOUNT);
  });

  for (const hostile of ['javascript:window.pwned=1', 'data:text/html,<script>parent.pwned=1</script>', '//evil.example/3ds']) {
    it(`refuses to go to a 3-D Secure address that is not absolute http(s): ${hostile.slice(0, 16)}…`, async () => {
      const element = await checkout(stack, { payMethod: 'BankAccount', redirectMode: 'same-window' });
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
});
