/**
 * The payer's contact a payment link carries (docs/pay-links.md, "The payer's contact"), against the real sandbox and
 * kit: the pay page's checkout token carries it sealed under a key of its own, with only which of the notice's fields it
 * holds in clear; the kit fills a reference code's notice from it where the payer left the fields empty (the sandbox's
 * outbox shows where the code went), a typed contact wins, and nothing of it reaches the page, an answer or a log line.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHECKOUT_TOKEN_HEADER, contactOnFile, encodeCheckoutPayload, KIT_PAGE_PATHS, MERCHANT_PATHS, ORDER_TOKEN_HEADER, parseCheckoutToken, readTokenPayload } from '../../src/core/index.js';
import { createPaymentLink, issueCheckoutToken, readPaymentLink, verifyCheckoutToken, type PaymentLinkOrder } from '../../src/server/index.js';
import { openPayerContact } from '../../src/server/tokens/contact.js';
import { hmacSha512Bytes } from '../../src/server/runtime/signature.js';
import { SandboxControl, startStack } from '../../src/sandbox/index.js';
import { newCart } from '../support/carts.js';

type Stack = Awaited<ReturnType<typeof startStack>>;
let stack: Stack;
let control: SandboxControl;
const logged: string[] = [];
const cdn = new URL('../../dist/cdn/', import.meta.url);

beforeAll(async () => {
  const logger = { warn: (line: string) => void logged.push(line), error: (line: string) => void logged.push(line) };
  stack = await startStack({ basePath: '/checkout', handler: { merchantName: 'Nile Coffee', elementFiles: cdn, logger } });
  control = new SandboxControl(stack.sandbox.url);
});
afterAll(() => stack.close());

const MONA = { name: 'Mona Adel', email: 'mona.adel@example.com', phone: '+201001234567' };
const SECRETS = ['Mona', 'mona.adel', 'example.com', '1001234567'];

const cart = (extra: Partial<PaymentLinkOrder> = {}) => newCart<PaymentLinkOrder>('contact', extra);

const tokenOf = (html: string) => /checkout-token="([^"]+)"/.exec(html)?.[1] ?? '';

/** The pay page of a new link for `order`: its HTML and its checkout token. */
async function payPage(order: PaymentLinkOrder): Promise<{ html: string; token: string }> {
  const made = await createPaymentLink(stack.merchant, order, { shopUrl: new URL(stack.url).origin, basePath: '/checkout', now: stack.sandbox.clock.now() });
  for (const secret of SECRETS) expect(made.url).not.toContain(secret);
  const html = await (await fetch(made.url)).text();
  return { html, token: tokenOf(html) };
}

/** A reference code's create with the page's token, as the element sends it: every answer's text (body and headers). */
async function create(token: string, notify: Record<string, string>) {
  const response = await fetch(`${stack.url}${MERCHANT_PATHS.create}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', [CHECKOUT_TOKEN_HEADER]: token },
    body: JSON.stringify({ payMethod: 'ReferenceCode', notify: { notifyLanguage: 'English', ...notify } }),
  });
  const text = await response.text();
  const answer = JSON.parse(text) as { code: string; message?: string; data?: { orderNo?: string; referenceCode?: string } };
  return { answer, text: `${text}\n${[...response.headers].map(([name, value]) => `${name}: ${value}`).join('\n')}`, orderToken: response.headers.get(ORDER_TOKEN_HEADER) };
}

/** Where the sandbox sent an order's code: each message's channel and address. */
async function sentTo(orderNo: string) {
  return (await control.notifications({ orderNo })).map((message) => `${message.channel} ${message.to}`).sort();
}

describe("the payer's contact a link carries", () => {
  it('goes into the pay page token sealed, with only which fields are on file in clear', async () => {
    const { html, token } = await payPage(cart({ payer: MONA }));
    const payload = readTokenPayload(token, 'checkout');
    if (typeof payload === 'string') throw new Error(payload);
    const decoded = JSON.stringify(payload.short);
    for (const secret of SECRETS) {
      expect(html).not.toContain(secret);
      expect(decoded).not.toContain(secret);
    }
    expect(payload.short['cf']).toBe('nem');
    expect(payload.short['pc']).toMatch(/^[\w-]{40,}$/);
    expect(contactOnFile(token)).toEqual(['notify.notifyUserName', 'notify.notifyUserEmail', 'notify.notifyUserMobile']);
    const parsed = parseCheckoutToken(token);
    expect(parsed.ok && parsed.token.claims.contactOnFile).toBe('nem');
    // Only the kit's key opens it, for this checkout alone.
    const claims = (await verifyCheckoutToken(token, stack.merchant, stack.sandbox.clock.now())) as { ok: true; claims: { merchantId: string; reference: string; payerContact?: string } };
    expect(await openPayerContact(stack.merchant.privateKey, claims.claims)).toEqual(MONA);
    expect(await openPayerContact('another-key', claims.claims)).toBe('forged');
    expect(await openPayerContact(stack.merchant.privateKey, { ...claims.claims, reference: 'another-cart' })).toBe('forged');
    // A link without a contact: neither claim.
    const plain = readTokenPayload((await payPage(cart())).token, 'checkout');
    expect(typeof plain === 'object' && ['pc', 'cf'].some((key) => key in plain.short)).toBe(false);
  });

  it('fills the notice the payer leaves empty: the email for a code by email, the mobile for one by SMS, never said back', async () => {
    const before = logged.length;
    const byEmail = await create((await payPage(cart({ payer: MONA }))).token, { notifyMethod: 'EMAIL' });
    expect(byEmail.answer.code).toBe('00000');
    expect(await sentTo(byEmail.answer.data!.orderNo!)).toEqual([`EMAIL ${MONA.email}`]);
    const bySms = await create((await payPage(cart({ payer: MONA }))).token, { notifyMethod: 'SMS', notifyUserName: '', notifyUserMobile: ' ' });
    expect(bySms.answer.code).toBe('00000');
    expect(await sentTo(bySms.answer.data!.orderNo!)).toEqual([`SMS ${MONA.phone}`]);
    const byBoth = await create((await payPage(cart({ payer: MONA }))).token, {});
    expect(byBoth.answer.code).toBe('00000');
    expect(await sentTo(byBoth.answer.data!.orderNo!)).toEqual([`EMAIL ${MONA.email}`, `SMS ${MONA.phone}`]);
    const orderStatus = await fetch(`${stack.url}${MERCHANT_PATHS.status}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', [ORDER_TOKEN_HEADER]: byBoth.orderToken! },
      body: JSON.stringify({ country: 'EG', reference: '' }),
    });
    const everything = [byEmail.text, bySms.text, byBoth.text, await orderStatus.text(), ...logged.slice(before)].join('\n');
    for (const secret of SECRETS) expect(everything).not.toContain(secret);
  });

  it('gives way, whole, to a contact the payer types: none of it is filled then', async () => {
    const typed = await create((await payPage(cart({ payer: MONA }))).token, { notifyMethod: 'EMAIL', notifyUserName: 'Omar', notifyUserEmail: 'omar@example.org' });
    expect(typed.answer.code).toBe('00000');
    const sent = await control.notifications({ orderNo: typed.answer.data!.orderNo! });
    expect(sent.map((message) => `${message.channel} ${message.to}`)).toEqual(['EMAIL omar@example.org']);
    expect(sent[0]!.text).toContain('Hello Omar,');
    // Typed in part, by both: the mobile number on file is not taken either; every field the channel needs is asked.
    const part = await create((await payPage(cart({ payer: MONA }))).token, { notifyMethod: 'BOTH', notifyUserName: 'Omar', notifyUserEmail: 'omar@example.org' });
    expect(part.answer.code).not.toBe('00000');
    expect(part.text).toContain('notify.notifyUserMobile');
    // A typed contact is checked as ever: a bad one is refused naming the field, never filled over.
    const bad = await create((await payPage(cart({ payer: MONA }))).token, { notifyMethod: 'EMAIL', notifyUserEmail: 'not an address' });
    expect(bad.answer.code).not.toBe('00000');
    expect(bad.text).toContain('notify.notifyUserEmail');
  });

  it("never puts the shop's name of the payer in a message to a typed address, nor a typed name in one to the shop's", async () => {
    const everyMessage = async () => (await control.notifications()).map((message) => `${message.channel} ${message.to}\n${message.subject ?? ''}\n${message.text}`);
    const before = (await everyMessage()).length;
    // A link holder's own address, the name left empty: the shop's name of the payer is not read into "Hello …".
    const ownAddress = await create((await payPage(cart({ payer: MONA }))).token, { notifyMethod: 'EMAIL', notifyUserEmail: 'holder@example.org' });
    expect(ownAddress.answer.code).not.toBe('00000');
    expect(ownAddress.text).toContain('notify.notifyUserName');
    // A name of the holder's choosing, the address left empty: no text of theirs goes to the payer's address.
    const ownWords = await create((await payPage(cart({ payer: MONA }))).token, { notifyMethod: 'EMAIL', notifyUserName: 'Call 0100 now to claim a prize' });
    expect(ownWords.answer.code).not.toBe('00000');
    expect(ownWords.text).toContain('notify.notifyUserEmail');
    const bySms = await create((await payPage(cart({ payer: MONA }))).token, { notifyMethod: 'BOTH', notifyUserName: 'Call 0100 now', notifyUserEmail: 'holder@example.org' });
    expect(bySms.text).toContain('notify.notifyUserMobile');
    const since = (await everyMessage()).slice(before).join('\n');
    expect(since).not.toContain('Mona');
    expect(since).not.toContain(MONA.email);
    expect(since).not.toContain(MONA.phone);
    expect(since).not.toContain('prize');
  });

  it('is asked of the payer where the link has none of it, naming the field', async () => {
    const none = await create((await payPage(cart())).token, { notifyMethod: 'EMAIL', notifyUserName: 'Omar' });
    expect(none.answer.code).not.toBe('00000');
    expect(none.text).toContain('notify.notifyUserEmail');
    // An email on file does not stand for a mobile number.
    const emailOnly = await create((await payPage(cart({ payer: { name: MONA.name, email: MONA.email } }))).token, { notifyMethod: 'SMS' });
    expect(emailOnly.answer.code).not.toBe('00000');
    expect(emailOnly.text).toContain('notify.notifyUserMobile');
    for (const secret of SECRETS) expect(emailOnly.text).not.toContain(secret);
  });

  it('refuses a token whose sealed contact was altered, and takes no sealed contact a shop hands in', async () => {
    const { token } = await payPage(cart({ payer: MONA }));
    const [kind, payload, tag] = token.split('.') as [string, string, string];
    const short = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, string>;
    const sealed = short['pc']!;
    short['pc'] = `${sealed.slice(0, 20)}${sealed[20] === 'A' ? 'B' : 'A'}${sealed.slice(21)}`;
    const altered = `${kind}.${Buffer.from(JSON.stringify(short)).toString('base64url')}.${tag}`;
    const refused = await create(altered, {});
    expect(refused.answer.code).toBe('02000');
    // A shop's own sealed value (or one copied from another token) is never taken: the kit seals only the `payer` it is given.
    const copied = await issueCheckoutToken(stack.merchant, { ...cart(), payerContact: sealed, contactOnFile: 'nem' } as never);
    const copiedPayload = readTokenPayload(copied, 'checkout');
    expect(typeof copiedPayload === 'object' && ['pc', 'cf'].some((key) => key in copiedPayload.short)).toBe(false);
    const withCopy = await create(copied, { notifyMethod: 'EMAIL', notifyUserName: 'Omar' });
    expect(withCopy.text).toContain('notify.notifyUserEmail');
  });

  it("refuses a validly signed token carrying another cart's sealed contact: at the create, at the handoff, and sends nothing", async () => {
    // The sealed contact of one cart, replayed into a token of another, signed with the merchant's key as the kit signs
    // (its claims encoded by core's encoder, tagged with HMAC-SHA512 under the checkout tokens' key): only the seal's
    // binding to its checkout can refuse it.
    const now = stack.sandbox.clock.now();
    const theirs = readTokenPayload(await issueCheckoutToken(stack.merchant, { ...cart(), payer: MONA }, { now }), 'checkout');
    if (typeof theirs === 'string') throw new Error(theirs);
    const mine = await verifyCheckoutToken(await issueCheckoutToken(stack.merchant, cart(), { now }), stack.merchant, now);
    if (!mine.ok) throw new Error(mine.reason);
    const claims = { ...mine.claims, payerContact: theirs.short['pc'] as string, contactOnFile: 'nem' };
    const signed = `ct1.${encodeCheckoutPayload(claims)}`;
    const key = await hmacSha512Bytes(stack.merchant.privateKey, 'svc-checkout:checkout-token:v1');
    const replayed = `${signed}.${Buffer.from((await hmacSha512Bytes(key, signed)).subarray(0, 32)).toString('base64url')}`;
    const verified = await verifyCheckoutToken(replayed, stack.merchant, now);
    expect(verified.ok && verified.claims.payerContact, 'the signature holds').toBe(theirs.short['pc']);
    const before = (await control.notifications()).length;
    const made = await create(replayed, { notifyMethod: 'BOTH' });
    expect(made.answer.code).toBe('02000');
    expect((made.answer as { data?: { reason?: string } }).data?.reason).toBe('forged');
    const handoff = await fetch(`${stack.url}${KIT_PAGE_PATHS.handoff}`, { method: 'POST', headers: { [CHECKOUT_TOKEN_HEADER]: replayed } });
    expect(handoff.status).toBe(401);
    const text = `${made.text}\n${await handoff.text()}`;
    for (const secret of SECRETS) expect(text).not.toContain(secret);
    expect((await control.notifications()).length, 'nothing sent').toBe(before);
  });

  it('goes on, sealed again, in the link "Pay on your phone" makes of the token, and in none of its answer', async () => {
    const token = await issueCheckoutToken(stack.merchant, { ...cart(), payer: MONA }, { now: stack.sandbox.clock.now() });
    const answer = await fetch(`${stack.url}${KIT_PAGE_PATHS.handoff}`, { method: 'POST', headers: { [CHECKOUT_TOKEN_HEADER]: token } });
    expect(answer.status).toBe(200);
    const text = await answer.text();
    for (const secret of SECRETS) expect(text).not.toContain(secret);
    const { url } = JSON.parse(text) as { url: string };
    const read = await readPaymentLink(url.split('/').at(-1), stack.merchant, stack.sandbox.clock.now());
    expect(read.ok && read.claims.payer).toEqual(MONA);
  });

  it('is refused when made where it would make a token no kit reads, never at the create', async () => {
    const tooLong = (error: unknown) => (error as { violations?: { field: string; message: string }[] }).violations?.map((each) => `${each.field}: ${each.message}`).join('; ');
    // The longest Arabic product and shop's name the rules take, with an Arabic name of 84 letters: the pay page's token
    // would be over the payload a kit reads (every create refused 02000 malformed).
    const arabic = (length: number) => 'ق'.repeat(length);
    const product = { name: arabic(256), description: arabic(1024) };
    const name = arabic(84);
    const link = (payer?: PaymentLinkOrder['payer']) =>
      createPaymentLink(stack.merchant, cart({ product, merchantName: arabic(100), ...(payer ? { payer } : {}) }), { shopUrl: new URL(stack.url).origin, basePath: '/checkout', now: stack.sandbox.clock.now() });
    const plain = await link();
    expect((await fetch(plain.url)).status, 'the product alone fits').toBe(200);
    const refused = await link({ name, email: MONA.email }).then(() => 'made', tooLong);
    expect(refused).toMatch(/^payer: payer is too long for a checkout token/);
    await expect(issueCheckoutToken(stack.merchant, { ...cart({ product, merchantName: arabic(100) }), payer: { name, email: MONA.email } })).rejects.toMatchObject({ name: 'CheckoutTokenError', violations: [{ field: 'payer' }] });
    // An email of 250 CJK characters passes the email rule, and seals to more than a token's sealed value may be.
    const email = `${'邮'.repeat(244)}@例子.中国`;
    const issued = await issueCheckoutToken(stack.merchant, { ...cart(), payer: { name: 'Mona', email } }, { now: stack.sandbox.clock.now() }).then(async (token) => JSON.stringify(await verifyCheckoutToken(token, stack.merchant, stack.sandbox.clock.now())), tooLong);
    expect(issued).toMatch(/^payer: payer is too long for a checkout token/);
    expect(await link({ name: 'Mona', email }).then(() => 'made', tooLong)).toMatch(/^payer: /);
    // A shorter one of the same kind fits, and works.
    const fits = await issueCheckoutToken(stack.merchant, { ...cart(), payer: { name: 'Mona', email: `${'邮'.repeat(60)}@例子.中国` } }, { now: stack.sandbox.clock.now() });
    expect((await verifyCheckoutToken(fits, stack.merchant, stack.sandbox.clock.now())).ok).toBe(true);
  });

  it("does not say which limit refused a create whose contact came from the seal: it would tell a guessed address is the shop's", async () => {
    const limited = await startStack({ basePath: '/checkout', handler: { merchantName: 'Nile Coffee', elementFiles: cdn, limits: { messagesPerEmail: { limit: 2, windowSeconds: 3_600 } } } });
    try {
      const guess = `guess-${Date.now().toString(36)}@example.com`;
      const tokenFor = (order: PaymentLinkOrder) => issueCheckoutToken(limited.merchant, order, { now: limited.sandbox.clock.now() });
      const createOn = async (token: string, notify: Record<string, string>) => {
        const response = await fetch(`${limited.url}${MERCHANT_PATHS.create}`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', [CHECKOUT_TOKEN_HEADER]: token },
          body: JSON.stringify({ payMethod: 'ReferenceCode', notify: { notifyLanguage: 'English', notifyMethod: 'EMAIL', ...notify } }),
        });
        return (await response.json()) as { code: string; data?: Record<string, unknown> };
      };
      // A holder spends the guessed address's limit from carts of their own, typing it.
      for (let sent = 0; sent < 2; sent += 1) expect((await createOn(await tokenFor(cart()), { notifyUserName: 'Eve', notifyUserEmail: guess })).code).toBe('00000');
      const typed = await createOn(await tokenFor(cart()), { notifyUserName: 'Eve', notifyUserEmail: guess });
      expect(typed.code).toBe('TOO_MANY_REQUESTS');
      expect(typed.data?.['limit'], 'a typed address: the limit is named, as ever').toBe('messagesPerEmail');
      // The link whose contact on file is that address: refused, without the limit's name.
      const onFile = await createOn(await tokenFor({ ...cart(), payer: { name: MONA.name, email: guess } }), {});
      expect(onFile.code).toBe('TOO_MANY_REQUESTS');
      expect(onFile.data).not.toHaveProperty('limit');
      expect(onFile.data?.['retryAfterSeconds']).toBeGreaterThan(0);
      expect(JSON.stringify(onFile)).not.toContain(guess);
    } finally {
      await limited.close();
    }
  });

  it("is checked as a typed contact is, where a shop gives it with a token of its own", async () => {
    await expect(issueCheckoutToken(stack.merchant, { ...cart(), payer: { name: 'Omar', phone: '12' } })).rejects.toThrow(/payer\.phone/);
    // A contact a notice cannot be sent with whole (it is used whole or not at all) is refused where it is given.
    await expect(issueCheckoutToken(stack.merchant, { ...cart(), payer: { email: 'omar@example.com' } })).rejects.toMatchObject({ violations: [{ field: 'payer.name', rule: 'required', message: 'payer.name is required' }] });
    await expect(issueCheckoutToken(stack.merchant, { ...cart(), payer: { name: 'Omar' } })).rejects.toMatchObject({ violations: [{ field: 'payer.email', rule: 'required', message: 'payer.email or payer.phone is required' }] });
    const token = await issueCheckoutToken(stack.merchant, { ...cart(), payer: { name: 'Omar', phone: '+201001112223' } });
    expect(contactOnFile(token)).toEqual(['notify.notifyUserName', 'notify.notifyUserMobile']);
    const made = await create(token, { notifyMethod: 'SMS' });
    expect(made.answer.code).toBe('00000');
    expect(await sentTo(made.answer.data!.orderNo!)).toEqual(['SMS +201001112223']);
  });
});
