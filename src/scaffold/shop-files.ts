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

/** A JavaScript string literal of `text`, in single quotes. */
const quoted = (text: string) => `'${text.replace(/[\\']/g, '\\$&').replace(/\n/g, '\\n')}'`;

export function serverFile({ name }: ShopTemplate): string {
  return `// ${name.replace(/\n/g, ' ')}: a shop in one file. Each visitor has a cart (in a cookie) and the cart one checkout:
// the page at / shows <svc-checkout> where the cart stands (its form, its payment in progress, or its receipt), whose
// script and calls this server's merchant kit serves at /checkout, and the kit logs each payment the service
// confirms. \`npm start\` runs it beside a sandbox (svc-sandbox plays the payment service on this machine).
//
// Against the real service, run \`node server.mjs\` with SVC_MERCHANT_ID, SVC_PRIVATE_KEY and SVC_BASE_URL set to
// what it issued you and SHOP_URL to the shop's public https: address, and give the kit a callbackUrl there.
import { randomBytes } from 'node:crypto';
import express from 'express';
import { createMerchantHandler, toNodeListener } from 'svc-checkout/server';

const shopName = ${quoted(name)};
const { SVC_MERCHANT_ID, SVC_PRIVATE_KEY, SVC_BASE_URL } = process.env;
if (!SVC_MERCHANT_ID || !SVC_PRIVATE_KEY || !SVC_BASE_URL) {
  console.error('Set SVC_MERCHANT_ID, SVC_PRIVATE_KEY and SVC_BASE_URL, or run \`npm start\`: it starts a sandbox and sets them.');
  process.exit(1);
}

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
    returnUrlOrigins: [new URL(shopUrl).origin],
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

/** A new reference for every cart: the service knows its orders by it, so two buyers never share one. */
const newReference = () => \`ORDER-\${Date.now().toString(36).toUpperCase()}-\${randomBytes(3).toString('hex').toUpperCase()}\`;

/** The visitor's cart: the reference in their cookie (the same cart at every visit), else a new one. */
function cartOf(request, response) {
  const reference = /(?:^|;\\s*)cart=(ORDER-[\\w-]+)/.exec(request.headers.cookie ?? '')?.[1];
  return reference ?? newCart(response);
}

function newCart(response) {
  const reference = newReference();
  response.cookie('cart', reference, { httpOnly: true, sameSite: 'lax' });
  return reference;
}

const app = express();
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
    response.set('Content-Security-Policy', "default-src 'self'").type('html').send(\`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>\${shopName}</title>
\${checkout.element.tags()}
</head>
<body>
<h1>\${shopName}</h1>
<p>One bag of coffee beans, 1 kg.</p>
<svc-checkout checkout-token="\${opened.token}"\${done ? ' status-only' : ''}></svc-checkout>
\${done ? '<p><a href="/new">Order again</a></p>' : ''}
</body>
</html>\`);
  } catch (error) {
    next(error);
  }
});

const server = app.listen(Number(process.env.PORT ?? 3000), '127.0.0.1', (error) => {
  if (error) throw error;
  const shopUrl = process.env.SHOP_URL ?? \`http://127.0.0.1:\${server.address().port}\`;
  checkout = merchantKit(shopUrl);
  kit = toNodeListener(checkout);
  console.log(\`\${shopName} listening on \${shopUrl}/ (payment service: \${SVC_BASE_URL})\`);
});
`;
}

/** A shell word for `text` in an npm script, which runs in sh or cmd.exe: double quotes, which both read. */
const scriptWord = (text: string) => `"${text.replace(/["\\%$`!]/g, '')}"`;

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
