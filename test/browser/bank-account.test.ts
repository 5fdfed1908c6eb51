// Bank account: OTP, PIN and 3-D Secure, end to end against this file's own sandbox and merchant kit. The payer types
// the details and codes in the isolated frame (the default): by keyboard, and what it shows is read there.
import { expect } from '@open-wc/testing';
import { BANK_ACCOUNT_FIELDS } from '../../src/checkout/bank-account-fields.js';
import type { SvcCheckout } from '../../src/element/index.js';
import {
  checkout,
  clickButton,
  deepQuery,
  fillBankAccount,
  record,
  typeCode,
  uniqueReference,
  until,
  untilText,
  visibleText,
} from './support/checkout.js';
import { frameErrors, frameField, inFrame, loadedFrame, typeInFrame } from './support/isolated.js';
import { startStack, type Stack } from './support/stack.js';

describe('<svc-checkout> bank account', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  afterEach(() => sessionStorage.clear());

  it('pays with the test account and its OTP, sent as one-time-code', async () => {
    const element = await checkout(stack, { payMethod: 'BankAccount' });
    await expect(element).to.be.accessible();
    const events = record(element, 'svc-action', 'svc-pay-result');
    await fillBankAccount(element, '2215381176');
    await clickButton(element, /^Pay/);
    await untilText(element, 'Enter the code');
    // In the isolated frame (test/browser/isolated-fields.test.ts): read there through the browser's automation.
    const otp = (await frameField(element, 'otp'))!.attributes;
    expect(otp['autocomplete']).to.equal('one-time-code');
    expect(otp['inputmode']).to.equal('numeric');
    expect(otp['type']).to.equal('text');
    await expect(element).to.be.accessible();
    await typeCode(element, '11315632');
    await clickButton(element, 'Confirm');
    await untilText(element, 'Payment received');
    expect(events.map((event) => [event.name, event.detail.actionType ?? event.detail.orderStatus])).to.deep.equal([
      ['svc-pay-result', 'PENDING'],
      ['svc-action', 'INPUT_OTP'],
      ['svc-pay-result', 'SUCCESS'],
    ]);
  });

  it('accepts an OTP typed in Arabic-Indic digits', async () => {
    const element = await checkout(stack, { payMethod: 'BankAccount' });
    await fillBankAccount(element, '2215381176', { dob: ['٠٥', '٠١', '١٩٩٠'] });
    await clickButton(element, /^Pay/);
    await untilText(element, 'Enter the code');
    await typeCode(element, '١١٣١٥٦٣٢');
    await clickButton(element, 'Confirm');
    await untilText(element, 'Payment received');
  });

  it('says a wrong OTP is wrong, at the field, with the tries left, and makes a resend wait', async () => {
    const element = await checkout(stack, { payMethod: 'BankAccount' });
    const responses = record(element, 'svc-http-response');
    await fillBankAccount(element, '2215381176');
    await clickButton(element, /^Pay/);
    await untilText(element, 'Enter the code');
    await typeCode(element, '00000000');
    await clickButton(element, 'Confirm');
    await untilText(element, 'That code is not right');
    const otp = (await frameField(element, 'otp'))!.attributes;
    expect(otp['aria-invalid']).to.equal('true');
    expect(otp['aria-describedby']).to.contain('otp-error');
    const error = await inFrame<string>(await loadedFrame(element), `return document.getElementById('otp-error').textContent;`);
    expect(error).to.contain('That code is not right');
    await expect(element).to.be.accessible();
    expect(error).to.match(/2 tries left/);
    // The code was just sent: sending it again waits, and says how long (the resend itself is a session test).
    const resend = deepQuery<HTMLButtonElement>(element, 'button[aria-disabled=true]')!;
    expect(resend.textContent).to.match(/Send again in \d+ seconds/);
    const orderNo = responses[0]!.detail.data.orderNo;
    const sent = await stack.control('GET', `/sandbox/v1/notifications?orderNo=${orderNo}`);
    expect(sent.body.notifications.map((message: { text: string }) => message.text)).to.deep.equal([
      'Your verification code is 11315632.',
    ]);
    await typeCode(element, '11315632');
    await clickButton(element, 'Confirm');
    await untilText(element, 'Payment received');
  });

  it('shows the failure of the published failing account after its OTP', async () => {
    const element = await checkout(stack, { payMethod: 'BankAccount' });
    await fillBankAccount(element, '2215381190');
    await clickButton(element, /^Pay/);
    await untilText(element, 'Enter the code');
    await typeCode(element, '11315632');
    await clickButton(element, 'Confirm');
    await untilText(element, 'The payment did not go through');
    expect(visibleText(element)).to.contain('There is not enough money in the account.');
  });

  it('asks for a masked PIN for the PIN account', async () => {
    const element = await checkout(stack, { payMethod: 'BankAccount' });
    await fillBankAccount(element, '2215381183');
    await clickButton(element, /^Pay/);
    await untilText(element, 'Enter your PIN');
    const pin = (await frameField(element, 'pin'))!.attributes;
    expect(pin['type']).to.equal('password');
    expect(pin['inputmode']).to.equal('numeric');
    expect(visibleText(element)).not.to.contain('Send the code again');
    await expect(element).to.be.accessible();
    await typeCode(element, '1234');
    await clickButton(element, 'Confirm');
    await untilText(element, 'Payment received');
  });

  it('gives the date of birth one message for its three boxes', async () => {
    const element = await checkout(stack, { payMethod: 'BankAccount' });
    // The fields are in the isolated frame: their errors and attributes are read there.
    await typeInFrame(element, ['2215381176', '033']);
    await clickButton(element, /^Pay/);
    await untilText(element, 'Enter date of birth of the account holder.');
    expect(await frameErrors(element)).to.deep.equal(['Enter date of birth of the account holder.']);
    for (const { name } of BANK_ACCOUNT_FIELDS.filter((field) => 'control' in field && field.control === 'date-part')) {
      const input = (await frameField(element, name))!.attributes;
      expect(input['aria-invalid']).to.equal('true');
      expect(input['aria-describedby']).to.equal('dob-hint dob-error');
    }
    // One box wrong, the others right: that box's message, once.
    await typeInFrame(element, [undefined, undefined, '05', '13', '1990']);
    await clickButton(element, /^Pay/);
    await until('one message for the month', async () => (await frameErrors(element)).length === 1 && (await frameField(element, 'dobMonth'))!.attributes['aria-invalid'] === 'true');
    expect((await frameField(element, 'dobDay'))!.attributes['aria-invalid']).to.equal('false');
    await expect(element).to.be.accessible();
  });

  it('names the date of birth when it does not match the account', async () => {
    const element = await checkout(stack, { payMethod: 'BankAccount' });
    await fillBankAccount(element, '2215381176', { dob: ['06', '01', '1990'] });
    await clickButton(element, /^Pay/);
    await untilText(element, 'The date of birth does not match the account.');
    expect((await frameField(element, 'dobDay'))!.attributes['aria-invalid']).to.equal('true');
  });

  for (const decision of ['Approve', 'Decline'] as const) {
    it(`goes to the bank's 3-D Secure page and, back from ${decision}, resumes the same order`, async () => {
      const reference = uniqueReference('3ds');
      const query = new URLSearchParams({
        endpoint: stack.endpoint,
        'checkout-token': await stack.checkoutToken({ reference }),
        'pay-method': 'BankAccount',
        'poll-interval': '100',
        locale: 'en',
      });
      const frame = document.createElement('iframe');
      frame.title = 'shop';
      frame.src = `/test/browser/fixtures/checkout-page.html?${query}`;
      document.body.append(frame);
      try {
        const inFrame = () => frame.contentDocument?.querySelector('svc-checkout') as SvcCheckout | null;
        const first = await until('the element in the shop page', () => inFrame()?.shadowRoot && inFrame());
        await fillBankAccount(first, '2215381200');
        await clickButton(first, /^Pay/);
        await until('the bank page', () => frame.contentWindow?.location.pathname.includes('/sandbox/3ds/'));
        const button = await until(`the ${decision} button`, () =>
          [...(frame.contentDocument?.querySelectorAll('button') ?? [])].find((item) => item.textContent?.trim() === decision),
        );
        button.click();
        await until('the return to the shop', () => frame.contentWindow?.location.pathname.endsWith('/checkout-page.html') && inFrame()?.shadowRoot);
        const back = inFrame()!;
        await untilText(back, decision === 'Approve' ? 'Payment received' : 'The payment did not go through');
        const orders = (await stack.control('GET', '/sandbox/v1/orders')).body.orders.filter((order: { reference: string }) =>
          order.reference.startsWith(reference),
        );
        expect(orders).to.have.length(1);
        expect(orders[0].status).to.equal(decision === 'Approve' ? 'SUCCESS' : 'FAIL');
        if (decision === 'Decline') expect(visibleText(back)).to.contain('The payment was not confirmed with your bank.');
      } finally {
        frame.remove();
      }
    });
  }

  it('lets the shop hold the redirect to the bank until it has saved the order, or keep the payer here', async () => {
    for (const how of ['hold', 'cancel'] as const) {
      const query = new URLSearchParams({
        endpoint: stack.endpoint,
        'checkout-token': await stack.checkoutToken({ reference: uniqueReference(`leave-${how}`) }),
        'pay-method': 'BankAccount',
        'poll-interval': '100',
        locale: 'en',
      });
      const frame = document.createElement('iframe');
      frame.title = 'shop';
      frame.src = `/test/browser/fixtures/checkout-page.html?${query}`;
      document.body.append(frame);
      try {
        const element = await until('the element in the shop page', () => {
          const found = frame.contentDocument?.querySelector('svc-checkout') as SvcCheckout | null;
          return found?.shadowRoot && found;
        });
        let release!: () => void;
        const seen: string[] = [];
        element.addEventListener('svc-before-redirect', (event) => {
          seen.push(event.detail.redirectUrl);
          if (how === 'cancel') event.preventDefault();
          else event.detail.waitUntil(new Promise<void>((resolve) => (release = resolve)));
        });
        await fillBankAccount(element, '2215381200');
        await clickButton(element, /^Pay/);
        await untilText(element, 'Confirm with your bank');
        await until('the event', () => seen.length === 1);
        expect(seen[0]).to.contain('/sandbox/3ds/');
        // Held or cancelled: the payer is still on the shop's page.
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect(frame.contentWindow?.location.pathname).to.contain('/checkout-page.html');
        if (how === 'hold') release();
        else await clickButton(element, /^Continue to your bank/);
        await until('the bank page', () => frame.contentWindow?.location.pathname.includes('/sandbox/3ds/'));
      } finally {
        frame.remove();
      }
    }
  });

  it('opens 3-D Secure in a new window when configured, and follows the order from here', async () => {
    const element = await checkout(stack, { payMethod: 'BankAccount', redirectMode: 'new-window' });
    const actions = record(element, 'svc-action');
    const opened: string[] = [];
    const open = window.open;
    window.open = ((url?: string | URL) => {
      opened.push(String(url ?? ''));
      return null;
    }) as typeof window.open;
    try {
      await fillBankAccount(element, '2215381200');
      await clickButton(element, /^Pay/);
      await untilText(element, 'Confirm with your bank');
      // One window, opened empty (so that it can be cut off from this tab before it goes to the bank).
      expect(opened).to.deep.equal(['']);
      // The browser refused the window: the payer gets a button instead.
      await untilText(element, 'Your browser blocked the bank’s window.');
      await expect(element).to.be.accessible();
      const redirectUrl = String(actions[0]!.detail.redirectUrl);
      expect(redirectUrl).to.contain('/sandbox/3ds/');
      const orderNo = new URL(redirectUrl).pathname.split('/').pop()!;
      await stack.sandbox.threeDs(orderNo, 'approve');
      await untilText(element, 'Payment received');
      expect((await stack.order(orderNo)).status).to.equal('SUCCESS');
    } finally {
      window.open = open;
    }
  });
});
