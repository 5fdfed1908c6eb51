// The proof (docs/isolated-fields.md): a hostile script on the shop's page, in before the element loads
// (fixtures/hostile.js: a document keylogger, an attachShadow and HTMLInputElement.prototype.value patch, a walker of
// every shadow root, a MutationObserver, every request and message of the page, forged messages to the element and
// to its frames), captures none of the account number, date of birth, one-time code or PIN a payer types, in
// Chromium, Firefox and WebKit; and the same script captures each of them when the element is told not to isolate
// them (`isolated="false"`), the test's control. The payer types by keyboard, field after field, as a payer does.
import { expect } from '@open-wc/testing';
import { sendKeys } from '@web/test-runner-commands';
import type { SvcCheckout } from '../../src/element/index.js';
import { clickButton, deepQuery, uniqueReference, until, untilText } from './support/checkout.js';
import { inFrame, isolatedFrames, loadedFrame } from './support/isolated.js';
import { startStack, type Stack } from './support/stack.js';

/** Test values of this file's sandbox: none of them anywhere else on the page (the hints' example date is 05 01 1990). */
const OTP_ACCOUNT = '2215381176';
const PIN_ACCOUNT = '2215381183';
const BANK_CODE = '317';
const BIRTH = ['24', '03', '1987'] as const;
const OTP = '70423851';
const PIN = '806413';

interface Captured {
  keys: string[];
  values: string[];
  texts: string[];
  messages: string[];
  requests: string[];
  fromFrames: string[];
}

/** Where the script found each secret: by channel, for those it found. */
function found(captured: Captured): Record<string, string[]> {
  // Keys as typed, one character each: a value typed into one field reads as itself.
  const typed = captured.keys.filter((key) => key.length === 1).join('');
  const secrets = { account: [OTP_ACCOUNT, PIN_ACCOUNT], 'date of birth': [BIRTH.join(''), BIRTH[2]], otp: [OTP], pin: [PIN] };
  const result: Record<string, string[]> = {};
  for (const [name, values] of Object.entries(secrets)) {
    const channels = Object.entries({ ...captured, keys: [typed] })
      .filter(([, entries]) => entries.some((entry) => values.some((value) => entry.includes(value))))
      .map(([channel]) => channel);
    if (channels.length > 0) result[name] = channels;
  }
  return result;
}

describe('a hostile script on the shop’s page', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack({ sandbox: { scenarios: { otp: OTP, pin: PIN, bankCode: BANK_CODE, dateOfBirth: `${BIRTH[2]}-${BIRTH[1]}-${BIRTH[0]}` } } });
  });
  afterEach(() => {
    for (const frame of document.querySelectorAll('iframe')) frame.remove();
    sessionStorage.clear();
  });

  /** The shop's page, the hostile script first in it; the element paying by bank account. */
  async function shopPage(options: { isolated: boolean; hijack?: boolean }) {
    const query = new URLSearchParams({
      endpoint: stack.endpoint,
      'checkout-token': await stack.checkoutToken({ reference: uniqueReference('hostile') }),
      'pay-method': 'BankAccount',
      'poll-interval': '100',
      locale: 'en',
      ...(options.isolated ? {} : { isolated: 'false' }),
      ...(options.hijack ? { hijack: '' } : {}),
    });
    const frame = document.createElement('iframe');
    frame.title = 'shop';
    frame.style.width = '600px';
    frame.style.height = '900px';
    frame.src = `/test/browser/fixtures/hostile-page.html?${query}`;
    document.body.append(frame);
    const page = frame.contentWindow as Window & { captured: Captured };
    const element = await until('the element', () => {
      const found = frame.contentDocument?.querySelector('svc-checkout') as SvcCheckout | null;
      return found?.shadowRoot && found;
    });
    return { page, element };
  }

  /**
   * Types as a payer does, by keyboard: the element puts focus at the start of its fields (in its frame, or in its
   * own form), then each value, Tab to the next field, and Tab out of the last.
   */
  async function typeAsPayer(element: SvcCheckout, values: readonly string[]) {
    type Part = HTMLElement & { focusStart?(): void };
    const part = await until('the fields', () => {
      const shown = deepQuery<Part>(element, 'svc-code-step') ?? deepQuery<Part>(element, 'svc-bank-account-form');
      return typeof shown?.focusStart === 'function' && (shown as Required<Part>);
    });
    const frame = isolatedFrames(element).length > 0 ? await loadedFrame(element) : undefined;
    part.focusStart();
    await until('focus in the fields', async () => (frame ? inFrame<boolean>(frame, 'return document.hasFocus();') : part.shadowRoot?.activeElement?.localName === 'input'));
    for (const [index, value] of values.entries()) {
      if (index > 0) await sendKeys({ press: 'Tab' });
      await sendKeys({ type: value });
    }
    await sendKeys({ press: 'Tab' });
    // The frame's last report crosses to the page as the payer's hand goes to the button.
    if (frame) await inFrame(frame, 'return true;');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }

  /** Pays by bank account with the code the account's step asks for. */
  async function pay(element: SvcCheckout, account: string, code: string, step: string) {
    await typeAsPayer(element, [account, BANK_CODE, ...BIRTH]);
    await clickButton(element, /^Pay/);
    await untilText(element, step);
    await typeAsPayer(element, [code]);
    await clickButton(element, 'Confirm');
    await untilText(element, 'Payment received');
  }

  for (const isolated of [true, false]) {
    it(isolated ? 'captures none of the account number, date of birth, OTP or PIN the payer types' : 'captures every one of them with isolation turned off (the control)', async function () {
      this.timeout(60_000);
      const otp = await shopPage({ isolated });
      await pay(otp.element, OTP_ACCOUNT, OTP, 'Enter the code');
      const pin = await shopPage({ isolated });
      await pay(pin.element, PIN_ACCOUNT, PIN, 'Enter your PIN');
      // Walks and messages a moment after the payment, too.
      await new Promise((resolve) => setTimeout(resolve, 300));
      const captures = [otp.page.captured, pin.page.captured];
      const leaked = found({
        keys: captures.flatMap((captured) => captured.keys),
        values: captures.flatMap((captured) => captured.values),
        texts: captures.flatMap((captured) => captured.texts),
        messages: captures.flatMap((captured) => captured.messages),
        requests: captures.flatMap((captured) => captured.requests),
        fromFrames: captures.flatMap((captured) => captured.fromFrames),
      });
      // The script was at work all along: it read the element's requests and messages, and walked the page.
      for (const captured of captures) {
        expect(captured.requests.some((request) => request.includes(stack.endpoint)), `requests read: ${captured.requests.join(' | ')}`).to.equal(true);
        expect(captured.texts.some((text) => text.includes('Payment received')), 'the page walked').to.equal(true);
      }
      if (isolated) {
        expect(leaked).to.deep.equal({});
        // Its forged channel to each frame, offered once the element had its own, was never answered.
        for (const captured of captures) expect(captured.fromFrames).to.deep.equal([]);
        // And the messages it read between the element and its frames were there to read.
        for (const captured of captures) expect(captured.messages.some((message) => message.includes('"type":"report"'))).to.equal(true);
      } else {
        expect(Object.keys(leaked).sort()).to.deep.equal(['account', 'date of birth', 'otp', 'pin']);
        // By the keyboard, and by the fields' values: two ways each.
        for (const [secret, channels] of Object.entries(leaked)) expect(channels, secret).to.include.members(['keys', 'values']);
        for (const captured of captures) expect(captured.keys, 'keys heard').to.include('Tab');
      }
    });
  }

  it('takes a frame’s channel when it answers the frame first, and still reads nothing: the frame sends the details to the kit only', async function () {
    this.timeout(60_000);
    const { page, element } = await shopPage({ isolated: true, hijack: true });
    const frame = await until('the frame', () => isolatedFrames(element)[0]);
    await until('the channel taken', () => page.captured.fromFrames.some((message) => message.includes('"type":"report"')));
    // The payer types (focus into the frame, then Tab from field to field).
    frame.focus();
    for (const value of [OTP_ACCOUNT, BANK_CODE, ...BIRTH]) {
      await sendKeys({ press: 'Tab' });
      await sendKeys({ type: value });
    }
    await sendKeys({ press: 'Tab' });
    // The script asked the frame to send, again and again: the frame answered with the rules its fields broke then,
    // and, once they were right, with the kit's answer to its create; never a value. The element, whose channel never
    // came, cannot pay.
    await until('the kit’s answer, through the frame, to the script', () => page.captured.fromFrames.some((message) => message.includes('"type":"sent"') && message.includes('\\"code\\":\\"00000\\"')), 10_000);
    expect(found({ ...page.captured })).to.deep.equal({});
    expect(element.session?.state.busy).to.equal(false);
  });
});
