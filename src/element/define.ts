/**
 * Registers `<svc-checkout>`. A page that loads two copies (two bundles, or the CDN file next to an npm
 * build) gets a warning, not an exception.
 */
import { SvcCheckout } from './svc-checkout.js';

export const TAG_NAME = 'svc-checkout';

const existing = customElements.get('svc-checkout');
if (!existing) customElements.define('svc-checkout', SvcCheckout);
else if (existing !== SvcCheckout) {
  console.warn('<svc-checkout> is already defined by another copy of svc-checkout; this copy is not used. Load the element once.');
}

declare global {
  interface HTMLElementTagNameMap {
    'svc-checkout': SvcCheckout;
  }
}
