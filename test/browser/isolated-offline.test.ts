// The code step's isolated frame offline (src/isolated-fields/frame.ts): the one-time code typed in the frame, whose
// own fetch to the kit loses its connection before any answer (the test server drops it: the frame's fetch is its
// own, of an opaque origin, and the page cannot fail it), stays in the frame's field to be sent again; the payer
// reads that the shop could not be reached, and no longer once the browser is back online; the code kept is then
// sent and pays. English and Arabic.
import { expect } from '@open-wc/testing';
import { checkout, clickButton, deepQueryAll, fillBankAccount, typeCode, until, untilText } from './support/checkout.js';
import { frameField } from './support/isolated.js';
import { startStack, type Stack } from './support/stack.js';

const WORDS = {
  en: { pay: /^Pay/, otp: 'Enter the code', confirm: 'Confirm', offline: 'We could not reach the shop', wrong: 'That code is not right', paid: 'Payment received' },
  'ar-EG': { pay: /^ادفع/, otp: 'أدخل الرمز', confirm: 'تأكيد', offline: 'تعذّر الاتصال بالمتجر', wrong: 'الرمز غير صحيح', paid: 'تم استلام الدفعة' },
} as const;

describe("the isolated frame's code, offline", () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });

  const drops = (state: 'on' | 'off', path = '') => fetch(`/drops/${stack.info.id}/${state}?${new URLSearchParams({ path })}`, { method: 'POST' });
  afterEach(() => drops('off'));

  for (const [locale, words] of Object.entries(WORDS)) {
    it(`keeps a code that never reached the kit, says so, and takes it back once online, ${locale}`, async () => {
      const element = await checkout(stack, { payMethod: 'BankAccount', locale });
      await fillBankAccount(element, '2215381176');
      await clickButton(element, words.pay);
      await untilText(element, words.otp);
      // Answered (a wrong code): not kept.
      await typeCode(element, '00000000');
      await clickButton(element, words.confirm);
      await untilText(element, words.wrong);
      expect((await frameField(element, 'otp'))?.value).to.equal('');
      // The frame's request loses its connection: it never reaches the kit.
      await drops('on', '/payments/otp');
      await typeCode(element, '11315632');
      await clickButton(element, words.confirm);
      await untilText(element, words.offline, 15_000);
      expect((await frameField(element, 'otp'))?.value, 'the code kept in the frame').to.equal('11315632');
      await drops('off');
      window.dispatchEvent(new Event('online'));
      await until('the message taken back', () => !deepQueryAll(element, '.alert').some((alert) => alert.textContent!.includes(words.offline)));
      // The code kept is the one sent now.
      await clickButton(element, words.confirm);
      await untilText(element, words.paid);
      element.remove();
    });
  }
});
