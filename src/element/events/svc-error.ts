import type { CheckoutEventDetail } from '../../checkout/state.js';
/** The session event's detail, as it is (src/checkout/state.ts). */
export type SvcErrorDetail = CheckoutEventDetail<'error'>;

/** Something went wrong that the payer sees as an error. */
export class SvcErrorEvent extends CustomEvent<SvcErrorDetail> {
  constructor(detail: SvcErrorDetail) {
    super('svc-error', { bubbles: true, composed: true, detail });
  }
}

declare global {
  interface GlobalEventHandlersEventMap {
    'svc-error': SvcErrorEvent;
  }
}
