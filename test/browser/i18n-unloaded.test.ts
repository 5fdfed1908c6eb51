// Arabic's chunk (src/element/i18n/ar.ts) answered 503 by the test server (`moduleGate` in
// web-test-runner.config.mjs): the network lost it. A page of its own: Firefox keeps a module that failed to load as
// failed for the rest of the page's life, and a page that already has Arabic would not ask for it.
import { expect } from '@open-wc/testing';
import { deepQuery, untilText } from './support/checkout.js';
import { collectErrors, lostChunkPage, moduleGate, placeCheckout } from './support/chunks.js';

const arabicFetches = () => performance.getEntriesByType('resource').filter((entry) => /\/i18n\/ar(\.ts)?(\?|$)/.test(entry.name)).length;

describe('<svc-checkout> whose Arabic words cannot load', () => {
  const page = lostChunkPage('ar');

  it('paints in English, left to right, tells the page once, and does not ask for them again and again', async () => {
    await moduleGate('ar', 'fail');
    const errors = collectErrors();
    const element = await placeCheckout(page.stack, { 'pay-method': 'Pos', locale: 'ar' }, 'no-arabic');
    await untilText(element, 'Terminal serial number');
    expect(deepQuery(element, '.base')!.getAttribute('dir')).to.equal('ltr');
    expect(deepQuery(element, '.base')!.getAttribute('lang')).to.equal('en');
    // Asked once, not at each of the element's updates (a failure asked again at every update held its paint for ever).
    const fetched = arabicFetches();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(arabicFetches()).to.equal(fetched);
    expect(fetched).to.be.within(1, 2);
    await element.updateComplete;
    expect(page.unhandled.reasons).to.deep.equal([]);
    // Told once, as a chunk the network lost, whatever the number of updates that waited for it.
    errors.stop();
    expect(errors.details.map(({ code, retryable }) => ({ code, retryable }))).to.deep.equal([{ code: 'UNLOADED', retryable: true }]);
  });
});
