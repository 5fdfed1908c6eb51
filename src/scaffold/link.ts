/**
 * `svc-checkout link`: a payment link from the command line (docs/pay-links.md), for a seller in a chat or on the
 * phone. The merchant's credentials come from the environment (`SVC_MERCHANT_ID`, `SVC_PRIVATE_KEY`), never from a
 * flag (a flag stays in the shell's history); the shop's address from `--shop` or `SHOP_URL`. The link's address is the
 * last line printed, so that a script can take it with `tail -n 1`.
 */
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { formatMinorUnits } from '../core/money.js';
import { createPaymentLink, PaymentLinkError, type PaymentLinkOrder } from '../server/links/link.js';
import { DEFAULT_LINK_SECONDS, durationSeconds, MAX_LINK_SECONDS } from '../server/links/link.js';
import { SandboxControl } from '../sandbox/control/client.js';

const USAGE = `Usage: svc-checkout link --amount <minor units> --currency <code> --country <code> --product <name> [options]

Prints a payment link: the address of the merchant kit's pay page for one checkout, sealed with your key.

  --amount <n>          the amount in minor units (piastres): 12500 is EGP 125.00
  --currency <code>     the currency, such as EGP
  --country <code>      the country, such as EG
  --product <name>      what is sold, as the payer reads it
  --description <text>  more about it (default: the product's name); reference code notices carry it
  --reference <id>      the cart's id: one link's checkout is paid once (default: a new one)
  --merchant-name <n>   the shop's name on the page (default: the kit's merchantName)
  --payer-name <name>   the payer's name, --payer-email <address>, --payer-phone <number> (with the country code):
                        their contact, sealed in the link (never shown on it): the name and an address; a
                        reference code goes to it when the payer leaves theirs empty
  --expires <time>      how long the link is good for: 3d, 12h, 90m or seconds (default 7d, at most 30d)
  --shop <url>          the shop's public address (default: SHOP_URL)
  --base-path <path>    where the kit is mounted on the shop (default: /checkout)
  --help                show this text

Environment: SVC_MERCHANT_ID and SVC_PRIVATE_KEY, the merchant's credentials. With SVC_SANDBOX=1 and SVC_BASE_URL
(what svc-sandbox gives the commands it runs), the link is also told to that sandbox, whose dashboard lists it.
`;

/** The flag that sets each field a link's checks may name. */
const FLAG_OF: Readonly<Record<string, string>> = {
  reference: '--reference',
  'amount.total': '--amount',
  'amount.currency': '--currency',
  country: '--country',
  'product.name': '--product',
  'product.description': '--description',
  merchantName: '--merchant-name',
  'payer.name': '--payer-name',
  'payer.email': '--payer-email',
  'payer.phone': '--payer-phone',
  shopUrl: '--shop',
  basePath: '--base-path',
  expiresInSeconds: '--expires',
};

/** Bad input: the message names the flag (or the variable) to change. */
class UsageError extends Error {}

export interface LinkCommandResult {
  url: string;
  lines: string[];
  /** What could not be done beside the link (the sandbox not told): said on stderr, the link still made. */
  warnings: string[];
}

/** The link the command's arguments and environment ask for; throws an Error whose message names what to change. */
export async function linkCommand(argv: string[], env: Record<string, string | undefined>, now = Date.now()): Promise<LinkCommandResult> {
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        amount: { type: 'string' },
        currency: { type: 'string' },
        country: { type: 'string' },
        product: { type: 'string' },
        description: { type: 'string' },
        reference: { type: 'string' },
        'merchant-name': { type: 'string' },
        'payer-name': { type: 'string' },
        'payer-email': { type: 'string' },
        'payer-phone': { type: 'string' },
        expires: { type: 'string' },
        shop: { type: 'string' },
        'base-path': { type: 'string' },
      },
    }).values;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const text = (flag: string) => (typeof values[flag] === 'string' ? (values[flag] as string) : undefined);
  const required = (flag: string, what: string) => {
    const value = text(flag)?.trim();
    if (!value) throw new UsageError(`--${flag} is required: ${what}`);
    return value;
  };
  const merchantId = env['SVC_MERCHANT_ID']?.trim();
  const privateKey = env['SVC_PRIVATE_KEY'];
  if (!merchantId) throw new UsageError('SVC_MERCHANT_ID is not set: export the merchant id the service issued you');
  if (!privateKey) throw new UsageError('SVC_PRIVATE_KEY is not set: export the private key the service issued you');
  const amountText = required('amount', 'the amount in minor units, such as 12500 for EGP 125.00');
  if (!/^\d{1,15}$/.test(amountText)) throw new UsageError(`--amount must be a whole number of minor units (12500 is EGP 125.00), not ${JSON.stringify(amountText)}`);
  const currency = required('currency', 'such as EGP').toUpperCase();
  const country = required('country', 'such as EG').toUpperCase();
  const product = required('product', "what is sold, as the payer reads it");
  const expiresText = text('expires') ?? '7d';
  const expires = durationSeconds(expiresText);
  if (expires === undefined || expires < 60 || expires > MAX_LINK_SECONDS) {
    throw new UsageError(`--expires must be a time from 1m to 30d (such as 3d, 12h or 90m; default ${DEFAULT_LINK_SECONDS / 86_400}d), not ${JSON.stringify(expiresText)}`);
  }
  const shopUrl = text('shop') ?? env['SHOP_URL'];
  if (!shopUrl) throw new UsageError("--shop is required (or SHOP_URL): the shop's public address, such as https://shop.example");
  const reference = text('reference') ?? `link-${now.toString(36)}-${randomBytes(4).toString('hex')}`;
  const merchantName = text('merchant-name');
  const payer = Object.fromEntries((['name', 'email', 'phone'] as const).flatMap((field) => (text(`payer-${field}`) === undefined ? [] : [[field, text(`payer-${field}`)!]])));
  const order: PaymentLinkOrder = {
    reference,
    amount: { total: Number(amountText), currency },
    country,
    product: { name: product, description: text('description') ?? product },
    ...(merchantName !== undefined ? { merchantName } : {}),
    ...(Object.keys(payer).length > 0 ? { payer } : {}),
  };
  let made;
  try {
    made = await createPaymentLink({ merchantId, privateKey }, order, { shopUrl, basePath: text('base-path') ?? '/checkout', expiresInSeconds: expires, now });
  } catch (error) {
    if (!(error instanceof PaymentLinkError)) throw error;
    throw new UsageError(error.violations.map((violation) => `${FLAG_OF[violation.field] ?? violation.field}: ${violation.message}`).join('\n'));
  }
  const amount = formatMinorUnits(order.amount.total, currency, 'en');
  const lines = [`A payment link for ${product}, ${amount} (checkout ${reference}), good until ${new Date(made.expiresAt * 1000).toISOString()}:`];
  const warnings: string[] = [];
  const sandbox = await tellSandbox(env, { url: made.url, reference, amount: order.amount, productName: product, expiresAt: made.expiresAt });
  if (sandbox?.told) lines.unshift(`Listed on the sandbox's dashboard, ${sandbox.at}/`);
  else if (sandbox) warnings.push(`the sandbox at ${sandbox.at} was not told of this link (${sandbox.reason}): its dashboard will not list it`);
  return { url: made.url, lines: [...lines, made.url], warnings };
}

/**
 * A link made against a sandbox is told to it, for its dashboard (as `stack.paymentLink` does for the links a stack
 * makes): only when the environment says the service is one (SVC_SANDBOX=1, its address in SVC_BASE_URL, what
 * svc-sandbox gives the commands it runs). Nothing is ever sent to the real service: its API has no such call.
 */
async function tellSandbox(
  env: Record<string, string | undefined>,
  link: Parameters<SandboxControl['addLink']>[0],
): Promise<{ at: string; told: true } | { at: string; told: false; reason: string } | undefined> {
  const at = env['SVC_BASE_URL']?.trim().replace(/\/+$/, '');
  if (env['SVC_SANDBOX'] !== '1' || !at) return undefined;
  try {
    await new SandboxControl(at).addLink(link);
    return { at, told: true };
  } catch (error) {
    return { at, told: false, reason: error instanceof Error ? error.message : String(error) };
  }
}

export async function main(argv: string[], env: Record<string, string | undefined> = process.env): Promise<number> {
  if (argv.includes('--help')) {
    process.stdout.write(USAGE);
    return 0;
  }
  try {
    const { lines, warnings } = await linkCommand(argv, env);
    for (const warning of warnings) process.stderr.write(`svc-checkout link: ${warning}\n`);
    process.stdout.write(`${lines.join('\n')}\n`);
    return 0;
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`svc-checkout link: ${error.message}\n\n${USAGE}`);
    return 2;
  }
}
