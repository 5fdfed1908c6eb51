import type { CheckoutEventDetail } from '../../checkout/state.js';
/** The session event's detail, as it is (src/checkout/state.ts). */
export type SvcExpiredDetail = CheckoutEventDetail<'expired'>;

/** The order expired unpaid: the service closed it, or its expiry passed and the last check still saw it pending. */
export class SvcExpiredEvent extends CustomEvent<SvcExpiredDetail> {
  constructor(detail: SvcExpiredDetail) {
    super('svc-expired', { bubbles: true, composed: true, detail });
  }
}

declare global {
  interface GlobalEventHandlersEventMap {
    'svc-expired': SvcExpiredEvent;
  }
}
