// "Pay on your phone" in the element on the shop's own page (issue 46, point 3): the kit's link of the element's own
// checkout as a QR code and a copyable link; a phone-sized window (390 px) opens it and pays by reference code while
// the shop's page, which still showed the form, learns of the order (the light check of the kit's record) and follows
// it live to the receipt. Each screen is a window of its own, opened by the test page.
import { expect } from '@open-wc/testing';
import { checkout, clickButton, deepQuery, type, uniqueReference, until, untilText, visibleText } from './support/checkout.js';
import { startStack, type Stack } from './support/stack.js';
import { CHECKOUT_TOKEN_HEADER } from '../../src/core/index.js';

const opened: Window[] = [];

async function openScreen(url: string, width: number, name: string): Promise<Window> {
  const screen = window.open(url, name, `popup,width=${width},height=844`);
  if (!screen) throw new Error('the browser opened no window');
  opened.push(screen);
  await until('the pay page', () => screen.document?.readyState === 'complete' && screen.location.pathname.includes('/pay/') && screen.document.querySelector('main'), 15_000);
  return screen;
}

/** The offer opened on the shop's page: its QR code drawn (an image that decoded) and its link. */
async function openOffer(element: Element): Promise<string> {
  await until('the offer', () => deepQuery(element, 'button[part~=button-pay-on-phone]'), 15_000);
  await clickButton(element, 'Pay on your phone');
  const qr = await until('the QR code', () => {
    const image = deepQuery<HTMLImageElement>(element, 'img[part~=qr]');
    return image?.complete && image.naturalWidth > 0 ? image : undefined;
  }, 15_000);
  expect(qr.alt).to.equal('QR code of the link to this checkout');
  const link = deepQuery<HTMLInputElement>(element, 'input[part~=link]')!;
  expect(link.value).to.match(/\/pay\/pl1\.[\w-]+$/);
  return link.value;
}

describe('pay on your phone, from the shop page', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  afterEach(() => {
    for (const screen of opened.splice(0)) screen.close();
  });

  it('offers a QR code and a link of the same checkout; a phone pays by reference code, and the shop page follows it live to the receipt', async function () {
    this.timeout(90_000);
    const reference = uniqueReference('move');
    const shop = await checkout(stack, { reference, amount: 12_500 });
    const url = await openOffer(shop);

    const phone = await openScreen(url, 390, `phone-${reference}`);
    expect(phone.innerWidth).to.equal(390);
    expect(phone.document.documentElement.scrollWidth, 'no sideways scrolling at 390 px').to.be.at.most(390);
    // The same cart, amount and currency as the shop page's token.
    expect(visibleText(phone.document.body)).to.contain('EGP 125.00');
    const onPhone = await until('the element', () => phone.document.querySelector('svc-checkout')?.shadowRoot && phone.document.querySelector('svc-checkout')!, 15_000);
    // The pay page's element first looks for an order of the cart (the kit has no record of it yet), then shows the form.
    await (onPhone as Element & { updateComplete: Promise<unknown> }).updateComplete;
    await until('the method picker', () => deepQuery(onPhone, 'input[value=ReferenceCode]'), 15_000);
    deepQuery<HTMLInputElement>(onPhone, 'input[value=ReferenceCode]')!.click();
    await type(onPhone, 'input[name=notifyUserName]', 'Mona Hassan').catch((error) => {
      throw new Error(`${error} — the phone shows: ${visibleText(onPhone)} (${phone.document.visibilityState})`);
    });
    await type(onPhone, 'input[name=notifyUserEmail]', 'mona@example.com').catch((error) => {
      throw new Error(`${error} — the phone shows: ${visibleText(onPhone)}`);
    });
    await type(onPhone, 'input[name=notifyUserMobile]', '+201001234567');
    await clickButton(onPhone, 'Get my code');
    await untilText(onPhone, 'Your reference code', 15_000);

    // The shop page showed the form: it learns of the phone's order, shows its code (the kit's note of it) and waits
    // for its payment.
    await untilText(shop, 'Your reference code', 15_000).catch((error) => {
      throw new Error(`${error} — the shop page shows: ${visibleText(shop)}`);
    });
    const order = (await stack.sandbox.orders()).find((each) => each.reference === reference);
    expect(order?.referenceCode, 'the order the phone made, of the shop page\'s own cart').to.be.a('string');
    expect(deepQuery(shop, '.digits')?.textContent?.replace(/\s/g, ''), 'the phone\'s code on the shop page').to.equal(order!.referenceCode);
    expect(order?.amount).to.deep.include({ total: 12_500, currency: 'EGP' });

    const paidAt = performance.now();
    await stack.sandbox.payReferenceCode(order!.referenceCode!);
    await untilText(shop, 'Payment received', 10_000);
    const followed = performance.now() - paidAt;
    await untilText(onPhone, 'Payment received', 10_000);
    expect(followed, 'the shop page shows the receipt within a second of the payment').to.be.below(1_000);
    expect((await stack.sandbox.orders()).filter((each) => each.reference.startsWith(reference))).to.have.length(1);
  });

  it("lets the page style the offer's QR code with ::part(qr)", async function () {
    this.timeout(60_000);
    const style = document.createElement('style');
    style.textContent = 'svc-checkout.branded::part(qr) { width: 151px; }';
    document.head.append(style);
    try {
      const shop = await checkout(stack, { reference: uniqueReference('part') });
      shop.classList.add('branded');
      await openOffer(shop);
      expect(getComputedStyle(deepQuery(shop, 'img[part~=qr]')!).width).to.equal('151px');
    } finally {
      style.remove();
    }
  });

  it('finds an order made on another device while it shows the form, and follows it', async function () {
    this.timeout(60_000);
    const reference = uniqueReference('elsewhere');
    const shop = await checkout(stack, { reference, amount: 12_500 });
    await openOffer(shop);
    // Another device pays the same checkout (its own token for the same cart): a POS order at a terminal.
    await stack.createPosOrderElsewhere(reference, 'N1');
    await until('the form gone', () => !deepQuery(shop, 'input[value=Pos]'), 15_000).catch((error) => {
      throw new Error(`${error} — the shop page shows: ${visibleText(shop)}`);
    });
    // Which payment: the other device's terminal (the kit's note of that attempt).
    await untilText(shop, 'Swipe or insert the card at terminal N1.', 15_000);
  });

  it("refused here, paid on another device at the same attempt: the form and the refusal stay, and that order is found when the page is seen again", async function () {
    this.timeout(60_000);
    const reference = uniqueReference('refused');
    // 20.02: the sandbox refuses a terminal's or a bank account's create at this amount (02002), not a code's.
    const shop = await checkout(stack, { reference, amount: 2002, payMethod: 'Pos' });
    await type(shop, 'input[name=sn]', 'N78101818218');
    await clickButton(shop, /^Pay/);
    await untilText(shop, 'This checkout is not available right now.', 15_000);
    // The payer leaves the tab and comes back: the kit's record names the attempt refused here, which has no order.
    document.dispatchEvent(new Event('visibilitychange'));
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(deepQuery<HTMLInputElement>(shop, 'input[name=sn]')?.value, 'the form as the payer left it').to.equal('N78101818218');
    expect(visibleText(shop)).to.contain('This checkout is not available right now.');
    // The service made no order, so the kit's next attempt is that same one: the phone pays a code there.
    const token = await stack.checkoutToken({ reference, amount: { total: 2002, currency: 'EGP' } });
    const made = await fetch(`${stack.endpoint}/payments`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', [CHECKOUT_TOKEN_HEADER]: token },
      body: JSON.stringify({ reference, payMethod: 'ReferenceCode', notify: { notifyUserName: 'Mona Hassan', notifyUserEmail: 'mona@example.com', notifyMethod: 'EMAIL', notifyLanguage: 'English' } }),
    }).then((response) => response.json());
    expect(made.code, JSON.stringify(made)).to.equal('00000');
    // Back to this tab again: that attempt is now the phone's order.
    document.dispatchEvent(new Event('visibilitychange'));
    await untilText(shop, made.data.referenceCode.slice(-3), 15_000).catch((error) => {
      throw new Error(`${error} — the shop page shows: ${visibleText(shop)}`);
    });
    expect(deepQuery(shop, 'input[name=sn]'), 'the form gave way to the order').to.equal(null);
  });

  it('never opened, it checks once when its page is seen again, and finds an order made on another device meanwhile', async function () {
    this.timeout(60_000);
    const reference = uniqueReference('returned');
    const shop = await checkout(stack, { reference, amount: 12_500 });
    await until('the offer', () => deepQuery(shop, 'button[part~=button-pay-on-phone]'), 15_000);
    // The link reached the phone another way (the shop's chat): the offer was never opened on this page.
    await stack.createPosOrderElsewhere(reference, 'N1');
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(deepQuery(shop, 'input[value=Pos]'), 'a page kept in view checks nothing').to.not.equal(null);
    // The payer comes back to this tab (the browser says so with visibilitychange; a test page cannot be hidden).
    document.dispatchEvent(new Event('visibilitychange'));
    // Which payment: the other device's terminal (the kit's note of that attempt).
    await untilText(shop, 'Swipe or insert the card at terminal N1.', 15_000).catch((error) => {
      throw new Error(`${error} — the shop page shows: ${visibleText(shop)}`);
    });
  });
});
