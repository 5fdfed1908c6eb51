// Svelte 5: misuses of <svc-checkout>. Each line under @ts-expect-error must be a type error.
import type { SvelteHTMLElements } from 'svelte/elements';
import type { SvcPayResultEvent } from 'svc-checkout';
import 'svc-checkout/jsx/svelte';

type Attributes = SvelteHTMLElements['svc-checkout'];

// @ts-expect-error pay-amount takes a number or its digits
export const badAttribute: Attributes = { 'pay-amount': 'lots' };
// @ts-expect-error the property payAmount is a number, not text
export const badProperty: Attributes = { payAmount: '12500' };
// @ts-expect-error payParams is an object
export const badObject: Attributes = { payParams: 42 };
// @ts-expect-error credentials is a RequestCredentials
export const badCredentials: Attributes = { credentials: 'sometimes' };
// @ts-expect-error no such attribute or property
export const badName: Attributes = { 'pay-ammount': '12500' };
// @ts-expect-error the svc-change handler receives an SvcChangeEvent
export const badHandler: Attributes = { 'onsvc-change': (event: SvcPayResultEvent) => event };
export const badDetail: Attributes = {
  'onsvc-pay-result': (event) => {
    // @ts-expect-error WebPayResult has no field `total`
    return event.detail.total;
  },
};
