// A whole shop in one file, on plain node:http: a page that sells one coffee order, a cart per visitor (kept in a
// cookie) with one checkout of its own, and the merchant kit at /checkout, which also serves the checkout element's
// script. Run it beside the sandbox:
//
//   npx svc-sandbox                      # terminal 1: the payment service on http://127.0.0.1:4010
//   node examples/shop/server.mjs        # terminal 2: this shop on http://127.0.0.1:3000
//
// Against the real service, set SVC_MERCHANT_ID, SVC_PRIVATE_KEY and SVC_BASE_URL to what it issued you, and SHOP_URL
// to the shop's public https: address, where the service calls back and 3-D Secure sends the payer back (default this
// server: open the page at that address). PORT picks the port (0: any free one).
//
// It sells by link too, for a seller in a chat: /sell makes a payment link (and its QR code) for a new cart, which the
// seller sends to the payer; the kit serves its pay page (docs/pay-links.md). In a real shop, /sell is behind the
// seller's login.
import { createHash, randomBytes } from 'node:crypto';
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
    publicOrigin: new URL(shopUrl).origin, // where payers reach the kit: its pay pages' QR codes name it
    merchantName: 'Nile Coffee Roasters',
    // Called once per verified callback: the moment to ship the beans. `checkout.reference` is the cart's (an order
    // of a second attempt is `<cart>--2`), `checkout.amount` what its checkout was opened for; `alsoPaid` names another
    // order of the same cart paid too: refund one.
    onCallback: async ({ body, checkout: ofCart }) => {
      const cart = carts.get(ofCart?.reference ?? body.reference);
      console.log(`order ${body.reference}: ${body.status}${body.failureCode ? ` (${body.failureCode})` : ''}`);
      if (!cart || cart.status === 'SUCCESS') return;
      if (body.status !== 'SUCCESS') {
        cart.status = body.status;
        return;
      }
      // Paid: shipped only when what was paid is what the checkout was opened for, and the cart holds that still.
      const paid = body.amount;
      const asOpened = ofCart?.amount?.total === paid.total && ofCart?.amount?.currency === paid.currency;
      const asCart = cart.total === paid.total && cart.currency === paid.currency;
      cart.status = asOpened && asCart ? 'SUCCESS' : 'CHECK';
      if (cart.status === 'CHECK') console.log(`cart ${cart.reference}: paid ${paid.total} ${paid.currency} for a cart of ${cart.total} ${cart.currency}: look at it before you ship`);
      if (ofCart?.alsoPaid?.length) console.log(`cart ${ofCart.reference} paid twice (${ofCart.alsoPaid.join(', ')}): refund ${body.orderNo}`);
    },
  });
}
let checkout;
let kit;

/** The shop's carts, as a database would keep them: reference -> what is in it and how its payment went. */
const carts = new Map();
/**
 * Visitors' sessions: a hash of the secret in the visitor's cookie -> their cart's reference. The cookie holds only
 * that secret, never the reference (the order number the page and the receipt show): knowing an order's number opens
 * nothing, and a cookie this shop did not issue starts a new cart.
 */
const sessions = new Map();
const keyOf = (secret) => createHash('sha256').update(secret).digest('hex');
// Sent back only over https when the shop is (SHOP_URL), never to scripts, and not with other sites' requests.
const COOKIE_ATTRIBUTES = `Path=/; HttpOnly; SameSite=Lax${process.env.SHOP_URL?.startsWith('https:') ? '; Secure' : ''}`;

/** A new reference for every cart: the service knows its orders by it, so two buyers must never share one. */
function newReference() {
  return `NCR-${new Date().toISOString().slice(0, 10).replaceAll('-', '')}-${randomBytes(4).toString('hex').toUpperCase()}`;
}

/** A new cart for the visitor, its secret in their cookie. */
function newCart(response) {
  const cart = { reference: newReference(), total: 12_500, currency: 'EGP', status: 'NEW' };
  const secret = randomBytes(32).toString('base64url');
  carts.set(cart.reference, cart);
  sessions.set(keyOf(secret), cart.reference);
  response.setHeader('Set-Cookie', `cart=${secret}; ${COOKIE_ATTRIBUTES}`);
  return cart;
}

/** The visitor's cart: the one their cookie's secret names (the same cart, and checkout, at every visit), else a new one. */
function cartOf(request, response) {
  const secret = /(?:^|;\s*)cart=([\w-]{43})(?:;|$)/.exec(request.headers.cookie ?? '')?.[1];
  const reference = secret && sessions.get(keyOf(secret));
  return reference ? carts.get(reference) : newCart(response);
}

/**
 * The cart's checkout, where it stands for what the cart holds: the kit asks the service about the cart's orders (as
 * a status query of this visitor's: `request`), and gives the token the page renders (at the order in progress, if
 * there is one). The kit's own issuer: the shop's name (merchantName above), and the test badge against the sandbox.
 * One checkout per cart: never a second payment of it.
 */
function openCheckout(cart, request) {
  return checkout.openCheckout(
    {
      reference: cart.reference,
      amount: { total: cart.total, currency: cart.currency }, // minor units: EGP 125.00
      country: 'EG',
      product: { name: 'Coffee order', description: 'Yirgacheffe beans 1 kg, ceramic dripper' },
    },
    { request },
  );
}

/** A cart done with: paid (its receipt), or paid at another amount before it changed (`changed`: no form, ever). */
const isDone = (opened) => opened.state === 'paid' || opened.state === 'changed';

const page = (cart, opened) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Nile Coffee Roasters — checkout</title>
${checkout.element.tags()}
</head>
<body>
<h1>Your order</h1>
<p>Yirgacheffe beans 1 kg and a ceramic dripper. Order <code>${cart.reference}</code></p>
<svc-checkout checkout-token="${opened.token}"${isDone(opened) ? ' status-only' : ''}></svc-checkout>
${isDone(opened) ? '<p><a href="/new">Order again</a></p>' : ''}
</body>
</html>`;

const escapeHtml = (text) => String(text).replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

const sellPage = (made) => `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Sell by link — Nile Coffee Roasters</title></head>
<body>
<h1>Sell by link</h1>
${made ? `<p>Send this link to the payer (good for ${made.days} days):</p>
<p><input aria-label="Payment link" readonly size="60" value="${escapeHtml(made.url)}"></p>
<p><img src="/checkout/pay/${escapeHtml(made.link)}/qr.svg" alt="QR code of the payment link" width="192" height="192"></p>` : ''}
<form method="post" action="/sell">
<p><label>Product <input name="product" required maxlength="100" value="Coffee beans"></label></p>
<p><label>Amount in EGP <input name="amount" required inputmode="decimal" pattern="\\d+(\\.\\d{1,2})?" value="125.00"></label></p>
<p><label>Good for (days) <input name="days" type="number" min="1" max="30" value="7"></label></p>
<p><button>Make a payment link</button></p>
</form>
</body>
</html>`;

/** A form's fields (application/x-www-form-urlencoded), read within 4 kB. */
async function formOf(request) {
  let text = '';
  for await (const chunk of request) {
    text += chunk;
    if (text.length > 4_096) throw new Error('the form is too large');
  }
  return new URLSearchParams(text);
}

/** A payment link for a new cart of what the seller wrote: the cart is the shop's, as a visitor's is. */
async function sell(form) {
  const amount = /^\d{1,7}(\.\d{1,2})?$/.test(form.get('amount') ?? '') ? Math.round(Number(form.get('amount')) * 100) : NaN;
  const days = Number(form.get('days') ?? 7);
  const product = (form.get('product') ?? '').trim();
  if (!product || !Number.isInteger(amount) || amount <= 0 || !Number.isInteger(days) || days < 1 || days > 30) return undefined;
  const cart = { reference: newReference(), total: amount, currency: 'EGP', status: 'NEW' };
  carts.set(cart.reference, cart);
  const made = await checkout.paymentLink(
    { reference: cart.reference, amount: { total: cart.total, currency: cart.currency }, country: 'EG', product: { name: product, description: product } },
    { expiresInSeconds: days * 86_400 },
  );
  return { ...made, days };
}

async function serve(request, response) {
  const path = new URL(request.url, 'http://shop').pathname;
  if (path === '/checkout' || path.startsWith('/checkout/')) return kit(request, response);
  if (path === '/sell' && request.method === 'POST') {
    const made = await sell(await formOf(request));
    response.writeHead(made ? 200 : 400, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store', 'Content-Security-Policy': "default-src 'self'" });
    response.end(made ? sellPage(made) : '<!doctype html><title>Not sold</title><p>Write a product, an amount in EGP (such as 125.00) and 1 to 30 days. <a href="/sell">Back</a></p>');
    return;
  }
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    response.writeHead(405, { Allow: 'GET, HEAD' }).end();
    return;
  }
  if (path === '/orders') {
    response.writeHead(200, { 'Content-Type': 'application/json' });
    response.end(JSON.stringify([...carts.values()], null, 2));
    return;
  }
  if (path === '/sell') {
    response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Content-Security-Policy': "default-src 'self'" });
    response.end(sellPage());
    return;
  }
  if (path === '/new') {
    newCart(response);
    response.writeHead(303, { Location: '/' }).end();
    return;
  }
  if (path === '/') {
    const cart = cartOf(request, response);
    const opened = await openCheckout(cart, request);
    response.writeHead(200, {
      'Content-Type': 'text/html; charset=utf-8',
      'Cache-Control': 'no-store', // the cart's checkout as it stands now, at every visit
      'Content-Security-Policy': "default-src 'self'", // the element needs no inline script or style
    });
    response.end(page(cart, opened));
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
