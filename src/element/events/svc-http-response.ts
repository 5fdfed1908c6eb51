import type { CreatePaymentData, Envelope } from '../../core/index.js';

/** The create call's envelope, as the merchant endpoint answered it (the SDK's `httpCallback`). */
export class SvcHttpResponseEvent extends CustomEvent<Envelope<CreatePaymentData>> {
  constructor(detail: Envelope<CreatePaymentData>) {
    super('svc-http-response', { bubbles: true, composed: true, detail });
  }
}

declare global {
  interface GlobalEventHandlersEventMap {
    'svc-http-response': SvcHttpResponseEvent;
  }
}
