// The checkout's timings (src/element/controllers/timings.ts) in each engine, against the real sandbox and kit: the
// first frame, the first interaction, each step's duration as the session moves, and the step a payer stopped at when
// the page goes away, as `svc-timing` events; with `send-timings`, the same as beacons to the kit behind `endpoint`,
// which answers them 204, and to nowhere else; without it, no beacon at all. Nothing of the payer or the order in any.
import { expect } from '@open-wc/testing';
import type { SvcTimingDetail } from '../../src/element/index.js';
import { checkout, clickButton, deepQuery, type, until, untilText, uniqueReference } from './support/checkout.js';
import { startStack, type Stack } from './support/stack.js';

/** Every svc-timing of the page, from before the element is made. */
const timings: SvcTimingDetail[] = [];
const hear = (event: Event) => timings.push((event as CustomEvent<SvcTimingDetail>).detail);

/** navigator.sendBeacon, watched: each call's address and body, passed on to the browser's own. */
const beacons: { url: string; body: string }[] = [];
const sendBeacon = navigator.sendBeacon.bind(navigator);

const kinds = () => timings.map((timing) => `${timing.kind}${timing.step ? ` ${timing.step}` : ''}${timing.action ? ` ${timing.action}` : ''}`);

describe('the checkout’s timings', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
    Object.defineProperty(navigator, 'sendBeacon', {
      configurable: true,
      value: (url: string, body: string) => {
        beacons.push({ url: String(url), body: String(body) });
        return sendBeacon(url, body);
      },
    });
  });
  after(() => delete (navigator as { sendBeacon?: unknown }).sendBeacon);
  beforeEach(() => {
    timings.length = 0;
    beacons.length = 0;
    document.addEventListener('svc-timing', hear);
  });
  afterEach(() => {
    document.removeEventListener('svc-timing', hear);
    sessionStorage.clear();
  });

  it('tells the first frame, the first interaction and each step, and sends them to the kit behind endpoint when asked', async () => {
    const reference = uniqueReference('timings');
    const element = await checkout(stack, { reference });
    element.toggleAttribute('send-timings', true);
    await until('the first frame', () => timings.some((timing) => timing.kind === 'first-frame'));
    await type(element, 'input[name=sn]', 'N78101818218');
    await until('the first interaction', () => timings.some((timing) => timing.kind === 'first-interaction'));
    await clickButton(element, /^Pay/);
    await untilText(element, 'terminal N78101818218');
    await until('the form’s duration', () => timings.some((timing) => timing.kind === 'step'));
    const { body } = await stack.control('GET', '/sandbox/v1/orders');
    const order = (body.orders as { orderNo: string; reference: string }[]).find((each) => each.reference === reference)!;
    await stack.control('POST', '/sandbox/v1/pos/N78101818218/swipe', { outcome: 'success' });
    await untilText(element, 'Payment received');
    await until('the terminal’s duration', () => kinds().includes('step action SWIPE_CARD'));

    expect(kinds()).to.deep.equal(['first-frame', 'first-interaction', 'step form', 'step action SWIPE_CARD']);
    const [painted, interacted, form, terminal] = timings as [SvcTimingDetail, SvcTimingDetail, SvcTimingDetail, SvcTimingDetail];
    expect(painted.ms).to.be.within(1, performance.now());
    expect(interacted.ms).to.be.within(painted.ms, performance.now());
    expect(form).to.include({ kind: 'step', step: 'form', method: 'Pos' });
    expect(terminal).to.include({ kind: 'step', step: 'action', action: 'SWIPE_CARD', method: 'Pos' });
    for (const timing of timings) expect(Number.isInteger(timing.ms) && timing.ms >= 0, JSON.stringify(timing)).to.equal(true);

    // The result sent them at once: one beacon, to endpoint + /timings, answered 204 by the kit.
    await until('the beacon', () => beacons.length > 0);
    expect(beacons.map((beacon) => new URL(beacon.url, location.href).href)).to.deep.equal([new URL(`${stack.endpoint}/timings`, location.href).href]);
    expect(JSON.parse(beacons[0]!.body)).to.deep.equal({ timings });
    const received = await until('the kit to receive it', async () => {
      const got = await stack.beacons();
      return got.length > 0 && got[0]!.status !== 0 && got;
    });
    expect(received.map((beacon) => beacon.status)).to.deep.equal([204]);
    expect(JSON.parse(received[0]!.body)).to.deep.equal({ timings });
    const text = JSON.stringify(timings) + received[0]!.body;
    for (const personal of ['N78101818218', reference, order.orderNo]) expect(text).not.to.contain(personal);
  });

  it('tells the step a payer stopped at when the page goes away, and sends nothing when the page did not ask', async () => {
    const element = await checkout(stack);
    await until('the first frame', () => timings.some((timing) => timing.kind === 'first-frame'));
    await type(element, 'input[name=sn]', 'N78101818218');
    window.dispatchEvent(new Event('pagehide'));
    await until('the stop', () => timings.some((timing) => timing.kind === 'stop'));
    expect(timings.find((timing) => timing.kind === 'stop')).to.include({ step: 'form', method: 'Pos' });
    document.dispatchEvent(new Event('visibilitychange'));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(beacons).to.deep.equal([]);
  });

  it('tells where the payer was when the element is taken off the page unfinished, with the method chosen then', async () => {
    const element = await checkout(stack);
    element.toggleAttribute('send-timings', true);
    await until('the first frame', () => timings.some((timing) => timing.kind === 'first-frame'));
    deepQuery<HTMLInputElement>(element, 'input[value=ReferenceCode]')!.click();
    await until('the method', () => element.session?.state.method === 'ReferenceCode');
    // Off the page, its events reach no document: heard on the element itself.
    document.removeEventListener('svc-timing', hear);
    element.addEventListener('svc-timing', hear);
    element.remove();
    await until('the stop', () => timings.some((timing) => timing.kind === 'stop'));
    expect(timings.filter((timing) => timing.kind === 'stop')).to.deep.equal([{ kind: 'stop', step: 'form', method: 'ReferenceCode', ms: timings.find((timing) => timing.kind === 'stop')!.ms }]);
    // Taken off the page: what it had not sent goes, to endpoint + /timings only.
    await until('the beacon', () => beacons.length > 0);
    expect(new Set(beacons.map((beacon) => new URL(beacon.url, location.href).pathname))).to.deep.equal(new Set([new URL(`${stack.endpoint}/timings`, location.href).pathname]));
  });
});
