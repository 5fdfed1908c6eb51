// svc-checkout/react, as built: props reach the element, and event props receive typed events.
import { expect } from '@open-wc/testing';
import { deepQuery, type, until, untilText } from './support/checkout.js';
import { startStack } from './support/stack.js';

describe('svc-checkout/react', () => {
  afterEach(() => sessionStorage.clear());

  it('renders <svc-checkout> with its props and calls the event props', async () => {
    const stack = await startStack();
    const { mount } = (await import(/* @vite-ignore */ '/__react-app.js' as string)) as typeof import('./fixtures/react-app.js');
    const container = document.createElement('div');
    document.body.append(container);
    const ready: unknown[] = [];
    const changes: { payMethod: string; complete: boolean }[] = [];
    const root = mount(container, {
      endpoint: stack.endpoint,
      merchantId: stack.merchantId,
      onReady: (detail) => ready.push(detail),
      onChange: (detail) => changes.push(detail),
    });
    try {
      const element = await until('the element', () => container.querySelector('svc-checkout'));
      await untilText(element, 'EGP 42.50');
      expect(element.getAttribute('endpoint')).to.equal(null); // props are set as properties
      expect((element as unknown as { endpoint: string }).endpoint).to.equal(stack.endpoint);
      await until('svc-ready', () => ready.length === 1);
      expect(ready[0]).to.deep.equal({ methods: ['Pos'], resumed: false });
      await type(element, 'input[name=sn]', 'N78101818218');
      await until('svc-change', () => changes.at(-1)?.complete === true);
      expect(changes.at(-1)).to.deep.equal({ payMethod: 'Pos', complete: true });
      expect(deepQuery(element, 'svc-pos-form')).to.not.equal(null);
    } finally {
      root.unmount();
      container.remove();
    }
  });
});
