/**
 * The payment life, without a browser: a `CheckoutSession` against the real kit and sandbox, on a fake clock.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BANK_ACCOUNT_DETAILS, MERCHANT_PATHS, OTP_REQUEST, validate } from '../../src/core/index.js';
import { CHECKOUT_KEYS } from '../../src/core/token-wire.js';
import { answerOf, EndpointError, orderOf, POLL_BACKOFF, requestHeaders, type CheckoutSession, type FieldName, type IsolatedReport } from '../../src/checkout/index.js';
import { ENDPOINT, harness, kinds, type Harness } from './support.js';

const REFUSED = 'the element never takes a private key: keep it on your server, in the merchant kit';

let h: Harness;
beforeEach(async () => {
  h = await harness();
});
afterEach(() => h.close());

function fill(session: CheckoutSession, values: Record<string, string>) {
  for (const [name, value] of Object.entries(values)) session.input(name as never, value);
}

const BANK = { bankAccountNumber: '2215381176', bankCode: '033', dobDay: '05', dobMonth: '01', dobYear: '1990' };

describe('create and next actions', () => {
  it('pays at a POS terminal: the swipe step, then the result the next poll sees', async () => {
    const { session, events } = await h.session();
    expect(session.state.phase).toEqual({ kind: 'form' });
    session.selectMethod('Pos');
    fill(session, { sn: 'N78101818218' });
    await session.submit();
    await h.settle();
    const phase = session.state.phase;
    expect(phase.kind === 'action' && phase.order.actionType).toBe('SWIPE_CARD');
    await h.control.swipe('N78101818218');
    await h.advance(2_500);
    expect(session.state.phase).toMatchObject({ kind: 'result', outcome: 'SUCCESS', order: { status: 'SUCCESS', sn: 'N78101818218' } });
    expect(kinds(events)).toEqual(['ready', 'change', 'change', 'http-response', 'pay-result PENDING', 'action', 'pay-result SUCCESS']);
    expect(h.calls.filter((path) => path === '/payments')).toHaveLength(1);
  });

  it('asks for an OTP: a wrong one is named at the field with the tries left, a resend waits 30 s, the right one pays', async () => {
    const { session } = await h.session();
    session.selectMethod('BankAccount');
    fill(session, BANK);
    await session.submit();
    expect(orderOf(session.state.phase)?.actionType).toBe('INPUT_OTP');
    // The account number and birth date are forgotten once the service has them.
    expect(session.state.values.BankAccount).toEqual({ bankCode: '033' });
    // The code was just sent: sending it again waits, from the moment the step opens.
    expect(session.state.resendWait).toBe(30);
    await session.resendOtp();
    expect(h.calls.filter((path) => path === '/payments/otp/resend')).toHaveLength(0);
    await session.submitCode('99999999');
    expect(session.state.errors).toEqual({ otp: { rule: 'mismatch', left: 2 } });
    await h.advance(30_000);
    expect(session.state.resendWait).toBe(0);
    await session.resendOtp();
    expect(session.state.notice).toEqual({ kind: 'resent' });
    expect(session.state.errors).toEqual({});
    expect(session.state.resendWait).toBe(30);
    await h.advance(10_000);
    expect(session.state.resendWait).toBe(20);
    await session.resendOtp(); // refused while the wait runs: nothing is sent
    expect(h.calls.filter((path) => path === '/payments/otp/resend')).toHaveLength(1);
    await session.submitCode('١١٣١٥٦٣٢'); // Arabic-Indic digits are read as the code
    expect(session.state.phase).toMatchObject({ kind: 'result', outcome: 'SUCCESS' });
  });

  it('asks for a PIN, and refuses a malformed one before sending it, aloud', async () => {
    const { session, events } = await h.session();
    session.selectMethod('BankAccount');
    fill(session, { ...BANK, bankAccountNumber: '2215381183' });
    await session.submit();
    expect(orderOf(session.state.phase)?.actionType).toBe('INPUT_PIN');
    expect(await session.submitCode('12')).toBe(false);
    expect(session.state.errors).toEqual({ pin: { rule: 'minLength' } });
    expect(events.at(-1)).toEqual({ type: 'announce', detail: { kind: 'form-errors', count: 1 } });
    expect(h.calls).not.toContain('/payments/pin');
    await session.submitCode('1234');
    expect(session.state.phase).toMatchObject({ kind: 'result', outcome: 'SUCCESS' });
  });

  it('sends a reference code and follows it to payment', async () => {
    const { session, events } = await h.session();
    session.selectMethod('ReferenceCode');
    fill(session, { notifyUserName: 'Mona Hassan', notifyUserEmail: 'mona@example.com', notifyUserMobile: '+201001234567' });
    await session.submit();
    const order = orderOf(session.state.phase)!;
    expect(order).toMatchObject({ actionType: 'REFERENCE_CODE', maskedEmail: 'm•••@example.com', maskedMobile: '•••• 4567' });
    expect(order.referenceCode).toMatch(/^\d{9}$/);
    expect(order.expiresAt).toBe(h.clock.now + 30 * 60_000);
    await h.control.payReferenceCode(order.referenceCode!);
    await h.advance(2_500);
    expect(session.state.phase).toMatchObject({ kind: 'result', outcome: 'SUCCESS' });
    expect(events.find((event) => event.type === 'action')).toMatchObject({ detail: { actionType: 'REFERENCE_CODE', referenceCode: order.referenceCode } });
  });
});

describe('isolated fields', () => {
  /**
   * A frame's part, in Node: it holds the payer's values, reports only the rules they break (src/core's rows for them),
   * and sends a call itself, with its values added, to the kit as the frame does (`Origin: null`). What the browser's
   * frame does around it is test/browser/isolated-fields.test.ts.
   */
  function frame(session: CheckoutSession, kind: 'bank' | 'otp', values: Record<string, string>) {
    const table = kind === 'bank' ? BANK_ACCOUNT_DETAILS : { fields: { otp: OTP_REQUEST.fields['otp']! } };
    const report = (): IsolatedReport => {
      const broken: Record<string, string> = {};
      for (const violation of validate(table, values).violations) broken[violation.field] ??= violation.rule;
      return { fields: Object.keys(table.fields) as FieldName[], broken };
    };
    const sent: string[] = [];
    const link = session.isolate({
      report: report(),
      async send(call, body, proof) {
        const text = JSON.stringify({ ...body, ...values });
        sent.push(text);
        const response = await h.handler(new Request(`${ENDPOINT}${MERCHANT_PATHS[call]}`, { method: 'POST', headers: { ...requestHeaders(proof.checkoutToken, proof.orderToken), Origin: 'null' }, body: text }));
        return answerOf(call, response);
      },
    });
    return {
      sent,
      type(name: FieldName, value: string) {
        values[name] = value;
        link.report(report(), name);
      },
      link,
    };
  }

  it('sends the bank details and the code through the frame: its own calls never carry them, and its state never holds them', async () => {
    const seen: string[] = [];
    await h.close();
    h = await harness({ intercept: async (request, kit) => (seen.push(await request.clone().text()), kit(request)) });
    const { session, events } = await h.session();
    session.selectMethod('BankAccount');
    const bank = frame(session, 'bank', {});
    await session.submit();
    // Judged by what the frame says: every field of it, and nothing sent.
    expect(Object.keys(session.state.errors).sort()).toEqual(Object.keys(BANK_ACCOUNT_DETAILS.fields).sort());
    expect(h.calls).toEqual([]);
    for (const [name, value] of Object.entries(BANK)) bank.type(name as FieldName, value);
    expect(session.state.errors).toEqual({});
    expect(events.filter((event) => event.type === 'change').at(-1)).toEqual({ type: 'change', detail: { payMethod: 'BankAccount', complete: true } });
    await session.submit();
    expect(orderOf(session.state.phase)?.actionType).toBe('INPUT_OTP');
    expect(bank.sent).toHaveLength(1);
    // The session's own calls go on: it follows the order.
    await h.advance(2_500);
    expect(h.calls).toContain('/payments/status');
    bank.link.detach();
    const code = frame(session, 'otp', {});
    code.type('otp', '99999999');
    await session.submitCode('');
    expect(session.state.errors).toEqual({ otp: { rule: 'mismatch', left: 2 } });
    code.type('otp', '11315632');
    await session.submitCode('');
    expect(session.state.phase).toMatchObject({ kind: 'result', outcome: 'SUCCESS' });
    expect(code.sent).toHaveLength(2);
    // The session's own calls (the status checks) and everything it kept: none of the secrets.
    const secrets = [BANK.bankAccountNumber, '99999999', '11315632'];
    for (const text of [...seen, JSON.stringify(session.state), ...h.storage.entries.values()]) for (const secret of secrets) expect(text).not.toContain(secret);
    expect(seen.length).toBeGreaterThan(0);
  });

  it('refuses a code the frame says is not one, before anything is sent', async () => {
    const { session } = await h.session();
    session.selectMethod('BankAccount');
    fill(session, BANK);
    await session.submit();
    const code = frame(session, 'otp', {});
    code.type('otp', '12');
    expect(await session.submitCode('')).toBe(false);
    expect(session.state.errors).toEqual({ otp: { rule: 'minLength' } });
    expect(code.sent).toEqual([]);
  });

  it('says a call lost with its frame as a call without an answer: a create is looked for by its reference', async () => {
    const { session } = await h.session();
    session.selectMethod('BankAccount');
    const gone = session.isolate({ report: { fields: ['bankAccountNumber'], broken: {} }, send: () => Promise.reject(new EndpointError('NETWORK', 'create: the frame went')) });
    fill(session, { bankCode: '033', dobDay: '05', dobMonth: '01', dobYear: '1990' });
    await session.submit();
    await h.settle();
    expect(h.calls).toEqual(['/payments/status']);
    expect(session.state.phase).toEqual({ kind: 'form' });
    expect(session.state.alert).toEqual({ kind: 'network' });
    gone.detach();
  });
});

describe("another device's order, looked for behind the form", () => {
  it('never takes the answer to a lookup asked before a create for that create: a create whose answer was lost is looked for anew', async () => {
    // The kit's record names attempt 1 (a light check): the page asks about it behind the form, and that query is slow.
    // Meanwhile the payer sends the form: the create makes the order at attempt 1, and its answer is lost on the way.
    let releaseFirst!: () => void;
    const firstHeld = new Promise<void>((resolve) => (releaseFirst = resolve));
    let statusCalls = 0;
    await h.close();
    h = await harness({
      intercept: async (request, kit) => {
        const path = new URL(request.url).pathname;
        if (path.endsWith('/payments/status') && ++statusCalls === 1) {
          // Answered before the create, and that answer slow on its way back.
          const answer = await kit(request);
          await firstHeld;
          return answer;
        }
        if (path.endsWith('/payments')) {
          await kit(request);
          throw new TypeError('Failed to fetch');
        }
        return kit(request);
      },
    });
    const { session } = await h.session();
    session.followElsewhere(1);
    expect(session.state.busy).toBe(false);
    session.selectMethod('Pos');
    fill(session, { sn: 'N78101818218' });
    const submitted = session.submit();
    // The create's answer is lost: its reference is looked for, by a query of its own, which finds the order.
    await new Promise((resolve) => setTimeout(resolve, 50));
    releaseFirst();
    await submitted;
    await h.settle();
    expect(statusCalls).toBeGreaterThanOrEqual(2);
    expect(orderOf(session.state.phase)).toMatchObject({ actionType: 'SWIPE_CARD', sn: 'N78101818218' });
    expect(session.state.alert).toBeUndefined();
  });
});

describe('3-D Secure', () => {
  async function redirectOrder(settings = {}) {
    const run = await h.session(settings);
    run.session.selectMethod('BankAccount');
    fill(run.session, { ...BANK, bankAccountNumber: '2215381200' });
    return run;
  }

  it('tells listeners before leaving, waits for what they hold, then goes; after the bank, a reload resumes the order', async () => {
    const { session, events } = await redirectOrder();
    let release!: () => void;
    session.on((event) => {
      if (event.type === 'before-redirect') event.waitUntil(new Promise<void>((resolve) => (release = resolve)));
    });
    await session.submit();
    const before = events.find((event) => event.type === 'before-redirect');
    expect(before?.detail).toMatchObject({ redirectUrl: expect.stringContaining('/sandbox/3ds/') });
    expect(h.navigated).toEqual([]);
    release();
    await h.settle();
    expect(h.navigated).toHaveLength(1);
    const orderNo = orderOf(session.state.phase)!.orderNo;
    session.dispose();
    // The bank approves; the payer comes back to the shop's page: a new session, the same storage.
    await h.control.threeDs(orderNo, 'approve');
    const back = await h.session({ checkoutToken: session.config!.checkoutToken });
    expect(back.session.state.phase).toMatchObject({ kind: 'result', outcome: 'SUCCESS', order: { orderNo } });
    expect(h.calls.filter((path) => path === '/payments')).toHaveLength(1);
    expect(h.navigated).toHaveLength(1);
  });

  it('stays when a listener prevents the redirect, and goes when the payer asks', async () => {
    const { session } = await redirectOrder();
    session.on((event) => event.type === 'before-redirect' && event.preventDefault());
    await session.submit();
    expect(h.navigated).toEqual([]);
    session.openRedirect();
    expect(h.navigated).toHaveLength(1);
  });

  it('opens a new window when asked, says when it was blocked, and the kit returns to its own page', async () => {
    h.allowWindows = false;
    const { session } = await redirectOrder({ redirectMode: 'new-window' });
    await session.submit();
    await h.settle();
    expect(session.state).toMatchObject({ redirectBlocked: true, alert: { kind: 'redirect-blocked' } });
    h.allowWindows = true;
    session.openRedirect();
    expect(h.opened).toHaveLength(1);
    expect(session.state.redirectBlocked).toBe(false);
    const order = await h.control.order(orderOf(session.state.phase)!.orderNo);
    expect(order).toMatchObject({ status: 'PENDING', nextAction: 'REDIRECT_3DS' });
    // The bank's window comes back to the kit's own return page, which tells this page the payer is done there.
    expect(await h.control.threeDs(order.orderNo, 'approve')).toBe(`${ENDPOINT}${MERCHANT_PATHS.returnPage}`);
  });
});

describe('duplicates and lost answers', () => {
  it('shows the receipt of a checkout paid on another device, and makes no second order', async () => {
    const token = await h.token({ reference: 'dup-paid' });
    const first = await h.session({ checkoutToken: token });
    first.session.selectMethod('Pos');
    fill(first.session, { sn: 'N78101818301' });
    await first.session.submit();
    await h.control.swipe('N78101818301');
    first.session.dispose();
    h.storage.entries.clear(); // another device
    const { session } = await h.session({ checkoutToken: token });
    session.selectMethod('Pos');
    fill(session, { sn: 'N78101818301' });
    await session.submit();
    // The kit knows the checkout's first attempt is paid: no order is made, and the page shows that payment.
    expect(session.state.phase).toMatchObject({ kind: 'result', outcome: 'SUCCESS', order: { reference: 'dup-paid', status: 'SUCCESS' } });
    expect((await h.control.orders()).filter((order) => order.reference.startsWith('dup-paid'))).toHaveLength(1);
  });

  it('moves on to the next reference by itself when the one given was spent on a failed order', async () => {
    const token = await h.token({ reference: 'dup-failed' });
    const first = await h.session({ checkoutToken: token });
    first.session.selectMethod('Pos');
    fill(first.session, { sn: 'N78101818302' });
    await first.session.submit();
    await h.control.swipe('N78101818302', 'fail');
    first.session.dispose();
    h.storage.entries.clear();
    const { session } = await h.session({ checkoutToken: token });
    session.selectMethod('Pos');
    fill(session, { sn: 'N78101818302' });
    await session.submit();
    expect(orderOf(session.state.phase)).toMatchObject({ reference: 'dup-failed--2', actionType: 'SWIPE_CARD' });
  });

  it('finds the order whose create answer was lost, and makes no second one', async () => {
    const { session, events } = await h.session();
    session.selectMethod('Pos');
    fill(session, { sn: 'N78101818303' });
    await h.control.addFault({ kind: 'lost', count: 1, delayMs: 10 });
    await session.submit();
    await h.settle();
    expect(orderOf(session.state.phase)).toMatchObject({ actionType: 'SWIPE_CARD', answerLost: true, sn: 'N78101818303' });
    expect((await h.control.orders()).filter((order) => order.sn === 'N78101818303')).toHaveLength(1);
    expect(kinds(events)).not.toContain('error');
  });

  it('resumes after a reload while a create was in flight, by looking its reference up', async () => {
    const token = await h.token();
    const { session } = await h.session({ checkoutToken: token });
    session.selectMethod('Pos');
    fill(session, { sn: 'N78101818304' });
    const pending = session.submit();
    // The page is reloaded before the answer: the next session finds `creating` in storage.
    session.dispose();
    await pending;
    await h.settle(); // the create reached the service: the page comes back to an order that exists
    const again = await h.session({ checkoutToken: token });
    expect(again.session.state.phase).toMatchObject({ kind: 'action', order: { actionType: 'SWIPE_CARD' } });
    expect((await h.control.orders()).filter((order) => order.sn === 'N78101818304')).toHaveLength(1);
  });
});

describe('polling, expiry and leaving', () => {
  it('polls 57 times in a 30-minute wait, as POLL_BACKOFF says, then shows the order expired', async () => {
    const { session, events } = await h.session();
    session.selectMethod('Pos');
    fill(session, { sn: 'N78101818305' });
    await session.submit();
    const created = h.calls.length;
    const at: number[] = [];
    const start = h.clock.now;
    session.on((event) => event.type === 'pay-result' && at.push(h.clock.now - start));
    for (let minute = 0; minute < 31; minute += 1) await h.advance(60_000);
    const polls = h.calls.slice(created).filter((path) => path === '/payments/status');
    expect(polls).toHaveLength(57);
    expect(POLL_BACKOFF.slice(0, 3)).toEqual([1, 1, 1]);
    expect(session.state.phase).toMatchObject({ kind: 'result', outcome: 'CLOSE' });
    expect(kinds(events).at(-1)).toBe('expired');
    expect(h.clock.pending).toBe(0);
  });

  it('stops polling while paused, and checks at once on resume', async () => {
    const { session } = await h.session();
    session.selectMethod('Pos');
    fill(session, { sn: 'N78101818306' });
    await session.submit();
    session.pause();
    const before = h.calls.length;
    await h.advance(120_000);
    expect(h.calls.length).toBe(before);
    await h.control.swipe('N78101818306');
    session.resume();
    await h.settle();
    expect(session.state.phase).toMatchObject({ kind: 'result', outcome: 'SUCCESS' });
  });

  it('leaves an order for another method: the next attempt has its own reference', async () => {
    const token = await h.token({ reference: 'leave-1' });
    const { session } = await h.session({ checkoutToken: token });
    session.selectMethod('Pos');
    fill(session, { sn: 'N78101818307' });
    await session.submit();
    session.leave();
    expect(session.state.phase).toEqual({ kind: 'form' });
    session.selectMethod('ReferenceCode');
    fill(session, { notifyUserName: 'Mona Hassan', notifyUserEmail: 'mona@example.com', notifyUserMobile: '+201001234567' });
    await session.submit();
    expect(orderOf(session.state.phase)).toMatchObject({ reference: 'leave-1--2', actionType: 'REFERENCE_CODE' });
    // The left order is not polled any more.
    const polled = h.calls.length;
    await h.advance(2_500);
    expect(h.calls.slice(polled)).toEqual(['/payments/status']);
  });

  it('a status-only page follows the latest attempt of its checkout token', async () => {
    const token = await h.token({ reference: 'thanks-1' });
    const { session } = await h.session({ checkoutToken: token });
    session.selectMethod('Pos');
    fill(session, { sn: 'N78101818308' });
    await session.submit();
    h.storage.entries.clear(); // another tab
    const watcher = await h.session({ checkoutToken: token, statusOnly: true });
    expect(watcher.session.state.phase).toMatchObject({ kind: 'waiting', reason: 'status-only', order: { reference: 'thanks-1' } });
    await h.control.swipe('N78101818308');
    await h.advance(2_500);
    expect(watcher.session.state.phase).toMatchObject({ kind: 'result', outcome: 'SUCCESS' });
    expect(watcher.session.state.methods).toEqual(['Pos', 'BankAccount', 'ReferenceCode']);
  });

  it('keeps kinds and parameters in its state, never words', async () => {
    const { session } = await h.session();
    session.selectMethod('Pos');
    await session.submit();
    expect(session.state.errors).toEqual({ sn: { rule: 'required' } });
    expect(JSON.stringify(session.state)).not.toMatch(/Enter|required field/i);
    // Kinds, rules and codes are single words; only the shop's own words (from its token) may have spaces.
    const { merchantName: _merchant, productName: _product, ...ours } = session.state;
    const strings = (value: unknown): string[] =>
      typeof value === 'string' ? [value] : value !== null && typeof value === 'object' ? Object.values(value).flatMap(strings) : [];
    expect(strings(ours).filter((text) => /\s/.test(text))).toEqual([]);
  });
});

describe('configuration', () => {
  afterEach(() => vi.restoreAllMocks());

  it('stops a checkout whose host refused a setting, in the words that setting has, to its events and the console, and sends nothing', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const { session, events } = await h.session({ refused: 'private-key' });
    expect(session.state.phase).toEqual({ kind: 'config-error', setting: 'private-key' });
    const errors = events.flatMap((event) => (event.type === 'error' ? [event.detail] : []));
    expect(errors).toEqual([{ code: 'CONFIG', message: REFUSED, retryable: false }]);
    expect(logged.mock.calls).toEqual([[`svc-checkout: ${REFUSED}`]]);
    await session.submit();
    expect(h.calls).toEqual([]);
  });

  it('says a setting refused while an order is under way, and the order goes on', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const checkoutToken = await h.token();
    const { session, events } = await h.session({ checkoutToken });
    session.selectMethod('Pos');
    fill(session, { sn: 'N78101818218' });
    await session.submit();
    await h.settle();
    expect(session.state.phase.kind).toBe('action');
    session.configure({ endpoint: ENDPOINT, checkoutToken, liveStatus: false, refused: 'private-key' });
    expect(session.state.phase.kind).toBe('action');
    expect(events.flatMap((event) => (event.type === 'error' ? [event.detail.message] : []))).toEqual([REFUSED]);
    expect(logged.mock.calls).toEqual([[`svc-checkout: ${REFUSED}`]]);
    // Said once, not at every configuration after it.
    session.configure({ endpoint: ENDPOINT, checkoutToken, liveStatus: false, refused: 'private-key' });
    expect(logged).toHaveBeenCalledTimes(1);
  });
});

describe('configuration errors in the console', () => {
  let spoofing: Harness;
  beforeEach(async () => {
    // An endpoint (or a gateway before it) that answers with the element's own code and words of its own.
    const envelope = { code: 'CONFIG', message: 'upstream says: merchant key sk_live_123 rejected for 10.0.0.5', data: null };
    spoofing = await harness({
      intercept: async (request, kit) => (new URL(request.url).pathname.endsWith('/payments') ? Response.json(envelope) : kit(request)),
    });
  });
  afterEach(async () => {
    vi.restoreAllMocks();
    await spoofing.close();
  });

  it('writes only what the session found itself, never the words of an answer', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const { session, events } = await spoofing.session();
    session.selectMethod('Pos');
    fill(session, { sn: 'N78101818218' });
    await session.submit();
    await spoofing.settle();
    expect(events.some((event) => event.type === 'error' && event.detail.message.includes('upstream'))).toBe(true);
    expect(logged).not.toHaveBeenCalled();
  });
});

describe('a checkout token read in the browser', () => {
  /** `token` with its payload's claims changed, its tag left as the kit wrote it: a token the kit never signed. */
  function respelled(token: string, change: (short: Record<string, unknown>) => void): string {
    const [prefix, payload, tag] = token.split('.') as [string, string, string];
    const short = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
    change(short);
    return [prefix, Buffer.from(JSON.stringify(short)).toString('base64url'), tag].join('.');
  }

  it('names the checkout token when it does not read as one, and sends nothing', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      for (const checkoutToken of ['ct1.not-a-payload.x', respelled(await h.token(), (short) => (short[CHECKOUT_KEYS.total] = 'a lot'))]) {
        const { session, events } = await h.session({ checkoutToken });
        const errors = events.flatMap((event) => (event.type === 'error' ? [event.detail] : []));
        expect(errors.map(({ code }) => code)).toEqual(['CONFIG']);
        expect(errors[0]!.message).toContain('checkout-token');
        await session.submit();
      }
      await h.settle();
      expect(h.calls).toEqual([]);
      // And in the console, where the shop's developer looks: once for each.
      expect(logged.mock.calls.map(([message]) => String(message))).toEqual([expect.stringContaining('checkout-token'), expect.stringContaining('checkout-token')]);
    } finally {
      vi.restoreAllMocks();
    }
  });

  it('leaves its claims\' rules to the kit: one the kit did not sign is refused at the first call, whatever it claims', async () => {
    // A merchant id no rule allows (the service's are digits): the kit signs no such claim, so it can only come
    // respelled.
    const checkoutToken = respelled(await h.token(), (short) => (short[CHECKOUT_KEYS.merchantId] = 'not-a-merchant'));
    const { session, events } = await h.session({ checkoutToken });
    // Read in the shape the form shows, as the first frame reads it: the browser does not check what the kit checks.
    expect(session.state.phase.kind).toBe('form');
    expect(session.config?.merchantId).toBe('not-a-merchant');
    fill(session, { sn: 'N78101818218' });
    await session.submit();
    await h.settle();
    // Refused by the kit, at the one call made: no order, and the payer is told.
    expect(h.calls).toEqual([MERCHANT_PATHS.create]);
    expect(session.state.phase.kind).not.toBe('action');
    expect(events.some((event) => event.type === 'error')).toBe(true);
    expect(await h.control.orders()).toEqual([]);
  });
});
