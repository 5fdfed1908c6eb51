// The status poller and the countdown, on their own, in real browsers: the poller on a fake clock (the page's own
// visibility and online events), the countdown on real timers.
import { expect } from '@open-wc/testing';
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import type { PaymentStatus } from '../../src/core/index.js';
import { ARABIC_LATIN_DIGITS } from '../../src/core/index.js';
import { CountdownController } from '../../src/element/controllers/countdown.js';
import { LocalizeController, type LocalizedHost } from '../../src/element/controllers/localize.js';
import { defaultEnvironment, POLL_BACKOFF, StatusPoller, type StatusPollerOptions } from '../../src/checkout/index.js';
import { FakeClock } from '../support/fake-clock.js';
import { until } from './support/checkout.js';

function host(): ReactiveControllerHost & { controllers: ReactiveController[]; updates: number } {
  const controllers: ReactiveController[] = [];
  return {
    controllers,
    updates: 0,
    // A host in the page: controllers added to it are connected at once, as Lit does.
    addController: (controller) => {
      controllers.push(controller);
      controller.hostConnected?.();
    },
    removeController: () => undefined,
    requestUpdate() {
      this.updates += 1;
    },
    updateComplete: Promise.resolve(true),
  };
}

/** Makes the page look hidden or visible to the poller. A real tab cannot be hidden from inside a test. */
function setVisibility(state: DocumentVisibilityState) {
  Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => state });
  document.dispatchEvent(new Event('visibilitychange'));
}

/**
 * A poller in this page, as a session that is on screen runs it: the page's own visibility and online events,
 * and a fake clock's time and timers, so that nothing here sleeps and every gap is exact.
 */
function connected(clock: FakeClock, options: Omit<StatusPollerOptions, 'environment'>): StatusPoller {
  const poller = new StatusPoller({ ...options, environment: defaultEnvironment({ now: clock.now, timers: clock.timers }) });
  poller.connect();
  return poller;
}

describe('StatusPoller', () => {
  afterEach(() => {
    delete (document as unknown as Record<string, unknown>)['visibilityState'];
  });

  it('never has two checks in flight, however slow they are', async () => {
    const clock = new FakeClock();
    let inFlight = 0;
    let most = 0;
    let checks = 0;
    const poller = connected(clock, {
      check: async () => {
        checks++;
        inFlight++;
        most = Math.max(most, inFlight);
        await clock.sleep(120);
        inFlight--;
        return 'PENDING';
      },
      onExpired: () => undefined,
      interval: () => 5,
    });
    poller.start({ checkFirst: true });
    const extra = [poller.checkNow(), poller.checkNow()];
    await clock.advance(1_000);
    poller.stop();
    await Promise.all(extra);
    // A check every 125 ms (120 in flight, then 5 of interval), the two asked for meanwhile shared with the first.
    expect(checks).to.equal(9);
    expect(most).to.equal(1);
  });

  it('shares the check in flight with getCashierStatus-style calls', async () => {
    const clock = new FakeClock();
    let checks = 0;
    const poller = connected(clock, {
      check: async () => {
        checks++;
        await clock.sleep(50);
        return 'PENDING';
      },
      onExpired: () => undefined,
      interval: () => 10_000,
    });
    const [first, second] = [poller.checkNow(), poller.checkNow()];
    expect(first).to.equal(second);
    await clock.advance(50);
    expect(await first).to.equal('PENDING');
    expect(checks).to.equal(1);
  });

  it('waits longer after each check, as POLL_BACKOFF says', async () => {
    const clock = new FakeClock();
    const base = 20;
    const starts: number[] = [];
    const poller = connected(clock, {
      check: async () => {
        starts.push(clock.now());
        return 'PENDING';
      },
      onExpired: () => undefined,
      interval: () => base,
    });
    const started = clock.now();
    poller.start();
    await clock.advance(2_000);
    poller.stop();
    const gaps = starts.map((start, index) => start - (index === 0 ? started : (starts[index - 1] as number)));
    expect(gaps).to.deep.equal(gaps.map((_, index) => (POLL_BACKOFF[Math.min(index, POLL_BACKOFF.length - 1)] ?? 1) * base));
    // The brisk phase and then the backoff plan 31 checks in 2 s; without backing off there would be 100.
    expect(starts.length).to.equal(31);
  });

  it('pauses while the page is hidden and checks at once when it shows again', async () => {
    const clock = new FakeClock();
    let checks = 0;
    let interval = 20;
    const poller = connected(clock, {
      check: async () => {
        checks++;
        return 'PENDING';
      },
      onExpired: () => undefined,
      interval: () => interval,
    });
    poller.start();
    await clock.advance(20);
    expect(checks, 'a first check').to.equal(1);
    setVisibility('hidden');
    const whileHidden = checks;
    await clock.advance(400);
    expect(checks).to.equal(whileHidden);
    expect(clock.pending, 'no timer armed while hidden').to.equal(0);
    // From here a scheduled check would be a minute away, so a check now can only be the one made on return.
    interval = 60_000;
    setVisibility('visible');
    await until('a check on return', () => checks > whileHidden, 5_000);
    poller.stop();
  });

  it('checks at once when the browser is back online, and then keeps one schedule', async () => {
    const clock = new FakeClock();
    let checks = 0;
    const poller = connected(clock, {
      check: async () => {
        checks++;
        return undefined; // offline: the check failed
      },
      onExpired: () => undefined,
      // A scheduled check is a minute away: any check seen before it is one made on the online event.
      interval: () => 60_000,
    });
    poller.start({ checkFirst: true });
    await until('the first check', () => checks === 1);
    window.dispatchEvent(new Event('online'));
    await until('a check when back online', () => checks === 2, 5_000);
    await clock.advance(200);
    expect(checks).to.equal(2);
    // One schedule: a minute on, one check, not one for each of the two checks made at once.
    await clock.advance(60_000 - 200);
    expect(checks).to.equal(3);
    poller.stop();
    window.dispatchEvent(new Event('online'));
    await clock.advance(60_000);
    expect(checks, 'no check once stopped').to.equal(3);
  });

  it('stops at a terminal status', async () => {
    const clock = new FakeClock();
    const answers: PaymentStatus[] = ['PENDING', 'PENDING', 'FAIL'];
    let checks = 0;
    const poller = connected(clock, {
      check: async () => answers[Math.min(checks++, answers.length - 1)],
      onExpired: () => undefined,
      interval: () => 10,
    });
    poller.start({ checkFirst: true });
    await clock.advance(20);
    expect(checks, 'the terminal status').to.equal(3);
    await clock.advance(300);
    expect(checks).to.equal(3);
    expect(poller.running).to.equal(false);
    expect(clock.pending).to.equal(0);
  });

  it('stops checking while its host is out of the page, and checks at once when it is back', async () => {
    const clock = new FakeClock();
    let checks = 0;
    let inFlightAborted = false;
    const poller = connected(clock, {
      check: async (signal) => {
        checks++;
        await clock.sleep(100);
        if (signal.aborted) inFlightAborted = true;
        return 'PENDING';
      },
      onExpired: () => undefined,
      interval: () => 20,
    });
    poller.start({ checkFirst: true });
    await clock.advance(20);
    poller.disconnect();
    const whileAway = checks;
    await clock.advance(400);
    setVisibility('visible');
    await clock.advance(100);
    expect(checks).to.equal(whileAway);
    expect(inFlightAborted).to.equal(true);
    poller.connect();
    await until('a check on return', () => checks > whileAway, 1_000);
    poller.stop();
  });

  it('makes one last check at expiry, never before it, then stops and reports the expiry', async () => {
    // The clock reads coarser than its timers run, as a browser's reduced timer precision makes Date.now() lag a
    // timer that fires on time: the poller's timer for the expiry comes while the clock still reads before it.
    for (let round = 0; round < 40; round++) {
      const clock = new FakeClock({ startAt: Date.now() + round, resolutionMs: 1 + (round % 5) });
      const checkedAt: number[] = [];
      let expired = 0;
      const expiresAt = clock.now() + 20 + (round % 10);
      const poller = connected(clock, {
        check: async () => {
          checkedAt.push(clock.now());
          return 'PENDING';
        },
        onExpired: () => expired++,
        interval: () => 1_000,
      });
      poller.start({ expiresAt });
      await clock.advance(40);
      expect(expired, `round ${round}`).to.equal(1);
      expect(checkedAt, `round ${round}`).to.have.length(1);
      expect(checkedAt[0], `round ${round}`).to.be.at.least(expiresAt);
      await clock.advance(300);
      expect(checkedAt, `round ${round}`).to.have.length(1);
      expect(expired, `round ${round}`).to.equal(1);
    }
  });
});

describe('CountdownController', () => {
  it('counts down to the given moment and announces only at milestones', async () => {
    const announced: number[] = [];
    const target = host();
    const countdown = new CountdownController(target, { announce: (seconds) => announced.push(seconds) });
    countdown.expiresAt = Date.now() + 11_500;
    expect(countdown.secondsLeft).to.equal(12);
    await until('the 10 second mark', () => announced.length > 0, 4_000);
    expect(announced).to.deep.equal([10]);
    expect(target.updates).to.be.at.least(2);
    countdown.expiresAt = undefined;
    expect(countdown.secondsLeft).to.equal(undefined);
  });
});

describe('LocalizeController', () => {
  it('writes Arabic without a region in Latin digits by name, however its tag is spelled, and a region as Intl has it', async () => {
    const element = Object.assign(document.createElement('div'), {
      addController: (controller: ReactiveController) => controller.hostConnected?.(),
      removeController: () => undefined,
      requestUpdate: () => undefined,
      updateComplete: Promise.resolve(true),
    }) as unknown as LocalizedHost;
    document.body.append(element);
    try {
      const localize = new LocalizeController(element);
      const formatLocaleOf = async (locale: string) => {
        element.locale = locale;
        await localize.loading;
        return localize.formatLocale;
      };
      expect(await formatLocaleOf('ar')).to.equal(ARABIC_LATIN_DIGITS);
      expect(localize.money(12_500, 'EGP')).to.equal('\u200f125.00\u00a0ج.م.\u200f');
      expect(await formatLocaleOf('AR')).to.equal(ARABIC_LATIN_DIGITS);
      // Not well formed: the catalog's locale, Arabic, in Latin digits all the same.
      expect(await formatLocaleOf('ar-')).to.equal(ARABIC_LATIN_DIGITS);
      expect(await formatLocaleOf('ar-EG')).to.equal('ar-EG');
      expect(localize.money(12_500, 'EGP')).to.match(/١٢٥/);
      expect(await formatLocaleOf('en-GB')).to.equal('en-GB');
    } finally {
      element.remove();
    }
  });
});
