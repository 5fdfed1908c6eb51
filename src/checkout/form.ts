/**
 * What the payer's typing does to the form: the part of the machine (machine.ts) that the element's first frame
 * runs too, before the session has loaded, so that what the payer did there is shown the way the session will
 * take it. Only types from elsewhere: the first frame carries this file and nothing it does not need.
 */
import type { PayMethod } from '../core/pay-methods.js';
import type { FieldName } from './fields.js';
import type { CheckoutState } from './state.js';

export type FormEvent = { type: 'select-method'; method: PayMethod } | { type: 'input'; name: FieldName; value: string };

/** The chosen method and the values typed; errors and the rest are the machine's. */
export function formTransition(state: CheckoutState, event: FormEvent): CheckoutState {
  const { method, values } = state;
  if (event.type === 'input') return { ...state, values: { ...values, [method]: { ...values[method], [event.name]: event.value } } };
  return state.methods.includes(event.method) ? { ...state, method: event.method } : state;
}
