// The first frame's reference code form: what the shop knows of the payer (userInfo, the language) fills it before the
// session's chunk has come (held back by the test server, `moduleGate` in web-test-runner.config.mjs), from the payer
// fields' `prefill` column as the session fills it (src/checkout/fields.ts, `prefilled`). A file of its own: a page
// loads the session's chunk once, and this test needs a page that has not.
import { expect } from '@open-wc/testing';
import type { SvcCheckout } from '../../src/element/index.js';
import { deepQuery, until } from './support/checkout.js';
import { moduleGate, placeCheckout } from './support/chunks.js';
import { startStack, type Stack } from './support/stack.js';

const frames = async (count: number) => {
  for (let index = 0; index < count; index++) await new Promise((resolve) => requestAnimationFrame(resolve));
};

describe('<svc-checkout> first frame, the reference code form', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  afterEach(async () => {
    await moduleGate('engine', 'open');
    for (const element of document.querySelectorAll('svc-checkout')) element.remove();
    sessionStorage.clear();
  });

  it("fills the reference code form with what the shop knows of the payer before the session has loaded, as the session does", async () => {
    await moduleGate('engine', 'close');
    const element: SvcCheckout = await placeCheckout(stack, { 'pay-method': 'ReferenceCode', locale: 'en', sandbox: '' }, 'first');
    element.userInfo = { userName: 'Mona Hassan', userEmail: 'mona@example.com' };
    const field = (name: string) => deepQuery<HTMLInputElement & HTMLSelectElement>(element, `[name=${name}]`);
    // The form's chunk came, the session's did not: the rows' `prefill` column fills it (the language, the locale's).
    await until('the name filled', () => field('notifyUserName')?.value === 'Mona Hassan');
    expect(element.session).to.equal(undefined);
    expect(field('notifyUserEmail')!.value).to.equal('mona@example.com');
    expect(field('notifyLanguage')!.value).to.equal('English');
    expect(deepQuery<HTMLInputElement>(element, 'input[name=notifyMethod][value=BOTH]')!.checked).to.equal(true);
    // What the payer types there stays, before and once the session has taken over (which fills the rest the same).
    const email = field('notifyUserEmail')!;
    email.value = 'ali@example.com';
    email.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
    await frames(2);
    expect(field('notifyUserEmail')!.value).to.equal('ali@example.com');
    await moduleGate('engine', 'open');
    await until('the session', () => element.session);
    await element.updateComplete;
    expect(element.session!.state.values.ReferenceCode).to.include({ notifyUserName: 'Mona Hassan', notifyUserEmail: 'ali@example.com', notifyLanguage: 'English', notifyMethod: 'BOTH' });
    expect([field('notifyUserName')!.value, field('notifyUserEmail')!.value, field('notifyLanguage')!.value]).to.deep.equal(['Mona Hassan', 'ali@example.com', 'English']);
  });
});
