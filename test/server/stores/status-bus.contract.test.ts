/**
 * The status bus's contract (src/server/stores/status-bus/port.ts), run against each adapter: memory, and Redis
 * pub/sub between two processes. Every listener, in the publishing process and in every other, hears each update
 * once and whole, one publisher's updates in the order published; a listener that stopped hears nothing more, and
 * the others go on hearing. A bus that can deliver says it is live.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { StatusUpdate } from '../../../src/server/stores/status-bus/port.js';
import { ADAPTERS, listen, STATUS_BUSES, type BusProcesses } from './adapters.js';

let serial = 0;
const update = (extra: Partial<StatusUpdate> = {}): StatusUpdate => ({
  orderNo: `2611220000${String((serial += 1)).padStart(4, '0')}`,
  reference: `cart-${serial}`,
  status: 'SUCCESS',
  source: 'callback',
  at: 1_700_000_000_000 + serial,
  ...extra,
});

describe.each(ADAPTERS)('the %s status bus', (name) => {
  let buses: BusProcesses;
  beforeAll(async () => {
    buses = await STATUS_BUSES[name]();
  });

  it('says it is live', () => {
    expect(buses.writer.live ?? true).toBe(true);
    expect(buses.reader.live ?? true).toBe(true);
  });

  it('brings each update to every listener of every process, once and whole, in the order published', async () => {
    const listeners = [listen(buses.writer), listen(buses.writer), listen(buses.reader)];
    const failed = update({ status: 'FAIL', failureCode: 'INSUFFICIENT_FUNDS', failureReason: 'Declined by the issuer', source: 'query' });
    const [first, second] = [update(), failed];
    await buses.writer.publish(first);
    await buses.writer.publish(second);
    await buses.delivered();
    // Then from the other process: heard by the publisher's listeners as by its own.
    const third = update({ status: 'CLOSE' });
    await buses.reader.publish(third);
    await buses.delivered();
    for (const { updates, stop } of listeners) {
      expect(updates).toEqual([first, second, third]);
      stop();
    }
  });

  it('stops bringing updates to a listener that stopped listening, and to it alone', async () => {
    const [stopped, other, publisher] = [listen(buses.reader), listen(buses.reader), listen(buses.writer)];
    stopped.stop();
    const published = update();
    await buses.writer.publish(published);
    await buses.delivered();
    expect(stopped.updates).toEqual([]);
    expect(other.updates).toEqual([published]);
    expect(publisher.updates).toEqual([published]);
    other.stop();
    publisher.stop();
  });
});
