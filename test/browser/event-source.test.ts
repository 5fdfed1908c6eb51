// A page that follows its order with the browser's own EventSource (the README's `?token=`, for a client that
// cannot send headers): the stream delivers PENDING, SUCCESS and `end`, and the reconnect the browser makes after
// it is answered 204, which stops an EventSource for good — rather than a reconnect every few seconds for as long
// as the page stays open. Real kit and sandbox; the kit's `retry:` is 200 ms here, so that a reconnect comes soon.
import { expect } from '@open-wc/testing';
import { CHECKOUT_TOKEN_HEADER, ORDER_TOKEN_HEADER } from '../../src/core/index.js';
import { until } from './support/checkout.js';
import { startStack, type Stack } from './support/stack.js';

describe('a standard EventSource on the status stream', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack({ handler: { streams: { retrySeconds: 0.2 } } });
  });

  it('stops once the order is settled: the reconnect after the end is answered 204', async () => {
    const reference = `event-source-${Date.now()}`;
    const sn = 'N78101818611';
    const created = await fetch(`${stack.endpoint}/payments`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', [CHECKOUT_TOKEN_HEADER]: await stack.checkoutToken({ reference }) },
      body: JSON.stringify({ reference, payMethod: 'Pos', sn }),
    });
    const orderToken = created.headers.get(ORDER_TOKEN_HEADER)!;
    const source = new EventSource(`${stack.endpoint}/payments/events?token=${encodeURIComponent(orderToken)}`);
    const seen: string[] = [];
    let opened = 0;
    source.addEventListener('open', () => (opened += 1));
    source.addEventListener('status', (event) => seen.push(JSON.parse((event as MessageEvent).data).status));
    source.addEventListener('end', (event) => seen.push(`end ${JSON.parse((event as MessageEvent).data).reason}`));
    try {
      await until('PENDING', () => seen.includes('PENDING'));
      await stack.control('POST', `/sandbox/v1/pos/${sn}/swipe`, { outcome: 'success' });
      await until('the end', () => seen.includes('end terminal'));
      expect(seen).to.deep.equal(['PENDING', 'SUCCESS', 'end terminal']);
      await until('the EventSource closed', () => source.readyState === EventSource.CLOSED, 3_000);
      // Closed for good: no reconnect since, over five of its retry pauses.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(source.readyState).to.equal(EventSource.CLOSED);
      expect(opened).to.equal(1);
    } finally {
      source.close();
    }
  });
});
