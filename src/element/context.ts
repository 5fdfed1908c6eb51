/**
 * `checkoutContext`: where the checkout stands, for the shop's own Lit elements slotted into `<svc-checkout>` (an
 * order summary that follows the chosen method, a note beside a step). Consume it with @lit/context
 * (`@consume({ context: checkoutContext, subscribe: true })`); the element provides it once its session has loaded,
 * and answers a request made before then as soon as it has. The value holds nothing the payer typed.
 */
import { createContext } from '@lit/context';
import type { ActiveOrder, CheckoutState, Phase } from '../checkout/index.js';
import { CHECKOUT_CONTEXT_KEY } from './context-key.js';

/**
 * An order as the shop's elements see it: its public facts, without the token of its own calls, the terminal number
 * the payer typed (`sn`), nor the last characters of a bank account another page pays from (`accountEnding`).
 */
export type ContextOrder = Omit<ActiveOrder, 'token' | 'sn' | 'accountEnding'>;

export interface CheckoutContextValue extends Pick<CheckoutState, 'methods' | 'method' | 'amount' | 'merchantName' | 'productName' | 'busy'> {
  /**
   * The session's phase: `form`, `action` (a next action), `waiting`, `result`, … with its order, where it has one;
   * never a create's `creating` (what the payer typed for it).
   */
  phase: Phase extends infer P ? (P extends { order: ActiveOrder } ? Omit<P, 'order'> & { order: ContextOrder } : Omit<P, 'creating'>) : never;
}

export const checkoutContext = createContext<CheckoutContextValue>(CHECKOUT_CONTEXT_KEY);

/** The context's value of a session's state: nothing the payer typed, nor a token. */
export function contextValueOf(state: CheckoutState): CheckoutContextValue {
  const { phase: full, methods, method, amount, merchantName, productName, busy } = state;
  const { creating: _creating, ...phase } = full as Phase & { creating?: unknown };
  if ('order' in phase) {
    const { token: _token, sn: _sn, accountEnding: _accountEnding, ...order } = phase.order;
    phase.order = order as ActiveOrder;
  }
  return { phase: phase as CheckoutContextValue['phase'], methods, method, amount, merchantName, productName, busy };
}
