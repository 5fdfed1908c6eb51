/**
 * The files of a new shop (`npx svc-checkout init`): one Express server that sells one order per visit, serves the
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
  return `// ${name.replace(/\n/g, ' ')}: a shop in one file. Each visit to / sells one order: the page shows <svc-checkout>, whose
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
    // Once per payment the service confirms (a signed callback the kit verified): the moment to fulfil the order.
    onCallback: async ({ body }) => {
      console.log(\`order \${body.reference}: \${body.status}\${body.failureCode ? \` (\${body.failureCode})\` : ''}\`);
    },
  });
}
let checkout;

/** A new reference for every order: the service knows an order by it, so two buyers never share one. */
const newReference = () => \`ORDER-\${Date.now().toString(36).toUpperCase()}-\${randomBytes(3).toString('hex').toUpperCase()}\`;

const app = express();
let kit;
app.use((request, response, next) => kit(request, response, next)); // /checkout/…: the element and its calls, the callbacks

app.get('/favicon.ico', (request, response) => response.status(204).end());
app.get('/', async (request, response, next) => {
  try {
    const checkoutToken = await checkout.checkoutToken({
      reference: newReference(),
      amount: { total: 12_500, currency: 'EGP' }, // minor units: EGP 125.00
      country: 'EG',
      product: { name: 'Coffee beans', description: 'One bag of coffee beans, 1 kg' },
    });
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
<svc-checkout checkout-token="\${checkoutToken}"></svc-checkout>
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

/** The scripts the shop runs: `npm start` is the shop beside a sandbox whose merchant bears the shop's name. */
export function shopScripts({ name }: ShopTemplate): Record<string, string> {
  return {
    start: `svc-sandbox --merchant-name ${scriptWord(name)} -- node server.mjs`,
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
