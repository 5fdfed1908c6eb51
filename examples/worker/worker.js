// The coffee shop of examples/shop as a Cloudflare Worker: a page that sells one order per visit and the merchant kit
// at /checkout. The element's files (the package's dist/cdn folder) are the Worker's static assets, served before
// the Worker is asked. Settings and the private key are the Worker's bindings: `wrangler secret put SVC_PRIVATE_KEY`
// in production; examples/worker/dev.mjs runs it here with miniflare, beside `npx svc-sandbox`.
import { createMerchantHandler, issueCheckoutToken } from 'svc-checkout/server';

/** One handler per isolate, made at its first request: a Worker's bindings come with the request. */
let checkout;

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    const credentials = { merchantId: env.SVC_MERCHANT_ID, privateKey: env.SVC_PRIVATE_KEY };
    checkout ??= createMerchantHandler({
      ...credentials, // the private key stays in the Worker
      environment: { baseUrl: env.SVC_BASE_URL },
      basePath: '/checkout', // the element's endpoint
      callbackUrl: `${url.origin}/checkout/callbacks`,
      // This shop's pages, where 3-D Secure sends the payer back: the Worker's own origin (Cloudflare sends a request
      // here only for the hostnames of its routes).
      returnUrlOrigins: [url.origin],
      merchantName: 'Nile Coffee Roasters',
      // Cloudflare names the payer's address in a header of its own, which a client cannot set.
      clientAddress: (incoming) => incoming.headers.get('CF-Connecting-IP') ?? undefined,
      // Once per verified callback in this isolate: record it where every isolate sees it (D1, a Durable Object).
      onCallback: ({ body }) => console.log(`order ${body.reference}: ${body.status}`),
    });
    if (url.pathname.startsWith('/checkout/')) return checkout(request);
    if (url.pathname === '/') return orderPage(credentials);
    if (url.pathname === '/favicon.ico') return new Response(null, { status: 204 });
    return new Response('Not found', { status: 404 });
  },
};

async function orderPage(credentials) {
  const reference = `NCR-${crypto.randomUUID().slice(0, 8).toUpperCase()}`; // new for every order
  const checkoutToken = await issueCheckoutToken(credentials, {
    reference,
    amount: { total: 12_500, currency: 'EGP' }, // minor units: EGP 125.00
    country: 'EG',
    product: { name: 'Coffee order', description: 'Yirgacheffe beans 1 kg, ceramic dripper' },
    merchantName: 'Nile Coffee Roasters',
  });
  const html = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Nile Coffee Roasters — checkout</title><script type="module" src="/svc-checkout.js"></script></head>
<body>
<h1>Your order</h1>
<p>Order <code>${reference}</code></p>
<svc-checkout endpoint="/checkout" checkout-token="${checkoutToken}" sandbox></svc-checkout>
</body>
</html>`;
  return new Response(html, { headers: { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store', 'Content-Security-Policy': "default-src 'self'" } });
}
