// The coffee shop of examples/shop on Deno: a page that sells one order per visit, the checkout element served from
// here, and the merchant kit at /checkout, with Deno.serve and no Node adapter. Beside the sandbox:
//
//   npx svc-sandbox                                                     # the payment service on :4010
//   deno run --allow-net --allow-env --allow-read examples/deno/server.ts  # this shop on http://127.0.0.1:3000
//
// In a project of your own, svc-checkout in package.json and node_modules: Deno resolves 'svc-checkout/server' there.
// SVC_MERCHANT_ID, SVC_PRIVATE_KEY and SVC_BASE_URL name the real service; PORT picks the port (0: any free one).
import { createMerchantHandler, issueCheckoutToken } from 'svc-checkout/server';

const setting = (name: string, fallback: string) => Deno.env.get(name) ?? fallback;
const credentials = {
  merchantId: setting('SVC_MERCHANT_ID', '256612345678901'), // the sandbox's test values, not secrets
  privateKey: setting('SVC_PRIVATE_KEY', 'sandbox-private-key-256612345678901'),
};
const serviceUrl = setting('SVC_BASE_URL', 'http://127.0.0.1:4010');
// The element's ES modules (svc-checkout/cdn, Arabic's words beside it, its chunks/), served under their names.
const cdnFolder = new URL('./', import.meta.resolve('svc-checkout/cdn'));

/** The shop's orders, as a database would keep them: reference -> how its payment went. */
const orders = new Map<string, { reference: string; total: number; currency: string; status: string }>();

async function orderPage(): Promise<Response> {
  const order = { reference: `NCR-${crypto.randomUUID().slice(0, 8).toUpperCase()}`, total: 12_500, currency: 'EGP', status: 'NEW' };
  orders.set(order.reference, order);
  const checkoutToken = await issueCheckoutToken(credentials, {
    reference: order.reference,
    amount: { total: order.total, currency: order.currency }, // minor units: EGP 125.00
    country: 'EG',
    product: { name: 'Coffee order', description: 'Yirgacheffe beans 1 kg, ceramic dripper' },
    merchantName: 'Nile Coffee Roasters',
  });
  const html = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Nile Coffee Roasters — checkout</title><script type="module" src="/svc-checkout.js"></script></head>
<body>
<h1>Your order</h1>
<p>Order <code>${order.reference}</code></p>
<svc-checkout endpoint="/checkout" checkout-token="${checkoutToken}" sandbox></svc-checkout>
</body>
</html>`;
  return new Response(html, { headers: { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store', 'Content-Security-Policy': "default-src 'self'" } });
}

async function script(name: string, chunk: boolean): Promise<Response> {
  const text = await Deno.readFile(new URL(name, cdnFolder)).catch(() => undefined);
  if (!text) return new Response('Not found', { status: 404 });
  const caching = chunk ? 'public, max-age=31536000, immutable' : 'no-cache'; // a chunk's name changes with its content
  return new Response(text, { headers: { 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': caching } });
}

async function serve(request: Request, info: Deno.ServeHandlerInfo): Promise<Response> {
  const { pathname } = new URL(request.url);
  // The kit is a (request) => Promise<Response>: Deno.serve's own handler type, no adapter between.
  if (pathname.startsWith('/checkout/')) return checkout(request, info);
  const file = /^\/((chunks\/)?[\w-]+\.js)$/.exec(pathname);
  if (file) return script(file[1]!, file[2] !== undefined);
  if (pathname === '/') return orderPage();
  if (pathname === '/orders') return Response.json([...orders.values()]);
  if (pathname === '/favicon.ico') return new Response(null, { status: 204 });
  return new Response('Not found', { status: 404 });
}

const server = Deno.serve({ hostname: '127.0.0.1', port: Number(setting('PORT', '3000')), onListen: () => {} }, serve);
const shopUrl = setting('SHOP_URL', `http://127.0.0.1:${server.addr.port}`); // where the service sends callbacks
const handler = createMerchantHandler({
  ...credentials, // the private key stays on this server
  environment: { baseUrl: serviceUrl },
  basePath: '/checkout', // the element's endpoint
  callbackUrl: `${shopUrl}/checkout/callbacks`,
  returnUrlOrigins: [new URL(shopUrl).origin], // this shop's pages: where 3-D Secure sends the payer back
  merchantName: 'Nile Coffee Roasters',
  clientAddress: (request) => addresses.get(request), // for the per-client limit and the order's userClientIP
  // Called once per verified callback: the moment to ship the beans, when what was paid is what the order's
  // checkout was opened for (`checkout.amount`, vouched for by the kit).
  onCallback: ({ body, checkout }) => {
    const order = orders.get(checkout?.reference ?? body.reference);
    const asOpened = checkout?.amount?.total === body.amount.total && checkout?.amount?.currency === body.amount.currency;
    if (order) order.status = body.status === 'SUCCESS' && !asOpened ? 'CHECK BY HAND' : body.status;
    console.log(`order ${body.reference}: ${body.status}`);
  },
});
/** The payer's address, which Deno gives beside the request (toNodeListener reads the socket's on Node). */
const addresses = new WeakMap<Request, string>();
function checkout(request: Request, info: Deno.ServeHandlerInfo): Promise<Response> {
  addresses.set(request, info.remoteAddr.hostname);
  return handler(request);
}
console.log(`Nile Coffee Roasters listening on ${shopUrl}/ (payment service: ${serviceUrl})`);
