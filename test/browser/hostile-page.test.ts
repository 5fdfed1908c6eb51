// The proof (docs/isolated-fields.md): a hostile script on the shop's page, in before the element loads
// (fixtures/hostile.js: a document keylogger, an attachShadow and HTMLInputElement.prototype.value patch, a walker of
// every shadow root, a MutationObserver, every request and message of the page, forged messages to the element and
// to its frames), captures none of the account number, date of birth, one-time code or PIN a payer types, in
// Chromium, Firefox and WebKit; and the same script captures each of them when the element is told not to isolate
// them (`isolated="false"`), the test's control. The payer types by keyboard, field after field, as a payer does. Both
// ways a shop decides its orders are tried: checkout tokens, and its `authorize` hook with the payer's session (the
// frame's create then carries a ticket the page asked for). A script that answers the frame first holds its channel:
// it learns one report per change of what the fields break (never one per key), and the frame shows the payer the
// payment of the proof it was given first, and sends under that proof alone.
import { expect } from '@open-wc/testing';
import { sendKeys } from '@web/test-runner-commands';
import type { SvcCheckout } from '../../src/element/index.js';
import { clickButton, deepQuery, uniqueReference, until, untilText } from './support/checkout.js';
import { inFrame, isolatedFrames, loadedFrame, untilOpen } from './support/isolated.js';
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

/** Where the shop's orders come from: its checkout tokens, or its `authorize` hook and the payer's session. */
type Mode = 'checkout-token' | 'authorize';

describe('a hostile script on the shop’s page', () => {
  const stacks = {} as Record<Mode, Stack>;
  const scenarios = { otp: OTP, pin: PIN, bankCode: BANK_CODE, dateOfBirth: `${BIRTH[2]}-${BIRTH[1]}-${BIRTH[0]}` };
  before(async () => {
    stacks['checkout-token'] = await startStack({ sandbox: { scenarios } });
    stacks.authorize = await startStack({ sandbox: { scenarios }, handler: { orders: 'authorize' } });
    // The payer's session with the shop (the authorize stack's hook reads it): the page's calls carry it, the frame's none.
    document.cookie = 'svc-test-session=1; path=/';
  });
  after(() => {
    document.cookie = 'svc-test-session=; path=/; max-age=0';
  });
  afterEach(() => {
    for (const frame of document.querySelectorAll('iframe')) frame.remove();
    sessionStorage.clear();
  });

  /**
   * The shop's page, the hostile script first in it; the element paying by bank account, with a checkout token or
   * (`authorize`) configured by attributes, the shop's hook deciding the amount.
   */
  async function shopPage(options: { isolated: boolean; mode?: Mode; hijack?: boolean; hijackToken?: string }) {
    const mode = options.mode ?? 'checkout-token';
    const stack = stacks[mode];
    const reference = uniqueReference('hostile');
    const order: Record<string, string> =
      mode === 'checkout-token'
        ? { 'checkout-token': await stack.checkoutToken({ reference }) }
        : { 'merchant-id': stack.merchantId, reference, 'country-code': 'EG', currency: 'EGP', 'pay-amount': '12500', 'product-name': 'Espresso beans' };
    const query = new URLSearchParams({
      endpoint: stack.endpoint,
      ...order,
      'pay-method': 'BankAccount',
      'poll-interval': '100',
      locale: 'en',
      ...(options.isolated ? {} : { isolated: 'false' }),
      ...(options.hijack ? { hijack: '' } : {}),
      ...(options.hijackToken ? { 'hijack-token': options.hijackToken } : {}),
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
    if (frame) await untilOpen(frame);
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

  /** Where the script found any secret, from every page it was on. */
  const leakedFrom = (captures: Captured[]) =>
    found({
      keys: captures.flatMap((captured) => captured.keys),
      values: captures.flatMap((captured) => captured.values),
      texts: captures.flatMap((captured) => captured.texts),
      messages: captures.flatMap((captured) => captured.messages),
      requests: captures.flatMap((captured) => captured.requests),
      fromFrames: captures.flatMap((captured) => captured.fromFrames),
    });

  for (const mode of ['checkout-token', 'authorize'] as const) {
    it(`captures none of the account number, date of birth, OTP or PIN the payer types (orders by ${mode})`, async function () {
      this.timeout(60_000);
      const otp = await shopPage({ isolated: true, mode });
      await pay(otp.element, OTP_ACCOUNT, OTP, 'Enter the code');
      // With checkout tokens, a PIN step too (the authorize shop's frames are the same: its OTP step stands for both).
      const pin = mode === 'checkout-token' ? await shopPage({ isolated: true, mode }) : undefined;
      if (pin) await pay(pin.element, PIN_ACCOUNT, PIN, 'Enter your PIN');
      // Walks and messages a moment after the payment, too.
      await new Promise((resolve) => setTimeout(resolve, 300));
      const captures = [otp.page.captured, ...(pin ? [pin.page.captured] : [])];
      // The script was at work all along: it read the element's requests and messages, and walked the page.
      for (const captured of captures) {
        expect(captured.requests.some((request) => request.includes(stacks[mode].endpoint)), `requests read: ${captured.requests.join(' | ')}`).to.equal(true);
        expect(captured.texts.some((text) => text.includes('Payment received')), 'the page walked').to.equal(true);
      }
      expect(leakedFrom(captures)).to.deep.equal({});
      // Its forged channel to each frame, offered once the element had its own, was never answered.
      for (const captured of captures) expect(captured.fromFrames).to.deep.equal([]);
      // And the messages it read between the element and its frames were there to read.
      for (const captured of captures) expect(captured.messages.some((message) => message.includes('"type":"report"'))).to.equal(true);
    });
  }

  it('captures every one of them with isolation turned off (the control)', async function () {
    this.timeout(60_000);
    const otp = await shopPage({ isolated: false });
    await pay(otp.element, OTP_ACCOUNT, OTP, 'Enter the code');
    const pin = await shopPage({ isolated: false });
    await pay(pin.element, PIN_ACCOUNT, PIN, 'Enter your PIN');
    const captures = [otp.page.captured, pin.page.captured];
    const leaked = leakedFrom(captures);
    expect(Object.keys(leaked).sort()).to.deep.equal(['account', 'date of birth', 'otp', 'pin']);
    // By the keyboard, and by the fields' values: two ways each.
    for (const [secret, channels] of Object.entries(leaked)) expect(channels, secret).to.include.members(['keys', 'values']);
    for (const captured of captures) expect(captured.keys, 'keys heard').to.include('Tab');
  });

  /** The payer types the bank details into a frame whose channel the script holds: focus in, then Tab from field to field. */
  async function typeIntoHijacked(frame: HTMLIFrameElement) {
    await untilOpen(frame);
    frame.focus();
    for (const value of [OTP_ACCOUNT, BANK_CODE, ...BIRTH]) {
      await sendKeys({ press: 'Tab' });
      await sendKeys({ type: value });
    }
    await sendKeys({ press: 'Tab' });
  }

  /** The frame's reports the script received, as the states they report. */
  const reportsOf = (captured: Captured) => captured.fromFrames.filter((message) => message.includes('"type":"report"')).map((message) => JSON.stringify(JSON.parse(message).report.broken));

  for (const mode of ['checkout-token', 'authorize'] as const) {
    it(`takes a frame’s channel when it answers the frame first, and still reads nothing: the frame sends the details to the kit only, under the proof it shows (orders by ${mode})`, async function () {
      this.timeout(60_000);
      const { page, element } = await shopPage({ isolated: true, mode, hijack: true });
      const frame = await until('the frame', () => isolatedFrames(element)[0]);
      await until('the channel taken', () => page.captured.fromFrames.some((message) => message.includes('"type":"report"')));
      await typeIntoHijacked(frame);
      // The script asked the frame to send, again and again: the frame answered with the rules its fields broke then,
      // and, once they were right, with the kit's answer to its create; never a value. The element, whose channel never
      // came, cannot pay.
      await until('the kit’s answer, through the frame, to the script', () => page.captured.fromFrames.some((message) => message.includes('"type":"sent"') && message.includes('\\"code\\":\\"00000\\"')), 10_000);
      expect(found({ ...page.captured })).to.deep.equal({});
      expect(element.session?.state.busy).to.equal(false);
      // What the payer saw while typing: the payment the frame was given, the shop's own.
      expect(await inFrame<string>(frame, "return document.querySelector('.paying').textContent;")).to.match(/^You pay EGP.125\.00/);
      // Every field marked invalid all along, yet one report per change of what the fields break, never one per key.
      const reports = reportsOf(page.captured);
      expect(reports.length).to.be.below(OTP_ACCOUNT.length + BANK_CODE.length + BIRTH.join('').length);
      for (const [index, report] of reports.entries()) if (index > 0) expect(report, `report ${index}`).not.to.equal(reports[index - 1]);
    });
  }

  it('shows the payer the payment of a token the script gives the frame, and lets no later proof change it', async function () {
    this.timeout(60_000);
    // Another cart of the same shop, for EGP 999.00: a token the script could have got as any visitor.
    const own = await stacks['checkout-token'].checkoutToken({ reference: uniqueReference('script'), amount: { total: 99_900, currency: 'EGP' } });
    const { page, element } = await shopPage({ isolated: true, hijack: true, hijackToken: own });
    const frame = await until('the frame', () => isolatedFrames(element)[0]);
    await until('the channel taken', () => page.captured.fromFrames.some((message) => message.includes('"type":"report"')));
    // Before the payer types a key, the frame says whose payment it is: the script's, not the page's.
    await typeIntoHijacked(frame);
    expect(await inFrame<string>(frame, "return document.querySelector('.paying').textContent;")).to.match(/^You pay EGP.999\.00/);
    // It sent under that token (the payer saw its amount); then the script gave it the page's token: not taken, and a
    // create under it is refused in the frame, as the kit refuses a cart that changed.
    await until('a create under the page’s token, refused', () => page.captured.fromFrames.some((message) => message.includes('\\"code\\":\\"CHECKOUT_CHANGED\\"')), 10_000);
    expect(await inFrame<string>(frame, "return document.querySelector('.paying').textContent;")).to.match(/^You pay EGP.999\.00/);
    expect(found({ ...page.captured })).to.deep.equal({});
  });
});
