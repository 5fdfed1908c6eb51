// A whole shop in one file: a page that sells one coffee order per visit, the checkout element served from
// this server, and the merchant kit at /checkout. Run it beside the sandbox:
//
//   npx svc-sandbox                      # terminal 1: the payment service on http://127.0.0.1:4010
//   node examples/shop/server.mjs        # terminal 2: this shop on http://127.0.0.1:3000
//
// Against the real service, set SVC_MERCHANT_ID, SVC_PRIVATE_KEY and SVC_BASE_URL to what it issued you.
// PORT picks the port (0: any free one); SHOP_URL is the shop's public address, where the service calls back and 3-D
// Secure sends the payer back (default this server: open the page at that address).
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { createMerchantHandler, issueCheckoutToken, toNodeListener } from 'svc-checkout/server';

const credentials = {
  merchantId: process.env.SVC_MERCHANT_ID ?? '256612345678901', // the sandbox's test values, not secrets
  privateKey: process.env.SVC_PRIVATE_KEY ?? 'sandbox-private-key-256612345678901',
};
const serviceUrl = process.env.SVC_BASE_URL ?? 'http://127.0.0.1:4010';
const port = Number(process.env.PORT ?? 3000);

// The element's ES modules with Lit inside (the package's `svc-checkout/cdn` file, Arabic's words beside it, and the
// chunks it imports from `chunks/`: the session, the steps, the other forms), served from here under their names.
const elementFile = createRequire(import.meta.url).resolve('svc-checkout/cdn');
const cdnFolder = new URL('./', pathToFileURL(elementFile));

/** The shop's orders, as a database would keep them: reference -> what was sold and how its payment went. */
const orders = new Map();

/** A new reference for every order: the service knows an order by it, so two buyers must never share one. */
function newReference() {
  return `NCR-${new Date().toISOString().slice(0, 10).replaceAll('-', '')}-${randomBytes(4).toString('hex').toUpperCase()}`;
}

async function newOrder() {
  const order = { reference: newReference(), total: 12_500, currency: 'EGP', status: 'NEW' };
  orders.set(order.reference, order);
  const checkoutToken = await issueCheckoutToken(credentials, {
    reference: order.reference,
    amount: { total: order.total, currency: order.currency }, // minor units: EGP 125.00
    country: 'EG',
    product: { name: 'Coffee order', description: 'Yirgacheffe beans 1 kg, ceramic dripper' },
    merchantName: 'Nile Coffee Roasters',
  });
  return { ...order, checkoutToken };
}

const page = (order) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Nile Coffee Roasters — checkout</title>
<script type="module" src="/svc-checkout.js"></script>
</head>
<body>
<h1>Your order</h1>
<p>Yirgacheffe beans 1 kg and a ceramic dripper. Order <code>${order.reference}</code></p>
<svc-checkout endpoint="/checkout" checkout-token="${order.checkoutToken}" sandbox></svc-checkout>
</body>
</html>`;

async function serve(request, response, checkout) {
  const path = new URL(request.url, 'http://shop').pathname;
  if (path === '/checkout' || path.startsWith('/checkout/')) return checkout(request, response);
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    response.writeHead(405, { Allow: 'GET, HEAD' }).end();
    return;
  }
  const script = /^\/((chunks\/)?[\w-]+\.js)$/.exec(path);
  if (script) {
    const text = await readFile(new URL(script[1], cdnFolder)).catch(() => undefined);
    if (!text) return response.writeHead(404).end();
    // A chunk's name changes with its content: kept for good. The entry and Arabic's words keep their names from one
    // version to the next: asked again each time, so that a page never runs an old one beside a new one.
    const caching = script[2] ? 'public, max-age=31536000, immutable' : 'no-cache';
    response.writeHead(200, { 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': caching });
    response.end(text);
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

const server = createServer();
server.listen(port, '127.0.0.1', () => {
  const shopUrl = (process.env.SHOP_URL ?? `http://127.0.0.1:${server.address().port}`).replace(/\/$/, '');
  const checkout = toNodeListener(
    createMerchantHandler({
      ...credentials, // the private key stays on this server
      environment: { baseUrl: serviceUrl },
      basePath: '/checkout', // the element's endpoint
      callbackUrl: `${shopUrl}/checkout/callbacks`,
      returnUrlOrigins: [new URL(shopUrl).origin], // this shop's pages: where 3-D Secure sends the payer back
      merchantName: 'Nile Coffee Roasters',
      // Called once per verified callback: the moment to ship the beans.
      onCallback: async ({ body }) => {
        const order = orders.get(body.reference);
        if (order) order.status = body.status;
        console.log(`order ${body.reference}: ${body.status}${body.failureCode ? ` (${body.failureCode})` : ''}`);
      },
    }),
  );
  server.on('request', (request, response) => {
    serve(request, response, checkout).catch((error) => {
      console.error(error);
      if (!response.headersSent) response.writeHead(500, { 'Content-Type': 'text/plain' });
      response.end('Something went wrong');
    });
  });
  console.log(`Nile Coffee Roasters listening on ${shopUrl}/ (payment service: ${serviceUrl})`);
});
