// The first frame (src/checkout/first-frame.ts): the form from the settings alone, the same the session starts
// with, and nothing when the session has something else to show (an order to resume, a lost create, a status page).
import { afterEach, describe, expect, it } from 'vitest';
import type { CheckoutSession, CheckoutSettings } from '../../src/checkout/index.js';
import { firstFrameOf } from '../../src/checkout/index.js';
import { prefilled } from '../../src/checkout/fields.js';
import { shownConfigOf } from '../../src/checkout/first-frame.js';
import { ENDPOINT, harness, MemoryStorage, PAGE, type Harness } from './support.js';

let h: Harness | undefined;
const sessions: CheckoutSession[] = [];
afterEach(async () => {
  for (const session of sessions.splice(0)) session.dispose();
  await h?.close();
  h = undefined;
});

const frameOf = (settings: CheckoutSettings, storage = new MemoryStorage()) => firstFrameOf(settings, { storage, pageUrl: () => PAGE });

describe('the first frame', () => {
  it('decides the isolation policy with the configuration: the frame at the endpoint, or (isolated: false) none', async () => {
    h = await harness();
    const checkoutToken = await h.token();
    expect(frameOf({ endpoint: ENDPOINT, checkoutToken })!.isolatedAt).toBe(ENDPOINT);
    expect(frameOf({ endpoint: ENDPOINT, checkoutToken, isolated: false })!.isolatedAt).toBeUndefined();
    const { session } = await h.session({ endpoint: ENDPOINT, checkoutToken, isolated: false, liveStatus: false });
    sessions.push(session);
    expect(session.state.isolatedAt).toBeUndefined();
    session.configure({ endpoint: ENDPOINT, checkoutToken, liveStatus: false });
    expect(session.state.isolatedAt).toBe(ENDPOINT);
  });

  it('is the form the session starts with: methods, amount, names, the terminal and the payer details known', async () => {
    h = await harness();
    const checkoutToken = await h.token();
    const settings: CheckoutSettings = {
      endpoint: ENDPOINT,
      checkoutToken,
      terminal: ' N78101818700 ',
      userInfo: { userName: 'Mona Hassan', userEmail: 'mona@example.com' },
      language: 'Arabic',
    };
    const first = frameOf(settings);
    const { session } = await h.session({ ...settings, liveStatus: false });
    sessions.push(session);
    expect(first).toBeDefined();
    expect(session.state.phase.kind).toBe('form');
    // The first frame as the element shows it once the reference code form's chunk came: filled as the session fills it.
    const { phase: _a, ...fromFrame } = prefilled(shownConfigOf(settings).config, settings, first!);
    const { phase: _b, ...fromSession } = session.state;
    expect(fromFrame).toEqual(fromSession);
    expect(first!.values.Pos.sn).toBe('N78101818700');
    expect(fromFrame.values.ReferenceCode).toMatchObject({ notifyUserName: 'Mona Hassan', notifyLanguage: 'Arabic', notifyMethod: 'BOTH' });
    expect(first!.amount).toEqual({ total: 12_500, currency: 'EGP' });
  });

  it('is nothing when the session has something else to show, or the settings do not read', async () => {
    h = await harness();
    const checkoutToken = await h.token();
    const settings: CheckoutSettings = { endpoint: ENDPOINT, checkoutToken };
    expect(frameOf({ ...settings, statusOnly: true })).toBeUndefined();
    expect(frameOf({ ...settings, refused: 'private-key' })).toBeUndefined();
    expect(frameOf({ checkoutToken })).toBeUndefined(); // no endpoint
    expect(frameOf({ ...settings, checkoutToken: 'ct1.not-a-token.tag' })).toBeUndefined();
    expect(frameOf({ ...settings, methods: 'Cash' })).toBeUndefined();
    // An order in progress, saved by an earlier page of this checkout: the session resumes it, never a form first.
    const { session } = await h.session({ ...settings, liveStatus: false });
    sessions.push(session);
    expect(frameOf(settings, h.storage)).toBeDefined();
    session.selectMethod('Pos');
    session.input('sn', 'N78101818701');
    await session.submit();
    await h.settle();
    expect(session.state.phase.kind).toBe('action');
    expect(frameOf(settings, h.storage)).toBeUndefined();
  });

  it('shows what a checkout token says without checking it, and only a token of the right shape', async () => {
    h = await harness();
    const checkoutToken = await h.token();
    const [kind, payload, tag] = checkoutToken.split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString());
    const respelled = (change: Record<string, unknown>) => `${kind}.${Buffer.from(JSON.stringify({ ...claims, ...change })).toString('base64url')}.${tag}`;
    // A tag that would not verify does not stop the first frame (only the kit can check it): the form shows it.
    expect(frameOf({ endpoint: ENDPOINT, checkoutToken: respelled({ mn: 'Another Shop' }) })?.merchantName).toBe('Another Shop');
    // Claims of the wrong shape never reach the screen.
    expect(frameOf({ endpoint: ENDPOINT, checkoutToken: respelled({ amt: '12500' }) })).toBeUndefined();
    expect(frameOf({ endpoint: ENDPOINT, checkoutToken: respelled({ pm: [] }) })).toBeUndefined();
    // Words beyond ASCII come through as written (UTF-8 in the payload); a payload that is not base64url, or whose
    // bytes are not UTF-8, is no token.
    expect(frameOf({ endpoint: ENDPOINT, checkoutToken: respelled({ mn: 'محمصة النيل ☕' }) })?.merchantName).toBe('محمصة النيل ☕');
    expect(frameOf({ endpoint: ENDPOINT, checkoutToken: `${kind}.${payload}*.${tag}` })).toBeUndefined();
    expect(frameOf({ endpoint: ENDPOINT, checkoutToken: `${kind}.${payload}A.${tag}` })).toBeUndefined();
    expect(frameOf({ endpoint: ENDPOINT, checkoutToken: `${kind}.${Buffer.from([0x7b, 0xff, 0x7d]).toString('base64url')}.${tag}` })).toBeUndefined();
  });
});
