// The session's chunk (src/element/engine.ts) answered 503 by the test server (`moduleGate` in
// web-test-runner.config.mjs): the network lost it (a form's chunk: form-unloaded.test.ts). A page of its own:
// Firefox keeps a module that failed to load as failed for the rest of the page's life.
import { expect } from '@open-wc/testing';
import { deepQuery, until, untilText, visibleText } from './support/checkout.js';
import { collectErrors, lostChunkPage, moduleGate, placeCheckout } from './support/chunks.js';

describe('<svc-checkout> whose session cannot load', () => {
  const page = lostChunkPage('engine');

  it('says so in the form, tells the page once, sends nothing and throws nothing at it, even when the payer presses Pay', async () => {
    await moduleGate('engine', 'fail');
    const errors = collectErrors();
    const element = await placeCheckout(page.stack, { 'pay-method': 'Pos', locale: 'en' }, 'unloaded');
    // The first frame came from the element's own chunk; its fetch of the session, ahead, failed.
    await untilText(element, 'The payment could not load. Check your connection and reload the page.');
    expect(deepQuery(element, 'p[role=alert]')!.textContent).to.contain('could not load');
    expect(deepQuery(element, '.body')!.getAttribute('aria-busy')).to.equal('false');
    expect(visibleText(element)).to.contain('Terminal serial number');
    // Pressed all the same: the session is asked for again, fails again, and the page hears nothing of it.
    deepQuery<HTMLButtonElement>(element, 'button[type=submit]')!.click();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(element.session).to.equal(undefined);
    expect(deepQuery(element, 'p[role=alert]')!.textContent).to.contain('could not load');
    expect(page.unhandled.reasons).to.deep.equal([]);
    // Told once, as a code the shop can count, with the browser's reason (Chromium and Firefox name the file: here the source module, in the CDN build its chunk).
    errors.stop();
    expect(errors.details.map(({ code, retryable }) => ({ code, retryable }))).to.deep.equal([{ code: 'UNLOADED', retryable: true }]);
    expect(errors.details[0]!.message).to.match(/\w/);
    if (!navigator.userAgent.includes('AppleWebKit/') || navigator.userAgent.includes('Chrome/')) expect(errors.details[0]!.message).to.match(/engine/);
    // A page's own call still hears of it.
    let rejected = false;
    await element.submit().catch(() => (rejected = true));
    expect(rejected).to.equal(true);
    await expect(element).to.be.accessible();
    // An element the page removed meanwhile (a status-only one, which asks for the session at once) is left alone
    // when the browser is back online: it builds no session, so it sends nothing and keeps nothing.
    const removed = await placeCheckout(page.stack, { 'status-only': '', locale: 'en' }, 'unloaded-removed');
    await untilText(removed, 'The payment could not load.');
    removed.remove();
    // Back online, the element asks again by itself, at each such event (one can come before the network works):
    // where the browser fetches a failed module again (Chromium, WebKit) the session comes and the alert goes;
    // Firefox keeps the failure until a reload. (Once the element's own fetches ahead are over: the last goes a
    // second after the first frame.)
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    window.dispatchEvent(new Event('online'));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(element.session).to.equal(undefined);
    await moduleGate('engine', 'open');
    window.dispatchEvent(new Event('online'));
    if (navigator.userAgent.includes('Firefox/')) {
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(deepQuery(element, 'p[role=alert]')).not.to.equal(null);
    } else {
      await until('the session, back online', () => element.session);
      await until('the alert gone', () => !deepQuery(element, 'p[role=alert]'));
      expect(visibleText(element)).to.contain('Terminal serial number');
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(removed.session).to.equal(undefined);
    expect(page.unhandled.reasons).to.deep.equal([]);
  });
});
