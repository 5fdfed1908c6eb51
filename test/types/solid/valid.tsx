// Solid: <svc-checkout> with attributes, properties (plain, prop:), attr: and typed on: handlers. Must type-check.
import type { PayParams, SvcChangeDetail, SvcCheckout, WebPayResult } from 'svc-checkout';
import 'svc-checkout/jsx/solid';
import { expectType } from '../expect.js';

export function Checkout(props: { payParams: Partial<PayParams> }) {
  let element: SvcCheckout | undefined;
  return (
    <svc-checkout
      ref={element}
      id="checkout"
      class="checkout"
      endpoint="/checkout"
      merchant-id="256612345678901"
      pay-amount="12500"
      expire-at={30}
      attr:country-code="EG"
      attr:sandbox
      payAmount={12500}
      prop:payParams={props.payParams}
      userInfo={{ userEmail: 'payer@example.com' }}
      on:svc-pay-result={(event) => {
        expectType<WebPayResult>()(event.detail);
        expectType<EventTarget & SvcCheckout>()(event.currentTarget);
      }}
      on:svc-change={{ handleEvent: (event) => expectType<SvcChangeDetail>()(event.detail), once: true }}
    >
      <div slot="header">Your order</div>
    </svc-checkout>
  );
}
