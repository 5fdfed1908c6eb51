// The kit's diagnostics channels (src/server/diagnostics.ts, docs/observability.md) over a whole run: every method, the
// codes, a throttled resend, callbacks handled, repeated, forged and broken, status streams that settle and that the
// payer leaves, a reconciliation sweep, Redis coming up, a page's timings. A subscriber on every channel keeps every
// payload as it was at each event; each must be what the documentation lists, and none may carry a key, a
// signature, a token, an account number, a code, a phone number, an email address or a name.
import { subscribe, tracingChannel, unsubscribe } from 'node:diagnostics_channel';
import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CALLBACK_TYPE, CHECKOUT_TOKEN_HEADER, MERCHANT_PATHS, ORDER_TOKEN_HEADER } from '../../src/core/index.js';
import { DEFAULT_MERCHANT } from '../../src/sandbox/index.js';
import { CHANNELS, signCallback } from '../../src/server/index.js';
import { type CallbackEvent } from '../../src/server/callbacks/hand-over.js';
import { connectRedis, type RedisKit } from '../../src/server/redis/connect.js';
import { bankAccountRequest, posRequest, referenceCodeRequest } from '../core/fixtures.js';
import { startRedis, type TestRedis } from '../support/redis-server.js';
import { eventually, wire, type Wired } from '../support/sandbox-fixture.js';
import { openStream } from '../support/sse.js';
import { tokenFor } from '../support/tokens.js';

const TRACING = ['service', 'request', 'callback', 'stream', 'sweep'] as const;
const PLAIN = ['redis', 'timing'] as const;
const PHASES = ['start', 'end', 'asyncStart', 'asyncEnd', 'error'] as const;

interface Seen {
  channel: string;
  phase: string;
  /** The payload as it was at this event (the context object is filled in as the work goes). */
  copy: Record<string, unknown>;
  /** Everything in it, errors and their causes included, as text. */
  text: string;
}

const seen: Seen[] = [];
const record = (name: string, phase: string) => (message: unknown) => {
  const payload = message as Record<string, unknown>;
  seen.push({ channel: name, phase, copy: { ...payload }, text: inspect(payload, { depth: Infinity, breakLength: Infinity }) });
};
const handlers = Object.fromEntries(
  TRACING.map((name) => [name, Object.fromEntries(PHASES.map((phase) => [phase, record(CHANNELS[name], phase)]))]),
) as Record<(typeof TRACING)[number], Record<(typeof PHASES)[number], (message: unknown) => void>>;
const plainHandlers = Object.fromEntries(PLAIN.map((name) => [name, record(CHANNELS[name], 'publish')])) as Record<(typeof PLAIN)[number], (message: unknown) => void>;

const ended = (name: keyof typeof CHANNELS) => seen.filter((entry) => entry.channel === CHANNELS[name] && entry.phase === 'asyncEnd').map((entry) => entry.copy);

let redis: TestRedis;
let shared: RedisKit;
let wired: Wired;
const handled: CallbackEvent[] = [];
/** Values the run used that must never reach a payload. */
const secrets = new Set<string>([DEFAULT_MERCHANT.privateKey, '2215381176', '2215381183', '2215381200', '11315632', '00000000', 'mona@example.com', '+201001234567', '201001234567', 'Mona Hassan']);
/** Short ones, searched as whole words. */
const shortSecrets = ['1234', '1990'];

beforeAll(async () => {
  for (const name of TRACING) tracingChannel(CHANNELS[name]).subscribe(handlers[name]);
  for (const name of PLAIN) subscribe(CHANNELS[name], plainHandlers[name]);
  redis = await startRedis();
  shared = await connectRedis({ url: redis.url, merchantId: DEFAULT_MERCHANT.merchantId, logger: { warn: () => undefined, error: () => undefined } });
  wired = await wire({
    handler: {
      ...shared.stores,
      onCallback: (event) => {
        handled.push(event);
      },
      // Swept only when the test says (handler.reconcile), for orders quiet for 200 ms.
      reconcile: { quietSeconds: 0.2, sweepSeconds: false },
    },
  });
}, 30_000);

afterAll(async () => {
  for (const name of TRACING) tracingChannel(CHANNELS[name]).unsubscribe(handlers[name]);
  for (const name of PLAIN) unsubscribe(CHANNELS[name], plainHandlers[name]);
  await wired?.close();
  await shared?.close();
  await redis?.stop();
});

async function created(body: Record<string, unknown>) {
  const answer = await wired.merchant(MERCHANT_PATHS.create, body);
  expect(answer.code, JSON.stringify(answer)).toBe('00000');
  return answer.data as { orderNo: string; referenceCode?: string; nextAction?: { actionType: string } };
}

/** A create as the element makes it, with the order token the kit answers (for a stream). */
async function createdWithToken(body: Record<string, unknown>) {
  const checkoutToken = await tokenFor(DEFAULT_MERCHANT, body);
  const response = await fetch(`${wired.merchantUrl}${MERCHANT_PATHS.create}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', [CHECKOUT_TOKEN_HEADER]: checkoutToken },
    body: JSON.stringify(body),
  });
  const answer = (await response.json()) as { code: string; data: { orderNo: string } };
  expect(answer.code).toBe('00000');
  const token = response.headers.get(ORDER_TOKEN_HEADER)!;
  secrets.add(checkoutToken).add(token);
  return { orderNo: answer.data.orderNo, token };
}

const handledOf = (orderNo: string, source = 'callback') => eventually(`${source} of ${orderNo}`, () => handled.find((event) => event.body.orderNo === orderNo && event.source === source));

/** A callback as the service would send it, signed with `key`. */
async function callback(body: Record<string, unknown>, key = DEFAULT_MERCHANT.privateKey) {
  const text = JSON.stringify(body);
  const timestamp = String(Date.now());
  return fetch(`${wired.merchantUrl}${MERCHANT_PATHS.callbacks}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: await signCallback(timestamp, text, key), MerchantId: DEFAULT_MERCHANT.merchantId, RequestTimestamp: timestamp },
    body: text,
  });
}

describe('the diagnostics channels over a whole run', () => {
  it('trace every part of it, and never carry a secret or anything of the payer', async () => {
    // Every method, paid.
    const pos = await created(posRequest({ reference: 'diag-pos', sn: 'SN-DIAG-1' }));
    await wired.sandboxControl.swipe('SN-DIAG-1');
    const posPaid = await handledOf(pos.orderNo);

    const otp = await created(bankAccountRequest({ reference: 'diag-otp', bankAccountNumber: '2215381176' }));
    expect((await wired.merchant(MERCHANT_PATHS.otp, { orderNo: otp.orderNo, otp: '00000000' })).code).not.toBe('00000');
    expect((await wired.merchant(MERCHANT_PATHS.resendOtp, { orderNo: otp.orderNo })).code).toBe('00000');
    expect((await wired.merchant(MERCHANT_PATHS.resendOtp, { orderNo: otp.orderNo })).code).toBe('TOO_MANY_REQUESTS');
    expect((await wired.merchant(MERCHANT_PATHS.otp, { orderNo: otp.orderNo, otp: '11315632' })).data.status).toBe('SUCCESS');

    const pin = await created(bankAccountRequest({ reference: 'diag-pin', bankAccountNumber: '2215381183' }));
    expect((await wired.merchant(MERCHANT_PATHS.pin, { orderNo: pin.orderNo, pin: '1234' })).data.status).toBe('SUCCESS');

    const secure = await created(bankAccountRequest({ reference: 'diag-3ds', bankAccountNumber: '2215381200' }));
    expect(secure.nextAction?.actionType).toBe('REDIRECT_3DS');
    await wired.sandboxControl.threeDs(secure.orderNo, 'approve');

    const code = await created(referenceCodeRequest({ reference: 'diag-code' }));
    secrets.add(code.referenceCode!);
    await wired.sandboxControl.payReferenceCode(code.referenceCode!);
    await Promise.all([otp, pin, secure, code].map((order) => handledOf(order.orderNo)));

    // Refused, invalid, asked about.
    expect((await wired.merchant(MERCHANT_PATHS.create, bankAccountRequest({ reference: 'diag-bad', dobDay: '31', dobMonth: '02' }))).code).toBe('02001');
    const unproven = await fetch(`${wired.merchantUrl}${MERCHANT_PATHS.status}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"country":"EG","reference":"diag-pos"}' });
    expect(((await unproven.json()) as { code: string }).code).toBe('02000');
    expect((await wired.merchant(MERCHANT_PATHS.status, { reference: 'diag-pos', country: 'EG' })).data.status).toBe('SUCCESS');

    // Status streams: one the payment settles, one the payer leaves.
    const watched = await createdWithToken(posRequest({ reference: 'diag-stream', sn: 'SN-DIAG-2' }));
    const settling = await openStream(`${wired.merchantUrl}${MERCHANT_PATHS.events}`, { [ORDER_TOKEN_HEADER]: watched.token });
    await settling.next('status');
    await wired.sandboxControl.swipe('SN-DIAG-2');
    await settling.next('end');
    const left = await createdWithToken(posRequest({ reference: 'diag-left', sn: 'SN-DIAG-3' }));
    const leaving = await openStream(`${wired.merchantUrl}${MERCHANT_PATHS.events}`, { [ORDER_TOKEN_HEADER]: left.token });
    await leaving.next('status');
    leaving.close();
    await eventually('the stream the payer left to close', () => ended('stream').some((trace) => trace['reason'] === 'client'));

    // Callbacks: one repeated, one forged, one broken.
    await wired.sandboxControl.resendCallback(posPaid.notifyId);
    const forged = { notifyId: 'diag-forged', reference: 'diag-pos', amount: { total: 12_500, currency: 'EGP' }, orderNo: pos.orderNo, country: 'EG', status: 'FAIL', timestamp: Date.now(), type: CALLBACK_TYPE };
    expect((await callback(forged, 'not-the-key')).status).toBe(401);
    const { status: _status, ...broken } = forged;
    expect((await callback(broken)).status).toBe(400);

    // A payment whose callback never comes: a sweep finds it.
    const lost = await created(posRequest({ reference: 'diag-lost', sn: 'SN-DIAG-4' }));
    await wired.sandboxControl.addDeliveryFault({ kind: 'omit', orderNo: lost.orderNo });
    await wired.sandboxControl.swipe('SN-DIAG-4');
    await new Promise((resolve) => setTimeout(resolve, 300));
    await wired.handler.reconcile();
    await handledOf(lost.orderNo, 'reconciliation');
    await wired.sandboxControl.complete(left.orderNo, { status: 'CLOSE' });

    // A page's timings, with something it should not have sent.
    const beacon = await fetch(`${wired.merchantUrl}${MERCHANT_PATHS.timings}`, {
      method: 'POST',
      headers: { 'Content-Type': 'text/plain;charset=UTF-8' },
      body: JSON.stringify({ timings: [{ kind: 'step', step: 'form', method: 'ReferenceCode', ms: 8_200, email: 'mona@example.com' }, { kind: 'first-frame', ms: 310 }, { kind: 'stop', ms: 1 }] }),
    });
    expect(beacon.status).toBe(204);
    await wired.sandbox.idle();

    // What each channel said.
    const services = ended('service');
    expect(new Set(services.map((trace) => trace['operation']))).toEqual(new Set(['create', 'inputOtp', 'resendOtp', 'inputPin', 'status']));
    for (const trace of services) expect(trace).toMatchObject({ path: expect.stringMatching(/^\/api\//), attempt: 1, status: 200, code: expect.any(String), durationMs: expect.any(Number) });

    const requests = ended('request');
    const outcomes = requests.map((trace) => `${trace['route']} ${trace['outcome']}${trace['limit'] ? ` ${trace['limit']}` : ''}`);
    expect(outcomes).toEqual(
      expect.arrayContaining(['create ok', 'create invalid', 'status refused', 'status ok', 'otp ok', 'pin ok', 'resendOtp ok', 'resendOtp throttled resendOtp', 'events ok']),
    );
    expect(requests.filter((trace) => trace['route'] === 'create' && trace['outcome'] === 'ok').map((trace) => trace['method'])).toEqual(
      expect.arrayContaining(['Pos', 'BankAccount', 'ReferenceCode']),
    );

    const callbacks = ended('callback');
    expect(callbacks.find((trace) => trace['orderNo'] === pos.orderNo && trace['outcome'] === 'handled')).toMatchObject({
      source: 'callback',
      verified: true,
      status: 'SUCCESS',
      eventAt: expect.any(Number),
      handlerMs: expect.any(Number),
      lagMs: expect.any(Number),
    });
    expect(callbacks.find((trace) => trace['orderNo'] === pos.orderNo && trace['outcome'] === 'duplicate')).toMatchObject({ verified: true });
    expect(callbacks).toEqual(expect.arrayContaining([expect.objectContaining({ outcome: 'rejected', verified: false, reason: 'bad-signature' }), expect.objectContaining({ outcome: 'invalid', verified: true })]));
    expect(callbacks.find((trace) => trace['source'] === 'reconciliation')).toMatchObject({ orderNo: lost.orderNo, status: 'SUCCESS', outcome: 'handled', handlerMs: expect.any(Number) });

    const streams = ended('stream');
    expect(streams).toEqual(expect.arrayContaining([expect.objectContaining({ orderNo: watched.orderNo, reason: 'terminal' }), expect.objectContaining({ orderNo: left.orderNo, reason: 'client' })]));
    expect(ended('sweep')).toEqual([expect.objectContaining({ asked: expect.any(Number), handled: 1, durationMs: expect.any(Number) })]);
    expect(seen.filter((entry) => entry.channel === CHANNELS.redis).map((entry) => entry.copy)).toEqual([{ state: 'up', merchantId: DEFAULT_MERCHANT.merchantId }]);
    expect(seen.filter((entry) => entry.channel === CHANNELS.timing).map((entry) => entry.copy)).toEqual([
      { kind: 'step', step: 'form', method: 'ReferenceCode', ms: 8_200 },
      { kind: 'first-frame', ms: 310 },
    ]);
    // Each unit of work: start, end, asyncStart and asyncEnd, on the same context.
    for (const name of TRACING) {
      const phases = seen.filter((entry) => entry.channel === CHANNELS[name]).map((entry) => entry.phase);
      expect(phases.filter((phase) => phase === 'start').length, name).toBe(phases.filter((phase) => phase === 'asyncEnd').length);
    }

    // And nothing secret, nor anything of the payer's, anywhere (in every one of the run's events: about two hundred; a
    // payment of a checkout with one attempt asks the service nothing more, as the kit's record proves it has no other).
    expect(seen.length).toBeGreaterThan(180);
    for (const entry of seen) {
      const where = `${entry.channel} ${entry.phase}: ${entry.text}`;
      for (const secret of secrets) expect(entry.text, where).not.toContain(secret);
      for (const secret of shortSecrets) expect(entry.text, where).not.toMatch(new RegExp(`\\b${secret}\\b`));
      expect(entry.text, where).not.toMatch(/[0-9a-f]{128}/i);
      expect(entry.text, where).not.toMatch(/\b(ct1|ot1)\./);
      expect(entry.text, where).not.toContain('@');
      expect(entry.copy['result'], where).toBeUndefined();
    }
  });
});

