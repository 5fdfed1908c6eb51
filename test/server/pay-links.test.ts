/**
 * Payment links and the kit's pay page (docs/pay-links.md), against the real sandbox: a link is sealed (nothing of its
 * order or payer readable from it), signed with a key of its own (never a checkout token, nor the other way round),
 * expires when the shop says (on the sandbox's clock here), and its page is served with the headers a bearer credential
 * needs, asking the service nothing. Its holder reaches its checkout and nothing else.
 */
import { tracingChannel } from 'node:diagnostics_channel';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHECKOUT_TOKEN_HEADER, MERCHANT_PATHS, parseCheckoutToken } from '../../src/core/index.js';
import {
  CHANNELS,
  createMerchantHandler,
  createPaymentLink,
  issueCheckoutToken,
  PaymentLinkError,
  readPaymentLink,
  verifyCheckoutToken,
  type PaymentLinkOrder,
  type ServiceCallTrace,
} from '../../src/server/index.js';
import { durationSeconds } from '../../src/server/links/link.js';
import { encode } from 'uqr';
import { SandboxControl, startStack } from '../../src/sandbox/index.js';
import { newCart } from '../support/carts.js';

type Stack = Awaited<ReturnType<typeof startStack>>;
let stack: Stack;
let control: SandboxControl;
const cdn = new URL('../../dist/cdn/', import.meta.url);

beforeAll(async () => {
  stack = await startStack({ basePath: '/checkout', handler: { merchantName: 'Nile Coffee', elementFiles: cdn, logger: { warn() {}, error() {} } } });
  control = new SandboxControl(stack.sandbox.url);
});
afterAll(() => stack.close());

/** The sandbox's clock, as the kit of these tests reads it. */
const sandboxNow = () => stack.sandbox.clock.now();

const cart = (extra: Partial<PaymentLinkOrder> = {}) => newCart<PaymentLinkOrder>('link', extra);

const shop = () => new URL(stack.url).origin;
const link = (order: PaymentLinkOrder, options: { expiresInSeconds?: number; now?: number } = {}) =>
  createPaymentLink(stack.merchant, order, { shopUrl: shop(), basePath: '/checkout', now: sandboxNow(), ...options });
/** The page's address as the kit is reached in these tests. */
const get = (url: string, init: RequestInit = {}) => fetch(url, { redirect: 'manual', ...init });
const tokenOf = (html: string) => /checkout-token="([^"]+)"/.exec(html)?.[1] ?? '';

/** The service calls the kits of this process make while `work` runs. */
async function serviceCallsDuring(work: () => Promise<unknown>): Promise<string[]> {
  const calls: string[] = [];
  const handlers = { start: (context: unknown) => void calls.push((context as ServiceCallTrace).operation) };
  tracingChannel(CHANNELS.service).subscribe(handlers as never);
  try {
    await work();
  } finally {
    tracingChannel(CHANNELS.service).unsubscribe(handlers as never);
  }
  return calls;
}

describe('a payment link', () => {
  it('is the pay page under the base path, sealed: neither its order nor the payer shows in it', async () => {
    const order = cart({ payer: { name: 'Mona Adel', email: 'mona@example.com', phone: '+201001234567' } });
    const made = await link(order);
    expect(made.url).toBe(`${shop()}/checkout/pay/${made.link}`);
    expect(made.link).toMatch(/^pl1\.[\w-]+$/);
    const decoded = Buffer.from(made.link.slice(4), 'base64url').toString('latin1');
    for (const secret of [order.reference, 'Coffee', 'mona', 'Mona', '201001234567', '12500']) {
      expect(made.url).not.toContain(secret);
      expect(decoded).not.toContain(secret);
    }
    const read = await readPaymentLink(made.link, stack.merchant, sandboxNow());
    expect(read.ok && read.claims.order.reference).toBe(order.reference);
    expect(read.ok && read.claims.payer).toEqual(order.payer);
  });

  it('lasts 7 days by default, as long as the shop says up to 30 days, and not a moment more', async () => {
    const now = Date.UTC(2026, 0, 1);
    const byDefault = await link({ ...cart(), attempt: 3, started: true, sandbox: true }, { now });
    expect(byDefault.expiresAt).toBe(now / 1000 + 7 * 86_400);
    // Short, for a chat message and a QR code a phone reads at a glance: what the order is, and nothing of the kit's tokens.
    expect(byDefault.link.length).toBeLessThan(240);
    const read = await readPaymentLink(byDefault.link, stack.merchant, now);
    expect(read.ok && read.claims.order).not.toHaveProperty('attempt');
    expect(read.ok && read.claims.order).not.toHaveProperty('started');
    const month = await link(cart(), { now, expiresInSeconds: 30 * 86_400 });
    expect((await readPaymentLink(month.link, stack.merchant, now + 30 * 86_400_000 - 1)).ok).toBe(true);
    expect(await readPaymentLink(month.link, stack.merchant, now + 30 * 86_400_000)).toMatchObject({ ok: false, reason: 'expired' });
    await expect(link(cart(), { expiresInSeconds: 30 * 86_400 + 1 })).rejects.toThrow(/expiresInSeconds must be a whole number of seconds from 60 to 2592000/);
  });

  it('refuses an order, a payer or a shop address it cannot vouch for, naming the field', async () => {
    await expect(link(cart({ reference: 'cart--2' }))).rejects.toThrow(PaymentLinkError);
    await expect(link(cart({ reference: 'cart--2' }))).rejects.toThrow(/reference must not end in "--" and a number/);
    await expect(link(cart({ amount: { total: -5, currency: 'EGP' } }))).rejects.toThrow(/amount\.total/);
    await expect(link(cart({ payer: { email: 'not an address' } }))).rejects.toThrow(/payer\.email/);
    await expect(createPaymentLink(stack.merchant, cart(), { shopUrl: 'javascript:alert(1)' })).rejects.toThrow(/shopUrl must be/);
    await expect(createPaymentLink(stack.merchant, cart(), { shopUrl: shop(), basePath: 'checkout' })).rejects.toThrow(/basePath must be/);
  });

  it('altered anywhere, or made with another key, is refused, and its page is 404 in both languages', async () => {
    const made = await link(cart());
    const body = made.link.slice(4);
    for (const index of [0, 8, Math.floor(body.length / 2), body.length - 1]) {
      const swapped = body[index] === 'A' ? 'B' : 'A';
      const altered = `pl1.${body.slice(0, index)}${swapped}${body.slice(index + 1)}`;
      expect((await readPaymentLink(altered, stack.merchant, sandboxNow())).ok).toBe(false);
    }
    const stranger = await createPaymentLink({ merchantId: stack.merchant.merchantId, privateKey: 'another-key' }, cart(), { shopUrl: shop() });
    expect(await readPaymentLink(stranger.link, stack.merchant, sandboxNow())).toMatchObject({ ok: false, reason: 'forged' });
    const page = await get(`${stack.url}/pay/${stranger.link}`);
    expect(page.status).toBe(404);
    const html = await page.text();
    expect(html).toContain('This payment link is not valid');
    expect(html).toContain('رابط الدفع هذا غير صالح');
    expect(html).not.toContain('<svc-checkout');
    const another = await createPaymentLink({ merchantId: '256699999999999', privateKey: stack.merchant.privateKey }, cart(), { shopUrl: shop() });
    expect(await readPaymentLink(another.link, stack.merchant, sandboxNow())).toMatchObject({ ok: false, reason: 'merchant' });
  });

  it('is never a checkout token, and a checkout token is never a link', async () => {
    const order = cart();
    const made = await link(order);
    expect(await verifyCheckoutToken(made.link, stack.merchant)).toMatchObject({ ok: false });
    const status = await fetch(`${stack.url}${MERCHANT_PATHS.status}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', [CHECKOUT_TOKEN_HEADER]: made.link },
      body: JSON.stringify({ country: 'EG', reference: order.reference }),
    });
    expect(((await status.json()) as { code: string }).code).toBe('02000');
    const token = await issueCheckoutToken(stack.merchant, order);
    expect(await readPaymentLink(token, stack.merchant)).toMatchObject({ ok: false, reason: 'malformed' });
    expect((await get(`${stack.url}/pay/${token}`)).status).toBe(404);
  });

  it('takes its lifetime from the command line as 3d, 12h, 90m or seconds', () => {
    expect([durationSeconds('3d'), durationSeconds('12h'), durationSeconds('90m'), durationSeconds('600')]).toEqual([259_200, 43_200, 5_400, 600]);
    expect(durationSeconds('3 weeks')).toBeUndefined();
  });
});

describe('the pay page', () => {
  it('shows the merchant, the order and the element, under a strict policy that no one may frame, sending no referrer', async () => {
    const order = cart({ payer: { name: 'Mona Adel', email: 'mona@example.com', phone: '+201001234567' } });
    const made = await link(order);
    const page = await get(made.url);
    expect(page.status).toBe(200);
    const policy = page.headers.get('content-security-policy') ?? '';
    expect(policy).toContain("frame-ancestors 'none'");
    expect(policy).toMatch(/script-src 'self'(;|$)/);
    expect(policy).toMatch(/style-src 'self' 'sha256-[\w+/=]+'/);
    expect(policy).not.toContain('unsafe');
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    expect(page.headers.get('cache-control')).toBe('no-store');
    // Gzipped for a browser that takes it (fetch does, and reads it back), as it is for one that does not.
    expect(page.headers.get('content-encoding')).toBe('gzip');
    expect(page.headers.get('vary')).toBe('Accept-Language, Accept-Encoding');
    const plain = await get(made.url, { headers: { 'Accept-Encoding': 'identity' } });
    expect(plain.headers.get('content-encoding')).toBe(null);
    const html = await page.text();
    const withoutToken = (text: string) => text.replace(/checkout-token="[^"]+"/, '');
    expect(withoutToken(await plain.text())).toBe(withoutToken(html));
    expect(html).toContain('Nile Coffee');
    expect(html).toContain('<h1>Coffee beans</h1>');
    expect(html).toContain('EGP\u00a0125.00');
    // Addresses relative to the page: the kit's base path wherever the shop mounts it.
    expect(html).toMatch(/<svc-checkout endpoint="\.\." checkout-token="ct1\.[^"]+" locale="en">/);
    expect(html).toContain(`src="../svc-checkout.js" integrity="sha384-`);
    expect(new URL('../svc-checkout.js', made.url).pathname).toBe('/checkout/svc-checkout.js');
    expect(await (await get(`${made.url}/`)).text()).toContain('src="../../svc-checkout.js"');
    expect(html).not.toMatch(/<script>|<script [^>]*>[^<]/);
    // The payer's contact stays in the link: neither the page nor its checkout token says it.
    for (const secret of ['mona', '201001234567']) expect(html).not.toContain(secret);
    const claims = parseCheckoutToken(tokenOf(html));
    expect(claims.ok && claims.token.claims).toMatchObject({ reference: order.reference, amount: order.amount, merchantName: 'Nile Coffee', started: true, attempt: 1 });
  });

  it('speaks Arabic to a browser that prefers it, and either language when asked', async () => {
    const made = await link(cart());
    const arabic = await (await get(made.url, { headers: { 'Accept-Language': 'ar-EG,ar;q=0.9,en;q=0.8' } })).text();
    expect(arabic).toContain('<html lang="ar" dir="rtl">');
    expect(arabic).toContain('locale="ar"');
    expect(arabic).toContain('125.00\u00a0ج.م.'); // with Latin digits
    expect(arabic).toContain('href="?lang=en"');
    const english = await (await get(`${made.url}?lang=en`, { headers: { 'Accept-Language': 'ar' } })).text();
    expect(english).toContain('<html lang="en" dir="ltr">');
    expect((await (await get(made.url, { headers: { 'Accept-Language': 'fr, ar;q=0.5' } })).text())).toContain('lang="ar"');
    expect((await (await get(made.url, { headers: { 'Accept-Language': 'fr' } })).text())).toContain('<html lang="en"');
  });

  it('answers GET and HEAD, without asking the service (a chat preview costs no query); other methods 405 with Allow', async () => {
    const made = await link(cart());
    const calls = await serviceCallsDuring(async () => {
      expect((await get(made.url, { headers: { 'User-Agent': 'WhatsApp/2.23 A' } })).status).toBe(200);
      const head = await get(made.url, { method: 'HEAD' });
      expect(head.status).toBe(200);
      expect(head.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      expect(await head.text()).toBe('');
    });
    expect(calls).toEqual([]);
    const post = await get(made.url, { method: 'POST', body: 'x' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });

  it('opened after the link expires (on the sandbox clock) says so in both languages: 410; a fresh link for the cart opens', async () => {
    const order = cart();
    const made = await link(order, { expiresInSeconds: 3_600 });
    // The kit reads the sandbox's clock here, as the shop's would read its own.
    const kit = await startStack({ sandbox: stack.sandbox, basePath: '/checkout', handler: { merchantName: 'Nile Coffee', elementFiles: cdn, now: sandboxNow, logger: { warn() {}, error() {} } } });
    try {
      const at = (url: string) => url.replace(shop(), new URL(kit.url).origin);
      expect((await get(at(made.url))).status).toBe(200);
      await control.advanceClock(61);
      const expired = await get(at(made.url), { headers: { 'Accept-Language': 'ar' } });
      expect(expired.status).toBe(410);
      expect(expired.headers.get('referrer-policy')).toBe('no-referrer');
      const html = await expired.text();
      expect(html.indexOf('انتهت صلاحية رابط الدفع هذا')).toBeLessThan(html.indexOf('This payment link has expired'));
      expect(html).toContain('Ask Nile Coffee for a new link');
      const fresh = await link(order);
      expect((await get(at(fresh.url))).status).toBe(200);
    } finally {
      await kit.close();
    }
  });

  it("is not served by a kit whose orders come from authorize (it would not hold to the link's order), nor made by it", async () => {
    const made = await link(cart());
    const authorizing = await startStack({
      sandbox: stack.sandbox,
      basePath: '/checkout',
      handler: { orders: 'authorize', authorize: (order: unknown) => order as never, authorizeAction: () => undefined, elementFiles: cdn, logger: { warn() {}, error() {} } },
    });
    try {
      const page = await get(made.url.replace(shop(), new URL(authorizing.url).origin));
      expect(page.status).toBe(404);
      expect(await page.text()).not.toContain('<svc-checkout');
      expect((await get(`${made.url.replace(shop(), new URL(authorizing.url).origin)}/qr.svg`)).status).toBe(404);
      expect(() => authorizing.handler.paymentLink(cart())).toThrow(/paymentLink makes links .* it needs orders: 'checkout-token'/);
    } finally {
      await authorizing.close();
    }
  });

  it("gives its holder this checkout alone: its token covers no other order, and says nothing of the payer", async () => {
    const mine = cart({ payer: { name: 'Mona Adel', email: 'mona@example.com' } });
    const theirs = cart();
    const made = await link(mine);
    const token = tokenOf(await (await get(made.url)).text());
    // Another cart's order exists at the service.
    const theirToken = await issueCheckoutToken(stack.merchant, theirs);
    const created = await fetch(`${stack.url}${MERCHANT_PATHS.create}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', [CHECKOUT_TOKEN_HEADER]: theirToken },
      body: JSON.stringify({ payMethod: 'Pos', sn: 'N78101818611' }),
    });
    expect(((await created.json()) as { code: string }).code).toBe('00000');
    const asked = await fetch(`${stack.url}${MERCHANT_PATHS.status}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', [CHECKOUT_TOKEN_HEADER]: token },
      body: JSON.stringify({ country: 'EG', reference: theirs.reference }),
    });
    const answer = (await asked.json()) as { code: string; data: unknown };
    expect(answer.code).toBe('02000');
    expect(JSON.stringify(answer)).not.toContain('N78101818611');
    const claims = parseCheckoutToken(token);
    expect(JSON.stringify(claims)).not.toContain('mona');
  });

  it('once its checkout has an order (paid on another device), the page starts where the kit left it and shows the payment', async () => {
    const order = cart();
    const made = await link(order);
    const first = tokenOf(await (await get(made.url)).text());
    const created = await fetch(`${stack.url}${MERCHANT_PATHS.create}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', [CHECKOUT_TOKEN_HEADER]: first },
      body: JSON.stringify({ payMethod: 'Pos', sn: 'N78101818612' }),
    });
    expect(((await created.json()) as { code: string }).code).toBe('00000');
    await control.swipe('N78101818612', 'success');
    const again = tokenOf(await (await get(made.url)).text());
    const status = await fetch(`${stack.url}${MERCHANT_PATHS.status}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', [CHECKOUT_TOKEN_HEADER]: again },
      body: JSON.stringify({ country: 'EG', reference: order.reference }),
    });
    const answer = (await status.json()) as { code: string; data: { status: string } };
    expect(answer.code).toBe('00000');
    expect(answer.data.status).toBe('SUCCESS');
    // A second create of the paid checkout makes no second payment.
    const second = await fetch(`${stack.url}${MERCHANT_PATHS.create}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', [CHECKOUT_TOKEN_HEADER]: again },
      body: JSON.stringify({ payMethod: 'Pos', sn: 'N78101818613' }),
    });
    expect(JSON.stringify(await second.json())).not.toContain('N78101818613');
  });
});

describe("the link's QR code", () => {
  /** The dark modules of the kit's SVG, as rows of booleans. */
  function modulesOf(svg: string): boolean[][] {
    const size = Number(/viewBox="0 0 (\d+) \1"/.exec(svg)?.[1]);
    const rows = Array.from({ length: size }, () => Array.from({ length: size }, () => false));
    for (const [, x, y] of svg.matchAll(/M(\d+) (\d+)h1v1h-1z/g)) rows[Number(y)]![Number(x)] = true;
    return rows;
  }

  it("is the pay page's address, drawn by the kit, offered on the page with the address to copy", async () => {
    const made = await link(cart());
    const html = await (await get(made.url)).text();
    expect(html).toContain('<details class="move"><summary>Pay on your phone</summary>');
    expect(html).toContain(`src="../pay/${made.link}/qr.svg"`);
    expect(html).toContain(`value="${made.url}"`);
    const answer = await get(`${made.url}/qr.svg`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('image/svg+xml; charset=utf-8');
    expect(answer.headers.get('content-security-policy')).toContain("default-src 'none'");
    const svg = await answer.text();
    const modules = modulesOf(svg);
    expect(modules).toEqual(encode(made.url, { ecc: 'M', border: 4 }).data);
    // A finder pattern in three corners, inside four modules of quiet zone: a QR code a camera finds.
    const size = modules.length;
    for (const [top, left] of [[4, 4], [4, size - 11], [size - 11, 4]] as const) {
      const ring = [0, 1, 2, 3, 4, 5, 6].every((i) => modules[top]![left + i] && modules[top + 6]![left + i] && modules[top + i]![left] && modules[top + i]![left + 6]);
      expect(ring && modules[top + 3]![left + 3] && !modules[top + 1]![left + 1]).toBe(true);
    }
    expect(modules[0]!.some(Boolean) || modules[3]!.some(Boolean)).toBe(false);
  });

  it('is drawn only for a link the kit made and that is still good', async () => {
    const made = await link(cart());
    const altered = `${made.url.slice(0, -2)}${made.url.endsWith('AA') ? 'BB' : 'AA'}`;
    expect((await get(`${altered}/qr.svg`)).status).toBe(404);
    expect((await get(`${shop()}/checkout/pay/https%3A%2F%2Fevil.example/qr.svg`)).status).toBe(404);
    const past = await link(cart(), { now: Date.now() - 8 * 86_400_000 });
    expect((await get(`${past.url}/qr.svg`)).status).toBe(410);
  });
});

describe('where a reference code is paid', () => {
  it("says the kit's plain words in the page's language, or the shop's own (whereToPay)", async () => {
    const made = await link(cart());
    const english = await (await get(made.url)).text();
    expect(english).toContain('<h2>Paying by reference code</h2><p>A reference code is paid later, in cash or from your bank');
    const arabic = await (await get(`${made.url}?lang=ar`)).text();
    expect(arabic).toContain('<h2>الدفع بالرمز المرجعي</h2><p>يُدفع الرمز المرجعي لاحقًا');
    const whereToPay = { en: 'Pay it at any Fawry-style kiosk <or> in your bank app.', ar: 'ادفعه في أي منفذ دفع أو من تطبيق بنكك.' };
    const kit = await startStack({ sandbox: stack.sandbox, basePath: '/checkout', handler: { whereToPay, elementFiles: cdn, logger: { warn() {}, error() {} } } });
    try {
      const at = made.url.replace(shop(), new URL(kit.url).origin);
      expect(await (await get(at)).text()).toContain('<p>Pay it at any Fawry-style kiosk &#60;or&#62; in your bank app.</p>');
      expect(await (await get(`${at}?lang=ar`)).text()).toContain(`<p>${whereToPay.ar}</p>`);
    } finally {
      await kit.close();
    }
    const options = { merchantId: stack.merchant.merchantId, privateKey: stack.merchant.privateKey, environment: { baseUrl: stack.sandbox.url } };
    expect(() => createMerchantHandler({ ...options, whereToPay: { en: 'Anywhere' } as never })).toThrow(/whereToPay must be an object of en and ar texts/);
  });
});
