// WCAG 2.2 AA: axe in every state, in English and Arabic, light and dark; each flow by keyboard alone;
// visible focus; what is announced; reduced motion.
import { expect } from '@open-wc/testing';
import { emulateMedia, sendKeys } from '@web/test-runner-commands';
import type { SvcCheckout } from '../../src/element/index.js';
import {
  canEmulateMedia,
  checkout,
  clickButton,
  deepQuery,
  deepQueryAll,
  fillBankAccount,
  type,
  typeCode,
  uniqueReference,
  until,
  untilText,
  visibleText,
  type CheckoutOptions,
} from './support/checkout.js';
import { frameField, inFrame, loadedFrame } from './support/isolated.js';
import { startStack, type Stack } from './support/stack.js';

/** The innermost focused element, through shadow roots. */
function focused(): Element | null {
  let current: Element | null = document.activeElement;
  while (current?.shadowRoot?.activeElement) current = current.shadowRoot.activeElement;
  return current;
}

const press = (key: string) => sendKeys({ press: key });
const typeKeys = (text: string) => sendKeys({ type: text });

type Locale = 'en' | 'ar';
const TEXT = {
  en: { pay: /^Pay/, getCode: 'Get my code', confirm: 'Confirm', swipe: 'Swipe or insert', code: 'Enter the code', pin: 'Enter your PIN', bank: 'Confirm with your bank', reference: 'Your reference code', success: 'Payment received', fail: 'The payment did not go through', expired: 'This payment expired', waiting: 'ending in 1176 is already in progress.', errors: 'Enter' },
  ar: { pay: /^ادفع/, getCode: 'احصل على الرمز', confirm: 'تأكيد', swipe: 'مرّر البطاقة', code: 'أدخل الرمز', pin: 'أدخل الرقم السري', bank: 'أكّد مع بنكك', reference: 'رمزك المرجعي', success: 'تم استلام الدفعة', fail: 'لم تتم عملية الدفع', expired: 'انتهت صلاحية عملية الدفع', waiting: 'هناك عملية دفع جارية بالفعل من الحساب المصرفي', errors: 'أدخل' },
} as const;

async function fillReferenceCode(element: Element) {
  await type(element, 'input[name=notifyUserName]', 'Mona Hassan');
  await type(element, 'input[name=notifyUserEmail]', 'mona@example.com');
  await type(element, 'input[name=notifyUserMobile]', '+201001234567');
}

describe('<svc-checkout> accessibility', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  afterEach(() => sessionStorage.clear());

  for (const locale of ['en', 'ar'] as const) {
    for (const theme of ['light', 'dark'] as const) {
      it(`passes axe in every state, ${locale}, ${theme}`, async function () {
        this.timeout(90_000);
        const t = TEXT[locale as Locale];
        const make = async (options: CheckoutOptions) => {
          const element = await checkout(stack, { locale, ...options });
          element.setAttribute('theme', theme);
          await element.updateComplete;
          return element;
        };
        const check = async (element: SvcCheckout, state: string) => {
          try {
            await expect(element).to.be.accessible();
          } catch (error) {
            throw new Error(`${state}: ${(error as Error).message}`);
          }
        };

        await check(await make({}), 'the choice of method');
        for (const payMethod of ['Pos', 'BankAccount', 'ReferenceCode']) await check(await make({ payMethod }), `the ${payMethod} form`);

        const errors = await make({ payMethod: 'ReferenceCode' });
        await clickButton(errors, t.getCode);
        await untilText(errors, t.errors);
        await check(errors, 'the form with errors');

        const broken = await make({ checkoutToken: 'ct1.not-a-token.x' });
        await check(broken, 'a configuration error');

        const pos = await make({ payMethod: 'Pos' });
        const sn = `N7810${Math.floor(Math.random() * 1e7)}`;
        await type(pos, 'input[name=sn]', sn);
        await clickButton(pos, t.pay);
        await untilText(pos, t.swipe);
        await check(pos, 'the swipe step');
        await stack.control('POST', `/sandbox/v1/pos/${sn}/swipe`, { outcome: 'success' });
        await untilText(pos, t.success);
        await check(pos, 'the success');

        const otp = await make({ payMethod: 'BankAccount' });
        await fillBankAccount(otp, '2215381190');
        await clickButton(otp, t.pay);
        await untilText(otp, t.code);
        await typeCode(otp, '00000000');
        await clickButton(otp, t.confirm);
        await until('the OTP error', async () => (await frameField(otp, 'otp'))?.attributes['aria-invalid'] === 'true');
        await check(otp, 'the OTP step with an error');
        await typeCode(otp, '11315632');
        await clickButton(otp, t.confirm);
        await untilText(otp, t.fail);
        await check(otp, 'the failure');

        const pin = await make({ payMethod: 'BankAccount' });
        await fillBankAccount(pin, '2215381183');
        await clickButton(pin, t.pay);
        await untilText(pin, t.pin);
        await check(pin, 'the PIN step');

        const open = window.open;
        window.open = (() => null) as typeof window.open;
        try {
          const secure = await make({ payMethod: 'BankAccount', redirectMode: 'new-window' });
          await fillBankAccount(secure, '2215381200');
          await clickButton(secure, t.pay);
          await untilText(secure, t.bank);
          await check(secure, 'the 3-D Secure step');
        } finally {
          window.open = open;
        }

        const code = await make({ payMethod: 'ReferenceCode' });
        await fillReferenceCode(code);
        await clickButton(code, t.getCode);
        await untilText(code, t.reference);
        await check(code, 'the reference code');
        await stack.control('POST', '/sandbox/v1/clock/advance', { minutes: 30 });
        await untilText(code, t.expired);
        await check(code, 'the expiry');

        // Paid elsewhere from a bank account (its code step there): this page waits, told the account's ending.
        const reference = uniqueReference('waiting');
        const elsewhere = await fetch(`${stack.endpoint}/payments`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', 'Svc-Checkout-Token': await stack.checkoutToken({ reference }) },
          body: JSON.stringify({ payMethod: 'BankAccount', bankAccountNumber: '2215381176', bankCode: '033', dobDay: '05', dobMonth: '01', dobYear: '1990', returnUrl: `${location.origin}/` }),
        }).then((response) => response.json());
        expect(elsewhere.code).to.equal('00000');
        const waiting = await make({ payMethod: 'Pos', reference });
        await type(waiting, 'input[name=sn]', 'N1');
        await clickButton(waiting, t.pay);
        await untilText(waiting, t.waiting);
        await check(waiting, 'the waiting step');
      });
    }
  }

  describe('by keyboard alone', () => {
    let before: HTMLButtonElement;
    beforeEach(() => {
      before = document.createElement('button');
      before.textContent = 'before the checkout';
      document.body.prepend(before);
    });
    afterEach(() => before.remove());

    async function tabInto(element: SvcCheckout) {
      before.focus();
      await press('Tab');
      await until('focus inside the element', () => element.matches(':focus-within'));
    }

    it('pays at a POS terminal: type, Enter, and focus follows to the result', async () => {
      const element = await checkout(stack, { payMethod: 'Pos' });
      await tabInto(element);
      expect((focused() as HTMLInputElement).name).to.equal('sn');
      const input = focused() as HTMLElement;
      expect(getComputedStyle(input).outlineStyle).to.not.equal('none');
      expect(parseFloat(getComputedStyle(input).outlineWidth)).to.be.at.least(2);
      await typeKeys('N78101818401');
      await press('Enter');
      await untilText(element, 'Swipe or insert');
      await until('focus on the step heading', () => focused()?.textContent === 'Pay at the terminal');
      await stack.control('POST', '/sandbox/v1/pos/N78101818401/swipe', { outcome: 'fail' });
      await untilText(element, 'The payment did not go through');
      await until('focus on the result heading', () => /The payment did not go through/.test(focused()?.textContent ?? ''));
      await press('Tab');
      expect(focused()?.textContent?.trim()).to.equal('Try again');
      await press('Enter');
      await until('the form again, focused', () => (focused() as HTMLInputElement | null)?.name === 'sn');
    });

    it('chooses the method with the arrow keys and pays by bank account with an OTP', async () => {
      const element = await checkout(stack, {});
      await tabInto(element);
      expect((focused() as HTMLInputElement).value).to.equal('Pos');
      await press('ArrowDown');
      await until('the bank account form', () => deepQuery(element, 'svc-bank-account-form'));
      expect((focused() as HTMLInputElement).value).to.equal('BankAccount');
      // Its fields are in the isolated frame, in the tab order between the choice and Pay: ready as soon as a payer's
      // hand is on the keys.
      const frame = await loadedFrame(element);
      for (const value of ['2215381176', '033', '05', '01', '1990']) {
        await press('Tab');
        await typeKeys(value);
      }
      expect(focused()).to.equal(frame);
      await press('Tab');
      expect(focused()?.textContent?.trim()).to.match(/^Pay/);
      await press('Enter');
      await untilText(element, 'Enter the code');
      // Focus follows into the code's frame (WebKit gives its field the focus at the payer's first key).
      const code = await loadedFrame(element);
      await until('focus in the code’s frame', async () => focused() === code && (await inFrame<boolean>(code, 'return document.hasFocus();')));
      await typeKeys('11315632');
      await press('Enter');
      await untilText(element, 'Payment received');
    });

    it('asks for a reference code by SMS only, and copies it, without a pointer', async () => {
      const copied: string[] = [];
      const clipboard = Object.getOwnPropertyDescriptor(Navigator.prototype, 'clipboard');
      Object.defineProperty(navigator, 'clipboard', { configurable: true, value: { writeText: async (text: string) => copied.push(text) } });
      try {
        const element = await checkout(stack, { payMethod: 'ReferenceCode' });
        await tabInto(element);
        expect((focused() as HTMLInputElement).name).to.equal('notifyUserName');
        await typeKeys('Mona Hassan');
        await press('Tab');
        expect((focused() as HTMLInputElement).value).to.equal('BOTH');
        await press('ArrowRight');
        await until('SMS chosen', () => (focused() as HTMLInputElement | null)?.value === 'SMS' && !deepQuery(element, 'input[name=notifyUserEmail]'));
        await press('Tab');
        expect((focused() as HTMLInputElement).name).to.equal('notifyUserMobile');
        await typeKeys('+201001234567');
        await press('Tab');
        expect((focused() as HTMLSelectElement).name).to.equal('notifyLanguage');
        await press('Tab');
        await press('Enter');
        await untilText(element, 'Your reference code');
        await until('focus on the heading', () => focused()?.textContent === 'Your reference code');
        await press('Tab');
        expect(focused()?.textContent?.trim()).to.equal('Copy code');
        await press(' ');
        await untilText(element, 'Code copied.');
        expect(copied).to.have.length(1);
        expect(copied[0]).to.match(/^\d{9}$/);
      } finally {
        delete (navigator as unknown as Record<string, unknown>)['clipboard'];
        if (clipboard) Object.defineProperty(Navigator.prototype, 'clipboard', clipboard);
      }
    });
  });

  it('announces the outcome in its polite live region, and ties each error to its field', async () => {
    const element = await checkout(stack, { payMethod: 'Pos' });
    const region = element.shadowRoot!.querySelector('[role=status][aria-live=polite]')!;
    await clickButton(element, /^Pay/);
    await until('the announcement', () => region.textContent?.includes('There is 1 problem with the form.'));
    const input = deepQuery<HTMLInputElement>(element, 'input[name=sn]')!;
    const error = deepQuery(element, '#sn-error')!;
    expect(input.getAttribute('aria-invalid')).to.equal('true');
    expect(input.getAttribute('aria-describedby')!.split(' ')).to.include('sn-error');
    // Not by colour alone: the error says so in words, and is marked for screen readers.
    expect(error.textContent).to.contain('Error:');
    expect(error.textContent).to.contain('Enter terminal serial number.');
    await type(element, 'input[name=sn]', 'N78101818402');
    await clickButton(element, /^Pay/);
    await untilText(element, 'Swipe or insert');
    await stack.control('POST', '/sandbox/v1/pos/N78101818402/swipe', { outcome: 'success' });
    await until('the outcome announced', () => region.textContent?.includes('Payment received'));
  });

  it('keeps the countdown quiet between milestones', async () => {
    const element = await checkout(stack, { payMethod: 'ReferenceCode' });
    await fillReferenceCode(element);
    await clickButton(element, 'Get my code');
    await untilText(element, 'Your reference code');
    const countdown = deepQuery(element, 'svc-countdown')!;
    const live = countdown.shadowRoot!.querySelector('[aria-live=polite]')!;
    const timer = countdown.shadowRoot!.querySelector('time')!;
    let spoken = 0;
    new MutationObserver(() => spoken++).observe(live, { childList: true, subtree: true, characterData: true });
    const before = timer.textContent;
    await new Promise((resolve) => setTimeout(resolve, 2_200));
    expect(timer.textContent).to.not.equal(before);
    expect(spoken).to.equal(0);
    expect(timer.getAttribute('role')).to.equal('timer');
    expect(timer.getAttribute('aria-label')).to.match(/minutes left$/);
  });

  it('stops the waiting animation when reduced motion is asked for', async () => {
    const element = await checkout(stack, { payMethod: 'Pos' });
    await type(element, 'input[name=sn]', 'N78101818403');
    await clickButton(element, /^Pay/);
    await untilText(element, 'Swipe or insert');
    const spinner = deepQuery(element, '.spinner')!;
    // The rule is in the stylesheet every browser uses…
    const sheets = (spinner.getRootNode() as ShadowRoot).adoptedStyleSheets;
    const reduced = sheets
      .flatMap((sheet) => [...sheet.cssRules])
      .filter((rule): rule is CSSMediaRule => rule instanceof CSSMediaRule && rule.conditionText.includes('prefers-reduced-motion: reduce'));
    const stopsSpinner = reduced.some((rule) =>
      [...rule.cssRules].some((inner) => inner instanceof CSSStyleRule && inner.selectorText === '.spinner' && inner.style.animationName === 'none'),
    );
    expect(stopsSpinner).to.equal(true);
    // …and where the browser lets a test ask for reduced motion (Chromium, through CDP), it takes effect. Firefox and
    // WebKit (over WebDriver) cannot be asked: there the stylesheet is what is checked.
    if (canEmulateMedia) {
      await emulateMedia({ reducedMotion: 'reduce' });
      expect(getComputedStyle(spinner).animationName).to.equal('none');
      await emulateMedia({ reducedMotion: 'no-preference' });
      expect(getComputedStyle(spinner).animationName).to.equal('spin');
    }
    expect(deepQueryAll(element, '.spinner').every((item) => item.getAttribute('aria-hidden') === 'true')).to.equal(true);
    expect(visibleText(element)).to.match(/Status ?: Waiting for payment/);
  });
});
