// Live status: the element follows its order through the kit's status stream, falls back to polling when the
// stream cannot work (a proxy that buffers it, a kit without it, a host that cannot stream), never both at once,
// and goes back to the stream when it can. The CSP case is in live-status-csp.test.ts (its policy holds for the
// rest of its page). Real kit and sandbox; the buffering proxy and the gate are the test runner's
// (web-test-runner.config.mjs), for failures the real parts cannot make on demand.
import { expect } from '@open-wc/testing';
import { checkout, clickButton, type, until, untilText } from './support/checkout.js';
import { countRequests, type RequestCount } from './support/requests.js';
import { startStack, type Stack } from './support/stack.js';

describe('<svc-checkout> live status', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  afterEach(() => sessionStorage.clear());

  /** Counts status requests and stream connections, and which of them were in flight together. */
  function watch(): { status: RequestCount; events: RequestCount; restore(): void } {
    const events = countRequests('/payments/events');
    const status = countRequests('/payments/status');
    return {
      status,
      events,
      restore() {
        status.restore();
        events.restore();
      },
    };
  }

  /** A POS order made through the element (at `endpoint`, by default its stack's), at its swipe step. */
  async function posOrder(sn: string, { endpoint, on = stack }: { endpoint?: string; on?: Stack } = {}) {
    const element = await checkout(on, { payMethod: 'Pos', ...(endpoint ? { endpoint } : {}) });
    await type(element, 'input[name=sn]', sn);
    await clickButton(element, /^Pay/);
    await untilText(element, 'Swipe or insert');
    return element;
  }

  async function payAtTerminal(element: HTMLElement, sn: string, on: Stack = stack): Promise<void> {
    await on.control('POST', `/sandbox/v1/pos/${sn}/swipe`, { outcome: 'success' });
    await untilText(element, 'Payment received');
  }

  it('sees the payment through the stream, with no status request', async () => {
    const seen = watch();
    try {
      const element = await posOrder('N78101818601');
      await until('the stream', () => seen.events.count === 1 && element.session!.following === 'stream');
      // poll-interval is 100 ms: polling would have asked several times by now.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      await payAtTerminal(element, 'N78101818601');
      expect(seen.status.count).to.equal(0);
      expect(seen.events.count).to.equal(1);
    } finally {
      seen.restore();
    }
  });

  it('closes the stream when the element leaves the page, and on its return sees a payment made meanwhile', async () => {
    const seen = watch();
    try {
      const element = await posOrder('N78101818605');
      await until('the stream', () => seen.events.count === 1 && element.session!.following === 'stream');
      const parent = element.parentElement!;
      element.remove();
      expect(element.session!.following).to.equal('off');
      await stack.control('POST', '/sandbox/v1/pos/N78101818605/swipe', { outcome: 'success' });
      // Away, the element hears nothing: no stream is open to tell it, and nothing polls.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(element.session!.state.phase.kind).to.equal('action');
      parent.append(element);
      // Back: the stream again, whose first event is the payment.
      await untilText(element, 'Payment received');
      expect(seen.events.count).to.equal(2);
      expect(seen.status.count).to.equal(0);
    } finally {
      seen.restore();
    }
  });

  it('polls within 5 s when a proxy holds the stream back, and still sees the payment', async () => {
    const seen = watch();
    try {
      const element = await posOrder('N78101818602', { endpoint: `/buffered${stack.endpoint}` });
      await until('the stream asked for', () => seen.events.count === 1);
      expect(seen.status.count, 'no poll while the stream may still deliver').to.equal(0);
      await until('a poll, the stream given up', () => seen.status.count > 0, 7_000);
      expect(element.session!.following).to.equal('poll');
      // The stream's request was given up before the first poll went: never both at once.
      expect(seen.events.inFlight).to.equal(0);
      await payAtTerminal(element, 'N78101818602');
    } finally {
      seen.restore();
    }
  });

  it('polls at once against a kit without the stream (streams: false), and asks for it only once', async () => {
    const polling = await startStack({ handler: { streams: false } });
    const seen = watch();
    try {
      const element = await posOrder('N78101818603', { on: polling });
      await until('polls', () => seen.status.count >= 3);
      await payAtTerminal(element, 'N78101818603', polling);
      expect(seen.events.count).to.equal(1);
      expect(seen.status.maxInFlight).to.equal(1);
    } finally {
      seen.restore();
    }
  });

  it('goes back to the stream when the host can stream again, and stops polling', async () => {
    const gate = `g${Date.now().toString(36)}`;
    const seen = watch();
    try {
      const element = await posOrder('N78101818604', { endpoint: `/gate/${gate}${stack.endpoint}` });
      await until('polls, the stream refused', () => seen.events.count === 1 && seen.status.count >= 2);
      await fetch(`/gates/${gate}/open`, { method: 'POST' });
      // The element tries the stream again on a back-off, and at once when the browser is back online.
      window.dispatchEvent(new Event('online'));
      await until('the stream again', () => seen.events.count === 2 && element.session!.following === 'stream');
      // A poll that was in flight may still land; after it, none.
      await until('no poll in flight', () => seen.status.inFlight === 0);
      const polled = seen.status.count;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(seen.status.count).to.equal(polled);
      await payAtTerminal(element, 'N78101818604');
      expect(seen.status.count).to.equal(polled);
    } finally {
      seen.restore();
    }
  });
});
