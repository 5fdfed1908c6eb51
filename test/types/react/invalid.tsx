// React 19: misuses of <svc-checkout>. Each line under @ts-expect-error must be a type error.
import type { SvcPayResultEvent } from 'svc-checkout';
import 'svc-checkout/jsx/react';

// @ts-expect-error pay-amount takes a number or its digits
export const badAttribute = <svc-checkout pay-amount="lots" />;
// @ts-expect-error the property payAmount is a number, not text
export const badProperty = <svc-checkout payAmount="12500" />;
// @ts-expect-error payParams is an object
export const badObject = <svc-checkout payParams={42} />;
// @ts-expect-error credentials is a RequestCredentials
export const badCredentials = <svc-checkout credentials="sometimes" />;
// @ts-expect-error the svc-change handler receives an SvcChangeEvent
export const badHandler = <svc-checkout onsvc-change={(event: SvcPayResultEvent) => event} />;
export const badDetail = (
  <svc-checkout
    onsvc-pay-result={(event) => {
      // @ts-expect-error WebPayResult has no field `total`
      return event.detail.total;
    }}
  />
);
