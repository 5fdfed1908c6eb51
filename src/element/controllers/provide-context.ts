/**
 * Provides `checkoutContext` (src/element/context.ts) from the element, following its session: loaded with the
 * session (src/element/engine.ts), so that it costs the first frame nothing. The context protocol's provider side,
 * written for this one context rather than @lit/context's general ContextProvider (its value notifier, its
 * `context-provider` hand-over between nested providers of one context): the element provides one value, from one
 * place, and answers as that provider would — a request from elsewhere than the host is stopped here and answered
 * with the value; a subscribing one again at each change, with the function that ends its subscription.
 */
import type { ReactiveControllerHost } from 'lit';
import type { CheckoutSession } from '../../checkout/index.js';
import { CHECKOUT_CONTEXT_KEY } from '../context-key.js';
import { contextValueOf, type CheckoutContextValue } from '../context.js';

type Callback = (value: CheckoutContextValue, unsubscribe?: () => void) => void;
type ContextRequest = Event & { context?: unknown; contextTarget?: Element; callback: Callback; subscribe?: boolean };

export function provideCheckoutContext(host: ReactiveControllerHost & HTMLElement, session: CheckoutSession): void {
  let value = contextValueOf(session.state);
  const subscribers = new Map<Callback, () => void>();
  host.addEventListener('context-request', (event) => {
    const request = event as ContextRequest;
    if (request.context !== CHECKOUT_CONTEXT_KEY || (request.contextTarget ?? request.composedPath()[0]) === host) return;
    request.stopPropagation();
    const callback = request.callback;
    if (!request.subscribe) return callback(value);
    if (!subscribers.has(callback)) subscribers.set(callback, () => subscribers.delete(callback));
    callback(value, subscribers.get(callback));
  });
  session.subscribe((state) => {
    value = contextValueOf(state);
    for (const [callback, unsubscribe] of subscribers) callback(value, unsubscribe);
  });
}
