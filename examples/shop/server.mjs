// A whole shop in one file, on plain node:http: a page that sells one coffee order per visit, and the merchant kit at
// /checkout, which also serves the checkout element's script. Run it beside the sandbox:
//
//   npx svc-sandbox                      # terminal 1: the payment service on http://127.0.0.1:4010
//   node examples/shop/server.mjs        # terminal 2: this shop on http://127.0.0.1:3000
//
// Against the real service, set SVC_MERCHANT_ID, SVC_PRIVATE_KEY and SVC_BASE_URL to what it issued you, and SHOP_URL
// to the shop's public https: address, where the service calls back and 3-D Secure sends the payer back (default this
// server: open the page at that address). PORT picks the port (0: any free one).
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { createMerchantHandler, toNodeListener } from 'svc-checkout/server';

const serviceUrl = process.env.SVC_BASE_URL ?? 'http://127.0.0.1:4010';
const credentials = {
  merchantId: process.env.SVC_MERCHANT_ID ?? '256612345678901', // the sandbox's test values, not secrets
  privateKey: process.env.SVC_PRIVATE_KEY ?? 'sandbox-private-key-256612345678901', // stays on this server
};

/** The merchant kit at /checkout, made once the server knows the address payers reach it at. */
function merchantKit(shopUrl) {
  return createMerchantHandler({
    ...credentials,
    environment: { baseUrl: serviceUrl },
    basePath: '/checkout', // the element's script and calls, and the service's callbacks
    // Against the sandbox the kit is called back at its own loopback address; the real service needs a public one.
    ...(process.env.SHOP_URL ? { callbackUrl: `${shopUrl}/checkout/callbacks` } : {}),
    returnUrlOrigins: [new URL(shopUrl).origin], // this shop's pages: where 3-D Secure sends the payer back
    merchantName: 'Nile Coffee Roasters',
    // Called once per verified callback: the moment to ship the beans.
    onCallback: async ({ body }) => {
      const order = orders.get(body.reference);
      if (order) order.status = body.status;
      console.log(`order ${body.reference}: ${body.status}${body.failureCode ? ` (${body.failureCode})` : ''}`);
    },
  });
}
let checkout;
let kit;

/** The shop's orders, as a database would keep them: reference -> what was sold and how its payment went. */
const orders = new Map();

/** A new reference for every order: the service knows an order by it, so two buyers must never share one. */
function newReference() {
  return `NCR-${new Date().toISOString().slice(0, 10).replaceAll('-', '')}-${randomBytes(4).toString('hex').toUpperCase()}`;
}

async function newOrder() {
  const order = { reference: newReference(), total: 12_500, currency: 'EGP', status: 'NEW' };
  orders.set(order.reference, order);
  // The kit's own issuer: the shop's name (merchantName above), and the test badge against the sandbox.
  const checkoutToken = await checkout.checkoutToken({
    reference: order.reference,
    amount: { total: order.total, currency: order.currency }, // minor units: EGP 125.00
    country: 'EG',
    product: { name: 'Coffee order', description: 'Yirgacheffe beans 1 kg, ceramic dripper' },
  });
  return { ...order, checkoutToken };
}

const page = (order) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Nile Coffee Roasters — checkout</title>
${checkout.element.tags()}
</head>
<body>
<h1>Your order</h1>
<p>Yirgacheffe beans 1 kg and a ceramic dripper. Order <code>${order.reference}</code></p>
<svc-checkout checkout-token="${order.checkoutToken}"></svc-checkout>
</body>
</html>`;

async function serve(request, response) {
  const path = new URL(request.url, 'http://shop').pathname;
  if (path === '/checkout' || path.startsWith('/checkout/')) return kit(request, response);
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    response.writeHead(405, { Allow: 'GET, HEAD' }).end();
    return;
  }
  if (path === '/orders') {
    response.writeHead(200, { 'Content-Type': 'application/json' });
    response.end(JSON.stringify([...orders.values()], null, 2));
    return;
  }
  if (path === '/') {
    response.writeHead(200, {
      'Content-Type': 'text/html; charset=utf-8',
      'Cache-Control': 'no-store', // a fresh order, and a fresh token, on every visit
      'Content-Security-Policy': "default-src 'self'", // the element needs no inline script or style
    });
    response.end(page(await newOrder()));
    return;
  }
  if (path === '/favicon.ico') {
    response.writeHead(204).end();
    return;
  }
  response.writeHead(404, { 'Content-Type': 'text/plain' }).end('Not found');
}

const server = createServer((request, response) => {
  serve(request, response).catch((error) => {
    console.error(error);
    if (!response.headersSent) response.writeHead(500, { 'Content-Type': 'text/plain' });
    response.end('Something went wrong');
  });
});
server.listen(Number(process.env.PORT ?? 3000), '127.0.0.1', () => {
  const shopUrl = (process.env.SHOP_URL ?? `http://127.0.0.1:${server.address().port}`).replace(/\/$/, '');
  checkout = merchantKit(shopUrl);
  kit = toNodeListener(checkout);
  console.log(`Nile Coffee Roasters listening on ${shopUrl}/ (payment service: ${serviceUrl})`);
});
