// What a payer saw in the review of issue 48 (every state, English and Arabic, light and dark), each fixed and held
// here: one icon per alert; the locale's digits in the receipt's date and time; the host page's text styles kept out of
// the element's layout; the order's reference said once and identifiers never broken; "Get my code" on the form that
// pays nothing yet; the voucher's row mirrored in Arabic while its digits keep their order; one style and one gap for
// the secondary actions of a step; a code kept when it never reached the kit, and "could not reach" gone once online;
// a focused heading's ring clear of its words and of the failure's red edge; and (point 3) a page with hostile but
// common CSS that leaves the element's layout and targets as they are, sized by the payer's browser font size.
import { expect, fixture, html } from '@open-wc/testing';
import { sendKeys } from '@web/test-runner-commands';
import type { SvcCheckout } from '../../src/element/index.js';
import { requestPath } from './support/requests.js';
import {
  checkout,
  clickButton,
  deepQuery,
  deepQueryAll,
  fillBankAccount,
  referenceOf,
  settle,
  type,
  until,
  untilText,
  visibleText,
} from './support/checkout.js';
import { startStack, type Stack } from './support/stack.js';

const LANGUAGES = [
  {
    locale: 'en',
    words: { paid: 'Payment received', code: 'Your reference code', otp: 'Enter the code', notFound: 'Payments are not set up', offline: 'We could not reach the shop', wrong: 'That code is not right', confirm: 'Confirm', getCode: 'Get my code' },
  },
  // With its region: Egypt writes Arabic-Indic digits, in the amount and so in every number and moment.
  {
    locale: 'ar-EG',
    words: { paid: 'تم استلام الدفعة', code: 'رمزك المرجعي', otp: 'أدخل الرمز', notFound: 'الدفع غير مُعدّ', offline: 'تعذّر الاتصال بالمتجر', wrong: 'الرمز غير صحيح', confirm: 'تأكيد', getCode: 'احصل على الرمز' },
  },
] as const;
const THEMES = ['light', 'dark'] as const;
const VARIANTS = LANGUAGES.flatMap((language) => THEMES.map((theme) => ({ ...language, theme })));

/** A checkout in a box of the given width (a phone's 390 px by default), in a theme. */
async function placed(stack: Stack, theme: string, options: Parameters<typeof checkout>[1], width = 390): Promise<SvcCheckout> {
  const box = await fixture<HTMLDivElement>(html`<div style="inline-size: ${width}px"></div>`);
  const element = await checkout(stack, options);
  element.setAttribute('theme', theme);
  box.append(element);
  await settle(element);
  return element;
}

async function paidByPos(stack: Stack, locale: string, theme: string): Promise<SvcCheckout> {
  const element = await placed(stack, theme, { payMethod: 'Pos', locale });
  const sn = `N7810${Math.floor(Math.random() * 1e7)}`;
  await type(element, 'input[name=sn]', sn);
  await clickButton(element, /^(Pay|ادفع)/);
  await untilText(element, sn);
  await stack.control('POST', `/sandbox/v1/pos/${sn}/swipe`, { outcome: 'success' });
  return element;
}

describe('<svc-checkout> as the payer reviewed it (issue 48)', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  afterEach(() => sessionStorage.clear());

  for (const { locale, theme, words } of VARIANTS) {
    it(`shows one icon in a form-level alert, ${locale}, ${theme}`, async () => {
      // An endpoint that is not there: the shop's setting, said in the form's alert.
      const element = await placed(stack, theme, { payMethod: 'Pos', locale, endpoint: `${stack.endpoint}/not-here` });
      await type(element, 'input[name=sn]', 'N78101818218');
      await clickButton(element, /^(Pay|ادفع)/);
      await untilText(element, words.notFound);
      const alerts = deepQueryAll(element, '.alert');
      expect(alerts.length).to.be.at.least(1);
      for (const alert of alerts) {
        expect(alert.querySelectorAll('svg').length, alert.textContent!).to.equal(1);
        // A mark drawn by the stylesheet would be a second icon beside the alert's own.
        expect(['none', 'normal']).to.include(getComputedStyle(alert, '::before').content);
      }
    });
  }

  for (const { locale, theme, words } of VARIANTS) {
    it(`writes the receipt's date and time in the digits of its amount, said once, its identifiers whole, ${locale}, ${theme}`, async () => {
      const element = await paidByPos(stack, locale, theme);
      await untilText(element, words.paid);
      const time = deepQuery(element, '.receipt .time')!.textContent!;
      const amount = element.shadowRoot!.querySelector('.amount-value')!.textContent!;
      const digits = (text: string) => (/[٠-٩]/.test(text) ? 'arab' : /[0-9]/.test(text) ? 'latn' : 'none');
      expect(digits(amount)).to.equal(locale === 'en' ? 'latn' : 'arab');
      expect(digits(time), time).to.equal(digits(amount));
      expect(/[0-9]/.test(time) && /[٠-٩]/.test(time), time).to.equal(false);
      // The shop's reference once, in the element's header; the receipt has the service's number of the payment.
      const reference = referenceOf(element);
      expect(visibleText(element).split(reference).length - 1).to.equal(1);
      // One full stop after the amount, whose currency may end in one (ج.م.).
      const said = deepQuery(element, '.result > p')!.textContent!.replace(/[\u200e\u200f\u2066-\u2069]/g, '');
      expect(said).not.to.match(/\.\s*\.\s*$/);
      for (const identifier of deepQueryAll(element, '.mono, [part=reference]')) {
        expect(identifier.getClientRects().length, identifier.textContent!).to.equal(1);
      }
      // Copied as a reference code is: a button like the others of the step, not an underlined link.
      const copy = deepQuery(element, '.receipt button')!;
      expect(copy.getAttribute('part')).to.contain('button-copy');
      const style = getComputedStyle(copy);
      expect(style.textDecorationLine).to.equal('none');
      expect(style.borderTopStyle).to.equal('solid');
      expect(copy.getBoundingClientRect().height).to.be.at.least(44);
    });
  }

  for (const { locale, theme, words } of VARIANTS) {
    it(`says "get my code" on the form that pays nothing yet, mirrors the voucher's row in Arabic and keeps the code's digits in their order, ${locale}, ${theme}`, async () => {
      const element = await placed(stack, theme, { payMethod: 'ReferenceCode', locale }, 600);
      await type(element, 'input[name=notifyUserName]', 'Mona Hassan');
      await type(element, 'input[name=notifyUserEmail]', 'mona@example.com');
      await type(element, 'input[name=notifyUserMobile]', '+20 100 123 4567');
      // The form pays nothing yet: its button gets the code, with no amount in its words.
      const submit = deepQuery(element, 'button[type=submit]')!;
      expect(submit.textContent!.trim()).to.equal(words.getCode);
      await clickButton(element, words.getCode);
      await untilText(element, words.code);
      const digits = deepQuery(element, '.code .digits')!;
      const copy = deepQuery(element, '.code button')!;
      expect(getComputedStyle(digits).direction).to.equal('ltr');
      expect(digits.textContent!.trim()).to.match(/^\d{3} \d{3} \d{3}$/);
      const [code, button] = [digits.getBoundingClientRect(), copy.getBoundingClientRect()];
      // Side by side on one line (a phone puts the button under the code): the button after the code in the reading direction.
      expect(button.top).to.be.below(code.bottom);
      if (locale === 'en') expect(button.left).to.be.at.least(code.right);
      else expect(button.right).to.be.at.most(code.left);
    });
  }

  for (const { locale, theme, words } of VARIANTS) {
    it(`gives the code step's secondary actions one style and even gaps, ${locale}, ${theme}`, async () => {
      const element = await placed(stack, theme, { payMethod: 'BankAccount', locale });
      await fillBankAccount(element, '2215381176');
      await clickButton(element, /^(Pay|ادفع)/);
      await untilText(element, words.otp);
      const confirm = deepQuery(deepQuery(element, 'svc-code-step')!, 'button[type=submit]')!;
      const [resend, leave] = deepQueryAll(element, 'button.secondary');
      expect(resend && leave, 'a resend and a leave button').to.be.ok;
      const [a, b, c] = [confirm, resend!, leave!].map((button) => button.getBoundingClientRect());
      expect(b!.width).to.be.closeTo(c!.width, 1);
      expect(c!.top - b!.bottom).to.be.closeTo(b!.top - a!.bottom, 1);
      const [first, second] = [getComputedStyle(resend!), getComputedStyle(leave!)];
      for (const property of ['borderTopWidth', 'borderTopColor', 'color', 'fontWeight', 'fontSize', 'height'] as const) {
        expect(second[property], property).to.equal(first[property]);
      }
    });
  }

  for (const { locale, theme, words } of VARIANTS) {
    it(`keeps a code that never reached the kit, clears one it answered, and takes back "could not reach" once online, ${locale}, ${theme}`, async () => {
      // The code in the element's own field, where the page's fetch is the one that fails: the isolated frame's is its own.
      const element = await placed(stack, theme, { payMethod: 'BankAccount', locale, isolated: false });
      await fillBankAccount(element, '2215381176');
      await clickButton(element, /^(Pay|ادفع)/);
      await untilText(element, words.otp);
      const field = () => deepQuery<HTMLInputElement>(element, 'input[name=otp]')!;
      // Answered (a wrong code): not kept.
      await type(element, 'input[name=otp]', '00000000');
      await clickButton(element, words.confirm);
      await untilText(element, words.wrong);
      expect(field().value).to.equal('');
      // Offline: the request never reaches the kit (the browser's fetch rejects, as it does with no connection).
      const original = window.fetch;
      let offline = true;
      window.fetch = async (input, init) => {
        if (offline && requestPath(input).endsWith('/payments/otp')) throw new TypeError('Failed to fetch');
        return original(input, init);
      };
      try {
        await type(element, 'input[name=otp]', '11315632');
        await clickButton(element, words.confirm);
        await untilText(element, words.offline);
        expect(field().value).to.equal('11315632');
        offline = false;
        window.dispatchEvent(new Event('online'));
        // (The live region keeps what it last said: the alert is what the payer reads.)
        await until('the message taken back', () => !deepQueryAll(element, '.alert').some((alert) => alert.textContent!.includes(words.offline)));
        // The code kept is the one sent now.
        await clickButton(element, words.confirm);
        await untilText(element, words.paid);
      } finally {
        window.fetch = original;
      }
    });
  }

  for (const { locale, theme } of VARIANTS) {
    it(`rings a heading that takes focus at a step change clear of its words and of the failure's edge, ${locale}, ${theme}`, async () => {
      const element = await placed(stack, theme, { payMethod: 'Pos', locale });
      const sn = `N7811${Math.floor(Math.random() * 1e7)}`;
      // By keyboard, as the ring is drawn for a keyboard's focus.
      deepQuery<HTMLInputElement>(element, 'input[name=sn]')!.focus();
      await sendKeys({ type: sn });
      await sendKeys({ press: 'Enter' });
      await untilText(element, sn);
      await stack.control('POST', `/sandbox/v1/pos/${sn}/swipe`, { outcome: 'fail' });
      const heading = await until('focus on the failure heading', () => {
        const focused = deepQuery(element, 'svc-result')?.shadowRoot?.activeElement;
        return focused?.localName === 'h2' ? (focused as HTMLElement) : undefined;
      });
      const style = getComputedStyle(heading);
      expect(style.outlineStyle).to.equal('solid');
      const offset = parseFloat(style.outlineOffset);
      const reach = offset + parseFloat(style.outlineWidth);
      const range = document.createRange();
      range.selectNodeContents(heading);
      const [box, words] = [heading.getBoundingClientRect(), range.getBoundingClientRect()];
      // Clear of the words: a gap of a few pixels between the glyphs' box and the ring, on every side.
      expect(words.top - (box.top - offset), 'above the words').to.be.at.least(4);
      expect(box.bottom + offset - words.bottom, 'below the words').to.be.at.least(4);
      // Clear of the failure's red edge, at the start of the line (the right in Arabic).
      const result = heading.closest('.result')!;
      const edge = result.getBoundingClientRect();
      const border = parseFloat(getComputedStyle(result).borderInlineStartWidth);
      if (locale === 'en') expect(box.left - reach, 'the edge').to.be.at.least(edge.left + border + 2);
      else expect(box.right + reach, 'the edge').to.be.at.most(edge.right - border - 2);
    });
  }

  it('keeps its layout and its targets on a page with hostile but common CSS, its size the payer’s browser font size', async () => {
    for (const { locale, theme } of VARIANTS) {
      const element = await placed(stack, theme, { payMethod: 'Pos', locale }, 390);
      // Each piece of text and each target as laid out, against the element's corner.
      const layout = () => {
        const origin = element.getBoundingClientRect();
        return deepQueryAll(element, 'p, span, label, h2, button, input').map((node) => {
          const rect = node.getBoundingClientRect();
          return `${node.localName}.${node.className}: ${Math.round(rect.left - origin.left)},${Math.round(rect.top - origin.top)} ${Math.round(rect.width)}×${Math.round(rect.height)}`;
        });
      };
      const own = layout();
      // The host's size is the browser's own default, as a payer set it.
      const probe = document.createElement('div');
      probe.style.fontSize = 'medium';
      document.body.append(probe);
      expect(getComputedStyle(element).fontSize).to.equal(getComputedStyle(probe).fontSize);
      probe.remove();
      const hostile = document.createElement('style');
      hostile.textContent = `
        *, *::before, *::after { margin: 0; padding: 0; box-sizing: content-box; }
        html { font-size: 10px; }
        body { direction: rtl; line-height: 1; }
        button { all: unset; }
        input, button, select { font: inherit; }
      `;
      document.head.append(hostile);
      try {
        await settle(element);
        expect(layout(), `${locale}, ${theme}`).to.deep.equal(own);
      } finally {
        hostile.remove();
        element.parentElement!.remove();
      }
    }
  });

  it('keeps the host page’s text-align, line-height, letter-spacing, text-transform and direction out of its layout', async () => {
    for (const { locale, theme } of VARIANTS) {
      const element = await placed(stack, theme, { methods: 'Pos BankAccount ReferenceCode', locale }, 600);
      const box = element.parentElement!;
      // Where each piece of text the payer reads sits, against the element's own corner.
      const layout = () => {
        const origin = element.getBoundingClientRect();
        return deepQueryAll(element, 'p, span, label, legend, h2, button').map((node) => {
          const range = document.createRange();
          range.selectNodeContents(node);
          const rect = range.getBoundingClientRect();
          return `${node.localName}.${node.className}: ${Math.round(rect.left - origin.left)},${Math.round(rect.top - origin.top)} ${Math.round(rect.width)}×${Math.round(rect.height)}`;
        });
      };
      const own = layout();
      // As a Vite React template's `#root { text-align: center }` does, and worse.
      box.style.cssText += ';text-align: center; line-height: 3; letter-spacing: 3px; word-spacing: 6px; text-transform: uppercase; text-indent: 20px; direction: rtl';
      await settle(element);
      expect(layout(), `${locale}, ${theme}`).to.deep.equal(own);
      box.remove();
    }
  });
});
