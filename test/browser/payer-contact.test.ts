// A payment link with the payer's contact (docs/pay-links.md, "The payer's contact"), made by the command line: the pay
// page's reference code form says the code goes to the contact the shop has on file, lets the payer leave it empty, and
// the code goes there (the sandbox's outbox); the contact itself is nowhere in the page. In English and Arabic.
import { expect } from '@open-wc/testing';
import { clickButton, deepQuery, type, until, untilText, uniqueReference, visibleText } from './support/checkout.js';
import { violations } from './support/axe.js';
import { startStack, type Stack } from './support/stack.js';

const LINK_ARGS = ['--amount', '12500', '--currency', 'EGP', '--country', 'EG', '--product', 'Coffee beans', '--description', 'Ethiopian, 250 g', '--merchant-name', 'Nile Coffee Roasters'];
const opened: Window[] = [];


async function openPage(url: string, name: string): Promise<{ screen: Window; element: Element }> {
  const screen = window.open(url, name, 'popup,width=420,height=844');
  if (!screen) throw new Error('the browser opened no window');
  opened.push(screen);
  await until('the pay page', () => screen.document?.readyState === 'complete' && screen.location.pathname.includes('/pay/') && screen.document.querySelector('main'), 15_000);
  const element = await until('the element', () => screen.document.querySelector('svc-checkout')?.shadowRoot && screen.document.querySelector('svc-checkout')!, 15_000);
  return { screen, element };
}

/** The reference code form, chosen, and the channel `channel` picked, once the session has come (the form's words). */
async function referenceCodeForm(element: Element, channel: 'EMAIL' | 'SMS' | 'BOTH'): Promise<void> {
  await until('the method picker', () => deepQuery(element, 'input[value=ReferenceCode]'), 15_000);
  deepQuery<HTMLInputElement>(element, 'input[value=ReferenceCode]')!.click();
  await until('the channel', () => deepQuery(element, `input[name=notifyMethod][value=${channel}]`), 15_000);
  deepQuery<HTMLInputElement>(element, `input[name=notifyMethod][value=${channel}]`)!.click();
}

/** The element's checkout token's claims, as anyone reading the page can decode them (its payload part, base64url). */
function tokenPayload(element: Element): string {
  const payload = (element.getAttribute('checkout-token') ?? '').split('.')[1] ?? '';
  const binary = atob(payload.replace(/-/g, '+').replace(/_/g, '/').padEnd(Math.ceil(payload.length / 4) * 4, '='));
  return new TextDecoder().decode(Uint8Array.from(binary, (char) => char.charCodeAt(0)));
}

/** Where the sandbox sent the reference code of `reference`'s order: `EMAIL address`, `SMS number`. */
async function sentFor(stack: Stack, reference: string): Promise<string[]> {
  const order = (await stack.sandbox.orders()).find((each) => each.reference === reference);
  return (await stack.sandbox.notifications({ orderNo: order!.orderNo })).map((message) => `${message.channel} ${message.to}`);
}

const input = (element: Element, name: string) => deepQuery<HTMLInputElement>(element, `input[name=${name}]`)!;

describe('a payment link with the payer\'s contact', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  afterEach(() => {
    for (const screen of opened.splice(0)) screen.close();
  });

  it('pays a reference code with the contact left empty: the form says the code goes to the one on file, and it does', async function () {
    this.timeout(60_000);
    const reference = uniqueReference('contact');
    const url = await stack.paymentLink([...LINK_ARGS, '--reference', reference, '--payer-name', 'Mona Adel', '--payer-email', 'mona.adel@example.com', '--payer-phone', '+201001234567']);
    const { screen, element } = await openPage(`${url}?lang=en`, `contact-${reference}`);
    await referenceCodeForm(element, 'BOTH');
    await untilText(element, 'We’ll send the code to the email and mobile number the shop has on file, unless you type others.', 15_000);
    await referenceCodeForm(element, 'EMAIL');
    await untilText(element, 'We’ll send the code to the email the shop has on file, unless you type another.');
    expect(deepQuery<HTMLInputElement>(element, 'input[name=notifyUserEmail]')!.required, 'the email may be left empty').to.equal(false);
    expect(deepQuery<HTMLInputElement>(element, 'input[name=notifyUserName]')!.required, 'the name may be left empty').to.equal(false);
    expect(await violations(screen), 'axe, the form with a contact on file').to.deep.equal([]);
    // Where the contact could show: the page's text and its token's claims, decoded (the token is base64url, so the page's
    // markup could never show it in clear).
    const seen = `${tokenPayload(element)}\n${screen.document.body.innerText}\n${visibleText(element)}`;
    expect(seen, 'the decoded token').to.contain('"cf":"nem"');
    for (const secret of ['Mona', 'mona.adel', '1001234567']) expect(seen).not.to.contain(secret);
    await clickButton(element, 'Get my code');
    await untilText(element, 'Your reference code', 15_000).catch((error) => {
      throw new Error(`${error} — the page shows: ${visibleText(element)}`);
    });
    await untilText(element, 'We also sent it by email to the address the shop has on file.');
    expect(await sentFor(stack, reference)).to.deep.equal(['EMAIL mona.adel@example.com']);
  });

  it('says it in Arabic, and still asks for what the shop does not have', async function () {
    this.timeout(60_000);
    const reference = uniqueReference('contact-ar');
    const url = await stack.paymentLink([...LINK_ARGS, '--reference', reference, '--payer-name', 'Mona Adel', '--payer-phone', '+201001234567']);
    const { screen, element } = await openPage(`${url}?lang=ar`, `contact-ar-${reference}`);
    // By email: the shop has no email of the payer, so none is said and the email is asked.
    await referenceCodeForm(element, 'EMAIL');
    await untilText(element, 'احصل على الرمز', 15_000);
    expect(visibleText(element)).not.to.contain('المسجَّل لدى المتجر');
    expect(deepQuery<HTMLInputElement>(element, 'input[name=notifyUserEmail]')!.required).to.equal(true);
    await referenceCodeForm(element, 'SMS');
    await untilText(element, 'سنرسل الرمز إلى رقم الهاتف المحمول المسجَّل لدى المتجر، ما لم تكتب غيره.');
    expect(await violations(screen), 'axe, Arabic').to.deep.equal([]);
    await clickButton(element, 'احصل على الرمز');
    await untilText(element, 'رمزك المرجعي', 15_000).catch((error) => {
      throw new Error(`${error} — the page shows: ${visibleText(element)}`);
    });
    await untilText(element, 'أرسلناه أيضًا برسالة نصية إلى');
    expect(visibleText(element)).to.contain('الرقم المسجَّل لدى المتجر');
    expect(await sentFor(stack, reference)).to.deep.equal(['SMS +201001234567']);
  });

  it('uses the contact on file whole or not at all: once the payer types any of it, asks for every field the channel needs', async function () {
    this.timeout(60_000);
    const reference = uniqueReference('contact-typed');
    const url = await stack.paymentLink([...LINK_ARGS, '--reference', reference, '--payer-name', 'Mona Adel', '--payer-email', 'mona.adel@example.com', '--payer-phone', '+201001234567']);
    const { element } = await openPage(`${url}?lang=en`, `contact-typed-${reference}`);
    await referenceCodeForm(element, 'EMAIL');
    const sentence = 'We’ll send the code to the email the shop has on file, unless you type another.';
    await untilText(element, sentence, 15_000);
    // The payer types their own email: the shop's name of the payer is not used with it, so the name is asked.
    await type(element, 'input[name=notifyUserEmail]', 'holder@example.org');
    expect(visibleText(element)).not.to.contain('on file');
    expect(input(element, 'notifyUserName').required, 'the name, once an email is typed').to.equal(true);
    expect(input(element, 'notifyUserEmail').required).to.equal(true);
    await clickButton(element, 'Get my code');
    await until('the name asked', () => deepQuery(element, '#notifyUserName-error'), 10_000);
    // Emptied again: the contact on file stands for both once more.
    await type(element, 'input[name=notifyUserEmail]', '');
    await untilText(element, sentence);
    expect(input(element, 'notifyUserName').required).to.equal(false);
    expect(input(element, 'notifyUserEmail').required).to.equal(false);
    // A name typed: the shop's address is not used with it, so the email is asked.
    await type(element, 'input[name=notifyUserName]', 'Omar');
    expect(visibleText(element)).not.to.contain('on file');
    expect(input(element, 'notifyUserEmail').required, 'the email, once a name is typed').to.equal(true);
    await clickButton(element, 'Get my code');
    await until('the email asked', () => deepQuery(element, '#notifyUserEmail-error'), 10_000);
    expect((await stack.sandbox.orders()).some((each) => each.reference.startsWith(reference)), 'no order made').to.equal(false);
  });

  it('without a contact on file, says nothing of one and asks for it', async function () {
    this.timeout(60_000);
    const url = await stack.paymentLink([...LINK_ARGS, '--reference', uniqueReference('no-contact')]);
    const { element } = await openPage(`${url}?lang=en`, 'no-contact');
    await referenceCodeForm(element, 'EMAIL');
    await untilText(element, 'Get my code', 15_000);
    expect(visibleText(element)).not.to.contain('on file');
    await clickButton(element, 'Get my code');
    await until('the errors', () => deepQuery(element, '#notifyUserEmail-error'), 10_000);
    expect(deepQuery(element, '#notifyUserName-error')).not.to.equal(null);
  });
});
