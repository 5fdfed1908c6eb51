import type { CheckoutEventDetail } from '../../checkout/state.js';

/** The session event's detail, as it is (src/checkout/state.ts). */
export type SvcReadyDetail = CheckoutEventDetail<'ready'>;

/** The element is configured and shown. */
export class SvcReadyEvent extends CustomEvent<SvcReadyDetail> {
  constructor(detail: SvcReadyDetail) {
    super('svc-ready', { bubbles: true, composed: true, detail });
  }
}

declare global {
  interface GlobalEventHandlersEventMap {
    'svc-ready': SvcReadyEvent;
  }
}
