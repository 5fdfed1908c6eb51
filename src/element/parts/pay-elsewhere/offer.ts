/**
 * "Pay on your phone" under the form: the first frame draws its tag (`<svc-pay-elsewhere>`, its button's place held
 * by the element's styles until it is defined), and the part is a chunk of its own (pay-elsewhere.ts), fetched by the
 * session's chunk once the checkout can be paid elsewhere (controllers/session-link.ts), and registered here, as the
 * forms are by the entry (parts/forms.ts), so that a second copy of the entry never defines it twice.
 */
import { lazy } from '../../lazy.js';
import { definePart } from '../checkout-part.js';

/** Fetches and defines the offer's part (once); nothing is shown if its chunk never comes. */
export const loadOffer = lazy(() => import('./pay-elsewhere.js').then((chunk) => definePart('svc-pay-elsewhere', chunk.SvcPayElsewhere)));
