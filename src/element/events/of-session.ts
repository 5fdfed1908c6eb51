/**
 * The DOM event `<svc-checkout>` dispatches for each event of its session (the element dispatches `ready` once its
 * render is done, and keeps `announce`, which its live region speaks). Comes with the session's chunk.
 */
import type { CheckoutEvent } from '../../checkout/index.js';
import { SvcActionEvent } from './svc-action.js';
import { SvcBeforeRedirectEvent } from './svc-before-redirect.js';
import { SvcChangeEvent } from './svc-change.js';
import { SvcErrorEvent } from './svc-error.js';
import { SvcExpiredEvent } from './svc-expired.js';
import { SvcHttpResponseEvent } from './svc-http-response.js';
import { SvcPayResultEvent } from './svc-pay-result.js';
import { SvcReadyEvent } from './svc-ready.js';

export function domEventOf(event: Exclude<CheckoutEvent, { type: 'announce' }>): Event {
  switch (event.type) {
    case 'ready':
      return new SvcReadyEvent(event.detail);
    case 'http-response':
      return new SvcHttpResponseEvent(event.detail);
    case 'pay-result':
      return new SvcPayResultEvent(event.detail);
    case 'action':
      return new SvcActionEvent(event.detail);
    case 'expired':
      return new SvcExpiredEvent(event.detail);
    case 'error':
      return new SvcErrorEvent(event.detail);
    case 'change':
      return new SvcChangeEvent(event.detail);
    case 'before-redirect':
      return new SvcBeforeRedirectEvent({ ...event.detail, waitUntil: (promise) => event.waitUntil(promise) });
  }
}
