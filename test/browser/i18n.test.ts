// Arabic and English: where the locale comes from, right-to-left layout, digits and plurals, and the
// merchant's own wording.
import { expect, fixture, html } from '@open-wc/testing';
import { registerTranslation, type SvcCheckout } from '../../src/element/index.js';
import {
  checkout,
  clickButton,
  deepQuery,
  fillBankAccount,
  record,
  type,
  until,
  untilText,
  visibleText,
} from './support/checkout.js';
import { typeInFrame } from './support/isolated.js';
import { startStack, type Stack } from './support/stack.js';

describe('<svc-checkout> in Arabic and English', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  afterEach(() => {
    sessionStorage.clear();
    document.documentElement.lang = 'en';
  });

  it('re-words a field error and an alert on screen when the language changes', async () => {
    // A token whose tag was changed: the kit refuses it, and the payer reads why.
    const token = await stack.checkoutToken({ reference: `relang-${Date.now()}` });
    const forged = token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A');
    const element = await checkout(stack, { payMethod: 'Pos', checkoutToken: forged });
    await type(element, 'input[name=sn]', 'N78101818701');
    await clickButton(element, /^Pay/);
    await untilText(element, 'This checkout cannot be used any more. Reload the page.');
    await type(element, 'input[name=sn]', '');
    await untilText(element, 'Enter terminal serial number.');
    element.locale = 'ar';
    await untilText(element, 'لم يعد من الممكن استخدام صفحة الدفع هذه. أعد تحميل الصفحة.');
    await untilText(element, 'أدخل الرقم التسلسلي للجهاز.');
    expect(visibleText(element)).not.to.contain('Reload the page');
    expect(visibleText(element)).not.to.contain('Enter terminal');
  });

  it('speaks Arabic right to left with the locale attribute, amounts in Arabic-Indic digits', async () => {
    const element = await checkout(stack, { locale: 'ar-EG', payMethod: 'Pos' });
    await untilText(element, 'الإجمالي');
    expect(element.getAttribute('dir')).to.equal('rtl');
    const base = element.shadowRoot!.querySelector('.base')!;
    expect(base.getAttribute('dir')).to.equal('rtl');
    expect(base.getAttribute('lang')).to.equal('ar');
    expect(deepQuery(element, '.amount-value')!.textContent).to.match(/١٢٥٫٠٠/);
    expect(visibleText(element)).to.contain('الرقم التسلسلي للجهاز');
    expect(getComputedStyle(deepQuery(element, 'input[name=sn]')!).direction).to.equal('ltr');
    await expect(element).to.be.accessible();
  });

  it('follows the nearest lang, then the document, and changes with them', async () => {
    const wrapper = await fixture<HTMLDivElement>(html`<div lang="ar">
      <svc-checkout endpoint=${stack.endpoint} merchant-id=${stack.merchantId} country-code="EG" currency="EGP"
        pay-amount="500" product-name="Beans" pay-method="Pos"></svc-checkout>
    </div>`);
    const element = wrapper.querySelector('svc-checkout')!;
    await untilText(element, 'الرقم التسلسلي للجهاز');
    wrapper.setAttribute('lang', 'en');
    await untilText(element, 'Terminal serial number');
    expect(element.getAttribute('dir')).to.equal('ltr');
    wrapper.removeAttribute('lang');
    document.documentElement.lang = 'ar';
    await untilText(element, 'الرقم التسلسلي للجهاز');
    element.setAttribute('locale', 'en');
    await untilText(element, 'Terminal serial number');
  });

  it('mirrors what points a direction, and lays out with logical properties', async () => {
    const element = await checkout(stack, { locale: 'ar', payMethod: 'BankAccount', redirectMode: 'new-window' });
    const open = window.open;
    window.open = (() => null) as typeof window.open;
    try {
      await fillBankAccount(element, '2215381200');
      await clickButton(element, /^ادفع/);
      await untilText(element, 'أكّد مع بنكك');
      const arrow = await until('the arrow', () => deepQuery(element, '.forward'));
      expect(getComputedStyle(arrow).transform).to.equal('matrix(-1, 0, 0, 1, 0, 0)');
      await expect(element).to.be.accessible();
    } finally {
      window.open = open;
    }
    const english = await checkout(stack, { locale: 'en', payMethod: 'Pos' });
    const alert = english.shadowRoot!.querySelector('.base')!;
    expect(getComputedStyle(alert).direction).to.equal('ltr');
  });

  it('counts with Arabic plural forms and writes the numbers as the amounts are written', async () => {
    const element = await checkout(stack, { locale: 'ar-EG', payMethod: 'BankAccount' });
    const announcements: string[] = [];
    const region = element.shadowRoot!.querySelector('[role=status]')!;
    new MutationObserver(() => announcements.push(region.textContent ?? '')).observe(region, { childList: true, subtree: true, characterData: true });
    await clickButton(element, /^ادفع/);
    await until('the announcement of the errors', () => announcements.find((text) => text.includes('النموذج')));
    // Five empty fields: "في النموذج ٥ أخطاء" (3–10 take the plural, and Egyptian Arabic-Indic digits).
    expect(announcements.find((text) => text.includes('النموذج'))).to.equal('في النموذج ٥ أخطاء.');
    await typeInFrame(element, ['2215381176', '033', '05']);
    await clickButton(element, /^ادفع/);
    await until('two errors', () => announcements.find((text) => text === 'في النموذج خطآن.'));
  });

  it('pays a reference code in Arabic, typed in Arabic-Indic digits, with the message in Arabic', async () => {
    const element = await checkout(stack, { locale: 'ar', payMethod: 'ReferenceCode' });
    const created = record(element, 'svc-http-response');
    expect((deepQuery<HTMLSelectElement>(element, 'select[name=notifyLanguage]')!).value).to.equal('Arabic');
    await type(element, 'input[name=notifyUserName]', 'منى حسن');
    await type(element, 'input[name=notifyUserEmail]', 'mona@example.com');
    await type(element, 'input[name=notifyUserMobile]', '+٢٠١٠٠١٢٣٤٥٦٧');
    await clickButton(element, 'احصل على الرمز');
    await untilText(element, 'رمزك المرجعي');
    await expect(element).to.be.accessible();
    const data = created[0]!.detail.data;
    const messages = (await stack.control('GET', `/sandbox/v1/notifications?orderNo=${data.orderNo}`)).body.notifications;
    expect(messages.every((message: { language: string; to: string }) => message.language === 'Arabic')).to.equal(true);
    expect(messages.find((message: { channel: string }) => message.channel === 'SMS').to).to.equal('+201001234567');
    // The countdown writes its digits as the amount is written in this locale (Latin for "ar", as Intl has it).
    const timer = deepQuery(element, 'time[role=timer]')!.textContent!.trim();
    const amount = deepQuery(element, '.amount-value')!.textContent!;
    expect(/[٠-٩]/.test(timer)).to.equal(/[٠-٩]/.test(amount));
    expect(timer).to.match(/^[0-9٠-٩]{2}:[0-9٠-٩]{2}$/);
    await stack.control('POST', `/sandbox/v1/reference-codes/${data.referenceCode}/pay`);
    await untilText(element, 'تم استلام الدفعة');
    await expect(element).to.be.accessible();
  });

  it('writes identifiers in Latin digits and amounts, times and counts in the locale\'s (ar-EG: Arabic-Indic)', async () => {
    const element = await checkout(stack, { locale: 'ar-EG', payMethod: 'ReferenceCode' });
    await type(element, 'input[name=notifyUserName]', 'منى حسن');
    await type(element, 'input[name=notifyUserEmail]', 'mona@example.com');
    await type(element, 'input[name=notifyUserMobile]', '+201001234567');
    await clickButton(element, 'احصل على الرمز');
    await untilText(element, 'رمزك المرجعي');
    const latin = /^[0-9 ]+$/;
    const arabicIndic = /[٠-٩]/;
    // The code is an identifier: Latin digits, left to right, whatever the language (its row, with the copy button,
    // mirrors as every row does: test/browser/payer-review.test.ts).
    expect(deepQuery(element, '.code [aria-hidden=true]')!.textContent!.trim()).to.match(latin);
    expect(deepQuery(element, '.code .digits')!.getAttribute('dir')).to.equal('ltr');
    // The voucher's amount and time, the countdown and the amount above: the locale's digits, all alike.
    const deadline = deepQuery(element, '[part=deadline]')!.textContent!;
    expect(deadline).to.contain('ادفع');
    expect(deadline.match(/[0-9]/g), 'no Latin digit in the voucher line').to.equal(null);
    expect(arabicIndic.test(deadline)).to.equal(true);
    expect(arabicIndic.test(deepQuery(element, 'time[role=timer]')!.textContent!)).to.equal(true);
    expect(arabicIndic.test(deepQuery(element, '.amount-value')!.textContent!)).to.equal(true);
  });

  it('writes numbers left to right in Arabic fields, lined up with the labels at the right', async () => {
    const arabic = await checkout(stack, { locale: 'ar-EG', payMethod: 'Pos' });
    const serial = getComputedStyle(deepQuery(arabic, 'input[name=sn]')!);
    expect([serial.direction, serial.textAlign]).to.deep.equal(['ltr', 'right']);
    const english = await checkout(stack, { locale: 'en', payMethod: 'Pos' });
    const latin = getComputedStyle(deepQuery(english, 'input[name=sn]')!);
    expect(latin.direction).to.equal('ltr');
    expect(['start', 'left']).to.include(latin.textAlign);
  });

  it('lets a merchant add a locale and override terms, for the page or for one element', async () => {
    registerTranslation({ $code: 'fr', $name: 'Français', pay: (amount) => `Payer ${amount}`, label: { sn: 'Numéro du terminal' } });
    const french = await checkout(stack, { locale: 'fr-FR', payMethod: 'Pos' });
    await untilText(french, 'Numéro du terminal');
    expect(visibleText(french)).to.contain('Payer');
    // Terms the locale lacks come from English.
    expect(visibleText(french)).to.contain('Shown on the terminal’s screen');

    const own = await checkout(stack, { locale: 'en', payMethod: 'Pos' });
    own.strings = { testMode: 'Demo shop', label: { sn: 'Till number' } };
    await untilText(own, 'Till number');
    expect(visibleText(own)).to.contain('Demo shop');
    const other = await fixture<SvcCheckout>(html`<svc-checkout endpoint=${stack.endpoint} merchant-id=${stack.merchantId}
      country-code="EG" currency="EGP" pay-amount="100" product-name="Beans" pay-method="Pos" locale="en" sandbox></svc-checkout>`);
    await untilText(other, 'Terminal serial number');
    expect(visibleText(other)).to.contain('Test mode');
  });
});
