// Settings as props: the element hands its session new settings only when one changed (Lit's `changed`), and the
// session does nothing with settings that resolve as before. Counted through the real element in a real browser: the
// session's own counters (`CheckoutSession.counts`) and every read of the page's storage.
import { expect } from '@open-wc/testing';
import type { SvcCheckout } from '../../src/element/index.js';
import { checkout, settle, type, until } from './support/checkout.js';
import { startStack, type Stack } from './support/stack.js';

describe('settings as props', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  afterEach(() => sessionStorage.clear());

  /** Counts the page's storage reads while `during` runs. */
  async function storageReads(during: () => Promise<void>): Promise<number> {
    const getItem = Storage.prototype.getItem;
    let reads = 0;
    Storage.prototype.getItem = function (this: Storage, key: string) {
      reads += 1;
      return getItem.call(this, key);
    };
    try {
      await during();
    } finally {
      Storage.prototype.getItem = getItem;
    }
    return reads;
  }

  async function shownForm(): Promise<SvcCheckout> {
    const element = await checkout(stack, { payMethod: 'Pos' });
    await until('the terminal form', () => element.session?.state.phase.kind === 'form' || undefined);
    await settle(element);
    return element;
  }

  it('ten updates with the same settings: no transition, no check of the form, no storage read', async () => {
    const element = await shownForm();
    element.userInfo = { userName: 'Mona Hassan' };
    await settle(element);
    const before = element.session!.counts;
    const reads = await storageReads(async () => {
      for (let update = 0; update < 10; update++) {
        // An update of its own, the same attribute set again, an equal copy of an object property: nothing changed.
        if (update % 3 === 0) element.requestUpdate();
        else if (update % 3 === 1) element.setAttribute('methods', element.getAttribute('methods')!);
        else element.userInfo = { userName: 'Mona Hassan' };
        await element.updateComplete;
      }
    });
    const after = element.session!.counts;
    expect(after.transitions - before.transitions, 'transitions').to.equal(0);
    expect(after.checks - before.checks, 'checks of the form').to.equal(0);
    expect(reads, "reads of the page's storage").to.equal(0);
  });

  it('a keystroke is checked once', async () => {
    const element = await shownForm();
    const before = element.session!.counts;
    await type(element, 'input[name=sn]', 'SN-1');
    const after = element.session!.counts;
    expect(after.checks - before.checks, 'checks of the form').to.equal(1);
  });

  it('a setting that does change still reaches the session', async () => {
    const element = await shownForm();
    element.setAttribute('terminal', 'SN-42');
    await settle(element);
    expect(element.session!.state.values.Pos.sn).to.equal('SN-42');
  });
});
