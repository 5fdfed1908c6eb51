import type { CheckoutEventDetail } from '../../checkout/state.js';

/** The session event's detail, as it is (src/checkout/state.ts). */
export type SvcActionDetail = CheckoutEventDetail<'action'>;

/** A next action is shown to the payer. */
export class SvcActionEvent extends CustomEvent<SvcActionDetail> {
  constructor(detail: SvcActionDetail) {
    super('svc-action', { bubbles: true, composed: true, detail });
  }
}

declare global {
  interface GlobalEventHandlersEventMap {
    'svc-action': SvcActionEvent;
  }
}
