// One checkout, one payment, as the payer comes back: a reload at a step, Back from the bank's page, another tab on
// the same cart, the shop rendering a fresh token for the same cart, a cart already paid. Each shows the order in
// progress or its result, never a fresh form while an attempt is pending or paid; the sandbox ends with one order.
import { expect } from '@open-wc/testing';
import type { SvcCheckout } from '../../src/element/index.js';
import { buttonNamed, checkout, clickButton, deepQuery, fillBankAccount, record, type, typeCode, uniqueReference, until, untilText, visibleText } from './support/checkout.js';
import { startStack, type Stack } from './support/stack.js';

describe('one checkout, one payment: the payer comes back', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  afterEach(() => sessionStorage.clear());

  async function ordersOf(reference: string): Promise<{ reference: string; status: string }[]> {
    const { orders } = (await stack.control('GET', '/sandbox/v1/orders')).body as { orders: { reference: string; status: string }[] };
    return orders.filter((order) => order.reference === reference || order.reference.startsWith(`${reference}-`));
  }

  /** Pays at terminal `sn` from the form: its swipe step. */
  async function payAtTerminal(element: SvcCheckout, sn: string): Promise<void> {
    await type(element, 'input[name=sn]', sn);
    await clickButton(element, /^Pay/);
    await untilText(element, 'Swipe or insert');
  }

  /** Asks for a reference code from the form, for Mona by email and SMS. */
  async function askForCode(element: SvcCheckout): Promise<void> {
    await type(element, 'input[name=notifyUserName]', 'Mona Hassan');
    await type(element, 'input[name=notifyUserEmail]', 'mona@example.com');
    await type(element, 'input[name=notifyUserMobile]', '+201001234567');
    await clickButton(element, 'Get my code');
  }

  /** Starts paying at a terminal, leaves that order for a reference code ("Use another method"), and gets the code. */
  async function leaveTerminalForCode(reference: string, sn: string): Promise<SvcCheckout> {
    const element = await checkout(stack, { checkoutToken: await stack.checkoutToken({ reference }), methods: 'Pos ReferenceCode' });
    await payAtTerminal(element, sn);
    await clickButton(element, 'Use another method');
    await clickButton(element, 'Yes, use another method');
    deepQuery<HTMLInputElement>(element, 'input[value=ReferenceCode]')!.click();
    await askForCode(element);
    await untilText(element, 'Your reference code');
    return element;
  }

  /** A cart paid at a terminal in a tab that is then closed: this tab keeps nothing of it. */
  async function paidInAnotherTab(reference: string, sn: string, total = 12_500): Promise<void> {
    const first = await checkout(stack, { checkoutToken: await stack.checkoutToken({ reference, amount: { total, currency: 'EGP' } }), payMethod: 'Pos' });
    await payAtTerminal(first, sn);
    await stack.control('POST', `/sandbox/v1/pos/${sn}/swipe`, { outcome: 'success' });
    await untilText(first, 'Payment received');
    first.remove();
    sessionStorage.clear();
  }

  /** The shop's page in a frame, as a browser loads it: navigations and reloads for real. */
  async function shopPage(query: Record<string, string>) {
    const frame = document.createElement('iframe');
    frame.title = 'shop';
    frame.src = `/test/browser/fixtures/checkout-page.html?${new URLSearchParams({ endpoint: stack.endpoint, 'poll-interval': '100', locale: 'en', ...query })}`;
    document.body.append(frame);
    const current = () => frame.contentDocument?.querySelector('svc-checkout') as SvcCheckout | null;
    const element = async (other?: Element) => until('the shop page', () => (current() !== other && current()?.shadowRoot ? current()! : undefined));
    return { frame, element, remove: () => frame.remove() };
  }

  it('reloaded on the OTP step: the step, its tries left and the wait before another code', async () => {
    const reference = uniqueReference('once-otp');
    const page = await shopPage({ 'checkout-token': await stack.checkoutToken({ reference }), 'pay-method': 'BankAccount' });
    try {
      const first = await page.element();
      await fillBankAccount(first, '2215381176');
      await clickButton(first, /^Pay/);
      await untilText(first, 'Enter the code');
      await typeCode(first, '00000000');
      await clickButton(first, 'Confirm');
      await untilText(first, '2 tries left');
      page.frame.contentWindow!.location.reload();
      const reloaded = await page.element(first);
      await untilText(reloaded, 'Enter the code');
      // Said at the field, in the code's isolated frame.
      await untilText(reloaded, '2 tries left');
      const resend = await until('the resend button', () => buttonNamed(reloaded, /Send again/));
      expect(resend.getAttribute('aria-disabled')).to.equal('true');
      expect(resend.textContent).to.match(/Send again in \d+ seconds/);
      expect(deepQuery(reloaded, 'input[name=bankAccountNumber]')).to.equal(null);
      await typeCode(reloaded, '11315632');
      await clickButton(reloaded, 'Confirm');
      await untilText(reloaded, 'Payment received');
      expect(await ordersOf(reference)).to.have.length(1);
    } finally {
      page.remove();
    }
  });

  it("back from the bank's page with Back: the 3-D Secure step again, not a form", async () => {
    const reference = uniqueReference('once-back');
    const page = await shopPage({ 'checkout-token': await stack.checkoutToken({ reference }), 'pay-method': 'BankAccount' });
    try {
      const first = await page.element();
      await fillBankAccount(first, '2215381200');
      await clickButton(first, /^Pay/);
      await until('the bank page', () => page.frame.contentWindow?.location.pathname.includes('/sandbox/3ds/'));
      page.frame.contentWindow!.history.back();
      const back = await page.element(first);
      await untilText(back, 'Confirm with your bank');
      expect(deepQuery(back, 'svc-bank-account-form')).to.equal(null);
      expect(await ordersOf(reference)).to.have.length(1);
    } finally {
      page.remove();
    }
  });

  it('reloaded after the payment: the receipt, under the shop’s reference', async () => {
    const reference = uniqueReference('once-paid');
    const page = await shopPage({ 'checkout-token': await stack.checkoutToken({ reference }), 'pay-method': 'Pos' });
    try {
      const first = await page.element();
      await type(first, 'input[name=sn]', 'N78101818410');
      await clickButton(first, /^Pay/);
      await untilText(first, 'Swipe or insert');
      await stack.control('POST', '/sandbox/v1/pos/N78101818410/swipe', { outcome: 'success' });
      await untilText(first, 'Payment received');
      page.frame.contentWindow!.location.reload();
      const reloaded = await page.element(first);
      await untilText(reloaded, 'Payment received');
      // The shop's reference once, under the summary above the receipt (test/browser/payer-review.test.ts); the
      // receipt has the service's number of the payment.
      const receipt = deepQuery(reloaded, '.receipt')!;
      const header = deepQuery(reloaded, '[part=reference]')!;
      expect(header.textContent).to.contain(reference);
      expect(receipt.textContent).not.to.contain(reference);
      expect(header.getBoundingClientRect().bottom).to.be.at.most(receipt.getBoundingClientRect().top);
    } finally {
      page.remove();
    }
  });

  it('another tab on the same cart: the order in progress, never a form, and one order when it is paid', async () => {
    const reference = uniqueReference('once-tab');
    const token = await stack.checkoutToken({ reference });
    const first = await checkout(stack, { checkoutToken: token, payMethod: 'Pos' });
    await payAtTerminal(first, 'N78101818411');
    first.remove();
    // Another tab: its own session storage (none of the first tab's), and the page the shop renders for the cart.
    sessionStorage.clear();
    const opened = await stack.openCheckout({ reference });
    expect(opened).to.include({ state: 'pending', attempt: 1, started: true });
    const other = await checkout(stack, { checkoutToken: opened.token });
    // Which payment: the terminal the first tab named (the kit's note of that attempt; the status does not say it).
    await untilText(other, 'Swipe or insert the card at terminal N78101818411.');
    expect(deepQuery(other, 'svc-pos-form')).to.equal(null);
    await stack.control('POST', '/sandbox/v1/pos/N78101818411/swipe', { outcome: 'success' });
    await untilText(other, 'Payment received');
    expect(await ordersOf(reference)).to.have.length(1);
  });

  /** Tab 1 issues a reference code for a cart (on the page the shop rendered with `token`) and is closed; the code it was given. */
  async function codeInFirstTab(reference: string, token?: string): Promise<string> {
    const first = await checkout(stack, { checkoutToken: token ?? (await stack.checkoutToken({ reference })), payMethod: 'ReferenceCode' });
    await askForCode(first);
    await untilText(first, 'Your reference code');
    const code = digitsOf(first)!;
    expect(code).to.match(/^\d{9}$/);
    first.remove();
    sessionStorage.clear();
    return code;
  }

  /** The voucher's code, in Latin digits whichever digits it is written in. */
  const digitsOf = (element: SvcCheckout) =>
    deepQuery(element, '.digits')
      ?.textContent?.replace(/[\u0660-\u0669]/g, (digit) => String(digit.charCodeAt(0) - 0x660))
      .replace(/\D/g, '');

  it('another tab on a cart whose code the first tab issued: that code, on its voucher, in English and Arabic', async () => {
    for (const locale of ['en', 'ar-EG']) {
      const reference = uniqueReference('once-code');
      const code = await codeInFirstTab(reference);
      const opened = await stack.openCheckout({ reference });
      expect(opened).to.include({ state: 'pending', started: true });
      const other = await checkout(stack, { checkoutToken: opened.token, locale });
      await until(`the voucher in ${locale}`, () => digitsOf(other) === code);
      expect(visibleText(other)).to.contain(locale === 'en' ? 'Your reference code' : 'رمزك المرجعي');
      expect(deepQuery(other, 'svc-reference-code-form')).to.equal(null);
      other.remove();
      sessionStorage.clear();
      expect(await ordersOf(reference)).to.have.length(1);
    }
  });

  it("another tab on a cart paid from a bank account: the account's last four digits, nothing more of it, in English and Arabic", async () => {
    const reference = uniqueReference('once-bank');
    const first = await checkout(stack, { checkoutToken: await stack.checkoutToken({ reference }), payMethod: 'BankAccount' });
    await fillBankAccount(first, '2215381176');
    await clickButton(first, /^Pay/);
    await untilText(first, 'Enter the code');
    first.remove();
    sessionStorage.clear();
    const words = { en: 'A payment from the bank account ending in 1176 is already in progress.', 'ar-EG': 'هناك عملية دفع جارية بالفعل من الحساب المصرفي المنتهي بـ' };
    for (const [locale, text] of Object.entries(words)) {
      const opened = await stack.openCheckout({ reference });
      const other = await checkout(stack, { checkoutToken: opened.token, locale });
      await untilText(other, text);
      expect(visibleText(other)).to.contain('1176');
      expect(visibleText(other)).not.to.contain('221538');
      other.remove();
      sessionStorage.clear();
    }
  });

  it('another tab with the same page, whose payer asks for a code again: the code already issued, and no second order', async () => {
    const reference = uniqueReference('once-again');
    const token = await stack.checkoutToken({ reference });
    const code = await codeInFirstTab(reference, token);
    // The same page in another tab, rendered before the first tab paid anything: a form, and the kit's ORDER_EXISTS.
    const other = await checkout(stack, { checkoutToken: token, payMethod: 'ReferenceCode' });
    await askForCode(other);
    await until('the first tab\'s code', () => digitsOf(other) === code);
    expect(await ordersOf(reference)).to.have.length(1);
  });

  it('a fresh token for the same cart in the same tab: the step in progress', async () => {
    const reference = uniqueReference('once-fresh');
    const first = await checkout(stack, { checkoutToken: await stack.checkoutToken({ reference }), payMethod: 'Pos' });
    await payAtTerminal(first, 'N78101818412');
    first.remove();
    const opened = await stack.openCheckout({ reference });
    const again = await checkout(stack, { checkoutToken: opened.token, payMethod: 'Pos' });
    await untilText(again, 'Swipe or insert the card at terminal N78101818412.');
    expect(await ordersOf(reference)).to.have.length(1);
  });

  it('a cart already paid: the shop renders the receipt (status only), not a form', async () => {
    const reference = uniqueReference('once-done');
    await paidInAnotherTab(reference, 'N78101818413');
    const opened = await stack.openCheckout({ reference });
    expect(opened).to.include({ state: 'paid', started: true });
    const page = await checkout(stack, { checkoutToken: opened.token });
    await untilText(page, 'Payment received');
    expect(deepQuery(page, 'svc-method-picker')).to.equal(null);
  });

  it('a cart paid, then grown: its page offers no form, and the payer reads it cannot be paid here', async () => {
    const reference = uniqueReference('once-changed');
    await paidInAnotherTab(reference, 'N78101818416', 1_500);
    const opened = await stack.openCheckout({ reference, amount: { total: 50_000, currency: 'EGP' } });
    expect(opened).to.include({ state: 'changed', started: true });
    // The page the shop renders with that token: the paid order is looked up before anything is offered.
    const page = await checkout(stack, { checkoutToken: opened.token });
    const errors = record(page, 'svc-error');
    await untilText(page, 'This order cannot be paid here');
    expect(visibleText(page)).not.to.contain('Payment received');
    expect(deepQuery(page, 'svc-pos-form')).to.equal(null);
    await until('the svc-error event', () => errors.length > 0);
    expect(errors.map((event) => event.detail.code)).to.deep.equal(['ORDER_MISMATCH']);
  });

  it('"Use another method" on a pending order: the next attempt is made, and the kit knew it was left on purpose', async () => {
    const reference = uniqueReference('once-leave');
    await leaveTerminalForCode(reference, 'N78101818414');
    expect((await ordersOf(reference)).map((order) => order.reference).sort()).to.deep.equal([reference, `${reference}--2`]);
  });

  it('an order left for another method, paid after all while the page is open: the payer is told, and nothing more is asked', async () => {
    const reference = uniqueReference('once-late');
    const element = await leaveTerminalForCode(reference, 'N78101818415');
    await stack.control('POST', '/sandbox/v1/pos/N78101818415/swipe', { outcome: 'success' });
    await untilText(element, 'The payment you started earlier for this order went through');
    expect(visibleText(element)).to.contain('Payment received');
    expect(visibleText(element)).not.to.contain('Your reference code');
  });
});

describe('a retry always works: "Try again" makes the attempt the kit accepts, whatever the tab remembers', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  afterEach(() => sessionStorage.clear());

  const referencesOf = async (reference: string) => {
    const { orders } = (await stack.control('GET', '/sandbox/v1/orders')).body as { orders: { reference: string; status: string }[] };
    return orders
      .filter((order) => order.reference === reference || order.reference.startsWith(`${reference}--`))
      .map((order) => `${order.reference.slice(reference.length) || '1'} ${order.status}`)
      .sort();
  };

  /** The shop's page in a frame, rendered with the token the shop gives it: reloads and navigations for real. */
  function shopPage(token: string) {
    const frame = document.createElement('iframe');
    frame.title = 'shop';
    const address = (checkoutToken: string) =>
      `/test/browser/fixtures/checkout-page.html?${new URLSearchParams({ endpoint: stack.endpoint, 'poll-interval': '100', locale: 'en', 'checkout-token': checkoutToken, 'pay-method': 'Pos' })}`;
    frame.src = address(token);
    document.body.append(frame);
    const current = () => frame.contentDocument?.querySelector('svc-checkout') as SvcCheckout | null;
    const element = async (other?: Element) => until('the shop page', () => (current() !== other && current()?.shadowRoot ? current()! : undefined));
    /** The shop renders the page again, with the token it opens the cart's checkout with now. */
    const render = (checkoutToken: string) => (frame.src = address(checkoutToken));
    return { frame, element, render, remove: () => frame.remove() };
  }

  /** Pays at a terminal; the card is declined. */
  async function declined(element: SvcCheckout, sn: string) {
    await type(element, 'input[name=sn]', sn);
    await clickButton(element, /^Pay/);
    await untilText(element, 'Swipe or insert');
    await stack.control('POST', `/sandbox/v1/pos/${sn}/swipe`, { outcome: 'fail' });
    await untilText(element, 'Try again');
  }

  /** "Try again", Pay at the same terminal: the next attempt's swipe step, then paid. */
  async function retried(element: SvcCheckout, sn: string) {
    await clickButton(element, 'Try again');
    const input = await until('the form again', () => deepQuery<HTMLInputElement>(element, 'input[name=sn]'));
    if (input.value !== sn) await type(element, 'input[name=sn]', sn);
    await clickButton(element, /^Pay/);
    await untilText(element, 'Swipe or insert');
    await stack.control('POST', `/sandbox/v1/pos/${sn}/swipe`, { outcome: 'success' });
    await untilText(element, 'Payment received');
  }

  // The shop renders the page again with the token it opens the cart with now; or the browser reloads the very same
  // page, its token from before the failure.
  const RELOADS = {
    'the shop rendering the checkout where it stands now': async (page: ReturnType<typeof shopPage>, reference: string) => {
      const opened = await stack.openCheckout({ reference });
      expect(opened).to.include({ state: 'failed', attempt: 2, started: false });
      page.render(opened.token);
    },
    'the very same page (its token from before the failure)': async (page: ReturnType<typeof shopPage>) => page.frame.contentWindow!.location.reload(),
  };
  for (const [how, reload] of Object.entries(RELOADS)) {
    it(`after a reload, ${how}`, async () => {
      const reference = uniqueReference('retry-reload');
      const sn = how.startsWith('the shop') ? 'N78101818501' : 'N78101818502';
      const page = shopPage((await stack.openCheckout({ reference })).token);
      try {
        const first = await page.element();
        await declined(first, sn);
        await reload(page, reference);
        const reloaded = await page.element(first);
        await untilText(reloaded, 'Try again');
        await retried(reloaded, sn);
        expect(await referencesOf(reference)).to.deep.equal(['--2 SUCCESS', '1 FAIL']);
      } finally {
        page.remove();
      }
    });
  }

  it('in a fresh browser, or a new tab, with no storage: with the token of before, and with a fresh one', async () => {
    const reference = uniqueReference('retry-fresh');
    const before = await stack.openCheckout({ reference });
    const first = await checkout(stack, { checkoutToken: before.token, payMethod: 'Pos' });
    await declined(first, 'N78101818503');
    first.remove();
    sessionStorage.clear();
    // The token of before names attempt 1, which failed: the kit makes the next one.
    const stale = await checkout(stack, { checkoutToken: before.token, payMethod: 'Pos' });
    await type(stale, 'input[name=sn]', 'N78101818503');
    await clickButton(stale, /^Pay/);
    await untilText(stale, 'Swipe or insert');
    await stack.control('POST', '/sandbox/v1/pos/N78101818503/swipe', { outcome: 'fail' });
    await untilText(stale, 'Try again');
    stale.remove();
    sessionStorage.clear();
    const fresh = await checkout(stack, { checkoutToken: (await stack.openCheckout({ reference })).token, payMethod: 'Pos' });
    await type(fresh, 'input[name=sn]', 'N78101818503');
    await clickButton(fresh, /^Pay/);
    await untilText(fresh, 'Swipe or insert');
    await stack.control('POST', '/sandbox/v1/pos/N78101818503/swipe', { outcome: 'success' });
    await untilText(fresh, 'Payment received');
    expect(await referencesOf(reference)).to.deep.equal(['--2 FAIL', '--3 SUCCESS', '1 FAIL']);
  });

  it('after the order expired, and after "Use another method"', async () => {
    const reference = uniqueReference('retry-expired');
    const element = await checkout(stack, { checkoutToken: (await stack.openCheckout({ reference, expireAt: 1 })).token, payMethod: 'Pos' });
    await type(element, 'input[name=sn]', 'N78101818504');
    await clickButton(element, /^Pay/);
    await untilText(element, 'Swipe or insert');
    await stack.control('POST', '/sandbox/v1/clock/advance', { minutes: 2 });
    await untilText(element, 'This payment expired');
    await clickButton(element, 'Start again');
    await type(element, 'input[name=sn]', 'N78101818504');
    await clickButton(element, /^Pay/);
    await untilText(element, 'Swipe or insert');
    await clickButton(element, 'Use another method');
    await clickButton(element, 'Yes, use another method');
    await type(element, 'input[name=sn]', 'N78101818505');
    await clickButton(element, /^Pay/);
    await untilText(element, 'Swipe or insert the card at terminal N78101818505.');
    expect(await referencesOf(reference)).to.deep.equal(['--2 PENDING', '--3 PENDING', '1 CLOSE']);
  });
});
