// The parts of the first frame: the choice of method and the POS form register with the element; the other
// payment forms are chunks of their own, fetched when chosen or after the first frame (src/element/engine.ts
// registers the steps).
import type { PayMethod } from '../../core/pay-methods.js';
import { addShippedTerms } from '../i18n/registry.js';
import type { FormChunk } from './payment-form.js';
import { lazy } from '../lazy.js';
import { definePart } from './checkout-part.js';
import './method-picker/method-picker.js';
import './pos-form/pos-form.js';


/** What the forms whose chunks came fill in the first frame's state (controllers/checkout.ts), until the session has come. */
export let prefill: FormChunk['prefilled'];

/**
 * The form, then its English words (which update the element), and what it fills in the first frame's state.
 * Registered by the entry rather than by the chunk itself: a chunk imports the entry by its file name, so an entry
 * loaded under another address (a query string, a renamed file) gives the chunk a second copy, whose catalogs this
 * element never reads.
 */
function register({ form }: { form: FormChunk }): void {
  definePart(form.tagName, form.element);
  addShippedTerms('en', form.englishTerms);
  prefill = form.prefilled ?? prefill;
}

const LOADERS: Record<PayMethod, () => Promise<unknown>> = {
  Pos: () => Promise.resolve(),
  BankAccount: lazy(() => import('./bank-account-form/bank-account-form.js').then(register)),
  ReferenceCode: lazy(() => import('./reference-code-form/reference-code-form.js').then(register)),
};

/** Registers a method's form (its element upgrades where it is already rendered); once per page. */
export function loadForm(method: PayMethod): Promise<unknown> {
  return LOADERS[method]();
}
