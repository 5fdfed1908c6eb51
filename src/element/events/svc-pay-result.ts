import type { WebPayResult } from '../../core/index.js';

/**
 * A status of the order, each time the element sees it change (the SDK's `webPayCallback`). `payNo` is the
 * service's order number: the specification's responses carry no separate payment number.
 */
export class SvcPayResultEvent extends CustomEvent<WebPayResult> {
  constructor(detail: WebPayResult) {
    super('svc-pay-result', { bubbles: true, composed: true, detail });
  }
}

declare global {
  interface GlobalEventHandlersEventMap {
    'svc-pay-result': SvcPayResultEvent;
  }
}
