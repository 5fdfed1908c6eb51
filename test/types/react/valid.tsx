// React 19: <svc-checkout> with attributes, properties and typed event handlers. Must type-check.
import { useRef } from 'react';
import type { PayParams, SvcCheckout, WebPayResult } from 'svc-checkout';
import type { SvcChangeDetail } from 'svc-checkout';
import 'svc-checkout/jsx/react';
import { expectType } from '../expect.js';

export function Checkout({ payParams }: { payParams: Partial<PayParams> }) {
  const ref = useRef<SvcCheckout>(null);
  return (
    <svc-checkout
      ref={ref}
      id="checkout"
      className="checkout"
      endpoint="/checkout"
      merchant-id="256612345678901"
      pay-amount="12500"
      expire-at={30}
      sandbox
      credentials="include"
      payAmount={12500}
      payParams={payParams}
      userInfo={{ userEmail: 'payer@example.com' }}
      onsvc-pay-result={(event) => {
        expectType<WebPayResult>()(event.detail);
        expectType<string>()(event.detail.orderNo);
      }}
      onsvc-change={(event) => expectType<SvcChangeDetail>()(event.detail)}
      onClick={(event) => expectType<EventTarget & SvcCheckout>()(event.currentTarget)}
    >
      <div slot="header">Your order</div>
    </svc-checkout>
  );
}
