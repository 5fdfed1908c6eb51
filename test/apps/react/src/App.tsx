// A shop's checkout page in React 19, with <svc-checkout> itself (React 19 sets a custom element's properties
// and listens to its events; with React 18, use the wrapper svc-checkout/react). The shop's server decides the
// order and issues its checkout token; the page lets the payer change the cart, the language and the methods
// (each change reaches the mounted element), and thanks the payer when svc-pay-result says SUCCESS.
import { useEffect, useState } from 'react';
import type { SvcPayResultEvent, UserInfo } from 'svc-checkout';

// Where the shop's server is (the tests run several shops side by side; a real shop knows its own path).
const shop = new URLSearchParams(location.search).get('shop') ?? '';
// The signed-in customer's details: an object, set on the element as a property.
const payer: UserInfo = { userName: 'Mona Hassan', userEmail: 'mona@example.com', userMobile: '+201001234567' };

export function App() {
  const [quantity, setQuantity] = useState(1);
  const [locale, setLocale] = useState('en');
  const [terminalOnly, setTerminalOnly] = useState(false);
  const [checkout, setCheckout] = useState<{ endpoint: string; checkoutToken: string }>();
  const [paidOrder, setPaidOrder] = useState<string>();
  const [lastStatus, setLastStatus] = useState<string>();

  // The shop's server decides the amount and reference of this cart, and signs them: a new token per cart.
  useEffect(() => {
    let current = true;
    fetch(`${shop}/shop/checkout?quantity=${quantity}`, { method: 'POST' })
      .then((response) => response.json())
      .then((issued) => current && setCheckout(issued));
    return () => {
      current = false;
    };
  }, [quantity]);

  function onPayResult(event: SvcPayResultEvent) {
    setLastStatus(event.detail.orderStatus);
    if (event.detail.orderStatus === 'SUCCESS') setPaidOrder(event.detail.orderNo);
  }

  if (paidOrder) {
    return (
      <main>
        <h1>Nile Coffee Roasters</h1>
        <p className="thanks" role="status">Thanks! Order {paidOrder} is paid.</p>
      </main>
    );
  }
  return (
    <main>
      <h1>Nile Coffee Roasters</h1>
      <fieldset>
        <legend>Bags of espresso beans</legend>
        <button type="button" className="quantity-1" aria-pressed={quantity === 1} onClick={() => setQuantity(1)}>1 bag</button>
        <button type="button" className="quantity-2" aria-pressed={quantity === 2} onClick={() => setQuantity(2)}>2 bags</button>
      </fieldset>
      <fieldset>
        <legend>Language</legend>
        <button type="button" className="locale-en" onClick={() => setLocale('en')}>English</button>
        <button type="button" className="locale-ar" lang="ar" onClick={() => setLocale('ar')}>العربية</button>
      </fieldset>
      <label>
        <input checked={terminalOnly} onChange={(event) => setTerminalOnly(event.target.checked)} className="terminal-only" type="checkbox" /> Pay at the
        shop's terminal only
      </label>
      {lastStatus && <p className="last-status">Payment status: {lastStatus}</p>}
      {checkout && (
        // React 19 sets a name the element has as a property (userInfo, locale), any other as an attribute
        // (checkout-token, poll-interval); onsvc-pay-result listens to svc-pay-result. The element is defined
        // before the first render (main.tsx): otherwise userInfo would become the attribute "[object Object]".
        <svc-checkout
          endpoint={checkout.endpoint}
          checkout-token={checkout.checkoutToken}
          locale={locale}
          methods={terminalOnly ? 'Pos' : 'Pos BankAccount ReferenceCode'}
          userInfo={payer}
          poll-interval="200"
          onsvc-pay-result={onPayResult}
        />
      )}
    </main>
  );
}
