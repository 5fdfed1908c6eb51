// The reference code form's chunk answered 503 by the test server (`moduleGate` in web-test-runner.config.mjs), then
// the browser back online: the element asks for it again by itself (a lost form the payer chooses again:
// form-unloaded.test.ts). A page of its own: every element fetches the other forms ahead, so a form this page
// loaded once could not be lost again.
import { expect } from '@open-wc/testing';
import { deepQuery, until, untilText } from './support/checkout.js';
import { collectErrors, lostChunkPage, moduleGate, placeCheckout } from './support/chunks.js';

describe('<svc-checkout> whose chosen form was lost offline', () => {
  const page = lostChunkPage('referenceForm');

  it('asks for it again by itself when the browser is back online', async () => {
    await moduleGate('referenceForm', 'fail');
    const errors = collectErrors();
    const element = await placeCheckout(page.stack, { 'pay-method': 'ReferenceCode', locale: 'en' }, 'offline');
    await untilText(element, 'The payment could not load.');
    // Opened once the element's own fetches ahead are over (the last goes a second after the first frame).
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    await moduleGate('referenceForm', 'open');
    window.dispatchEvent(new Event('online'));
    // Where the browser fetches a failed module again (Chromium, WebKit) the form comes and the alert goes; Firefox
    // keeps the failure until a reload, and the alert stays.
    if (navigator.userAgent.includes('Firefox/')) {
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(element.shadowRoot!.querySelector('p[role=alert]')).not.to.equal(null);
    } else {
      await until('the reference code form', () => deepQuery(element, 'input[name=notifyUserName]'));
      expect(element.shadowRoot!.querySelector('p[role=alert]')).to.equal(null);
    }
    // Told once, when it went missing; asked again once, with no second word to the page either way.
    errors.stop();
    expect(errors.details.map(({ code }) => code)).to.deep.equal(['UNLOADED']);
    expect(page.unhandled.reasons).to.deep.equal([]);
  });
});
