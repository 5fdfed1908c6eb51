import type { RedirectDetail } from '../../checkout/index.js';

export interface SvcBeforeRedirectDetail extends RedirectDetail {
  /** Holds the redirect until `promise` settles (at most 10 s); a rejected promise keeps the payer here. */
  waitUntil(promise: Promise<unknown>): void;
}

/**
 * The payer is about to leave for the bank's 3-D Secure page. Cancel it (`preventDefault()`) to keep the payer
 * here (the step offers a button to go), or hold it with `detail.waitUntil(promise)`, e.g. to save the order first.
 */
export class SvcBeforeRedirectEvent extends CustomEvent<SvcBeforeRedirectDetail> {
  constructor(detail: SvcBeforeRedirectDetail) {
    super('svc-before-redirect', { bubbles: true, composed: true, cancelable: true, detail });
  }
}

declare global {
  interface GlobalEventHandlersEventMap {
    'svc-before-redirect': SvcBeforeRedirectEvent;
  }
}
