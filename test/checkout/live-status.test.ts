/**
 * Live status in the session: the kit's status stream when it works, polling when it does not — never both at
 * once — and back to the stream when it recovers. A `CheckoutSession` against the real kit and sandbox on a fake
 * clock (the kit's stream timers run on it too); the failures a real kit cannot produce on demand (a proxy that
 * holds the stream back, a CSP that refuses it, a connection cut) are made between the session and the kit.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { MERCHANT_PATHS } from '../../src/core/index.js';
import { STREAM_RETRY_MS, type CheckoutSession, type CheckoutSettings } from '../../src/checkout/index.js';
import { harness, type Harness, type HarnessOptions } from './support.js';

let h: Harness | undefined;
let sessions: CheckoutSession[] = [];
afterEach(async () => {
  for (const session of sessions) session.dispose();
  sessions = [];
  await h?.close();
  h = undefined;
});

const isEvents = (request: Request) => new URL(request.url).pathname.endsWith(MERCHANT_PATHS.events);
const isStatus = (request: Request) => new URL(request.url).pathname.endsWith(MERCHANT_PATHS.status);

/** A few turns of the event loop, until `ready` holds (events of a stream come in their own time). */
async function until(what: string, ready: () => boolean): Promise<void> {
  for (let turn = 0; turn < 2_000; turn += 1) {
    if (ready()) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error(`never: ${what}`);
}

/**
 * A POS order paid at the terminal, followed live. `following` records how the session followed the order at
 * each status request it sent: every one must be while polling.
 */
async function posOrder(options: HarnessOptions & { sn: string }) {
  const following: string[] = [];
  let session: CheckoutSession | undefined;
  h = await harness({
    ...options,
    intercept: (request, kit) => {
      if (isStatus(request)) following.push(session?.following ?? 'none');
      return options.intercept ? options.intercept(request, kit) : kit(request);
    },
  });
  ({ session } = await h.session({ liveStatus: true }));
  sessions.push(session);
  session.selectMethod('Pos');
  session.input('sn', options.sn);
  await session.submit();
  await h.settle();
  const calls = (path: string) => h!.calls.filter((call) => call === path).length;
  return { session, following, statusCalls: () => calls(MERCHANT_PATHS.status), streamCalls: () => calls(MERCHANT_PATHS.events) };
}

/** A body that holds every byte back, as a buffering proxy does with a stream that never ends. */
function heldBack(upstream: Response): Response {
  const body = new ReadableStream<Uint8Array>({
    cancel: () => upstream.body?.cancel(),
  });
  return new Response(body, { status: 200, headers: upstream.headers });
}

describe('the session follows an order through the status stream', () => {
  it('sees the payment the moment the kit does, with no status request', async () => {
    const order = await posOrder({ sn: 'N78101818501' });
    await until('the stream', () => order.session.following === 'stream' && order.streamCalls() === 1);
    await h!.advance(60_000);
    expect(order.statusCalls()).toBe(0);
    await h!.control.swipe('N78101818501');
    await h!.advance(60_000); // the kit looks on its own schedule (no callback reaches it here)
    await until('the result', () => order.session.state.phase.kind === 'result');
    expect(order.session.state.phase).toMatchObject({ kind: 'result', outcome: 'SUCCESS' });
    expect(order.statusCalls()).toBe(0);
    expect(order.streamCalls()).toBe(1);
  });

  it('polls at once against a kit without the stream route (streams: false), and never asks for it again', async () => {
    const order = await posOrder({ sn: 'N78101818502', kit: { streams: false } });
    await until('polling', () => order.session.following === 'poll' && order.statusCalls() === 1);
    await h!.advance(10 * 60_000);
    expect(order.streamCalls()).toBe(1);
    expect(order.statusCalls()).toBeGreaterThan(10);
    expect(order.following.every((mode) => mode === 'poll')).toBe(true);
    await h!.control.swipe('N78101818502');
    await h!.advance(60_000);
    expect(order.session.state.phase).toMatchObject({ kind: 'result', outcome: 'SUCCESS' });
  });

  it('falls back to polling 5 s after connecting when a proxy holds the stream back, and pays', async () => {
    const order = await posOrder({
      sn: 'N78101818503',
      intercept: async (request, kit) => (isEvents(request) ? heldBack(await kit(request)) : kit(request)),
    });
    expect(order.session.following).toBe('stream');
    await h!.advance(4_999);
    expect(order.statusCalls()).toBe(0);
    expect(order.session.following).toBe('stream');
    await h!.advance(1);
    await until('a poll', () => order.statusCalls() === 1);
    expect(order.session.following).toBe('poll');
    await h!.control.swipe('N78101818503');
    await h!.advance(2_500);
    expect(order.session.state.phase).toMatchObject({ kind: 'result', outcome: 'SUCCESS' });
    expect(order.following.every((mode) => mode === 'poll')).toBe(true);
  });

  it('falls back at once when the stream cannot connect (a CSP connect-src), and goes back to it when it can', async () => {
    let refuse = true;
    const order = await posOrder({
      sn: 'N78101818504',
      intercept: (request, kit) => {
        if (isEvents(request) && refuse) return Promise.reject(new TypeError('Refused to connect: Content Security Policy'));
        return kit(request);
      },
    });
    await until('polling', () => order.session.following === 'poll' && order.statusCalls() === 1);
    await h!.advance(STREAM_RETRY_MS[0]! - 1);
    expect(order.streamCalls()).toBe(1);
    const polled = order.statusCalls();
    expect(polled).toBeGreaterThan(5);
    // Still refused at the first retry: polling goes on, the next try waits longer.
    await h!.advance(1);
    await until('a second try', () => order.streamCalls() === 2 && order.session.following === 'poll');
    refuse = false;
    await h!.advance(STREAM_RETRY_MS[1]!);
    await until('the stream again', () => order.session.following === 'stream' && order.streamCalls() === 3);
    const atRecovery = order.statusCalls();
    await h!.advance(10 * 60_000);
    expect(order.statusCalls()).toBe(atRecovery);
    await h!.control.swipe('N78101818504');
    await h!.advance(60_000);
    await until('the result', () => order.session.state.phase.kind === 'result');
    expect(order.session.state.phase).toMatchObject({ kind: 'result', outcome: 'SUCCESS' });
    expect(order.statusCalls()).toBe(atRecovery);
    expect(order.following.every((mode) => mode === 'poll')).toBe(true);
  });

  it('polls while a dropped stream reconnects, and stops when it delivers again', async () => {
    let drops = 1;
    const order = await posOrder({
      sn: 'N78101818505',
      intercept: async (request, kit) => {
        const answer = await kit(request);
        if (!isEvents(request) || drops === 0) return answer;
        drops -= 1;
        // The first connection delivers its first bytes, then the network cuts it.
        const reader = answer.body!.getReader();
        let delivered = false;
        const body = new ReadableStream<Uint8Array>({
          async pull(controller) {
            if (delivered) {
              void reader.cancel();
              controller.error(new TypeError('network error'));
              return;
            }
            const { value } = await reader.read();
            delivered = true;
            if (value) controller.enqueue(value);
          },
        });
        return new Response(body, { status: 200, headers: answer.headers });
      },
    });
    await until('a poll after the cut', () => order.statusCalls() === 1);
    expect(order.session.following).toBe('poll');
    await h!.advance(3_000); // the kit's retry: 3 s
    await until('the stream again', () => order.streamCalls() === 2 && order.session.following === 'stream');
    const atRecovery = order.statusCalls();
    await h!.advance(5 * 60_000);
    expect(order.statusCalls()).toBe(atRecovery);
    expect(order.following.every((mode) => mode === 'poll')).toBe(true);
  });

  it('polls within 5 s of a heartbeat that did not come, when a stream that delivered goes silent', async () => {
    let silent = false;
    const order = await posOrder({
      sn: 'N78101818511',
      intercept: async (request, kit) => {
        const answer = await kit(request);
        if (!isEvents(request) || silent) return answer;
        // The first connection passes bytes on until the network goes quiet (a stuck proxy): nothing more, no end.
        const reader = answer.body!.getReader();
        const body = new ReadableStream<Uint8Array>({
          async pull(controller) {
            const quiet = () => new Promise<void>(() => undefined);
            if (silent) return quiet();
            const { done, value } = await reader.read();
            if (silent) return quiet();
            if (done) controller.close();
            else if (value) controller.enqueue(value);
          },
          cancel: (reason) => reader.cancel(reason),
        });
        return new Response(body, { status: 200, headers: answer.headers });
      },
    });
    await until('the stream', () => order.session.following === 'stream');
    await h!.advance(14_000);
    silent = true;
    // The heartbeat due at 15 s does not come; the stream counts as dropped at 15 s + 5 s after the last byte.
    await h!.advance(5_999);
    expect(order.statusCalls()).toBe(0);
    await h!.advance(1);
    await until('a poll', () => order.statusCalls() === 1);
    expect(order.session.following).toBe('poll');
    // It reconnects after the kit's retry: 3 s (a new connection, which delivers), and polling stops.
    await h!.advance(3_000);
    await until('the stream again', () => order.session.following === 'stream' && order.streamCalls() === 2);
    const atRecovery = order.statusCalls();
    await h!.advance(5 * 60_000);
    expect(order.statusCalls()).toBe(atRecovery);
    expect(order.following.every((mode) => mode === 'poll')).toBe(true);
  });

  it("ends at the order's expiry: the service's EXPIRED comes down the stream, then the result", async () => {
    const order = await posOrder({ sn: 'N78101818507' });
    await until('the stream', () => order.session.following === 'stream');
    await h!.advance(31 * 60_000);
    await until('the result', () => order.session.state.phase.kind === 'result');
    expect(order.session.state.phase).toMatchObject({ kind: 'result', outcome: 'CLOSE' });
    // The kit's last query at the deadline read EXPIRED from the service (whose clock moved with the kit's).
    expect(order.statusCalls()).toBe(0);
    expect(order.streamCalls()).toBe(1);
  });

  it('follows nothing while the page is hidden: the stream closes, and opens again when the page shows', async () => {
    const order = await posOrder({ sn: 'N78101818508' });
    await until('the stream', () => order.session.following === 'stream');
    h!.setHidden(true);
    expect(order.session.following).toBe('off');
    // Paid while the tab is hidden: nothing follows the order, so nothing hears of it.
    await h!.control.swipe('N78101818508');
    await h!.advance(10 * 60_000);
    expect(order.session.state.phase.kind).toBe('action');
    expect(order.streamCalls()).toBe(1);
    expect(order.statusCalls()).toBe(0);
    // Back in view: the stream again, whose first event is the payment.
    h!.setHidden(false);
    await h!.settle();
    await h!.advance(60_000); // the kit looks on its own schedule (no callback reaches it here)
    await until('the result', () => order.session.state.phase.kind === 'result');
    expect(order.session.state.phase).toMatchObject({ kind: 'result', outcome: 'SUCCESS' });
    expect(order.streamCalls()).toBe(2);
    expect(order.statusCalls()).toBe(0);
  });

  it('tries the stream again when the page shows again, not while it is hidden', async () => {
    let refuse = true;
    const order = await posOrder({
      sn: 'N78101818509',
      intercept: (request, kit) => {
        if (isEvents(request) && refuse) return Promise.reject(new TypeError('Refused to connect: Content Security Policy'));
        return kit(request);
      },
    });
    await until('polling', () => order.session.following === 'poll' && order.statusCalls() === 1);
    h!.setHidden(true);
    const polled = order.statusCalls();
    // The back-off's first try falls while the page is hidden: neither it nor a poll goes out.
    await h!.advance(2 * STREAM_RETRY_MS[0]!);
    expect(order.streamCalls()).toBe(1);
    expect(order.statusCalls()).toBe(polled);
    refuse = false;
    h!.setHidden(false);
    await h!.settle();
    await until('the stream again', () => order.session.following === 'stream' && order.streamCalls() === 2);
    const atRecovery = order.statusCalls();
    await h!.advance(5 * 60_000);
    expect(order.statusCalls()).toBe(atRecovery);
    expect(order.following.every((mode) => mode === 'poll')).toBe(true);
  });

  it('polls at once when the page shows again against a kit without the stream, and does not ask for it again', async () => {
    const order = await posOrder({ sn: 'N78101818510', kit: { streams: false } });
    await until('polling', () => order.session.following === 'poll' && order.statusCalls() === 1);
    h!.setHidden(true);
    await h!.advance(10 * 60_000);
    const polled = order.statusCalls();
    await h!.control.swipe('N78101818510');
    h!.setHidden(false);
    await until('the result', () => order.session.state.phase.kind === 'result');
    expect(order.statusCalls()).toBe(polled + 1);
    expect(order.streamCalls()).toBe(1);
  });

  it('polls only, with liveStatus: false', async () => {
    h = await harness();
    const { session } = await h.session({ liveStatus: false });
    sessions.push(session);
    session.selectMethod('Pos');
    session.input('sn', 'N78101818506');
    await session.submit();
    await h.advance(60_000);
    expect(session.following).toBe('poll');
    expect(h.calls.filter((call) => call === MERCHANT_PATHS.events)).toHaveLength(0);
    expect(h.calls.filter((call) => call === MERCHANT_PATHS.status).length).toBeGreaterThan(5);
  });
});

describe("the order's deadline follows the service's clock", () => {
  const expiresAtOf = (session: CheckoutSession) => (session.state.phase.kind === 'action' ? session.state.phase.order.expiresAt! : NaN);

  /** A POS order made through a kit whose clock runs `shop.ahead` ms past the page's; its deadline as made. */
  async function posOrderWithShopClock(sn: string, settings: Partial<CheckoutSettings> = {}) {
    const shop = { ahead: 0 };
    let clock: { now: number } | undefined;
    h = await harness({ kit: { now: () => (clock?.now ?? Date.now()) + shop.ahead } });
    clock = h.clock;
    const checkoutToken = await h.token();
    const { session } = await h.session({ liveStatus: false, checkoutToken, ...settings });
    sessions.push(session);
    session.selectMethod('Pos');
    session.input('sn', sn);
    await session.submit();
    await h.settle();
    return { shop, session, checkoutToken, created: expiresAtOf(session) };
  }

  it('moves when a status answer says the order has less time left than the page thought', async () => {
    const { shop, session, created } = await posOrderWithShopClock('N78101818508');
    expect(Math.abs(created - (h!.clock.now + 30 * 60_000))).toBeLessThanOrEqual(1_000);
    // The page slept while time went on for the shop and the service: their clocks are 10 minutes past the page's.
    shop.ahead = 10 * 60_000;
    h!.sandbox.clock.advance(10 * 60_000);
    await h!.advance(2_500);
    // Seconds, as the header and the service's Date have them: within two of the service's deadline.
    expect(Math.abs(expiresAtOf(session) - (created - 10 * 60_000))).toBeLessThanOrEqual(2_000);
    const moved = expiresAtOf(session);
    // Within two seconds of what the page has, nothing moves (an answer's own travel time, a Date's rounding).
    shop.ahead += 500;
    h!.sandbox.clock.advance(500);
    await h!.advance(2_500);
    expect(expiresAtOf(session)).toBe(moved);
  });

  it('moves when only the service\'s clock moved (the sandbox clock), and not when only the shop\'s did', async () => {
    const { shop, session, created } = await posOrderWithShopClock('N78101818510');
    // The service expires the order by its own clock: 10 minutes on there are 10 minutes less here.
    await h!.control.advanceClock(10);
    await h!.advance(2_500);
    expect(Math.abs(expiresAtOf(session) - (created - 10 * 60_000))).toBeLessThanOrEqual(2_000);
    const moved = expiresAtOf(session);
    // The shop's server clock jumps an hour (a bad NTP step): the service's time left did not change.
    shop.ahead = 60 * 60_000;
    await h!.advance(2_500);
    expect(Math.abs(expiresAtOf(session) - moved)).toBeLessThanOrEqual(2_000);
    expect(session.state.phase.kind).toBe('action');
  });

  it('moves with the schedule the status stream sends when a page comes back to the order', async () => {
    const { shop, session, checkoutToken, created } = await posOrderWithShopClock('N78101818509');
    session.dispose();
    // The page is reloaded 10 minutes later by the shop's and the service's clocks: the stream's schedule, sent
    // again once the kit's first query read the service's time, says so.
    shop.ahead = 10 * 60_000;
    h!.sandbox.clock.advance(10 * 60_000);
    const { session: again } = await h!.session({ liveStatus: true, checkoutToken });
    sessions.push(again);
    await until('the stream', () => again.following === 'stream');
    await h!.advance(1); // the kit's first query of the order, at once
    await until('the new deadline', () => Math.abs(expiresAtOf(again) - (created - 10 * 60_000)) <= 2_000);
  });

  it('moves while the stream is open, when the service\'s clock moves', async () => {
    const order = await posOrder({ sn: 'N78101818511' });
    await until('the stream', () => order.session.following === 'stream');
    const created = expiresAtOf(order.session);
    await h!.control.advanceClock(10);
    // The kit's next query of the order reads the service's time, and sends the schedule again.
    await h!.advance(2_500);
    await until('the new deadline', () => Math.abs(expiresAtOf(order.session) - (created - 10 * 60_000)) <= 2_500);
    expect(order.streamCalls()).toBe(1);
    expect(order.statusCalls()).toBe(0);
  });
});
