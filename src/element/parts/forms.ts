// The parts of the first frame: the choice of method and the POS form register with the element; the other
// payment forms are chunks of their own, fetched when chosen or after the first frame (src/element/engine.ts
// registers the steps).
import type { PayMethod } from '../../core/pay-methods.js';
import { lazy } from '../lazy.js';
import './method-picker/method-picker.js';
import './pos-form/pos-form.js';

const LOADERS: Record<PayMethod, () => Promise<unknown>> = {
  Pos: () => Promise.resolve(),
  BankAccount: lazy(() => import('./bank-account-form/bank-account-form.js')),
  ReferenceCode: lazy(() => import('./reference-code-form/reference-code-form.js')),
};

/** Registers a method's form (its element upgrades where it is already rendered); once per page. */
export function loadForm(method: PayMethod): Promise<unknown> {
  return LOADERS[method]();
}
