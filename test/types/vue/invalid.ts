// Vue 3: misuses of <svc-checkout>. Each line under @ts-expect-error must be a type error.
import type { GlobalComponents } from 'vue';
import type { SvcPayResultEvent } from 'svc-checkout';
import 'svc-checkout/jsx/vue';

type Props = InstanceType<GlobalComponents['svc-checkout']>['$props'];

// @ts-expect-error pay-amount takes a number or its digits
export const badAttribute: Props = { payAmount: 'lots' };
// @ts-expect-error payParams is an object
export const badObject: Props = { payParams: 42 };
// @ts-expect-error credentials is a RequestCredentials
export const badCredentials: Props = { credentials: 'sometimes' };
// @ts-expect-error no such attribute or property
export const badName: Props = { payAmmount: 12500 };
// @ts-expect-error the svc-change handler receives an SvcChangeEvent
export const badHandler: Props = { onSvcChange: (event: SvcPayResultEvent) => event };
export const badDetail: Props = {
  onSvcPayResult: (event) => {
    // @ts-expect-error WebPayResult has no field `total`
    return event.detail.total;
  },
};
