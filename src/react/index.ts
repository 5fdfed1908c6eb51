/**
 * `svc-checkout/react`: `<svc-checkout>` as a React component, made with @lit/react. Attributes become props
 * (`endpoint`, `merchantId`, `payAmount`, `payParams`, …) and each event a typed `onSvc…` prop.
 */
import { createComponent, type EventName } from '@lit/react';
import * as React from 'react';
import '../element/define.js';
import type {
  SvcActionEvent,
  SvcChangeEvent,
  SvcErrorEvent,
  SvcExpiredEvent,
  SvcHttpResponseEvent,
  SvcPayResultEvent,
  SvcReadyEvent,
} from '../element/events/index.js';
import { SvcCheckout as SvcCheckoutElement } from '../element/svc-checkout.js';

export const SvcCheckout = createComponent({
  tagName: 'svc-checkout',
  elementClass: SvcCheckoutElement,
  react: React,
  displayName: 'SvcCheckout',
  events: {
    onSvcHttpResponse: 'svc-http-response' as EventName<SvcHttpResponseEvent>,
    onSvcPayResult: 'svc-pay-result' as EventName<SvcPayResultEvent>,
    onSvcAction: 'svc-action' as EventName<SvcActionEvent>,
    onSvcExpired: 'svc-expired' as EventName<SvcExpiredEvent>,
    onSvcError: 'svc-error' as EventName<SvcErrorEvent>,
    onSvcReady: 'svc-ready' as EventName<SvcReadyEvent>,
    onSvcChange: 'svc-change' as EventName<SvcChangeEvent>,
  },
});

export type { SvcCheckoutElement };
export * from '../element/events/index.js';
