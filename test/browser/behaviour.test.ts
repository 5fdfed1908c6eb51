// What holds across methods: no duplicate orders, resuming after a reload, configuration, errors and events.
import { expect, fixture, html } from '@open-wc/testing';
import { SvcCheckout } from '../../src/element/index.js';
import {
  checkout,
  clickButton,
  deepQuery,
  fillBankAccount,
  record,
  type,
  uniqueReference,
  until,
  untilText,
  visibleText,
} from './support/checkout.js';
import { collectUnhandled } from './support/chunks.js';
import { countRequests } from './support/requests.js';
import { startStack, type Stack } from './support/stack.js';

describe('<svc-checkout> behaviour', () => {
  let stack: Stack;
  /** A kit without its status stream (`streams: false`), for the tests of the element's polling. */
  let polling: Stack;
  before(async () => {
    stack = await startStack();
    polling = await startStack({ handler: { streams: false } });
  });
  afterEach(() => sessionStorage.clear());

  it('creates one order however many times Pay is pressed', async () => {
    const element = await checkout(stack, { payMethod: 'Pos' });
    await type(element, 'input[name=sn]', 'N78101818301');
    const creates = countRequests('/payments');
    try {
      const button = deepQuery<HTMLButtonElement>(element, 'button[type=submit]')!;
      button.click();
      button.click();
      const calls = [element.submit(), element.submit()];
      expect(calls[0]).to.equal(calls[1]);
      await Promise.all(calls);
      await untilText(element, 'Swipe or insert');
      expect(creates.count).to.equal(1);
    } finally {
      creates.restore();
    }
  });

  it('resumes the order in progress when the page is loaded again, without creating another', async () => {
    const reference = uniqueReference('reload');
    const first = await checkout(stack, { payMethod: 'ReferenceCode', reference });
    const created = record(first, 'svc-http-response');
    await type(first, 'input[name=notifyUserName]', 'Mona Hassan');
    await type(first, 'input[name=notifyUserEmail]', 'mona@example.com');
    await type(first, 'input[name=notifyUserMobile]', '+201001234567');
    await clickButton(first, 'Get my code');
    await untilText(first, 'Your reference code');
    const code = created[0]!.detail.data.referenceCode;
    first.remove();

    const creates = countRequests('/payments');
    try {
      const second = await checkout(stack, { payMethod: 'ReferenceCode', reference });
      await untilText(second, 'Your reference code');
      expect(visibleText(second)).to.contain(`${code.slice(0, 3)} ${code.slice(3, 6)} ${code.slice(6)}`);
      expect(creates.count).to.equal(0);
      await stack.control('POST', `/sandbox/v1/reference-codes/${code}/pay`);
      await untilText(second, 'Payment received');
    } finally {
      creates.restore();
    }
    let readyDetail: unknown;
    const token = await stack.checkoutToken({ reference });
    const third = await fixture<SvcCheckout>(html`<svc-checkout
      endpoint=${stack.endpoint}
      checkout-token=${token}
      @svc-ready=${(event: CustomEvent) => (readyDetail = event.detail)}
    ></svc-checkout>`);
    await untilText(third, 'Payment received');
    expect(readyDetail).to.deep.equal({
      methods: ['Pos', 'BankAccount', 'ReferenceCode'],
      resumed: true,
    });
  });

  it('resumes the payment in progress after a real reload of the page', async () => {
    const reference = uniqueReference('frame');
    const query = new URLSearchParams({
      endpoint: stack.endpoint,
      'checkout-token': await stack.checkoutToken({ reference, amount: { total: 9_900, currency: 'EGP' } }),
      'pay-method': 'Pos',
      'poll-interval': '100',
    });
    const frame = document.createElement('iframe');
    frame.title = 'shop';
    frame.src = `/test/browser/fixtures/checkout-page.html?${query}`;
    document.body.append(frame);
    try {
      const inFrame = () => frame.contentDocument?.querySelector('svc-checkout') as SvcCheckout | null;
      const page = await until('the shop page', () => inFrame()?.shadowRoot && inFrame());
      await type(page, 'input[name=sn]', 'N78101818302');
      await clickButton(page, /^Pay/);
      await untilText(page, 'Swipe or insert');
      frame.contentWindow!.location.reload();
      await until('the reloaded page', () => inFrame() !== page && inFrame()?.shadowRoot && inFrame());
      const reloaded = inFrame()!;
      await untilText(reloaded, 'Swipe or insert the card at terminal N78101818302.');
      await stack.control('POST', '/sandbox/v1/pos/N78101818302/swipe', { outcome: 'success' });
      await untilText(reloaded, 'Payment received');
      const orders = (await stack.control('GET', '/sandbox/v1/orders')).body.orders.filter((order: { reference: string }) =>
        order.reference.startsWith(reference),
      );
      expect(orders).to.have.length(1);
    } finally {
      frame.remove();
    }
  });

  it('never charges twice for a cart already paid elsewhere: it shows that payment, and makes no order', async () => {
    const reference = uniqueReference('paid');
    const direct = await stack.createPosOrderElsewhere(reference, 'N78101818303');
    await stack.control('POST', '/sandbox/v1/pos/N78101818303/swipe', { outcome: 'success' });
    const element = await checkout(stack, { payMethod: 'Pos', reference });
    const errors = record(element, 'svc-error');
    await type(element, 'input[name=sn]', 'N78101818303');
    await clickButton(element, /^Pay/);
    // The cart's payment (another tab, another device): its receipt, and the kit made no second order.
    await untilText(element, 'Payment received');
    expect(visibleText(element)).to.contain(direct.orderNo);
    const { orders } = (await stack.control('GET', '/sandbox/v1/orders')).body as { orders: { reference: string }[] };
    expect(orders.filter((order) => order.reference.startsWith(reference))).to.have.length(1);
    expect(errors).to.have.length(0);
  });

  it('moves on to the next attempt when the one the page names was spent on a failed order', async () => {
    const reference = uniqueReference('spent');
    const direct = await stack.createPosOrderElsewhere(reference, 'N78101818307');
    await stack.control('POST', `/sandbox/v1/orders/${direct.orderNo}/complete`, { status: 'FAIL' });
    const element = await checkout(stack, { payMethod: 'Pos', reference });
    const created = record(element, 'svc-http-response');
    await type(element, 'input[name=sn]', 'N78101818307');
    await clickButton(element, /^Pay/);
    await untilText(element, 'Swipe or insert the card at terminal N78101818307.');
    // The kit knows that attempt is spent: it makes the checkout's next one at once.
    expect(created.map((event) => event.detail.code)).to.deep.equal(['00000']);
    expect(created[0]!.detail.data.reference).to.equal(`${reference}--2`);
  });

  it('moves on from a spent attempt for a bank account too, with what the payer typed', async () => {
    const reference = uniqueReference('spent-bank');
    const direct = await fetch(`${stack.endpoint}/payments`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Svc-Checkout-Token': await stack.checkoutToken({ reference }) },
      body: JSON.stringify({
        payMethod: 'BankAccount',
        bankAccountNumber: '4000123412341234',
        bankCode: '044',
        dobDay: '05',
        dobMonth: '01',
        dobYear: '1990',
        returnUrl: location.href,
      }),
    }).then((response) => response.json());
    expect(direct.code).to.equal('00000');
    await stack.control('POST', `/sandbox/v1/orders/${direct.data.orderNo}/complete`, { status: 'FAIL' });
    const element = await checkout(stack, { payMethod: 'BankAccount', reference });
    const created = record(element, 'svc-http-response');
    await fillBankAccount(element, '2215381176');
    await clickButton(element, /^Pay/);
    await untilText(element, 'Enter the code');
    // The kit knows that attempt is spent: it makes the checkout's next one at once.
    expect(created.map((event) => event.detail.code)).to.deep.equal(['00000']);
    expect(created[0]!.detail.data.reference).to.equal(`${reference}--2`);
  });

  it('moves focus to the next step, so that keyboard users follow the payment', async () => {
    const element = await checkout(stack, { payMethod: 'Pos' });
    await type(element, 'input[name=sn]', 'N78101818308');
    const pay = deepQuery<HTMLButtonElement>(element, 'button[type=submit]')!;
    pay.focus();
    pay.click();
    const step = await until('the swipe step', () => deepQuery(element, 'svc-swipe-step'));
    await until('focus on its heading', () => step.shadowRoot?.activeElement?.tagName === 'H2');
    expect(step.shadowRoot!.activeElement!.textContent).to.equal('Pay at the terminal');
  });

  it('stops polling when the element leaves the page, and resumes when it comes back', async () => {
    const element = await checkout(polling, { payMethod: 'Pos' });
    await type(element, 'input[name=sn]', 'N78101818309');
    await clickButton(element, /^Pay/);
    await untilText(element, 'Swipe or insert');
    const status = countRequests('/payments/status');
    try {
      const parent = element.parentElement!;
      element.remove();
      await new Promise((resolve) => setTimeout(resolve, 150));
      const whileAway = status.count;
      await new Promise((resolve) => setTimeout(resolve, 800));
      expect(status.count).to.equal(whileAway);
      parent.append(element);
      await until('a check once back', () => status.count > whileAway);
      await polling.control('POST', '/sandbox/v1/pos/N78101818309/swipe', { outcome: 'success' });
      await untilText(element, 'Payment received');
    } finally {
      status.restore();
    }
  });

  it('shows the form once settings that arrived late are complete', async () => {
    const element = document.createElement('svc-checkout');
    element.sandbox = true; // in test mode the configuration error names the setting on screen
    const ready: unknown[] = [];
    element.addEventListener('svc-ready', (event) => ready.push(event.detail));
    document.body.append(element);
    try {
      await untilText(element, 'This checkout is not set up correctly (endpoint).');
      Object.assign(element, {
        endpoint: stack.endpoint,
        merchantId: stack.merchantId,
        countryCode: 'EG',
        currency: 'EGP',
        payAmount: 700,
        productName: 'Beans',
        payMethod: 'Pos',
        reference: uniqueReference('late'),
      });
      await untilText(element, 'Terminal serial number');
      expect(ready).to.deep.equal([{ methods: ['Pos'], resumed: false }]);
      // And broken again while the form shows: the configuration error names the setting.
      element.removeAttribute('currency');
      element.currency = undefined;
      await untilText(element, 'This checkout is not set up correctly (currency).');
    } finally {
      element.remove();
    }
  });

  it('shows the step of an order of the same reference already pending elsewhere: the terminal it waits at', async () => {
    const reference = uniqueReference('pending');
    await stack.createPosOrderElsewhere(reference, 'N78101818304');
    const element = await checkout(stack, { payMethod: 'Pos', reference });
    await type(element, 'input[name=sn]', 'N78101818305');
    await clickButton(element, /^Pay/);
    // The kit's ORDER_EXISTS says which payment it is: the other page's terminal, not this one's.
    await untilText(element, 'Swipe or insert the card at terminal N78101818304.');
    await expect(element).to.be.accessible();
    await stack.control('POST', '/sandbox/v1/pos/N78101818304/swipe', { outcome: 'success' });
    await untilText(element, 'Payment received');
  });

  it('reports a service outage as a retryable svc-error, and the same reference goes through afterwards', async () => {
    const reference = uniqueReference('outage');
    const element = await checkout(stack, { payMethod: 'Pos', reference });
    const events = record(element, 'svc-error', 'svc-http-response');
    await type(element, 'input[name=sn]', 'N78101818305');
    await stack.control('POST', '/sandbox/v1/faults', { kind: '50003', count: 1 });
    await clickButton(element, /^Pay/);
    await untilText(element, 'Payments are not available right now. Try again in a moment.');
    expect(events.find((event) => event.name === 'svc-error')!.detail).to.deep.equal({
      code: '50003',
      message: 'service not available, please try again.',
      retryable: true,
    });
    await expect(element).to.be.accessible();
    await clickButton(element, /^Pay/);
    await untilText(element, 'Swipe or insert');
    expect(events.filter((event) => event.name === 'svc-http-response').at(-1)!.detail.data.reference).to.equal(reference);
  });

  it('reports an endpoint it cannot reach as a NETWORK error', async () => {
    const element = await fixture<SvcCheckout>(html`<svc-checkout
      endpoint="http://127.0.0.1:9/checkout"
      merchant-id="256612345678901"
      country-code="EG"
      currency="EGP"
      pay-amount="100"
      product-name="Beans"
      pay-method="Pos"
    ></svc-checkout>`);
    const errors = record(element, 'svc-error');
    await type(element, 'input[name=sn]', 'N1');
    await clickButton(element, /^Pay/);
    await untilText(element, 'We could not reach the shop.');
    expect(errors[0]!.detail).to.include({ code: 'NETWORK', retryable: true });
  });

  it("tells a shop's error (5xx) and a wrong payment address (404) apart from a lost connection", async () => {
    for (const [status, text, code] of [
      [502, 'The shop could not take payments just now. Try again in a moment.', 'HTTP'],
      [500, 'The shop could not take payments just now. Try again in a moment.', 'HTTP'],
      [404, 'Payments are not set up on this page. Please contact the shop.', 'HTTP'],
    ] as const) {
      const element = await checkout(stack, { payMethod: 'Pos', endpoint: `/http-status/${status}/checkout` });
      const errors = record(element, 'svc-error');
      await type(element, 'input[name=sn]', 'N78101818307');
      await clickButton(element, /^Pay/);
      await untilText(element, text);
      expect(deepQuery(element, '[part~=alert-error][role=alert] svg.alert-icon'), 'an error, with its icon').to.not.equal(null);
      expect(visibleText(element)).not.to.contain('connection');
      expect(errors[0]!.detail).to.include({ code, retryable: status >= 500 });
      // The payer never reads the setting at fault, outside test mode either.
      expect(visibleText(element)).not.to.contain('endpoint');
      await expect(element).to.be.accessible();
      element.remove();
    }
  });

  it('answers getCashierStatus() with the status envelope', async () => {
    const element = await checkout(stack, { payMethod: 'Pos' });
    await type(element, 'input[name=sn]', 'N78101818306');
    await clickButton(element, /^Pay/);
    await untilText(element, 'Swipe or insert');
    const envelope = await element.getCashierStatus();
    expect(envelope.code).to.equal('00000');
    expect(envelope.data).to.include({ status: 'PENDING', silence: 'Y' });
    expect(envelope.data!.vat).to.include({ rate: 14, currencySymbo: 'E£' });
  });

  it('takes the whole PayParams as a property, and offers only the preferred method', async () => {
    const element = document.createElement('svc-checkout');
    element.endpoint = stack.endpoint;
    element.payParams = {
      merchantId: stack.merchantId,
      merchantName: 'Nile Coffee Roasters',
      reference: uniqueReference('params'),
      countryCode: 'EG',
      currency: 'EGP',
      payAmount: 250_075,
      productName: 'Grinder',
      productDescription: 'Burr grinder',
      expireAt: 45,
      payMethod: 'ReferenceCode',
    };
    element.userInfo = { userName: 'Omar Adel', userEmail: 'omar@example.com', userMobile: '+201112223334' };
    document.body.append(element);
    try {
      await untilText(element, 'EGP 2,500.75');
      // One method: no choice to make, and it keeps its title and explanation.
      expect(deepQuery(element, 'input[name=payMethod]')).to.equal(null);
      expect(deepQuery(element, '[part=method]')!.textContent).to.contain('Reference code');
      expect(visibleText(element)).to.contain('Get a 9-digit code and pay it at any payment point.');
      await expect(element).to.be.accessible();
      expect(deepQuery<HTMLInputElement>(element, 'input[name=notifyUserName]')!.value).to.equal('Omar Adel');
      expect(deepQuery<HTMLInputElement>(element, 'input[name=notifyUserEmail]')!.value).to.equal('omar@example.com');
    } finally {
      element.remove();
    }
  });

  it('offers the methods listed, and reports the choice and completeness in svc-change', async () => {
    const element = await checkout(stack, { methods: 'Pos, ReferenceCode' });
    const changes = record(element, 'svc-change');
    const options = [...element.shadowRoot!.querySelector('svc-method-picker')!.shadowRoot!.querySelectorAll<HTMLInputElement>('input[type=radio]')];
    expect(options.map((option) => option.value)).to.deep.equal(['Pos', 'ReferenceCode']);
    options[1]!.click();
    await until('the reference code form', () => deepQuery(element, 'svc-reference-code-form'));
    expect(changes[0]!.detail).to.deep.equal({ payMethod: 'ReferenceCode', complete: false });
    await type(element, 'input[name=notifyUserName]', 'Mona');
    await type(element, 'input[name=notifyUserEmail]', 'mona@example.com');
    await type(element, 'input[name=notifyUserMobile]', '+201001234567');
    expect(changes.at(-1)!.detail).to.deep.equal({ payMethod: 'ReferenceCode', complete: true });
  });

  it('shows a configuration error that names the setting instead of a broken form', async () => {
    const element = await fixture<SvcCheckout>(html`<svc-checkout sandbox merchant-id="1" currency="EGP" pay-amount="100"></svc-checkout>`);
    await untilText(element, 'This checkout is not set up correctly (endpoint).');
    // In live mode the payer is told the checkout is not available; the setting goes to the svc-error event and to
    // the console, where the shop's developer looks.
    const errors: Array<{ code: string; message: string }> = [];
    const logged: string[] = [];
    const log = console.error;
    console.error = (...parts: unknown[]) => logged.push(parts.join(' '));
    const live = document.createElement('svc-checkout');
    live.sandbox = false;
    live.addEventListener('svc-error', (event) => errors.push(event.detail));
    Object.assign(live, { merchantId: '1', currency: 'EGP', payAmount: 100 });
    document.body.append(live);
    try {
      await untilText(live, 'This checkout is not available right now. Please contact the shop.');
      expect(visibleText(live)).not.to.contain('endpoint');
      expect(errors[0]).to.include({ code: 'CONFIG' });
      expect(errors[0]!.message).to.contain('endpoint');
      expect(logged).to.deep.equal([`svc-checkout: ${errors[0]!.message}`]);
    } finally {
      console.error = log;
      live.remove();
    }
    // Without a country the service takes a POS order but answers none of the calls that follow it.
    const noCountry = await fixture<SvcCheckout>(html`<svc-checkout sandbox endpoint=${stack.endpoint} merchant-id=${stack.merchantId}
      currency="EGP" pay-amount="100" product-name="Beans" pay-method="Pos"></svc-checkout>`);
    await untilText(noCountry, 'This checkout is not set up correctly (country-code).');
  });

  it("names a wrong attribute of a shop without checkout tokens from the kit's answer to the create, not at load", async () => {
    // Configured by its attributes (a shop in development, orders: 'browser'): the element does not check the order's
    // own fields (the kit does, docs/element.md "A misconfigured attribute"), so the form is there; the kit's answer to
    // the create names the field, and the log the attribute.
    const shop = await startStack({ handler: { orders: 'browser' } });
    const wrongAmount = await fixture<SvcCheckout>(html`<svc-checkout sandbox endpoint=${shop.endpoint} merchant-id=${shop.merchantId}
      reference=${uniqueReference('wrong-amount')} country-code="EG" currency="EGP" pay-amount="-5" product-name="Beans" pay-method="Pos"></svc-checkout>`);
    const errors = record(wrongAmount, 'svc-error');
    const logged: string[] = [];
    const log = console.error;
    console.error = (...parts: unknown[]) => logged.push(parts.join(' '));
    try {
      await type(wrongAmount, 'input[name=sn]', 'N78101818303');
      expect(errors).to.deep.equal([]);
      await clickButton(wrongAmount, /^Pay/);
      await untilText(wrongAmount, 'This checkout is not available right now. Please contact the shop.');
    } finally {
      console.error = log;
    }
    expect(errors.map((event) => event.detail.code)).to.deep.equal(['02001']);
    expect(errors[0]!.detail.message).to.contain('amount.total');
    expect(logged).to.deep.equal(['svc-checkout: pay-amount: the kit refused amount.total']);
    const { orders } = (await shop.control('GET', '/sandbox/v1/orders')).body as { orders: unknown[] };
    expect(orders).to.deep.equal([]);
    await expect(wrongAmount).to.be.accessible();
  });

  it('leaves a fault behind Pay for the page to see, where a session that could not load is only said', async () => {
    const element = await checkout(stack);
    await until('the session', () => element.session);
    // A fault the real session cannot make on demand: its submit rejects.
    const fault = new Error('a fault in the session');
    element.session!.submit = () => Promise.reject(fault);
    const unhandled = collectUnhandled();
    try {
      deepQuery<HTMLButtonElement>(element, 'button[type=submit]')!.click();
      await until('the fault at the page', () => unhandled.reasons.length > 0);
      expect(unhandled.reasons).to.deep.equal([fault]);
    } finally {
      unhandled.stop();
    }
  });

  it('refuses a private key, and never sends it', async () => {
    const errors: unknown[] = [];
    const creates = countRequests('/payments');
    const element = document.createElement('svc-checkout');
    element.addEventListener('svc-error', (event) => errors.push(event.detail));
    element.setAttribute('endpoint', stack.endpoint);
    element.setAttribute('sandbox', '');
    element.payParams = {
      merchantId: stack.merchantId,
      merchantName: 'Shop',
      reference: uniqueReference('key'),
      countryCode: 'EG',
      currency: 'EGP',
      payAmount: 100,
      productName: 'Beans',
      productDescription: 'Beans',
      expireAt: 30,
      privateKey: 'OPAYPRV-must-not-be-here',
    } as never;
    const logged: string[] = [];
    const log = console.error;
    console.error = (...parts: unknown[]) => logged.push(parts.join(' '));
    try {
      document.body.append(element);
      await untilText(element, 'This checkout is not set up correctly (private-key).');
      expect(JSON.stringify(element.payParams)).not.to.contain('OPAYPRV');
      // Said once, to the page and to the console, and the key in neither.
      expect(errors).to.deep.equal([
        { code: 'CONFIG', message: 'the element never takes a private key: keep it on your server, in the merchant kit', retryable: false },
      ]);
      expect(logged).to.deep.equal(['svc-checkout: the element never takes a private key: keep it on your server, in the merchant kit']);
      await element.submit();
      expect(creates.count).to.equal(0);
      expect(JSON.stringify({ ...sessionStorage })).not.to.contain('OPAYPRV');
      element.setAttribute('private-key', 'OPAYPRV-attribute');
      await element.updateComplete;
      expect(element.hasAttribute('private-key')).to.equal(false);
      expect(element.outerHTML).not.to.contain('OPAYPRV');
    } finally {
      console.error = log;
      creates.restore();
      element.remove();
    }
  });

  it('shows the Test mode badge in sandbox mode, and SvcCheckout.isSandBox sets the default', async () => {
    const element = await checkout(stack);
    expect(visibleText(element)).to.contain('Test mode');
    element.sandbox = false;
    await element.updateComplete;
    expect(visibleText(element)).not.to.contain('Test mode');
    element.sandbox = undefined;
    await element.updateComplete;
    expect(visibleText(element)).not.to.contain('Test mode');
    SvcCheckout.isSandBox = true;
    try {
      element.requestUpdate();
      await element.updateComplete;
      expect(visibleText(element)).to.contain('Test mode');
    } finally {
      SvcCheckout.isSandBox = false;
    }
  });
});
