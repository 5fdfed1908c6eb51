// Malformed, oversized or non-JSON input never crashes the sandbox, and it keeps serving; faults on demand.
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MERCHANT_PATHS, SERVICE_PATHS } from '../../src/core/index.js';
import { posRequest } from '../core/fixtures.js';
import { eventually, wire, type Wired } from '../support/sandbox-fixture.js';

let wired: Wired;
beforeAll(async () => {
  wired = await wire();
});
afterAll(() => wired.close());
// A fault left by a test that failed half-way must not meet the next one.
afterEach(async () => {
  await wired.control('DELETE', '/sandbox/v1/faults');
});

async function stillServes() {
  const answer = await wired.client.queryStatus({ country: 'EG', reference: 'nothing' });
  expect(answer.code).toBe('02006');
}

describe('hostile input', () => {
  it('answers an oversized body with 413 without reading it all, and keeps serving', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const request = httpRequest(`${wired.sandbox.url}${SERVICE_PATHS.create}`, { method: 'POST', headers: { 'Content-Type': 'application/json' } });
      request.on('response', (response) => resolve(response.statusCode ?? 0));
      request.on('error', reject);
      const chunk = 'x'.repeat(64 * 1024);
      for (let index = 0; index < 20; index++) request.write(chunk);
      request.end();
    });
    expect(status).toBe(413);
    await stillServes();
  });

  it('survives garbage on the socket, unknown paths, wrong methods and bad control bodies', async () => {
    await new Promise<void>((resolve) => {
      const socket = connect(Number(new URL(wired.sandbox.url).port), '127.0.0.1', () => {
        socket.write('THIS IS NOT HTTP\r\n\r\n');
      });
      socket.on('data', () => undefined);
      socket.on('close', () => resolve());
      socket.on('error', () => resolve());
    });
    expect((await fetch(`${wired.sandbox.url}/nope`)).status).toBe(404);
    expect((await fetch(`${wired.sandbox.url}${SERVICE_PATHS.create}`)).status).toBe(405);
    const badControl = await fetch(`${wired.sandbox.url}/sandbox/v1/clock/advance`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"minutes":',
    });
    expect(badControl.status).toBe(400);
    const badMinutes = await wired.control('POST', '/sandbox/v1/clock/advance', { minutes: -5 });
    expect(badMinutes).toMatchObject({ status: 400, body: { errors: [{ field: 'minutes' }] } });
    const badFault = await wired.control('POST', '/sandbox/v1/faults', { kind: 'explode' });
    expect(badFault.body.errors[0].field).toBe('kind');
    expect((await wired.control('POST', '/sandbox/v1/reference-codes/12345/pay')).body.errors[0].field).toBe('referenceCode');
    await stillServes();
  });

  it('drops __proto__ keys: the order is created from the known fields only', async () => {
    const text = JSON.stringify(posRequest({ reference: 'proto-1' })).replace('{', '{"__proto__":{"polluted":1,"status":"SUCCESS"},');
    const answer = await wired.client.send<{ orderNo: string; status: string }>('create', JSON.parse(text));
    expect(answer.code).toBe('00000');
    expect(answer.data?.status).toBe('PENDING');
    const order = (await wired.control('GET', `/sandbox/v1/orders/${answer.data!.orderNo}`)).body;
    expect(order).not.toHaveProperty('polluted');
    expect(order.status).toBe('PENDING');
    await stillServes();
  });

  it('refuses to move the clock past the year 9999 (once every date it shows was a 500), and keeps serving', async () => {
    const own = await wire();
    try {
      // Ten years at a time, as far as the clock goes: some 800 calls.
      let answer = await own.control('POST', '/sandbox/v1/clock/advance', { minutes: 5_256_000 });
      while (answer.status === 200) answer = await own.control('POST', '/sandbox/v1/clock/advance', { minutes: 5_256_000 });
      expect(answer).toMatchObject({ status: 400, body: { errors: [{ field: 'minutes', rule: 'range' }] } });
      const clock = await own.control('GET', '/sandbox/v1/clock');
      expect(clock.status).toBe(200);
      expect(clock.body.now).toMatch(/^99\d\d-/);
      expect((await own.control('POST', '/sandbox/v1/clock/advance', { minutes: 1 })).status).toBe(200);
      expect((await own.merchant(MERCHANT_PATHS.create, posRequest({ reference: 'late-1' }))).code).toBe('00000');
    } finally {
      await own.close();
    }
  });

  it('answers 404, not 500, to a request target that is not a URL', async () => {
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const request = httpRequest(`${wired.sandbox.url}/`, { method: 'POST', path: `http://[${SERVICE_PATHS.create}` }, (response) => {
        let body = '';
        response.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      });
      request.on('error', reject);
      request.end('{}');
    });
    expect(answer.status).toBe(404);
    expect(JSON.parse(answer.body)).toEqual({ message: 'the request target is not a URL' });
    await stillServes();
  });
});

describe('faults', () => {
  it('answers 50003 for the next N calls, then serves again', async () => {
    await wired.control('POST', '/sandbox/v1/faults', { kind: '50003', count: 2 });
    expect((await wired.client.createPayment(posRequest({ reference: 'fault-1' }) as never)).code).toBe('50003');
    expect((await wired.merchant(MERCHANT_PATHS.create, posRequest({ reference: 'fault-1' }))).code).toBe('50003');
    expect((await wired.merchant(MERCHANT_PATHS.create, posRequest({ reference: 'fault-1' }))).code).toBe('00000');
  });

  it('holds a call past the kit timeout, and the kit answers 50003', async () => {
    const impatient = await wire({ handler: { timeoutMs: 300, retries: 0 } });
    try {
      await impatient.control('POST', '/sandbox/v1/faults', { kind: 'timeout', count: 1, delayMs: 5_000 });
      const answer = await impatient.merchant(MERCHANT_PATHS.create, posRequest({ reference: 'fault-2' }));
      expect(answer).toEqual({ code: '50003', message: 'service not available, please try again.', data: null });
    } finally {
      await impatient.close();
    }
  });

  it('processes a create whose answer comes too late: the kit answers 50003, and a repeat finds the order and makes none', async () => {
    const impatient = await wire({ handler: { timeoutMs: 300, retries: 0 } });
    try {
      for (const kind of ['slow', 'lost']) {
        const reference = `fault-late-${kind}`;
        await impatient.control('POST', '/sandbox/v1/faults', { kind, count: 1, delayMs: 1_000 });
        const answer = await impatient.merchant(MERCHANT_PATHS.create, posRequest({ reference }));
        expect(answer.code, kind).toBe('50003');
        // The service refuses the reference (02004); the kit answers with the order it finds (One checkout, one payment).
        const again = await impatient.merchant(MERCHANT_PATHS.create, posRequest({ reference }));
        expect(again, kind).toMatchObject({ code: 'ORDER_EXISTS', data: { status: 'PENDING', reference } });
        const status = await impatient.merchant<{ status: string; reference: string }>(MERCHANT_PATHS.status, { country: 'EG', reference });
        expect(status, kind).toMatchObject({ code: '00000', data: { status: 'PENDING', reference } });
      }
      const orders = (await impatient.control('GET', '/sandbox/v1/orders')).body.orders as { reference: string }[];
      expect(orders.filter((order) => order.reference.startsWith('fault-late-')).map((order) => order.reference).sort()).toEqual([
        'fault-late-lost',
        'fault-late-slow',
      ]);
    } finally {
      await impatient.close();
    }
  });

  it('answers a slow call late but whole', async () => {
    await wired.control('POST', '/sandbox/v1/faults', { kind: 'slow', count: 1, delayMs: 1_000 });
    let slowAnswered = false;
    const slow = wired.client.queryStatus({ country: 'EG', reference: 'nothing' }).finally(() => {
      slowAnswered = true;
    });
    // A call sent after the slow one reached the sandbox (its fault is taken), and not held, is answered first.
    await eventually('the slow call to reach the sandbox', async () => (await wired.sandboxControl.request<{ faults: unknown[] }>('GET', '/sandbox/v1/faults')).body.faults.length === 0);
    await stillServes();
    expect(slowAnswered).toBe(false);
    expect((await slow).code).toBe('02006');
  });

  it('drops the connection, and the kit answers 50003', async () => {
    await wired.control('POST', '/sandbox/v1/faults', { kind: 'drop' });
    expect((await wired.merchant(MERCHANT_PATHS.status, { country: 'EG', reference: 'x' })).code).toBe('50003');
    expect((await wired.control('GET', '/sandbox/v1/faults')).body.faults).toEqual([]);
  });
});
