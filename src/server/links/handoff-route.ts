/**
 * "Pay on your phone" from the element on the shop's own page (`<basePath>/payments/handoff`, docs/pay-links.md),
 * proved by the element's own checkout token:
 *
 * - `POST`: a payment link for that token's checkout and its QR code's SVG. The link carries what the token carries
 *   (the same cart, amount, currency, country, product and methods) and is good no longer than the token: never
 *   broader than what the page already holds. The pay page it opens is the same checkout: one payment for both devices.
 * - `GET`: the light check a page showing the form makes while its payer may be paying on another device: the last
 *   attempt of the checkout the kit forwarded for the page's amount (0: none), read from the kit's checkout record. It asks the service
 *   nothing; the page then looks that order up (one status query) and follows it.
 *
 * Both count against the client's status limit (`statusPerClient`), as a status query does.
 */
import { CHECKOUT_TOKEN_HEADER, type Amount } from '../../core/index.js';
import type { CheckoutRecord } from '../stores/checkouts/port.js';
import type { KitConfig } from '../config/handler.js';
import { admit } from '../limits/throttle.js';
import { problem } from '../http/http.js';
import { verifyCheckoutToken } from '../tokens/tokens.js';
import { createPaymentLink } from './link.js';
import { openPayerContact } from '../tokens/contact.js';
import { PAY_PAGE_WORDS, pageLanguage } from './pay-page.js';
import { qrSvg } from './qr.js';

/** A link shorter-lived than this is not worth a phone's camera: the token is about to expire. */
const SHORTEST_LINK_SECONDS = 60;

export interface HandoffRouteOptions {
  config: KitConfig;
  clientOf(request: Request): string | undefined;
}

const json = (value: unknown): Response =>
  new Response(JSON.stringify(value), { status: 200, headers: { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' } });

/**
 * The last attempt of the record made for the page's own amount (or for an amount the record does not know: one the
 * service told of). An attempt at another amount is the cart as it was before (or as another page still has it): the
 * page would find it and stop on a mismatch, while the kit lets this amount pay at its next attempt.
 */
function lastAttemptAt(record: CheckoutRecord, amount: Amount): number {
  for (let attempt = record.forwarded; attempt >= 1; attempt -= 1) {
    const made = record.amounts[attempt];
    if (!made || (made.total === amount.total && made.currency === amount.currency)) return attempt;
  }
  return 0;
}

export function handoffRoute({ config, clientOf }: HandoffRouteOptions): (request: Request) => Promise<Response> {
  return async (request) => {
    if (config.orderSource !== 'checkout-token') return problem(404, 'this kit serves no pay page: its orders come from authorize or the browser');
    const nowMs = config.now();
    const checked = await verifyCheckoutToken(request.headers.get(CHECKOUT_TOKEN_HEADER), config.credentials, nowMs);
    if (!checked.ok) return problem(401, `the checkout token (${CHECKOUT_TOKEN_HEADER}) is ${checked.reason === 'expired' ? 'expired' : 'missing or not valid'}`, { field: CHECKOUT_TOKEN_HEADER });
    const throttled = await admit(config.stores.throttle, config.limits, [['statusPerClient', clientOf(request)]], 1);
    if (throttled) {
      const { limit, retryAfterSeconds } = throttled;
      return problem(429, `too many requests, please try again in ${retryAfterSeconds} seconds`, { limit, retryAfterSeconds }, { 'Retry-After': String(retryAfterSeconds) });
    }
    const claims = checked.claims;
    if (request.method === 'GET') {
      const record = await Promise.resolve()
        .then(() => config.stores.checkouts.read(claims.reference))
        .catch(() => undefined);
      // No record (a new process, an evicted one): nothing proven; the page keeps its form and checks again.
      return json({ attempt: record ? lastAttemptAt(record, claims.amount) : 0 });
    }
    const origin = config.publicOrigins[0];
    if (!origin) return problem(404, 'the kit knows no public address of its own (publicOrigin): it makes no link for another device');
    const shopUrl = shopUrlOf(new URL(request.url).searchParams.get('at'), config) ?? origin;
    const lifetime = Math.min(claims.expiresAt - Math.floor(nowMs / 1000), 30 * 86_400);
    if (lifetime < SHORTEST_LINK_SECONDS) return problem(410, 'the checkout token is about to expire: reload the page for a fresh one', { field: CHECKOUT_TOKEN_HEADER });
    // The token's checkout as it is, without the kit's own claims (createPaymentLink drops attempt, started, sandbox).
    // The payer's contact the token carries sealed goes on in the link, sealed again (never read by the page).
    const { merchantId: _merchant, issuedAt: _issued, expiresAt: _expires, payerContact: _sealed, contactOnFile: _onFile, ...order } = claims;
    const payer = await openPayerContact(config.credentials.privateKey, claims);
    if (payer === 'forged') return problem(401, `the checkout token (${CHECKOUT_TOKEN_HEADER}) is missing or not valid`, { field: CHECKOUT_TOKEN_HEADER });
    const link = await createPaymentLink(config.credentials, { ...order, ...(payer ? { payer } : {}) }, { shopUrl, basePath: config.basePath, expiresInSeconds: lifetime, now: nowMs });
    const language = pageLanguage(new URL(request.url), request.headers.get('accept-language'));
    return json({ url: link.url, expiresAt: link.expiresAt, qr: await qrSvg(link.url, PAY_PAGE_WORDS[language].qrLabel) });
  };
}

/**
 * Where the page reaches the kit (`at`: the element's endpoint as an absolute address), when that is the kit's own public
 * origin and ends with its base path: the shop's address before it (a proxy's path prefix included). Anything else
 * (another origin, a query, another path) is not taken: the link is then at the kit's public origin and base path.
 * So a link, and its QR code, never point at an origin the kit's configuration does not name.
 */
function shopUrlOf(at: string | null, config: KitConfig): string | undefined {
  if (!at || at.length > 512) return undefined;
  let url: URL;
  try {
    url = new URL(at);
  } catch {
    return undefined;
  }
  const path = url.pathname.replace(/\/+$/, '');
  if (!config.publicOrigins.includes(url.origin) || url.search || url.hash || url.username || url.password || !path.endsWith(config.basePath)) return undefined;
  const prefix = path.slice(0, path.length - config.basePath.length);
  return /^(\/[\w\-.~%]+)*$/.test(prefix) && !prefix.split('/').some((segment) => segment === '.' || segment === '..') ? `${url.origin}${prefix}` : undefined;
}
