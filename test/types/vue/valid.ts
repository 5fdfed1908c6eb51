// Vue 3: <svc-checkout> as a global component, as Vue - Official (vue-tsc) checks a template against it: the props
// of its instance. `pay-amount="12500"` in a template is the prop payAmount with a string. Must type-check.
import type { GlobalComponents } from 'vue';
import type { PayParams, SvcChangeDetail, WebPayResult } from 'svc-checkout';
import 'svc-checkout/jsx/vue';
import { expectType } from '../expect.js';

type Props = InstanceType<GlobalComponents['svc-checkout']>['$props'];
declare const payParams: Partial<PayParams>;

export const template: Props = {
  class: 'checkout',
  endpoint: '/checkout',
  merchantId: '256612345678901',
  payAmount: '12500',
  expireAt: 30,
  sandbox: true,
  credentials: 'include',
  payParams,
  userInfo: { userEmail: 'payer@example.com' },
  onSvcPayResult: (event) => {
    expectType<WebPayResult>()(event.detail);
    expectType<string>()(event.detail.orderNo);
  },
  onSvcChange: (event) => expectType<SvcChangeDetail>()(event.detail),
};
