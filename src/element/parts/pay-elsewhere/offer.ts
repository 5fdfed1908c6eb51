/**
 * "Pay on your phone" under the form: the part is a chunk of its own (pay-elsewhere.ts), fetched the first time the
 * form is shown with the session (the first frame renders nothing of it), and registered here, by the session's chunk,
 * as the forms are by the entry (parts/forms.ts), so that a second copy of the entry never defines it twice.
 */
import { html, type TemplateResult } from 'lit';
import type { CheckoutContext } from '../../state.js';
import { lazy } from '../../lazy.js';
import { definePart } from '../checkout-part.js';

const load = lazy(() => import('./pay-elsewhere.js').then((chunk) => definePart('svc-pay-elsewhere', chunk.SvcPayElsewhere)));

/** The offer's element, which upgrades once its chunk came (nothing is shown until then, and nothing if it never comes). */
export function renderOffer(context: CheckoutContext): TemplateResult {
  load().catch(() => undefined);
  return html`<svc-pay-elsewhere part="pay-on-phone" exportparts="button-secondary, input, alert" .context=${context}></svc-pay-elsewhere>`;
}
