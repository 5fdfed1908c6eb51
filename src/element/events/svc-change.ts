import type { CheckoutEventDetail } from '../../checkout/state.js';

/** The session event's detail, as it is (src/checkout/state.ts). */
export type SvcChangeDetail = CheckoutEventDetail<'change'>;

/** The payer chose a method or changed a field. */
export class SvcChangeEvent extends CustomEvent<SvcChangeDetail> {
  constructor(detail: SvcChangeDetail) {
    super('svc-change', { bubbles: true, composed: true, detail });
  }
}

declare global {
  interface GlobalEventHandlersEventMap {
    'svc-change': SvcChangeEvent;
  }
}
