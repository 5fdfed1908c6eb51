// Svelte 5: <svc-checkout>'s attributes as svelte-check types them (SvelteHTMLElements). Must type-check.
import type { SvelteHTMLElements } from 'svelte/elements';
import type { PayParams, SvcChangeDetail, SvcCheckout, WebPayResult } from 'svc-checkout';
import 'svc-checkout/jsx/svelte';
import { expectType } from '../expect.js';

type Attributes = SvelteHTMLElements['svc-checkout'];
declare const payParams: Partial<PayParams>;

export const markup: Attributes = {
  class: 'checkout',
  endpoint: '/checkout',
  'merchant-id': '256612345678901',
  'pay-amount': '12500',
  'expire-at': 30,
  sandbox: true,
  credentials: 'include',
  payAmount: 12500,
  payParams,
  userInfo: { userEmail: 'payer@example.com' },
  'onsvc-pay-result': (event) => {
    expectType<WebPayResult>()(event.detail);
    expectType<EventTarget & SvcCheckout>()(event.currentTarget);
  },
  'on:svc-change': (event) => expectType<SvcChangeDetail>()(event.detail),
};
