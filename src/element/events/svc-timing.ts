import type { CheckoutTiming } from '../../core/timings.js';

/**
 * A timing of the payer's way through the checkout (src/core/timings.ts): `first-frame` and `first-interaction`
 * (milliseconds since the page began to load), `step` (the payer spent `ms` on `step`, and the checkout moved on),
 * `stop` (the page went away `ms` into `step`, the checkout unfinished). Never anything of the payer or the order.
 */
export type SvcTimingDetail = CheckoutTiming;

/** The element measured a moment of the payer's way through the checkout. */
export class SvcTimingEvent extends CustomEvent<SvcTimingDetail> {
  constructor(detail: SvcTimingDetail) {
    super('svc-timing', { bubbles: true, composed: true, detail });
  }
}

declare global {
  interface GlobalEventHandlersEventMap {
    'svc-timing': SvcTimingEvent;
  }
}
