// The isolated frame (src/isolated-fields, docs/isolated-fields.md) as a payer and the shop's page meet it: a frame of
// an opaque origin, loaded by address from the kit; a handshake only its own window can make; one form to the payer
// (the page's language and direction, its theme, a height that follows the content, Tab and Shift+Tab through it, each
// field announced once, axe in it); under a page's strict CSP, Trusted Types and COEP. Against this file's own sandbox
// and merchant kit; what the frame shows is read through the browser's automation (support/isolated.ts).
import { expect, fixture, html } from '@open-wc/testing';
import { sendKeys } from '@web/test-runner-commands';
import { FRAME_PAGE } from '../../src/core/paths.js';
import type { SvcCheckout } from '../../src/element/index.js';
import { BANK_ACCOUNT_FIELDS } from '../../src/checkout/bank-account-fields.js';
import { CheckoutSession } from '../../src/checkout/index.js';
import { mountIsolatedFields, type FrameWords } from '../../src/isolated-fields/index.js';
import { HANDSHAKE } from '../../src/isolated-fields/protocol.js';
import { checkout, clickButton, deepQuery, deepQueryAll, fillBankAccount, isWebKit, record, settle, typeCode, uniqueReference, until, untilText } from './support/checkout.js';
import { frameErrors, frameField, frameText, frameViolations, inFrame, isolatedFrames, loadedFrame, typeInFrame, untilOpen } from './support/isolated.js';
import { startStack, type Stack } from './support/stack.js';

/** The innermost focused element of the test page, through shadow roots: an isolated frame's `<iframe>` while focus is in it. */
function focused(): Element | null {
  let current: Element | null = document.activeElement;
  while (current?.shadowRoot?.activeElement) current = current.shadowRoot.activeElement;
  return current;
}

/** The name of the field focused in a frame, when the frame has the focus. */
const focusedInFrame = (frame: HTMLIFrameElement) => inFrame<string | null>(frame, 'return document.hasFocus() ? (document.activeElement.name ?? null) : null;');

/** Shift+Tab, as each driver spells it. */
async function shiftTab(): Promise<void> {
  if (isWebKit) return void (await sendKeys({ press: 'Shift+Tab' }));
  await sendKeys({ down: 'Shift' });
  await sendKeys({ press: 'Tab' });
  await sendKeys({ up: 'Shift' });
}

/** The bank account form's fields, in their order: its rows (src/checkout/bank-account-fields.ts). */
const BANK_FIELDS: string[] = BANK_ACCOUNT_FIELDS.map((field) => field.name);

describe('<svc-checkout> isolated fields', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  afterEach(() => {
    for (const frame of document.querySelectorAll('body > iframe')) frame.remove();
    sessionStorage.clear();
  });

  describe('the frame', () => {
    it('holds the bank account details where the page cannot reach: an opaque origin, loaded by address from the kit', async () => {
      const element = await checkout(stack, { payMethod: 'BankAccount' });
      const frame = await loadedFrame(element);
      expect(frame.getAttribute('sandbox')).to.equal('allow-scripts allow-forms');
      expect(frame.getAttribute('allow')).to.equal('otp-credentials');
      expect(frame.title).to.equal('Bank account details');
      expect(frame.hasAttribute('srcdoc')).to.equal(false);
      const address = new URL(frame.src);
      expect(`${address.origin}${address.pathname}`).to.equal(new URL(`${stack.endpoint}/${FRAME_PAGE}`, location.href).href);
      // Its fragment is its configuration, which no server sees: words and look, no value of the payer's.
      expect(address.search).to.equal('');
      // The page reaches nothing inside it, and holds none of its fields.
      expect(frame.contentDocument).to.equal(null);
      expect(() => frame.contentWindow!.document).to.throw();
      expect(deepQueryAll(element, 'input').filter((input) => BANK_FIELDS.includes((input as HTMLInputElement).name))).to.deep.equal([]);
      expect(await inFrame(frame, 'return String(self.origin);')).to.equal('null');
      expect(await inFrame(frame, "return [...document.querySelectorAll('input')].map((input) => input.name);")).to.deep.equal(BANK_FIELDS);
      // Only its own script runs there, and it may connect to the kit only.
      const policy = (await fetch(frame.src)).headers.get('content-security-policy')!;
      expect(policy).to.match(/^default-src 'none'; script-src 'sha256-[\w+/=]+'; style-src 'sha256-[\w+/=]+'; connect-src 'self' http:\/\/localhost:\d+;/);
    });

    it('is a sandbox of its own, however it is framed: a page of the same origin that frames it bare reaches nothing inside', async () => {
      const element = await checkout(stack, { payMethod: 'BankAccount' });
      const frame = await loadedFrame(element);
      // The kit is on the page's origin here: without the page's own sandbox (its policy's), a bare frame would be open.
      expect(new URL(frame.src).origin).to.equal(location.origin);
      const bare = document.createElement('iframe');
      bare.title = 'bare';
      const loaded = new Promise((resolve) => bare.addEventListener('load', resolve, { once: true }));
      bare.src = frame.src;
      document.body.append(bare);
      await loaded;
      expect(bare.contentDocument).to.equal(null);
      expect(() => bare.contentWindow!.document).to.throw();
    });

    it('draws no field in a document of an origin that is not opaque: served without its policy and framed bare', async () => {
      const element = await checkout(stack, { payMethod: 'BankAccount' });
      const frame = await loadedFrame(element);
      // The build's file as a static host would serve it (no policy, so no sandbox of its own), on the page's origin.
      const greetings: unknown[] = [];
      const heard = (event: MessageEvent) => event.data?.type === HANDSHAKE && greetings.push(event.source);
      addEventListener('message', heard);
      const frames = ['', 'allow-scripts allow-forms'].map((sandbox) => {
        const made = document.createElement('iframe');
        made.title = sandbox ? 'static, sandboxed' : 'static, bare';
        if (sandbox) made.setAttribute('sandbox', sandbox);
        made.src = `/dist/cdn/${FRAME_PAGE}${new URL(frame.src).hash}`;
        document.body.append(made);
        return made;
      });
      const [bare, sandboxed] = frames as [HTMLIFrameElement, HTMLIFrameElement];
      try {
        // The control: the same file in a sandboxed frame draws its fields and greets its page.
        await until('the sandboxed copy greeting', () => greetings.includes(sandboxed.contentWindow));
        await until('the bare copy loaded, its script in it', () => bare.contentDocument?.readyState === 'complete' && [...bare.contentDocument.scripts].some((script) => script.textContent!.includes(HANDSHAKE)));
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect(bare.contentDocument!.querySelectorAll('input').length).to.equal(0);
        expect(greetings).not.to.include(bare.contentWindow);
      } finally {
        removeEventListener('message', heard);
      }
    });

    it('greets again when its document is loaded anew (moved in the page), and still takes the payment', async () => {
      const element = await checkout(stack, { payMethod: 'BankAccount' });
      const frame = await loadedFrame(element);
      const parent = frame.parentNode!;
      const next = frame.nextSibling;
      frame.remove();
      frame.style.blockSize = '';
      parent.insertBefore(frame, next);
      await fillBankAccount(element, '2215381176');
      await clickButton(element, /^Pay/);
      await untilText(element, 'Enter the code');
    });

    it("isolates the bank account details where the shop's authorize decides the order: the frame shows the shop's amount, and pays with a ticket", async () => {
      const shop = await startStack({ handler: { orders: 'authorize' } });
      // The payer's session with the shop: the page's own calls carry it, the frame's create none.
      document.cookie = 'svc-test-session=1; path=/';
      try {
        // No checkout token: the page says EGP 1.00, the shop's authorize decides EGP 125.00.
        const element = await fixture<SvcCheckout>(html`
          <svc-checkout endpoint=${shop.endpoint} merchant-id=${shop.merchantId} reference=${uniqueReference('authorize')} country-code="EG"
            currency="EGP" pay-amount="100" product-name="Beans" pay-method="BankAccount" locale="en" sandbox></svc-checkout>
        `);
        const frame = await loadedFrame(element);
        await untilOpen(frame);
        expect(await frameText(element)).to.match(/You pay EGP.125\.00/);
        await fillBankAccount(element, '2215381176');
        await clickButton(element, /^Pay/);
        await untilText(element, 'Enter the code');
        const phase = element.session!.state.phase as { order?: { amount?: { total: number } } };
        expect(phase.order?.amount?.total).to.equal(12_500);
      } finally {
        document.cookie = 'svc-test-session=; path=/; max-age=0';
      }
    });

    it('is made when Bank account is chosen, and ready for the first keystroke; with isolated="false" the fields stay in the element', async () => {
      const element = await checkout(stack, {});
      expect(isolatedFrames(element)).to.deep.equal([]);
      deepQuery<HTMLInputElement>(element, 'input[value=BankAccount]')!.click();
      await loadedFrame(element);
      const inline = await checkout(stack, { payMethod: 'BankAccount', isolated: false });
      await until('the fields in the element', () => deepQuery(inline, 'input[name=bankAccountNumber]'));
      expect(isolatedFrames(inline)).to.deep.equal([]);
    });

    it('holds the code of an OTP step and of a PIN step, autofilled as one-time-code, and clears it once sent', async () => {
      const element = await checkout(stack, { payMethod: 'BankAccount' });
      await fillBankAccount(element, '2215381176');
      await clickButton(element, /^Pay/);
      await untilText(element, 'Enter the code');
      const frame = await loadedFrame(element);
      expect(frame.getAttribute('allow')).to.equal('otp-credentials');
      expect(frame.title).to.equal('Secure entry');
      expect((await frameField(element, 'otp'))!.attributes).to.include({ autocomplete: 'one-time-code', inputmode: 'numeric' });
      await typeCode(element, '00000000');
      await clickButton(element, 'Confirm');
      await untilText(element, '2 tries left');
      expect((await frameField(element, 'otp'))!.value).to.equal('');
      const pin = await checkout(stack, { payMethod: 'BankAccount' });
      await fillBankAccount(pin, '2215381183');
      await clickButton(pin, /^Pay/);
      await untilText(pin, 'Enter your PIN');
      expect((await frameField(pin, 'pin'))!.attributes).to.include({ type: 'password', autocomplete: 'off' });
      await typeCode(pin, '1234');
      await clickButton(pin, 'Confirm');
      await untilText(pin, 'Payment received');
    });
  });

  describe('when it does not come', () => {
    it('tells the payer the fields could not load, and the page a CONFIG error naming the frame, never falling back into the page', async () => {
      const unserved = await startStack({ handler: { elementFiles: false } });
      const element = await checkout(unserved, { payMethod: 'BankAccount' });
      const errors = record(element, 'svc-error');
      await untilText(element, 'The secure payment fields could not load', 10_000);
      const [error] = errors.filter((event) => event.detail.code === 'CONFIG');
      expect(error!.detail.message).to.contain(FRAME_PAGE);
      expect(deepQueryAll(element, 'input').filter((input) => BANK_FIELDS.includes((input as HTMLInputElement).name))).to.deep.equal([]);
    });
  });

  describe('messages', () => {
    it("hears only its frame's own window: a made-up greeting, or one from another window, gets no channel and acts on nothing", async () => {
      const element = await checkout(stack, { payMethod: 'BankAccount' });
      const frame = await loadedFrame(element);
      const changes = record(element, 'svc-change');
      const nonce = JSON.parse(decodeURIComponent(new URL(frame.src).hash.slice(1))).nonce as string;
      const complete = { type: 'report', report: { fields: BANK_FIELDS, broken: {} } };
      // A greeting made up by a script of this page, naming the frame as its source, with a channel that says the
      // form is complete.
      const forged = new MessageChannel();
      forged.port1.postMessage(complete);
      try {
        window.dispatchEvent(new MessageEvent('message', { data: { type: HANDSHAKE, nonce }, source: frame.contentWindow, ports: [forged.port2] }));
      } catch {
        // Firefox makes no event with another origin's window as its source: that forgery cannot even be written there.
      }
      // The same from another window of this origin, as the frame would send it.
      const other = document.createElement('iframe');
      other.title = 'another window';
      document.body.append(other);
      const elsewhere = new MessageChannel();
      elsewhere.port1.postMessage(complete);
      // Posted by a function of that window: the message's source is that window.
      const send = new (other.contentWindow as unknown as { Function: FunctionConstructor }).Function('message', 'port', 'parent.postMessage(message, "*", [port]);');
      send({ type: HANDSHAKE, nonce }, elsewhere.port2);
      // And from this page's own window.
      window.postMessage({ type: HANDSHAKE, nonce }, '*');
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(changes).to.deep.equal([]);
      // The form is as empty as the frame says it is.
      await clickButton(element, /^Pay/);
      await untilText(element, 'Enter account number.');
      expect(await frameErrors(element)).to.have.length(3);
      expect(element.session!.state.busy).to.equal(false);
    });
  });

  describe('one form to the payer', () => {
    it('speaks the page’s language, right to left in Arabic, its numbers left to right', async () => {
      const element = await checkout(stack, { payMethod: 'BankAccount', locale: 'ar' });
      const frame = await loadedFrame(element);
      expect(frame.title).to.equal('بيانات الحساب البنكي');
      const look = await inFrame<{ dir: string; lang: string; label: string; direction: string; align: string }>(
        frame,
        `const account = document.querySelector('input[name=bankAccountNumber]');
         return { dir: document.documentElement.dir, lang: document.documentElement.lang, label: account.labels[0].textContent,
           direction: getComputedStyle(account).direction, align: getComputedStyle(account).textAlign };`,
      );
      expect(look).to.deep.equal({ dir: 'rtl', lang: 'ar', label: 'رقم الحساب', direction: 'ltr', align: 'right' });
      await clickButton(element, /^ادفع/);
      await untilText(element, 'أدخل رقم الحساب');
      expect(await frameViolations(frame)).to.deep.equal([]);
    });

    it('takes the element’s theme, and follows it when it changes', async () => {
      const element = await checkout(stack, { payMethod: 'BankAccount' });
      element.style.setProperty('--svc-color-primary', 'rgb(120, 20, 90)');
      element.setAttribute('theme', 'dark');
      await settle(element);
      const frame = await loadedFrame(element);
      const colours = () =>
        inFrame<{ background: string; text: string; focus: string; scheme: string }>(
          frame,
          `const input = document.querySelector('input');
           return { background: getComputedStyle(input).backgroundColor, text: getComputedStyle(input).color,
             focus: getComputedStyle(document.documentElement).getPropertyValue('--_focus').trim(), scheme: getComputedStyle(document.documentElement).colorScheme };`,
        );
      await until('the dark theme in the frame', async () => (await colours())?.background === 'rgb(27, 27, 31)');
      expect(await colours()).to.deep.equal({ background: 'rgb(27, 27, 31)', text: 'rgb(228, 226, 230)', focus: 'rgb(120, 20, 90)', scheme: 'dark' });
      expect(await frameViolations(frame)).to.deep.equal([]);
      element.setAttribute('theme', 'light');
      await until('the light theme in the frame', async () => (await colours())?.background === 'rgb(255, 255, 255)');
    });

    it('grows with what it shows: the frame is as tall as its content, errors included', async () => {
      const element = await checkout(stack, { payMethod: 'BankAccount' });
      const frame = await loadedFrame(element);
      const contentHeight = () => inFrame<number>(frame, 'return Math.ceil(document.documentElement.getBoundingClientRect().height);');
      await until('the frame as tall as its content', async () => frame.getBoundingClientRect().height === (await contentHeight()));
      const before = frame.getBoundingClientRect().height;
      await clickButton(element, /^Pay/);
      await until('the errors shown', async () => (await frameErrors(element)).length === 3);
      await until('the frame grown with them', async () => frame.getBoundingClientRect().height > before && frame.getBoundingClientRect().height === (await contentHeight()));
      // Nothing of it is cut or scrolled.
      expect(await inFrame(frame, 'return document.documentElement.scrollHeight <= innerHeight;')).to.equal(true);
    });

    it('is one tab order with the element: Tab into the frame and through it to Pay, Shift+Tab back through it to the choice', async () => {
      const element = await checkout(stack, {});
      deepQuery<HTMLInputElement>(element, 'input[value=BankAccount]')!.click();
      const frame = await loadedFrame(element);
      deepQuery<HTMLInputElement>(element, 'input[value=BankAccount]')!.focus();
      for (const field of BANK_FIELDS) {
        await sendKeys({ press: 'Tab' });
        expect(focused(), field).to.equal(frame);
        // WebKit gives a frame's field the focus the payer tabbed to as the others do; each is checked there.
        await until(`focus at ${field}`, async () => (await focusedInFrame(frame)) === field);
      }
      await sendKeys({ press: 'Tab' });
      expect(focused()?.textContent?.trim()).to.match(/^Pay/);
      for (const field of [...BANK_FIELDS].reverse()) {
        await shiftTab();
        await until(`focus back at ${field}`, async () => focused() === frame && (await focusedInFrame(frame)) === field);
      }
      await shiftTab();
      expect((focused() as HTMLInputElement).value).to.equal('BankAccount');
    });

    it('names each field once: the frame by its title, each field by its one label, its hint and error tied to it; axe finds nothing', async () => {
      const element = await checkout(stack, { payMethod: 'BankAccount' });
      const frame = await loadedFrame(element);
      const fields = () =>
        inFrame<{ name: string; labels: string[]; describedBy: string[] }[]>(
          frame,
          `return [...document.querySelectorAll('input')].map((input) => ({ name: input.name, labels: [...input.labels].map((label) => label.textContent),
             describedBy: (input.getAttribute('aria-describedby') ?? '').split(' ').filter(Boolean).map((id) => document.getElementById(id)?.textContent ?? 'missing ' + id) }));`,
        );
      const empty = await fields();
      for (const field of empty!) {
        expect(field.labels, field.name).to.have.length(1);
        expect(field.labels[0], field.name).not.to.equal(frame.title);
      }
      expect(empty!.find((field) => field.name === 'bankAccountNumber')!.describedBy).to.deep.equal(['Letters and digits only, as on your statement.']);
      expect(await frameViolations(frame)).to.deep.equal([]);
      await typeInFrame(element, ['22', '033', '05', '13', '1990']);
      await clickButton(element, /^Pay/);
      await until('the errors', async () => (await frameErrors(element)).length === 2);
      const invalid = await fields();
      expect(invalid!.find((field) => field.name === 'bankAccountNumber')!.describedBy).to.deep.equal([
        'Letters and digits only, as on your statement.',
        'Error: Account number has too few or too many characters.',
      ]);
      expect(await frameViolations(frame)).to.deep.equal([]);
      // After a submit with errors, the payer is put at the first invalid field, in the frame.
      await until('focus at the account number', async () => focused() === frame && (isWebKit || (await focusedInFrame(frame)) === 'bankAccountNumber'));
      await expect(element).to.be.accessible();
    });

    it('passes axe in the code step’s frame, with and without an error', async () => {
      const element = await checkout(stack, { payMethod: 'BankAccount' });
      await fillBankAccount(element, '2215381176');
      await clickButton(element, /^Pay/);
      await untilText(element, 'Enter the code');
      const frame = await loadedFrame(element);
      expect(await frameViolations(frame)).to.deep.equal([]);
      await clickButton(element, 'Confirm');
      await untilText(element, 'Enter one-time code.');
      expect(await frameViolations(frame)).to.deep.equal([]);
      expect(await frameText(element)).to.contain('One-time code');
    });
  });

  describe('on a strict page', () => {
    for (const [name, query] of [
      ['a Content-Security-Policy of default-src \'self\' and Trusted Types', { csp: 'strict', 'trusted-types': '' }],
      ['Cross-Origin-Embedder-Policy: require-corp', { coep: '' }],
    ] as const) {
      it(`loads and works under ${name}`, async () => {
        const shop = document.createElement('iframe');
        shop.title = 'shop';
        shop.style.height = '900px';
        const params = new URLSearchParams({ ...query, endpoint: stack.endpoint, 'checkout-token': await stack.checkoutToken({ reference: uniqueReference('strict') }), 'pay-method': 'BankAccount', locale: 'en' });
        shop.src = `/test/browser/fixtures/checkout-page.html?${params}`;
        document.body.append(shop);
        const element = await until('the element', () => {
          const found = shop.contentDocument?.querySelector('svc-checkout') as SvcCheckout | null;
          return found?.shadowRoot && found;
        });
        await fillBankAccount(element, '2215381176');
        await clickButton(element, /^Pay/);
        await untilText(element, 'Enter the code');
      });
    }
  });

  describe('in a shop’s own UI, on a headless session', () => {
    const words: FrameWords = {
      label: { bankAccountNumber: 'IBAN or account', bankCode: 'Bank', dateOfBirth: 'Born on', dobDay: 'Day', dobMonth: 'Month', dobYear: 'Year', otp: 'SMS code' },
      hint: {},
      placeholder: { dobDay: 'DD', dobMonth: 'MM', dobYear: 'YYYY' },
      errorPrefix: 'Problem:',
    };

    it('mounts the bank account details and the OTP where the page cannot read them, with its own words, and pays', async () => {
      const sent: string[] = [];
      const pageFetch = window.fetch;
      window.fetch = (input, init) => (sent.push(`${String(input)} ${String(init?.body ?? '')}`), pageFetch(input, init));
      // The shop's form: the frame, then its own Pay button (where Tab goes from the frame's last field).
      const form = document.createElement('div');
      const pay = Object.assign(document.createElement('button'), { textContent: 'Pay' });
      document.body.append(form, pay);
      const session = new CheckoutSession({ endpoint: stack.endpoint, checkoutToken: await stack.checkoutToken({ reference: uniqueReference('own-ui') }), pollInterval: 100 });
      try {
        let complete = false;
        session.on((event) => event.type === 'change' && (complete = event.detail.complete));
        session.selectMethod('BankAccount');
        const details = mountIsolatedFields(form, { session, endpoint: stack.endpoint, kind: 'BankAccount', words, title: 'Your bank details', lang: 'en', errorText: (field, error) => `${field} ${error.rule}` });
        expect(details.frame.title).to.equal('Your bank details');
        expect(details.frame.getAttribute('sandbox')).to.equal('allow-scripts allow-forms');
        // Sent empty: the session refuses it, and the frame shows the shop's words for it.
        await session.submit();
        await until('the errors in the frame', async () => (await frameErrors(form)).includes('bankAccountNumber required'));
        expect(await frameText(form)).to.contain('IBAN or account');
        await typeInFrame(form, ['2215381176', '033', '05', '01', '1990'], () => details.focus('first'));
        await until('the form complete', () => complete);
        await session.submit();
        await until('the OTP step', () => session.state.phase.kind === 'action' && session.state.phase.order.actionType === 'INPUT_OTP');
        details.destroy();
        expect(form.querySelector('iframe')).to.equal(null);
        const code = mountIsolatedFields(form, { session, endpoint: stack.endpoint, kind: 'INPUT_OTP', words, title: 'Your SMS code', lang: 'en' });
        await typeInFrame(form, ['11315632'], () => code.focus('first'));
        // The code is the frame's: the session is told to send it, and the frame adds it.
        expect(await session.submitCode('')).to.equal(true);
        await until('paid', () => session.state.phase.kind === 'result' && session.state.phase.outcome === 'SUCCESS');
        code.destroy();
        expect(sent.length).to.be.greaterThan(0);
        for (const call of sent) for (const secret of ['2215381176', '11315632', '1990']) expect(call).not.to.contain(secret);
        expect(JSON.stringify(session.state)).not.to.contain('2215381176');
      } finally {
        window.fetch = pageFetch;
        session.dispose();
        form.remove();
        pay.remove();
      }
    });
  });
});
