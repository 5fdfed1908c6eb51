// Callbacks from the sandbox to the real merchant kit, when the merchant's side fails: every change still
// reaches onCallback, and exactly once.
import { afterEach, describe, expect, it } from 'vitest';
import { MERCHANT_PATHS } from '../../src/core/index.js';
import type { DeliveryAttempt } from '../../src/sandbox/index.js';
import type { CallbackEvent } from '../../src/server/callbacks/hand-over.js';
import { posRequest, referenceCodeRequest } from '../core/fixtures.js';
import { eventually, wire, type Wired } from '../support/sandbox-fixture.js';

let wired: Wired | undefined;
afterEach(async () => {
  await wired?.close();
  wired = undefined;
});

/** Moves the sandbox clock on, one minute at a time, until `done` holds (each retry is due within an hour). */
async function advanceUntil(what: string, done: () => Promise<boolean>): Promise<void> {
  for (let minute = 0; minute < 600; minute++) {
    await wired!.sandbox.idle();
    if (await done()) return;
    await wired!.control('POST', '/sandbox/v1/clock/advance', { minutes: 1 });
  }
  throw new Error(`${what} did not happen within 600 sandbox minutes`);
}

async function attempts(): Promise<DeliveryAttempt[]> {
  return (await wired!.control('GET', '/sandbox/v1/callbacks')).body.callbacks;
}

/** Three orders that each change once: one paid, one declined, one expired. */
async function threeChanges(): Promise<string[]> {
  const paid = await wired!.merchant(MERCHANT_PATHS.create, posRequest({ reference: 'dl-paid', sn: 'SN-DL-1' }));
  const declined = await wired!.merchant(MERCHANT_PATHS.create, posRequest({ reference: 'dl-declined', sn: 'SN-DL-2' }));
  const expiring = await wired!.merchant(MERCHANT_PATHS.create, referenceCodeRequest({ reference: 'dl-expired', expireAt: 1 }));
  await wired!.control('POST', '/sandbox/v1/pos/SN-DL-1/swipe', { outcome: 'success' });
  await wired!.control('POST', '/sandbox/v1/pos/SN-DL-2/swipe', { outcome: 'fail' });
  await wired!.control('POST', '/sandbox/v1/clock/advance', { minutes: 2 });
  return [paid.data.orderNo, declined.data.orderNo, expiring.data.orderNo];
}

function handledOnce(callbacks: CallbackEvent[], orderNos: string[]) {
  expect(callbacks.map((event) => [event.body.orderNo, event.body.status]).sort()).toEqual(
    [
      [orderNos[0], 'SUCCESS'],
      [orderNos[1], 'FAIL'],
      [orderNos[2], 'CLOSE'],
    ].sort(),
  );
  expect(new Set(callbacks.map((event) => event.notifyId)).size).toBe(callbacks.length);
}

describe('callback delivery to a failing merchant', () => {
  it('survives a merchant whose onCallback fails the first 3 times, and hands each change over once', async () => {
    const failuresLeft = new Map<string, number>();
    const handled: CallbackEvent[] = [];
    wired = await wire({
      handler: {
        onCallback: (event) => {
          const left = failuresLeft.get(event.notifyId) ?? 3;
          failuresLeft.set(event.notifyId, left - 1);
          if (left > 0) throw new Error('the order database is down');
          handled.push(event);
        },
      },
    });
    const orderNos = await threeChanges();
    await advanceUntil('three acknowledged deliveries', async () => (await attempts()).filter((attempt) => attempt.acknowledged).length === 3);
    // Well past the last retry of the schedule: nothing more is sent.
    await wired.control('POST', '/sandbox/v1/clock/advance', { minutes: 73 * 60 });
    await wired.sandbox.idle();

    handledOnce(handled, orderNos);
    const log = await attempts();
    for (const orderNo of orderNos) {
      const mine = log.filter((attempt) => attempt.orderNo === orderNo);
      expect(mine.map((attempt) => [attempt.status, attempt.acknowledged]), orderNo).toEqual([
        [500, false],
        [500, false],
        [500, false],
        [200, true],
      ]);
      expect(new Set(mine.map((attempt) => attempt.notifyId)).size).toBe(1);
    }
  });

  it('hands a change over once when the merchant answers too late and the service sends it again', async () => {
    const handled: CallbackEvent[] = [];
    let slowLeft = 3;
    wired = await wire({
      sandbox: { callbackTimeoutMs: 200 },
      handler: {
        onCallback: async (event) => {
          // The first deliveries are handled, but their answers come after the sandbox stopped waiting.
          if (slowLeft-- > 0) await new Promise((resolve) => setTimeout(resolve, 600));
          handled.push(event);
        },
      },
    });
    const orderNos = await threeChanges();
    await advanceUntil('three acknowledged deliveries', async () => (await attempts()).filter((attempt) => attempt.acknowledged).length === 3);
    await eventually('every handling to end', () => handled.length === 3);
    await wired.control('POST', '/sandbox/v1/clock/advance', { minutes: 73 * 60 });
    await wired.sandbox.idle();

    handledOnce(handled, orderNos);
    const log = await attempts();
    // Each order's first delivery timed out (no answer); deliveries while it was still being handled were
    // refused with 503; a later one was acknowledged as a duplicate.
    for (const orderNo of orderNos) {
      const mine = log.filter((attempt) => attempt.orderNo === orderNo);
      expect(mine[0]!.status, orderNo).toBeNull();
      expect(mine.slice(1, -1).every((attempt) => attempt.status === 503 || attempt.status === null), orderNo).toBe(true);
      expect(mine.filter((attempt) => attempt.acknowledged)).toHaveLength(1);
      expect(mine.at(-1)!.acknowledged).toBe(true);
    }
  });
});
