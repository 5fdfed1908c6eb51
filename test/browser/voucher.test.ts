// The reference code as a voucher to keep (issue 46, point 4) on the shop's own page: where and how to pay it, in the
// shop's words (`where-to-pay-en`, `where-to-pay-ar`) or plain ones of the element's, in English and Arabic; shared with
// Web Share where the browser has it, copied otherwise; printed without its buttons and live status.
import { expect } from '@open-wc/testing';
import { executeServerCommand } from '@web/test-runner-commands';
import { checkout, clickButton, deepQuery, type, untilText, visibleText } from './support/checkout.js';
import { startStack, type Stack } from './support/stack.js';

const WORDS = {
  en: 'Pay at any Fawry kiosk or in the Fawry app: choose "Nile Coffee" and enter the code.',
  ar: 'ادفع في أي منفذ فوري أو من تطبيق فوري: اختر "نايل كوفي" وأدخل الرمز.',
};

async function codeFor(stack: Stack, locale: 'en' | 'ar', words: boolean): Promise<{ element: HTMLElement; code: string }> {
  const element = await checkout(stack, { payMethod: 'ReferenceCode', locale });
  if (words) {
    element.setAttribute('where-to-pay-en', WORDS.en);
    element.setAttribute('where-to-pay-ar', WORDS.ar);
  }
  await type(element, 'input[name=notifyUserName]', 'Mona Hassan');
  await type(element, 'input[name=notifyUserEmail]', 'mona@example.com');
  await type(element, 'input[name=notifyUserMobile]', '+201001234567');
  await clickButton(element, locale === 'ar' ? 'احصل على الرمز' : 'Get my code');
  await untilText(element, locale === 'ar' ? 'رمزك المرجعي' : 'Your reference code', 15_000);
  const code = deepQuery(element, '.code [aria-hidden=true]')!.textContent!.trim();
  return { element, code };
}

describe('the reference code voucher', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });

  it("says where to pay in the shop's words, shares the voucher where the browser shares, and copies it where it does not", async function () {
    this.timeout(60_000);
    const { element, code } = await codeFor(stack, 'en', true);
    const where = deepQuery(element, '[part~=where]')!;
    expect(visibleText(where)).to.equal(`Where to pay ${WORDS.en}`);

    const shared: ShareData[] = [];
    const own = Object.getOwnPropertyDescriptor(navigator, 'share');
    // A share sheet cannot be driven headless: the browser's share is stood in for, and then taken away.
    Object.defineProperty(navigator, 'share', { configurable: true, value: async (data: ShareData) => void shared.push(data) });
    const copied: string[] = [];
    const clipboard = Object.getOwnPropertyDescriptor(Navigator.prototype, 'clipboard');
    try {
      await clickButton(element, 'Share');
      expect(shared).to.have.length(1);
      expect(shared[0]!.title).to.equal('Your reference code');
      expect(shared[0]!.text).to.contain(`Nile Coffee Roasters: reference code ${code}.`).and.to.contain(WORDS.en).and.to.match(/Pay EGP\s125\.00 with this code/);

      Object.defineProperty(navigator, 'share', { configurable: true, value: undefined });
      Object.defineProperty(navigator, 'clipboard', { configurable: true, value: { writeText: async (text: string) => void copied.push(text) } });
      await clickButton(element, 'Share');
      await untilText(element, 'Voucher copied.');
      expect(copied).to.deep.equal([shared[0]!.text]);
    } finally {
      delete (navigator as unknown as Record<string, unknown>)['share'];
      if (own) Object.defineProperty(navigator, 'share', own);
      delete (navigator as unknown as Record<string, unknown>)['clipboard'];
      if (clipboard) Object.defineProperty(Navigator.prototype, 'clipboard', clipboard);
    }

    // Printed (where the driver can show the page as print: Chromium and Firefox): the voucher without its buttons.
    const print = await executeServerCommand<{ emulated: boolean }, unknown>('svc-window-color-scheme', { address: location.search || location.pathname, media: 'print' });
    if (navigator.userAgent.includes('Chrome/')) expect(print?.emulated, 'Chromium shows the page as print').to.equal(true);
    if (print?.emulated) {
      try {
        const shown = (selector: string) => {
          const found = deepQuery(element, selector);
          return found !== null && getComputedStyle(found).display !== 'none';
        };
        expect([shown('[part~=code]'), shown('[part~=where]'), shown('[part~=button-share]'), shown('[part~=button-print]'), shown('[part~=status]')]).to.deep.equal([true, true, false, false, false]);
      } finally {
        await executeServerCommand('svc-window-color-scheme', { address: location.search || location.pathname, media: null });
      }
    }
  });

  it("says it in Arabic, the shop's Arabic words, and plain words of its own where the shop gave none", async function () {
    this.timeout(60_000);
    const arabic = await codeFor(stack, 'ar', true);
    expect(visibleText(deepQuery(arabic.element, '[part~=where]')!)).to.equal(`أين تدفع ${WORDS.ar}`);
    const plain = await codeFor(stack, 'ar', false);
    expect(visibleText(deepQuery(plain.element, '[part~=where]')!)).to.contain('ادفع الرمز نقدًا أو من حسابك البنكي');
    const english = await codeFor(stack, 'en', false);
    expect(visibleText(deepQuery(english.element, '[part~=where]')!)).to.contain('Pay the code in cash or from your bank');
  });
});
