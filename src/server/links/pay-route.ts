/**
 * The pay page's route (`GET <basePath>/pay/<link>`, docs/pay-links.md): the link opened, and the page of its checkout
 * rendered with a checkout token of the kit's own. The page asks the service nothing: a link's preview in a chat (a
 * bot's GET, a HEAD, a browser without script) costs no query. What the kit's checkout record knows decides where the
 * element starts: an order of the checkout made already (on another device) is looked up by the element itself, a
 * status query counted against the payer's client like any other; a checkout the record proves has none shows the form.
 */
import type { KitConfig } from '../config/handler.js';
import { ELEMENT_ARABIC, ELEMENT_ENTRY, ELEMENT_STYLESHEET, type ElementScript } from '../element/element-files.js';
import { ROUTES, routeParams } from '../routes/table.js';
import type { CheckoutOrder, IssueCheckoutTokenOptions } from '../tokens/tokens.js';
import { readPaymentLink } from './link.js';
import { PAY_PAGE_WORDS, pageLanguage, payPage, refusedPage } from './pay-page.js';
import { qrAnswer } from './qr.js';
import { chooseEncoding } from '../element/encoding.js';

/** How long the page's checkout token is good for, at most: a payer who keeps the page open a day, within the link's life. */
const PAGE_TOKEN_SECONDS = 86_400;

export interface PayRouteOptions {
  config: KitConfig;
  element: ElementScript;
  checkoutToken(order: CheckoutOrder, options?: IssueCheckoutTokenOptions): Promise<string>;
}

/**
 * The page gzipped when the browser takes it (CompressionStream: every runtime the kit runs on): 5 kB of HTML are 2.5
 * kB on the wire before the element's first frame. Brotli would be smaller, but no runtime compresses it on the fly alike.
 */
async function encoded(request: Request, page: Response): Promise<Response> {
  const headers = new Headers(page.headers);
  headers.set('Vary', 'Accept-Language, Accept-Encoding');
  if (chooseEncoding(request.headers.get('accept-encoding'), ['gzip', 'identity']) !== 'gzip') return new Response(page.body, { status: page.status, headers });
  headers.set('Content-Encoding', 'gzip');
  if (request.method === 'HEAD' || !page.body) return new Response(null, { status: page.status, headers });
  const body = new Uint8Array(await new Response(page.body.pipeThrough(new CompressionStream('gzip'))).arrayBuffer());
  headers.set('Content-Length', String(body.byteLength));
  return new Response(body, { status: page.status, headers });
}

export function payRoute(options: PayRouteOptions): (request: Request) => Promise<Response> {
  const serve = pageRoute(options);
  return async (request) => encoded(request, await serve(request));
}

function pageRoute({ config, element, checkoutToken }: PayRouteOptions): (request: Request) => Promise<Response> {
  return async (request) => {
    const url = new URL(request.url);
    const head = request.method === 'HEAD';
    const language = pageLanguage(url, request.headers.get('accept-language'));
    const link = routeParams(ROUTES.pay, url.pathname, config.basePath)?.['link'];
    const nowMs = config.now();
    // Orders from `authorize` or the browser: the create would not hold to the link's order, so no pay page is served.
    if (config.orderSource !== 'checkout-token') {
      return new Response("this kit's orders come from authorize or the browser, not from checkout tokens: it serves no pay page", {
        status: 404,
        headers: { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' },
      });
    }
    const read = await readPaymentLink(link, config.credentials, nowMs);
    if (!read.ok) {
      const merchantName = read.reason === 'expired' ? (read.claims?.order.merchantName ?? config.merchantName) : undefined;
      return refusedPage(read.reason === 'expired' ? 'expired' : 'invalid', language, merchantName, head);
    }
    const { order, expiresAt, payer } = read.claims;
    const record = await Promise.resolve()
      .then(() => config.stores.checkouts.read(order.reference))
      .catch(() => undefined);
    // A record of no order: the form at once. Otherwise the element looks for the order (made on another device).
    const attempt = Math.min(Math.max(record?.forwarded ?? 1, 1), order.attempts ?? 10);
    const started = record?.forwarded !== 0;
    const lifetime = Math.max(1, Math.min(PAGE_TOKEN_SECONDS, expiresAt - Math.floor(nowMs / 1000)));
    // The payer's contact the link carries goes into the token sealed (a key of its own: tokens/contact.ts), with only
    // which of the notice's fields it holds in clear: the page, its script and whoever holds the link never read it.
    const token = await checkoutToken({ ...order, attempt, ...(started ? { started: true } : {}), ...(payer ? { payer } : {}) }, { now: nowMs, expiresInSeconds: lifetime });
    // Every address of the page is relative to it (`<basePath>/pay/<link>` -> `<basePath>`): it works wherever the shop
    // mounts the kit, behind a proxy's prefix too, and names no origin a request could have chosen.
    const kit = url.pathname.endsWith('/') ? '../..' : '..';
    let elementTags: string;
    try {
      elementTags = [
        `<link rel="stylesheet" href="${kit}/${ELEMENT_STYLESHEET}">`,
        language === 'ar' ? `<link rel="modulepreload" href="${kit}/${ELEMENT_ARABIC}">` : '',
        `<script type="module" src="${kit}/${ELEMENT_ENTRY}" integrity="${element.integrity}"></script>`,
      ].join('');
    } catch {
      return new Response("the kit serves no element files here (elementFiles), so it has no pay page: serve the element's files with the kit", {
        status: 501,
        headers: { 'Content-Type': 'text/plain; charset=utf-8' },
      });
    }
    return payPage(
      {
        language,
        merchantName: order.merchantName ?? config.merchantName,
        product: order.product,
        amount: order.amount,
        endpoint: kit,
        checkoutToken: token,
        elementTags,
        whereToPay: config.whereToPay?.[language],
        ...(config.publicOrigins[0] && link ? { move: { address: pageAddress(config, link), qr: `${kit}/pay/${link}/qr.svg` } } : {}),
      },
      head,
    );
  };
}

/** The pay page's public address: the kit's configured origin (never a request's `Host`), its base path, the link. */
function pageAddress(config: KitConfig, link: string): string {
  return `${config.publicOrigins[0]}${config.basePath}/pay/${link}`;
}

/** The link's QR code: 404 for a link the kit never made or a kit that knows no public address of its own, 410 once expired. */
export function payQrRoute(config: KitConfig): (request: Request) => Promise<Response> {
  return async (request) => {
    const url = new URL(request.url);
    const link = routeParams(ROUTES.payQr, url.pathname, config.basePath)?.['link'];
    const read = await readPaymentLink(link, config.credentials, config.now());
    const refused = (status: number, message: string) => new Response(message, { status, headers: { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' } });
    if (!read.ok) return read.reason === 'expired' ? refused(410, 'this payment link has expired') : refused(404, 'no such payment link');
    if (!config.publicOrigins[0]) return refused(404, 'the kit knows no public address of its own (publicOrigin): it draws no QR code');
    if (config.orderSource !== 'checkout-token') return refused(404, 'this kit serves no pay page: it draws no QR code of one');
    const language = pageLanguage(url, request.headers.get('accept-language'));
    return qrAnswer(pageAddress(config, link!), PAY_PAGE_WORDS[language].qrLabel, request.method === 'HEAD');
  };
}
