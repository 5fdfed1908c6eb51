/**
 * Provides `checkoutContext` (src/element/context.ts) from the element, following its session: loaded with the
 * session (src/element/engine.ts), so that @lit/context's provider costs the first frame nothing.
 */
import { ContextProvider } from '@lit/context';
import type { ReactiveControllerHost } from 'lit';
import type { CheckoutSession } from '../../checkout/index.js';
import { checkoutContext, contextValueOf } from '../context.js';

export function provideCheckoutContext(host: ReactiveControllerHost & HTMLElement, session: CheckoutSession): void {
  const provider = new ContextProvider(host, { context: checkoutContext, initialValue: contextValueOf(session.state) });
  session.subscribe((state) => provider.setValue(contextValueOf(state)));
}
