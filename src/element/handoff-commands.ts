/**
 * The commands of "Pay on your phone" (parts/pay-elsewhere), loaded with the session (src/element/engine.ts): the kit's
 * link of this checkout and its QR code, and the light check for an order of the checkout made on another device
 * (`KIT_PAGE_PATHS.handoff`, docs/pay-links.md), proved by the element's checkout token as its other calls are.
 */
import type { CheckoutSession } from '../checkout/index.js';
import { CHECKOUT_TOKEN_HEADER, KIT_PAGE_PATHS } from '../core/paths.js';
import type { HandoffActions } from './state.js';

/** `credentials`: the element's, as its other calls send them. */
export function handoffActions(session: CheckoutSession, credentials: () => RequestCredentials | undefined): Omit<HandoffActions, 'whereToPay'> {
  /** The kit's handoff route at the element's endpoint; `at`: where this page reaches the kit (the link is made there). */
  const call = (method: 'GET' | 'POST', language: string): Promise<Response> => {
    const config = session.config;
    const endpoint = (config?.endpoint ?? '').replace(/\/+$/, '');
    const at = new URL(endpoint || '.', location.href).href;
    return fetch(`${endpoint}${KIT_PAGE_PATHS.handoff}?lang=${language.startsWith('ar') ? 'ar' : 'en'}&at=${encodeURIComponent(at)}`, {
      method,
      credentials: credentials() ?? 'same-origin',
      headers: { [CHECKOUT_TOKEN_HEADER]: config?.checkoutToken ?? '' },
      cache: 'no-store',
    });
  };
  return {
    canPayOnPhone: () => Boolean(session.config?.checkoutToken && session.config.endpoint !== undefined),
    payOnPhone: async (language) => {
      const response = await call('POST', language);
      if (!response.ok) throw new Error(`the kit answered ${response.status}`);
      const { url, qr } = (await response.json()) as { url: string; qr: string };
      return { url, qr };
    },
    // The session looks the order up (one status query) and follows it; it ignores an attempt that is not news.
    checkElsewhere: async (language, seen) => {
      const response = await call('GET', language);
      const { attempt } = response.ok ? ((await response.json()) as { attempt?: unknown }) : {};
      if (typeof attempt === 'number' && attempt > 0) session.followElsewhere(attempt, seen);
    },
  };
}
