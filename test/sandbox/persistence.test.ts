// State that survives a restart (`dataFile`, `--data`): written atomically shortly after each change and at
// close, read back at start; a damaged file is an error that says where.
import { mkdtemp, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ServiceClient } from '../../src/server/index.js';
import { createSandbox, DataFileError, DEFAULT_MERCHANT, SandboxControl, type Sandbox } from '../../src/sandbox/index.js';
import { writeFileAtomically } from '../../src/sandbox/world/persistence.js';
import { posRequest, referenceCodeRequest } from '../core/fixtures.js';
import { listen } from '../support/fake-service.js';
import { eventually } from '../support/sandbox-fixture.js';

let dir: string;
let file: string;
let sandbox: Sandbox | undefined;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-sandbox-data-'));
  file = join(dir, 'state.json');
});
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

async function start(): Promise<{ control: SandboxControl; client: ServiceClient }> {
  sandbox = await createSandbox({ tickMs: 20, dataFile: file });
  return {
    control: new SandboxControl(sandbox.url),
    client: new ServiceClient({ merchantId: DEFAULT_MERCHANT.merchantId, privateKey: DEFAULT_MERCHANT.privateKey, environment: { baseUrl: sandbox.url } }),
  };
}

async function restart() {
  await sandbox!.close();
  return start();
}

describe('a data file', () => {
  it('brings back orders and their life, messages, refunds, queued faults, expectations and the clock after a restart', async () => {
    let { control, client } = await start();
    const pending = await client.createPayment(posRequest({ reference: 'kept-pos', sn: 'SN-KEPT', expireAt: 120 }) as never);
    const coded = await client.createPayment(referenceCodeRequest({ reference: 'kept-code' }) as never);
    const { orderNo, referenceCode } = coded.data as { orderNo: string; referenceCode: string };
    await control.payReferenceCode(referenceCode);
    await client.createRefund({ amount: { total: 100, currency: 'EGP' }, country: 'EG', originalReference: 'kept-code', reference: 'kept-refund', refundWay: 'Original' });
    const expectation = await control.expect({ reference: 'kept-later', outcome: 'FAIL' });
    const deliveryFault = await control.addDeliveryFault({ kind: 'duplicate', count: 3 });
    await control.addFault({ kind: 'slow', count: 2, delayMs: 10 });
    await control.advanceClock(30);
    const before = await control.state();

    ({ control, client } = await restart());
    const after = await control.state();
    expect(after.orders).toEqual(before.orders);
    expect(after.refunds).toEqual(before.refunds);
    expect(after.messages).toEqual(before.messages);
    expect(after.expectations).toMatchObject([{ id: expectation.id, state: 'waiting' }]);
    expect(after.deliveryFaults).toMatchObject([{ id: deliveryFault.id, remaining: 3 }]);
    expect(after.faults).toMatchObject([{ kind: 'slow', remaining: 2 }]);
    expect(after.clock.offsetMs).toBe(before.clock.offsetMs);
    expect((await control.order(orderNo)).life.map((entry) => entry.status).filter(Boolean)).toEqual(['PENDING', 'SUCCESS']);

    // It goes on from there: references stay taken, numbers and codes go on, the kept order can still be paid.
    await control.clearFaults();
    expect((await client.createPayment(posRequest({ reference: 'kept-pos' }) as never)).code).toBe('02004');
    const next = await client.createPayment(referenceCodeRequest({ reference: 'after-restart' }) as never);
    expect((next.data as { orderNo: string }).orderNo > orderNo).toBe(true);
    expect((next.data as { referenceCode: string }).referenceCode).not.toBe(referenceCode);
    expect((await control.swipe('SN-KEPT')).orderNo).toBe((pending.data as { orderNo: string }).orderNo);
    // The waiting expectation applies after the restart.
    const later = await client.createPayment(posRequest({ reference: 'kept-later', sn: 'SN-LATER' }) as never);
    expect((await control.swipe('SN-LATER')).status).toBe('FAIL');
    expect((later.data as { orderNo: string }).orderNo).toMatch(/^\d{14}$/);
  });

  it('keeps retrying a callback that was due to be retried', async () => {
    let answers = 0;
    const merchant = await listen((_request, response) => {
      answers += 1;
      response.writeHead(answers === 1 ? 500 : 200).end();
    });
    try {
      let { control, client } = await start();
      await client.createPayment(posRequest({ reference: 'retry-kept', sn: 'SN-RETRY', callbackUrl: `${merchant.url}/hook` }) as never);
      await control.swipe('SN-RETRY');
      await eventually('the first attempt', async () => (await control.deliveries())[0]?.attempts[0]?.status === 500);
      ({ control } = await restart());
      await control.advanceClock(1);
      const delivered = await eventually('the retry', async () => {
        const [delivery] = await control.deliveries();
        return delivery?.state === 'acknowledged' ? delivery : undefined;
      });
      expect(delivered.attempts.map((attempt) => attempt.status)).toEqual([500, 200]);
    } finally {
      await merchant.close();
    }
  });

  it('is written shortly after a change, not only at close, and never leaves a temporary file behind', async () => {
    const { client } = await start();
    const created = await client.createPayment(posRequest({ reference: 'written-soon' }) as never);
    const orderNo = (created.data as { orderNo: string }).orderNo;
    await eventually('the write', async () => (await readFile(file, 'utf8').catch(() => '')).includes(orderNo), 2_000);
    const saved = JSON.parse(await readFile(file, 'utf8'));
    expect(saved).toMatchObject({ format: 'svc-sandbox-data', version: 1 });
    expect(JSON.stringify(saved)).not.toContain(DEFAULT_MERCHANT.privateKey);
    const first = (await stat(file)).ino;
    await client.createPayment(posRequest({ reference: 'written-again' }) as never);
    await sandbox!.save();
    // A new file renamed over the old one, not the old one rewritten in place.
    expect((await stat(file)).ino).not.toBe(first);
    expect(await readdir(dir)).toEqual(['state.json']);
  });

  it('starts empty when the file does not exist yet, and creates it at once', async () => {
    const { control } = await start();
    expect((await control.state()).orders).toEqual([]);
    expect(JSON.parse(await readFile(file, 'utf8')).book.orders).toEqual([]);
  });

  it('refuses to start when the file cannot be written', async () => {
    const error = (await createSandbox({ dataFile: join(dir, 'missing', 'state.json') }).catch((caught: unknown) => caught)) as Error;
    expect(error).toBeInstanceOf(DataFileError);
    expect(error.message).toMatch(/cannot be written/);
  });

  it.each([
    ['not JSON', '{"format": "svc-sandbox-data",\n  "version": 1,,', /is damaged: it is not JSON \(line 2, column 16: expected a key in double quotes, found ","\)/],
    ['empty', '', /is empty/],
    ['another file', JSON.stringify({ merchants: [] }), /damaged at line 1, column 1: format must be "svc-sandbox-data": this is not a sandbox data file/],
    ['a later version', JSON.stringify({ format: 'svc-sandbox-data', version: 9 }), /version is 9; this sandbox reads version 1/],
  ])('refuses a damaged file (%s), saying where and what to do', async (_name, text, message) => {
    await writeFile(file, text);
    const error = await createSandbox({ dataFile: file }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DataFileError);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).toContain(file);
    expect((error as Error).message).toMatch(/Move it away \(or delete it\) to start with an empty sandbox/);
    // And leaves it as it was, for the developer to look at.
    expect(await readFile(file, 'utf8')).toBe(text);
  });

  it('names the damaged entry and its line', async () => {
    const { client } = await start();
    await client.createPayment(posRequest({ reference: 'to-damage' }) as never);
    await sandbox!.close();
    sandbox = undefined;
    const saved = JSON.parse(await readFile(file, 'utf8'));
    delete saved.book.orders[0].reference;
    await writeFile(file, JSON.stringify(saved, null, 2));
    const error = (await createSandbox({ dataFile: file }).catch((caught: unknown) => caught)) as Error;
    expect(error.message).toMatch(/damaged at line \d+, column \d+: book\.orders\[0\]\.reference must be a string/);
  });
});

describe('writeFileAtomically', () => {
  it('replaces the file whole, and cleans up when it cannot', async () => {
    await writeFileAtomically(file, 'one');
    await writeFileAtomically(file, 'two');
    expect(await readFile(file, 'utf8')).toBe('two');
    await expect(writeFileAtomically(join(dir, 'missing', 'state.json'), 'x')).rejects.toThrow();
    expect(await readdir(dir)).toEqual(['state.json']);
  });
});
