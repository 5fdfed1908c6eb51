// Status queries shared between the requests that ask within a moment (src/server/status-queries.ts), on a clock
// the test moves, with a service the test answers.
import { describe, expect, it } from 'vitest';
import type { Envelope, StatusRequest } from '../../src/core/index.js';
import { SharedStatusQueries, STATUS_SHARED_MS } from '../../src/server/payments/status-queries.js';
import { LightAbort, type AbortSignalLike } from '../../src/server/service/transport.js';

const pending: Envelope = { code: '00000', message: 'SUCCESSFUL', data: { status: 'PENDING' } };
const unavailable: Envelope = { code: '50003', message: 'service not available, please try again.', data: null };
const order: StatusRequest = { country: 'EG', orderNo: '26112200000001' };

function service() {
  const sent: { query: StatusRequest; signal: AbortSignalLike; answer(envelope: Envelope): void }[] = [];
  let now = 1_000_000;
  const queries = new SharedStatusQueries({
    send: (query, signal) => new Promise((resolve) => sent.push({ query, signal, answer: resolve })),
    now: () => now,
  });
  return { sent, queries, later: (ms: number) => (now += ms) };
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('SharedStatusQueries', () => {
  it('sends one query for the requests that ask while it is in flight and in the second after its answer', async () => {
    const { sent, queries, later } = service();
    const asked = [1, 2, 3].map(() => queries.ask(order, undefined, () => undefined));
    await flush();
    expect(sent).toHaveLength(1);
    sent[0]!.answer(pending);
    expect(await Promise.all(asked)).toEqual([pending, pending, pending]);
    later(STATUS_SHARED_MS - 1);
    expect(await queries.ask(order, undefined, () => undefined)).toBe(pending);
    later(1);
    void queries.ask(order, undefined, () => undefined);
    await flush();
    expect(sent).toHaveLength(2);
  });

  it('keeps no failure for the requests that come after it', async () => {
    const { sent, queries } = service();
    const first = queries.ask(order, undefined, () => undefined);
    await flush();
    sent[0]!.answer(unavailable);
    expect(await first).toBe(unavailable);
    void queries.ask(order, undefined, () => undefined);
    await flush();
    expect(sent).toHaveLength(2);
  });

  it("never shares one client's refusal: the next client is judged by its own limits", async () => {
    const { sent, queries } = service();
    let admit!: (refused: string | undefined) => void;
    const refused = queries.ask(order, undefined, () => new Promise<string | undefined>((resolve) => (admit = resolve)));
    const other = queries.ask(order, undefined, () => undefined);
    admit('statusPerClient');
    expect(await refused).toEqual({ refused: 'statusPerClient' });
    await flush();
    expect(sent).toHaveLength(1);
    sent[0]!.answer(pending);
    expect(await other).toBe(pending);
  });

  it('stops the query once every request waiting for it has gone, and not before', async () => {
    const { sent, queries } = service();
    const [one, two] = [new LightAbort(), new LightAbort()];
    void queries.ask(order, one, () => undefined);
    void queries.ask(order, two, () => undefined);
    await flush();
    one.abort();
    expect(sent[0]!.signal.aborted).toBe(false);
    two.abort();
    expect(sent[0]!.signal.aborted).toBe(true);
    // A request after that asks anew.
    void queries.ask(order, undefined, () => undefined);
    await flush();
    expect(sent).toHaveLength(2);
  });

  it("forgets what it shares of an order when the kit hears news of it, by number and by reference", async () => {
    const { sent, queries } = service();
    const byReference: StatusRequest = { country: 'EG', reference: 'order-7001' };
    for (const query of [order, byReference]) {
      const asked = queries.ask(query, undefined, () => undefined);
      await flush();
      sent.at(-1)!.answer(pending);
      await asked;
    }
    queries.forget({ orderNo: order.orderNo!, reference: 'order-7001' });
    void queries.ask(order, undefined, () => undefined);
    void queries.ask(byReference, undefined, () => undefined);
    await flush();
    expect(sent).toHaveLength(4);
  });

  it('lets a stream check join a query in flight, never an answer come', async () => {
    const { sent, queries } = service();
    const polled = queries.ask(order, undefined, () => undefined);
    const checked = queries.ask(order, undefined, () => undefined, true);
    await flush();
    sent[0]!.answer(pending);
    expect(await Promise.all([polled, checked])).toEqual([pending, pending]);
    void queries.ask(order, undefined, () => undefined, true);
    await flush();
    expect(sent).toHaveLength(2);
  });
});
