/**
 * The files of a new shop (`npx svc-checkout init`): one Express server that sells one order, a cart per visitor
 * with one checkout of its own (docs/one-payment.md), serves the
 * element through the merchant kit, and logs each payment the service confirms; and the package.json whose
 * `npm start` runs it beside a sandbox. What the README's first section walks through.
 */

export interface ShopTemplate {
  /** The shop's name, as the payer reads it and as the sandbox's merchant is called. */
  name: string;
  /** The svc-checkout version the shop depends on. */
  version: string;
}

/** Line breaks of every kind (CR, LF, U+2028, U+2029, NEL) and the other control characters. */
const BREAKS = /[\p{Cc}\u2028\u2029]/gu;

/** A shop's name on one line: what ends a line in JavaScript or a terminal is a space, runs of spaces are one. */
export const oneLine = (text: string) => text.replace(BREAKS, ' ').replace(/\s+/g, ' ').trim();

/** A JavaScript string literal of `text`, in single quotes: what could end the line or the literal is escaped. */
const quoted = (text: string) =>
  `'${text.replace(/[\\']/g, '\\$&').replace(BREAKS, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`)}'`;

/**
 * The limits a developer meets first at the sandbox, raised there: one developer is one client who starts many orders
 * and sends every code to one phone and mailbox. Against the real service the kit's defaults stand (docs/limits.md).
 */
export const SANDBOX_LIMITS = {
  createsPerClient: { limit: 300, windowSeconds: 600 },
  messagesPerPhone: { limit: 100, windowSeconds: 3_600 },
  messagesPerEmail: { limit: 100, windowSeconds: 3_600 },
} as const;

export function serverFile({ name }: ShopTemplate): string {
  const limits = Object.entries(SANDBOX_LIMITS)
    .map(([limit, { limit: count, windowSeconds }]) => `  ${limit}: { limit: ${count}, windowSeconds: ${windowSeconds.toLocaleString('en').replace(/,/g, '_')} },`)
    .join('\n');
  return `// ${oneLine(name)}: a shop in one file. Each visitor has a cart (its secret in a cookie) and the cart one checkout:
// the page at / shows <svc-checkout> where the cart stands (its form, its payment in progress, or its receipt), whose
// script and calls this server's merchant kit serves at /checkout, and the kit logs each payment the service
// confirms. \`npm start\` runs it beside a sandbox (svc-sandbox plays the payment service on this machine).
//
// Against the real service, run \`node server.mjs\` with SVC_MERCHANT_ID, SVC_PRIVATE_KEY and SVC_BASE_URL set to
// what it issued you and SHOP_URL to the shop's public https: address, and give the kit a callbackUrl there.
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import express from 'express';
import { createMerchantHandler, toNodeListener } from 'svc-checkout/server';

const shopName = ${quoted(name)};
const shopNameHtml = shopName.replace(/[&<>"']/g, (char) => \`&#\${char.charCodeAt(0)};\`);
const { SVC_MERCHANT_ID, SVC_PRIVATE_KEY, SVC_BASE_URL, SVC_SANDBOX, SHOP_URL } = process.env;
if (!SVC_MERCHANT_ID || !SVC_PRIVATE_KEY || !SVC_BASE_URL) {
  console.error('Set SVC_MERCHANT_ID, SVC_PRIVATE_KEY and SVC_BASE_URL, or run \`npm start\`: it starts a sandbox and sets them.');
  process.exit(1);
}

// svc-sandbox sets SVC_SANDBOX for the shop it runs (\`npm start\`). There one developer is one client who pays many
// orders and sends every code to one phone: the kit's limits for a crowd of payers (30 orders per 10 minutes per
// client, 5 codes per hour per phone or mailbox) are raised. Against the real service the kit's defaults stand.
const DEVELOPMENT_LIMITS = {
${limits}
};

/**
 * The merchant kit, made once the server knows the address payers reach it at (SHOP_URL, else this server's): that
 * is where 3-D Secure sends them back.
 */
function merchantKit(shopUrl) {
  return createMerchantHandler({
    merchantId: SVC_MERCHANT_ID,
    privateKey: SVC_PRIVATE_KEY, // stays on this server
    environment: { baseUrl: SVC_BASE_URL },
    basePath: '/checkout',
    merchantName: shopName,
    // Where payers reach this shop: the pay page's QR code and "Pay on your phone" name it (a phone cannot reach
    // 127.0.0.1: behind SHOP_URL, such as a tunnel's https: address, the QR code opens on a phone).
    publicOrigin: new URL(shopUrl).origin,
    returnUrlOrigins: [new URL(shopUrl).origin],
    limits: SVC_SANDBOX ? DEVELOPMENT_LIMITS : {},
    // Once per payment the service confirms (a signed callback the kit verified): the moment to fulfil the order, when
    // what was paid is what the cart's checkout was opened for (\`checkout.amount\`, vouched for by the kit).
    // \`checkout.alsoPaid\` names another order of the same cart paid too (one the payer left): refund one.
    onCallback: async ({ body, checkout: cart }) => {
      console.log(\`order \${body.reference}: \${body.status}\${body.failureCode ? \` (\${body.failureCode})\` : ''}\`);
      if (body.status !== 'SUCCESS') return;
      const asOpened = cart?.amount?.total === body.amount.total && cart?.amount?.currency === body.amount.currency;
      if (!asOpened) console.log(\`order \${body.reference}: paid \${body.amount.total} \${body.amount.currency}, not what its cart was opened for: look before you ship\`);
      if (cart?.alsoPaid?.length) console.log(\`cart \${cart.reference} paid twice (\${cart.alsoPaid.join(', ')}): refund \${body.orderNo}\`);
    },
  });
}
let checkout;

/**
 * The carts, as a database keeps them: a hash of the secret in the visitor's cookie -> the cart's reference. The
 * cookie holds only that secret, never the reference (the order number the payer reads on the receipt): knowing an
 * order's number opens nothing, and a cookie this shop did not issue starts a new cart. Kept beside this file, so
 * that a cart is still its visitor's when the shop starts again.
 */
const CARTS_FILE = new URL('.shop-carts.json', import.meta.url);
const carts = new Map(existsSync(CARTS_FILE) ? Object.entries(JSON.parse(readFileSync(CARTS_FILE, 'utf8'))) : []);
const keyOf = (secret) => createHash('sha256').update(secret).digest('hex');
// Sent back only over https when the shop is (SHOP_URL), never to scripts, and not with other sites' requests.
const COOKIE = { httpOnly: true, sameSite: 'lax', secure: SHOP_URL?.startsWith('https:') ?? false, path: '/' };

/** A new reference for every cart: the service knows its orders by it, so two buyers never share one. */
const newReference = () => \`ORDER-\${Date.now().toString(36).toUpperCase()}-\${randomBytes(3).toString('hex').toUpperCase()}\`;

/** The visitor's cart: the one their cookie's secret names (the same cart at every visit), else a new one. */
function cartOf(request, response) {
  const secret = /(?:^|;\\s*)cart=([\\w-]{43})(?:;|$)/.exec(request.headers.cookie ?? '')?.[1];
  return (secret && carts.get(keyOf(secret))) || newCart(response);
}

function newCart(response) {
  const secret = randomBytes(32).toString('base64url');
  const reference = newReference();
  carts.set(keyOf(secret), reference);
  writeFileSync(CARTS_FILE, JSON.stringify(Object.fromEntries(carts)));
  response.cookie('cart', secret, COOKIE);
  return reference;
}

const app = express();
app.disable('x-powered-by'); // no banner naming the framework
let kit;
app.use((request, response, next) => kit(request, response, next)); // /checkout/…: the element and its calls, the callbacks

app.get('/favicon.ico', (request, response) => response.status(204).end());
app.get('/new', (request, response) => {
  newCart(response);
  response.redirect(303, '/');
});
app.get('/', async (request, response, next) => {
  try {
    // The cart's checkout where it stands for its amount: the kit asks the service (as this visitor's status query),
    // and never starts a second payment of a cart.
    const opened = await checkout.openCheckout(
      {
        reference: cartOf(request, response),
        amount: { total: 12_500, currency: 'EGP' }, // minor units: EGP 125.00
        country: 'EG',
        product: { name: 'Coffee beans', description: 'One bag of coffee beans, 1 kg' },
      },
      { request },
    );
    // Paid: its receipt. Paid at another amount (the cart changed after it was paid): no form, a new cart to order.
    const done = opened.state === 'paid' || opened.state === 'changed';
    // The page follows the visitor's light or dark scheme (its color-scheme meta), as the element does.
    response.set({ 'Content-Security-Policy': "default-src 'self'", 'Cache-Control': 'no-store' }).type('html').send(\`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>\${shopNameHtml}</title>
\${checkout.element.tags()}
</head>
<body>
<h1>\${shopNameHtml}</h1>
<p>One bag of coffee beans, 1 kg.</p>
<svc-checkout checkout-token="\${opened.token}"\${done ? ' status-only' : ''}></svc-checkout>
\${done ? '<p><a href="/new">Order again</a></p>' : ''}
</body>
</html>\`);
  } catch (error) {
    next(error);
  }
});
// An error is the shop's to read, in its log; the visitor reads no stack.
app.use((error, request, response, next) => {
  console.error(error);
  response.status(500).type('text').send('Something went wrong');
});

const server = app.listen(Number(process.env.PORT ?? 3000), '127.0.0.1', (error) => {
  if (error) throw error;
  const shopUrl = SHOP_URL ?? \`http://127.0.0.1:\${server.address().port}\`;
  checkout = merchantKit(shopUrl);
  kit = toNodeListener(checkout);
  console.log(\`\${shopName} listening on \${shopUrl}/ (payment service: \${SVC_BASE_URL})\`);
});
`;
}

/** A shell word for `text` in an npm script, which runs in sh or cmd.exe: double quotes, which both read. */
const scriptWord = (text: string) => `"${oneLine(text).replace(/["\\%$`!]/g, '')}"`;

/** Where the shop's sandbox keeps its orders across \`npm start\`s (beside server.mjs; delete it to start afresh). */
export const SANDBOX_DATA_FILE = '.svc-sandbox.json';

/**
 * The scripts the shop runs: `npm start` is the shop beside a sandbox whose merchant bears the shop's name, and which
 * keeps its orders in `SANDBOX_DATA_FILE`, so that a cart paid stays paid when the shop is started again.
 */
export function shopScripts({ name }: ShopTemplate): Record<string, string> {
  return {
    start: `svc-sandbox --merchant-name ${scriptWord(name)} --data ${SANDBOX_DATA_FILE} -- node server.mjs`,
  };
}

/** A new package.json, for a folder that has none. */
export function packageFile(template: ShopTemplate, packageName: string): string {
  return `${JSON.stringify(
    {
      name: packageName,
      version: '1.0.0',
      private: true,
      type: 'module',
      scripts: shopScripts(template),
      dependencies: { express: '^5.1.0', 'svc-checkout': `^${template.version}` },
    },
    null,
    2,
  )}\n`;
}
