// The payer's side of a shop's first run: the element as the merchant kit serves it (its endpoint the folder its
// script came from, the shop's name and the test badge from the kit's token), its place held before the script
// arrives, a form's place while its chunk is on its way, the failure screen led by its reason, the receipt's time
// whole at 390 px, and touch targets of at least 44 px in every state.
import { expect } from '@open-wc/testing';
import type { SvcCheckout } from '../../src/element/index.js';
import {
  checkout,
  click,
  clickButton,
  deepQuery,
  deepQueryAll,
  fillBankAccount,
  type,
  uniqueReference,
  until,
  untilText,
  visibleText,
  type CheckoutOptions,
} from './support/checkout.js';
import { moduleGate } from './support/chunks.js';
import { loadedFrame } from './support/isolated.js';
import { startStack, type Stack } from './support/stack.js';

interface KitWindow extends Window {
  loadScript(): void;
  stylesheetLoaded: Promise<unknown>;
}

/** The kit page in a frame `width` px wide, its element's token one the kit issued against the sandbox. */
async function openKitPage(stack: Stack, { width = 390, height = 900, lang = 'en', script = 'now' } = {}) {
  const token = await stack.checkoutToken({ reference: uniqueReference('kit'), sandbox: true });
  const frame = document.createElement('iframe');
  frame.title = 'shop';
  frame.style.width = `${width}px`;
  frame.style.height = `${height}px`;
  frame.style.border = '0';
  frame.src = `/test/browser/fixtures/kit-page.html?${new URLSearchParams({ kit: stack.endpoint, 'checkout-token': token, lang, script })}`;
  document.body.append(frame);
  const shop = await until('the kit page', () => (frame.contentDocument?.querySelector('svc-checkout') ? (frame.contentWindow as KitWindow) : undefined));
  await shop.stylesheetLoaded;
  return { frame, window: shop, element: shop.document.querySelector('svc-checkout') as SvcCheckout };
}

async function fillReferenceCode(element: Element) {
  await type(element, 'input[name=notifyUserName]', 'Mona Hassan');
  await type(element, 'input[name=notifyUserEmail]', 'mona@example.com');
  await type(element, 'input[name=notifyUserMobile]', '+201001234567');
}

/** Every control a finger presses, as laid out: buttons, fields, and the method cards (their radios are hidden). */
function touchTargets(element: Element): { name: string; width: number; height: number }[] {
  return deepQueryAll(element, 'button, input:not([type=radio]):not([type=hidden]), select, label.choice')
    .filter((target) => target.getClientRects().length > 0 && !target.closest('.visually-hidden'))
    .map((target) => {
      const { width, height } = target.getBoundingClientRect();
      const name = (target.textContent?.trim() || target.getAttribute('name') || target.tagName).replace(/\s+/g, ' ').slice(0, 40);
      return { name, width: Math.round(width * 10) / 10, height: Math.round(height * 10) / 10 };
    });
}

function expectTargets(element: Element, state: string) {
  const targets = touchTargets(element);
  expect(targets.length, `${state}: no control found`).to.be.greaterThan(0);
  const small = targets.filter((target) => target.height < 44 || target.width < 44);
  expect(small, `${state}: touch targets under 44 px`).to.deep.equal([]);
}

describe('a shop’s first run, on the payer’s side', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  afterEach(async () => {
    await moduleGate('bankForm', 'open');
    for (const frame of document.querySelectorAll('iframe')) frame.remove();
    sessionStorage.clear();
  });

  // First: no test of this page may have loaded the bank account form's chunk yet.
  it('holds a form’s place while its chunk is on its way, and shows the form when it comes', async () => {
    await moduleGate('bankForm', 'close');
    const element = await checkout(stack, { payMethod: '' });
    await click(element, 'input[value=BankAccount]');
    const pending = await until('the form’s place', () => deepQuery(element, 'svc-bank-account-form'));
    expect(customElements.get('svc-bank-account-form')).to.equal(undefined);
    const box = pending.getBoundingClientRect();
    expect(box.height).to.be.at.least(12 * parseFloat(getComputedStyle(document.documentElement).fontSize) - 1);
    const shade = getComputedStyle(pending, '::before');
    expect(shade.backgroundColor).not.to.equal('rgba(0, 0, 0, 0)');
    expect(shade.animationName, 'it fades in and out: something is coming').to.equal('pending');
    await moduleGate('bankForm', 'open');
    // The form's fields are its isolated frame's.
    await loadedFrame(element);
    const form = deepQuery(element, 'svc-bank-account-form')!;
    // Gone with its rule, in every engine, a moment later as at once: nothing fades or shades the form.
    for (const wait of [0, 600]) {
      await new Promise((resolve) => setTimeout(resolve, wait));
      expect(getComputedStyle(form, '::before').content, `${wait} ms after`).to.equal('none');
      expect(getComputedStyle(form).opacity).to.equal('1');
      expect(getComputedStyle(form).backgroundColor).to.equal('rgba(0, 0, 0, 0)');
      expect(form.getAnimations().length).to.equal(0);
    }
  });

  it('loads from the kit, which is its endpoint, shows the shop’s name and the test badge from the token, and pays', async () => {
    const shop = await openKitPage(stack);
    const element = await until('the element', () => (shop.element.shadowRoot?.querySelector('svc-method-picker') ? shop.element : undefined));
    expect(element.getAttributeNames().filter((name) => !name.startsWith('data-') && name !== 'dir')).to.deep.equal(['checkout-token']);
    await untilText(element, 'Nile Coffee Roasters');
    await untilText(element, 'Test mode');
    await click(element, 'input[value=ReferenceCode]');
    await until('the reference code form', () => deepQuery(element, 'input[name=notifyUserName]'));
    await fillReferenceCode(element);
    await clickButton(element, 'Get my code');
    await untilText(element, 'Your reference code');
    const code = /(\d{3} \d{3} \d{3})/.exec(visibleText(element))![1]!.replaceAll(' ', '');
    expect((await stack.control('POST', `/sandbox/v1/reference-codes/${code}/pay`)).status).to.equal(200);
    await untilText(element, 'Payment received', 15_000);
  });

  it('says it is loading and holds about the first frame’s height before its script arrives, in the page’s language', async () => {
    for (const lang of ['en', 'ar']) {
      const shop = await openKitPage(stack, { script: 'later', lang });
      const element = shop.element;
      expect(shop.window.customElements.get('svc-checkout')).to.equal(undefined);
      const before = shop.window.getComputedStyle(element, '::before').content;
      expect(before).to.equal(lang === 'ar' ? '"جارٍ تحميل الدفع…"' : '"Loading the checkout…"');
      const placeholder = element.getBoundingClientRect().height;
      shop.window.loadScript();
      await until('the first frame', () => element.shadowRoot?.querySelector('svc-method-picker'));
      const first = element.getBoundingClientRect().height;
      await (element as SvcCheckout).updateComplete;
      const painted = element.getBoundingClientRect().height;
      // Within a sixth either way: what is below the checkout barely moves when it comes.
      expect(Math.abs(painted - placeholder) / painted, `${lang}: ${placeholder} px held, ${painted} px painted`).to.be.below(1 / 6);
      // Nor when the session's chunk and "Pay on your phone"'s come after the first frame: its place was held.
      await until('Pay on your phone', () => deepQuery(element, 'button[part~=button-pay-on-phone]'));
      const offered = element.getBoundingClientRect().height;
      expect(Math.abs(offered - first), `${lang}: ${first} px at the first frame, ${painted} px with the session, ${offered} px with the offer`).to.be.below(1);
      expect(Math.abs(painted - first), `${lang}: ${first} px at the first frame, ${painted} px with the session`).to.be.below(1);
      shop.frame.remove();
    }
  });

  it('holds the same place before its script arrives on a page with hostile but common CSS', async () => {
    for (const lang of ['en', 'ar']) {
      // Tall enough that the page scrolls with neither stylesheet: a scroll bar that the hostile one's zero margins
      // take away (Firefox draws one) would widen the page, not change the checkout's own box.
      const shop = await openKitPage(stack, { script: 'later', lang, height: 1_200 });
      const box = () => {
        const { width, height } = shop.element.getBoundingClientRect();
        const style = shop.window.getComputedStyle(shop.element);
        return { width: Math.round(width), height: Math.round(height), padding: style.paddingInlineStart, fontSize: style.fontSize };
      };
      const own = box();
      const hostile = shop.window.document.createElement('style');
      hostile.textContent = `
        *, *::before, *::after { margin: 0; padding: 0; box-sizing: content-box; border: 0; }
        html { font-size: 10px; }
        body { direction: rtl; line-height: 1; text-align: center; }
      `;
      shop.window.document.head.append(hostile);
      expect(box(), lang).to.deep.equal(own);
      expect(shop.window.customElements.get('svc-checkout')).to.equal(undefined);
      shop.frame.remove();
    }
  });

  it('leads a failure with its reason, then says what it means', async () => {
    const element = await checkout(stack, { payMethod: 'Pos' });
    await type(element, 'input[name=sn]', 'N78101818218');
    await clickButton(element, /^Pay/);
    await untilText(element, 'Swipe or insert');
    await stack.control('POST', '/sandbox/v1/pos/N78101818218/swipe', { outcome: 'fail' });
    await untilText(element, 'The payment did not go through', 15_000);
    const result = deepQuery(element, 'section.result')!;
    const paragraphs = [...result.querySelectorAll('p')].map((paragraph) => paragraph.textContent!.trim());
    expect(paragraphs[0]).to.match(/declined/i);
    expect(paragraphs[1]).to.equal('Nothing was charged. You can try again.');
  });

  for (const locale of ['en', 'ar']) {
    it(`writes the receipt’s time whole at 390 px, ${locale}`, async () => {
      const shop = await openKitPage(stack, { lang: locale });
      const element = await until('the element', () => (shop.element.shadowRoot?.querySelector('svc-method-picker') ? shop.element : undefined));
      await click(element, 'input[value=ReferenceCode]');
      await until('the reference code form', () => deepQuery(element, 'input[name=notifyUserName]'));
      await fillReferenceCode(element);
      await clickButton(element, locale === 'ar' ? 'احصل على الرمز' : 'Get my code');
      const digits = await until('the reference code', () => deepQuery(element, '.digits'));
      const code = digits.textContent!.replace(/\s/g, '');
      expect((await stack.control('POST', `/sandbox/v1/reference-codes/${code}/pay`)).status, code).to.equal(200);
      const receipt = await until('the receipt', () => deepQuery(element, 'dl.receipt'), 15_000);
      // Method, time, order number.
      const time = receipt.querySelector<HTMLElement>('dd.time')!;
      // The boxes of its text as laid out, one per line of each text: one line, whatever the markup inside.
      const tops: number[] = [];
      const texts = time.ownerDocument.createTreeWalker(time, NodeFilter.SHOW_TEXT);
      for (let text = texts.nextNode(); text; text = texts.nextNode()) {
        const range = time.ownerDocument.createRange();
        range.selectNodeContents(text);
        for (const box of range.getClientRects()) if (box.width > 0) tops.push(Math.round(box.top));
      }
      const lines = new Set(tops);
      expect(lines.size, `"${time.textContent}" on ${lines.size} lines`).to.equal(1);
    });
  }

  it('gives every touch target at least 44 px, in every state', async function () {
    this.timeout(60_000);
    const make = (options: CheckoutOptions) => checkout(stack, options);
    expectTargets(await make({ payMethod: '' }), 'the choice of method');
    for (const payMethod of ['Pos', 'BankAccount', 'ReferenceCode']) {
      const form = await make({ payMethod });
      await until(`the ${payMethod} form`, () => deepQuery(form, 'button[type=submit]'));
      expectTargets(form, `the ${payMethod} form`);
    }

    const voucher = await make({ payMethod: 'ReferenceCode' });
    await fillReferenceCode(voucher);
    await clickButton(voucher, 'Get my code');
    await untilText(voucher, 'Your reference code');
    expectTargets(voucher, 'the reference code (Copy code)');
    await clickButton(voucher, 'Use another method');
    await until('the confirmation', () => deepQuery(voucher, 'button[data-keep]'));
    expectTargets(voucher, 'leaving the order');
    const code = /(\d{3} \d{3} \d{3})/.exec(visibleText(voucher))![1]!.replaceAll(' ', '');
    await stack.control('POST', `/sandbox/v1/reference-codes/${code}/pay`);
    await untilText(voucher, 'Payment received', 15_000);
    expectTargets(voucher, 'the receipt (Copy order number)');

    const bank = await make({ payMethod: 'BankAccount' });
    await fillBankAccount(bank, '2215381176');
    await clickButton(bank, /^Pay/);
    await untilText(bank, 'Enter the code');
    expectTargets(bank, 'the code step (resend)');

    const failed = await make({ payMethod: 'Pos' });
    await type(failed, 'input[name=sn]', 'N78101818219');
    await clickButton(failed, /^Pay/);
    await untilText(failed, 'Swipe or insert');
    expectTargets(failed, 'the terminal step');
    await stack.control('POST', '/sandbox/v1/pos/N78101818219/swipe', { outcome: 'fail' });
    await untilText(failed, 'The payment did not go through', 15_000);
    expectTargets(failed, 'the failure (Try again)');
  });
});
