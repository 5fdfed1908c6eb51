// Reference code, end to end against this file's own sandbox and merchant kit.
import { expect } from '@open-wc/testing';
import { fieldsOf } from '../../src/checkout/fields.js';
import { checkout, choose, click, clickButton, deepQuery, deepQueryAll, record, referenceOf, settle, type, until, untilText, visibleText } from './support/checkout.js';
import { countRequests } from './support/requests.js';
import { startStack, type Stack } from './support/stack.js';

async function fillReferenceCode(element: Element) {
  await type(element, 'input[name=notifyUserName]', 'Mona Hassan');
  await type(element, 'input[name=notifyUserEmail]', 'mona@example.com');
  await type(element, 'input[name=notifyUserMobile]', '+20 100 123 4567');
}

describe('<svc-checkout> reference code', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  afterEach(() => sessionStorage.clear());

  it('moves the deadline and the countdown when the service’s clock moves (the sandbox clock)', async () => {
    // Polled: every status answer says how long the order has left by the service's clock.
    const polling = await startStack({ handler: { streams: false } });
    const element = await checkout(polling, { payMethod: 'ReferenceCode', expireAt: 30 });
    await fillReferenceCode(element);
    await clickButton(element, 'Get my code');
    await untilText(element, 'Your reference code');
    const timer = () => deepQuery(element, 'time[role=timer]')!.textContent!.trim();
    expect(timer()).to.match(/^(29:[0-5]\d|30:00)$/);
    await polling.sandbox.advanceClock(10);
    await until('the countdown 10 minutes shorter', () => /^(19:[0-5]\d|20:00)$/.test(timer()));
    const deadline = deepQuery(element, '[part=deadline]')!.textContent!.trim().replace(/\s/g, ' ');
    const times = [-1, 0, 1].map((minutes) =>
      new Intl.DateTimeFormat('en', { hour: 'numeric', minute: '2-digit' }).format(Date.now() + (20 + minutes) * 60_000).replace(/\s/g, ' '),
    );
    expect(times.map((time) => `Pay EGP 125.00 with this code at any payment point before ${time}.`)).to.include(deadline);
  });

  it('shows the code grouped, the channels, a countdown to the order’s expiry, and the payment when it is paid', async () => {
    const element = await checkout(stack, { payMethod: 'ReferenceCode', expireAt: 30 });
    await expect(element).to.be.accessible();
    const events = record(element, 'svc-http-response', 'svc-action', 'svc-pay-result');
    await fillReferenceCode(element);
    await clickButton(element, 'Get my code');
    await untilText(element, 'Your reference code');
    const created = events.find((event) => event.name === 'svc-http-response')!.detail;
    const code: string = created.data.referenceCode;
    expect(code).to.match(/^\d{9}$/);
    const shown = deepQuery(element, '.code [aria-hidden=true]')!.textContent!.trim();
    expect(shown).to.equal(`${code.slice(0, 3)} ${code.slice(3, 6)} ${code.slice(6)}`);
    // Read out digit by digit, not as three numbers.
    expect(deepQuery(element, '.code .visually-hidden')!.textContent!.trim()).to.equal(code.split('').join(' '));
    expect(visibleText(element)).to.contain('You can close this page. We also sent it by SMS to •••• 4567 and by email to m•••@example.com.');
    // A voucher: the amount and the moment the code stops working, together (30 minutes from now, as the shop set).
    // (Intl puts no-break spaces in amounts and times: compared as plain spaces.)
    const deadline = deepQuery(element, '[part=deadline]')!.textContent!.trim().replace(/\s/g, ' ');
    const times = [-1, 0, 1].map((minutes) =>
      new Intl.DateTimeFormat('en', { hour: 'numeric', minute: '2-digit' }).format(Date.now() + (30 + minutes) * 60_000).replace(/\s/g, ' '),
    );
    expect(times.map((time) => `Pay EGP 125.00 with this code at any payment point before ${time}.`)).to.include(deadline);
    const timer = deepQuery(element, 'time[role=timer]')!;
    expect(timer.textContent!.trim()).to.match(/^(29:[0-5]\d|30:00)$/);
    expect(events.find((event) => event.name === 'svc-action')!.detail).to.deep.equal({
      actionType: 'REFERENCE_CODE',
      orderNo: created.data.orderNo,
      reference: created.data.reference,
      referenceCode: code,
    });
    await expect(element).to.be.accessible();

    const copied: string[] = [];
    const clipboard = Object.getOwnPropertyDescriptor(Navigator.prototype, 'clipboard');
    // The real clipboard needs a permission a headless browser cannot grant from the page.
    Object.defineProperty(navigator, 'clipboard', { configurable: true, value: { writeText: async (text: string) => copied.push(text) } });
    try {
      await clickButton(element, 'Copy code');
      await untilText(element, 'Code copied.');
      expect(copied).to.deep.equal([code]);
      // Information, in the one alert's info tone, with its icon.
      expect(deepQuery(element, '[part~=alert-info].notice svg.alert-icon')).to.not.equal(null);
    } finally {
      delete (navigator as unknown as Record<string, unknown>)['clipboard'];
      if (clipboard) Object.defineProperty(Navigator.prototype, 'clipboard', clipboard);
    }

    // Print or save: the browser's print dialog (a PDF is one of its printers), the buttons left out on paper.
    const print = window.print;
    let printed = 0;
    window.print = () => void (printed += 1);
    try {
      await clickButton(element, 'Print or save');
      expect(printed).to.equal(1);
    } finally {
      window.print = print;
    }

    const sent = (await stack.control('GET', `/sandbox/v1/notifications?orderNo=${created.data.orderNo}`)).body.notifications;
    expect(sent.map((message: { channel: string }) => message.channel).sort()).to.deep.equal(['EMAIL', 'SMS']);

    await stack.control('POST', `/sandbox/v1/reference-codes/${code}/pay`);
    await untilText(element, 'Payment received');
    const results = events.filter((event) => event.name === 'svc-pay-result').map((event) => event.detail);
    expect(results.at(-1)).to.deep.equal({
      callbackName: 'webPayCallback',
      eventName: 'svc-pay-result',
      merchantId: stack.merchantId,
      orderNo: created.data.orderNo,
      orderStatus: 'SUCCESS',
      payNo: created.data.orderNo,
      referenceCode: code,
    });
  });

  it('shows the order expired when the service closes it, and emits svc-expired', async () => {
    const element = await checkout(stack, { payMethod: 'ReferenceCode', expireAt: 30 });
    const events = record(element, 'svc-expired', 'svc-pay-result');
    await fillReferenceCode(element);
    await clickButton(element, 'Get my code');
    await untilText(element, 'Your reference code');
    await stack.control('POST', '/sandbox/v1/clock/advance', { minutes: 30 });
    await untilText(element, 'This payment expired');
    await expect(element).to.be.accessible();
    const expired = events.find((event) => event.name === 'svc-expired');
    const closed = events.filter((event) => event.name === 'svc-pay-result').at(-1)!.detail;
    expect(expired?.detail).to.deep.equal({ orderNo: closed.orderNo, reference: referenceOf(element) });
    expect(events.filter((event) => event.name === 'svc-pay-result').at(-1)!.detail.orderStatus).to.equal('CLOSE');
    await clickButton(element, 'Start again');
    await until('the form again', () => deepQuery(element, 'svc-reference-code-form'));
  });

  it('checks every field on submit, says what is wrong at each, and moves focus to the first', async () => {
    const element = await checkout(stack, { payMethod: 'ReferenceCode' });
    await type(element, 'input[name=notifyUserEmail]', 'mona-at-example');
    await clickButton(element, 'Get my code');
    await untilText(element, 'Enter your name.');
    expect(visibleText(element)).to.contain('Email is not in the right format.');
    expect(visibleText(element)).to.contain('Enter mobile number.');
    const invalid = deepQueryAll<HTMLInputElement>(element, 'input[aria-invalid=true]').map((input) => input.name);
    // Every field the payer types (its rows without choices), in the form's order.
    expect(invalid).to.deep.equal(fieldsOf('ReferenceCode').filter((field) => !field.choices).map((field) => field.name));
    const form = deepQuery(element, 'svc-reference-code-form')!;
    await until('focus on the first invalid field', () => (form.shadowRoot!.activeElement as HTMLInputElement | null)?.name === 'notifyUserName');
    await expect(element).to.be.accessible();
  });

  it('asks only for the contact of the channel chosen, and sends only that', async () => {
    const element = await checkout(stack, { payMethod: 'ReferenceCode' });
    const sent = record(element, 'svc-http-response');
    const creates = countRequests('/payments');
    await type(element, 'input[name=notifyUserName]', 'Mona Hassan');
    await type(element, 'input[name=notifyUserEmail]', 'mona@example.com');
    await click(element, 'input[name=notifyMethod][value=SMS]');
    expect(deepQuery(element, 'input[name=notifyUserEmail]')).to.equal(null);
    await type(element, 'input[name=notifyUserMobile]', '+201001234567');
    await choose(element, 'select[name=notifyLanguage]', 'Arabic');
    await settle(element);
    await clickButton(element, 'Get my code');
    await untilText(element, 'Your reference code');
    creates.restore();
    const notify = (creates.bodies[0] as { notify: Record<string, string> }).notify;
    expect(notify).to.deep.equal({
      notifyUserName: 'Mona Hassan',
      notifyLanguage: 'Arabic',
      notifyMethod: 'SMS',
      notifyUserMobile: '+201001234567',
    });
    expect(visibleText(element)).to.contain('We also sent it by SMS to •••• 4567.');
    const orderNo = sent[0]!.detail.data.orderNo;
    const messages = (await stack.control('GET', `/sandbox/v1/notifications?orderNo=${orderNo}`)).body.notifications;
    expect(messages).to.have.length(1);
    expect(messages[0]).to.include({ channel: 'SMS', language: 'Arabic' });
  });
});
