// The first frame: the form paints from the element's own chunk while the session's chunk (src/element/engine.ts)
// and Arabic are still on their way, held back by the test server (`moduleGate` in web-test-runner.config.mjs).
// What the payer does meanwhile reaches the session when it comes. Each test runs before its page loaded either.
import { expect } from '@open-wc/testing';
import type { SvcCheckout } from '../../src/element/index.js';
import { deepQuery, untilText, until, visibleText } from './support/checkout.js';
import { countRequests } from './support/requests.js';
import { moduleGate, placeCheckout } from './support/chunks.js';
import { startStack, type Stack } from './support/stack.js';

const frames = async (count: number) => {
  for (let index = 0; index < count; index++) await new Promise((resolve) => requestAnimationFrame(resolve));
};

function place(stack: Stack, attributes: Record<string, string>): Promise<SvcCheckout> {
  return placeCheckout(stack, { 'poll-interval': '100', sandbox: '', ...attributes }, 'first');
}

describe('<svc-checkout> first frame', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  afterEach(async () => {
    await moduleGate('engine', 'open');
    await moduleGate('ar', 'open');
    for (const element of document.querySelectorAll('svc-checkout')) element.remove();
    sessionStorage.clear();
  });

  it('shows the form before the session has loaded, keeps what the payer types and sends it once the session is there', async () => {
    await moduleGate('engine', 'close');
    const creates = countRequests('/payments');
    try {
      const element = await place(stack, { 'pay-method': 'Pos', locale: 'en' });
      await frames(3);
      // The form, the amount and the Pay button, with no session behind them yet.
      expect(element.session).to.equal(undefined);
      const input = await until('the serial number field', () => deepQuery<HTMLInputElement>(element, 'input[name=sn]'));
      expect(visibleText(element)).to.contain('Pay EGP');
      input.value = 'N78101818390';
      input.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
      await frames(2);
      expect(deepQuery<HTMLInputElement>(element, 'input[name=sn]')!.value).to.equal('N78101818390');
      (deepQuery<HTMLButtonElement>(element, 'button[type=submit]')!).click();
      // Long enough for the session to have come and sent, were it not held back.
      await new Promise((resolve) => setTimeout(resolve, 800));
      // Pressed before the session came: nothing is sent until it does.
      expect(element.session).to.equal(undefined);
      expect(creates.count).to.equal(0);
      await moduleGate('engine', 'open');
      await untilText(element, 'Swipe or insert');
      expect(creates.count).to.equal(1);
      expect(visibleText(element)).to.contain('N78101818390');
    } finally {
      creates.restore();
    }
  });

  it('paints an Arabic page in Arabic, never in English first, its place held meanwhile', async () => {
    // The page's placeholder styles (svc-checkout.css, which the kit links): defined, the element holds its place
    // until it has painted, rather than falling to nothing while its words come and then pushing the page down.
    const sheet = Object.assign(document.createElement('link'), { rel: 'stylesheet', href: '/src/element/svc-checkout.css' });
    const loaded = new Promise((resolve) => sheet.addEventListener('load', resolve, { once: true }));
    document.head.append(sheet);
    await loaded;
    try {
      await moduleGate('ar', 'close');
      const element = await place(stack, { 'pay-method': 'Pos', locale: 'ar' });
      await new Promise((resolve) => setTimeout(resolve, 500));
      // Nothing painted while the Arabic words are on their way; its place held, said loading in Arabic.
      expect(visibleText(element).trim()).to.equal('');
      expect(customElements.get('svc-checkout')).to.not.equal(undefined);
      const held = element.getBoundingClientRect().height;
      // The placeholder's height (47em of a 16 px font): about a phone's first frame on the kit's page (first-run.test.ts
      // compares the two there); nothing at all before the place was held.
      expect(held, 'held while the words come').to.be.closeTo(47 * 16, 2);
      expect(getComputedStyle(element, '::before').content).to.equal('"جارٍ تحميل الدفع…"');
      await moduleGate('ar', 'open');
      await until('the Arabic form', () => deepQuery(element, 'input[name=sn]'));
      await element.updateComplete;
      expect(visibleText(element)).to.match(/ادفع/);
      expect(visibleText(element)).not.to.contain('Pay');
      expect(element.getAttribute('dir')).to.equal('rtl');
      expect(getComputedStyle(element, '::before').content).to.equal('none');
    } finally {
      sheet.remove();
    }
  });
});
