import { createHmac } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { canonicalJson, SERVICE_PATHS } from '../../src/core/index.js';
import { ServiceClient, ServiceConfigError, ServiceError } from '../../src/server/index.js';
import { posRequest, referenceCodeRequest } from '../core/fixtures.js';
import { startFakeService, type FakeService, type Responder } from '../support/fake-service.js';

const merchantId = '256612345678901';
const privateKey = 'OPAYPRV-test-key-do-not-leak';
const ok: Responder = () => ({ body: { code: '00000', message: 'SUCCESSFUL', data: { orderNo: '1', status: 'PENDING' } } });

let service: FakeService | undefined;
afterEach(async () => {
  await service?.close();
  service = undefined;
});

async function clientFor(respond: Responder, options: Partial<ConstructorParameters<typeof ServiceClient>[0]> = {}) {
  service = await startFakeService(respond);
  return new ServiceClient({ merchantId, privateKey, environment: { baseUrl: service.url }, retryDelayMs: 1, ...options });
}

function expectNoSecret(error: unknown) {
  expect(String(error)).not.toContain(privateKey);
  expect(JSON.stringify(error)).not.toContain(privateKey);
}

describe('ServiceClient transport', () => {
  it('sends exactly the bytes it signed: sorted keys, no whitespace, UTF-8, with the documented headers', async () => {
    const client = await clientFor(ok);
    const request = referenceCodeRequest({}, { notifyUserName: 'منى حسن', notifyLanguage: 'Arabic' });
    await client.createPayment(request as never);
    const received = service!.requests[0]!;
    expect(received.method).toBe('POST');
    expect(received.path).toBe(SERVICE_PATHS.create);
    expect(received.headers['content-type']).toBe('application/json');
    expect(received.headers['merchantid']).toBe(merchantId);
    const expectedSignature = createHmac('sha512', privateKey).update(received.raw).digest('hex');
    expect(received.headers['authorization']).toBe(`Bearer ${expectedSignature}`);
    const text = received.raw.toString('utf8');
    expect(text).toBe(canonicalJson(received.json));
    expect(text).not.toMatch(/\s(?=(?:[^"]*"[^"]*")*[^"]*$)/); // no whitespace outside strings
    expect(text.indexOf('"amount"')).toBeLessThan(text.indexOf('"country"'));
  });

  it('normalises ReferenceCode digit strings to numbers before signing', async () => {
    const client = await clientFor(ok);
    await client.createPayment(referenceCodeRequest({ amount: { total: '12500', currency: 'EGP' }, expireAt: '60' }) as never);
    expect(service!.requests[0]!.json).toMatchObject({ amount: { total: 12_500 }, expireAt: 60 });
  });

  it('answers invalid input with the 02001 envelope, naming the fields, without calling the service', async () => {
    const client = await clientFor(ok);
    const envelope = await client.createPayment(posRequest({ sn: '', amount: { total: 0, currency: 'EGP' } }) as never);
    expect(envelope.code).toBe('02001');
    expect((envelope.data as unknown as { errors: { field: string }[] }).errors.map((error) => error.field).sort()).toEqual([
      'amount.total',
      'sn',
    ]);
    expect(service!.requests).toHaveLength(0);
  });

  it('hands business errors back as the envelope', async () => {
    const client = await clientFor(() => ({ body: { code: '02004', message: 'the payment reference already exists.', data: null } }));
    await expect(client.createPayment(posRequest() as never)).resolves.toEqual({
      code: '02004',
      message: 'the payment reference already exists.',
      data: null,
    });
  });

  it('turns a non-200 answer into a typed error, and does not repeat a create', async () => {
    const client = await clientFor(() => ({ status: 503, body: 'busy' }));
    const error = await client.createPayment(posRequest() as never).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ServiceError);
    expect(error).toMatchObject({ kind: 'http', status: 503, operation: 'create' });
    expect(service!.requests).toHaveLength(1);
    expectNoSecret(error);
  });

  it('repeats a status query after 503 and after 50003, then returns the answer', async () => {
    let calls = 0;
    const client = await clientFor(() => {
      calls++;
      if (calls === 1) return { status: 503, body: 'busy' };
      if (calls === 2) return { body: { code: '50003', message: 'service not available, please try again.' } };
      return { body: { code: '00000', message: 'SUCCESSFUL', data: { status: 'SUCCESS' } } };
    });
    const envelope = await client.queryStatus({ country: 'EG', reference: 'order-1' });
    expect(envelope.data).toEqual({ status: 'SUCCESS' });
    expect(service!.requests).toHaveLength(3);
  });

  it('gives up on a status query after the configured retries', async () => {
    const client = await clientFor(() => ({ status: 502, body: '' }), { retries: 2 });
    await expect(client.queryStatus({ country: 'EG', reference: 'order-1' })).rejects.toMatchObject({ kind: 'http', status: 502 });
    expect(service!.requests).toHaveLength(3);
  });

  it('times out, and repeats only what is safe to repeat', async () => {
    const client = await clientFor(() => ({ delayMs: 3_000, body: { code: '00000', message: 'SUCCESSFUL' } }), {
      timeoutMs: 300,
      retries: 1,
    });
    await expect(client.createPayment(posRequest() as never)).rejects.toMatchObject({ kind: 'timeout', operation: 'create' });
    expect(service!.requests).toHaveLength(1);
    await expect(client.queryStatus({ country: 'EG', reference: 'order-1' })).rejects.toMatchObject({ kind: 'timeout' });
    expect(service!.requests).toHaveLength(3);
  });

  it('reports a dropped connection as a network error', async () => {
    const client = await clientFor(() => ({ drop: true }), { retries: 0 });
    const error = await client.submitPin({ country: 'EG', orderNo: '1', pin: '1234' }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ kind: 'network', operation: 'inputPin' });
    expectNoSecret(error);
  });

  it('repeats even a create when the connection was refused, since nothing was sent', async () => {
    service = await startFakeService(ok);
    const closedUrl = service.url;
    await service.close();
    service = undefined;
    let attempts = 0;
    const client = new ServiceClient({
      merchantId,
      privateKey,
      environment: { baseUrl: closedUrl },
      retries: 2,
      retryDelayMs: 1,
      fetch: (input, init) => {
        attempts++;
        return fetch(input, init);
      },
    });
    await expect(client.createPayment(posRequest() as never)).rejects.toMatchObject({ kind: 'network' });
    expect(attempts).toBe(3);
  });

  it('refuses an answer that is not a JSON envelope', async () => {
    const client = await clientFor(() => ({ body: '<html>gateway</html>' }));
    await expect(client.queryRefund({ country: 'EG', reference: 'refund-1' })).rejects.toMatchObject({ kind: 'response' });
  });

  it('sends each call to its path with its own body', async () => {
    const client = await clientFor(ok);
    await client.submitOtp({ country: 'EG', orderNo: '1', otp: '11315632' });
    await client.submitPin({ country: 'EG', orderNo: '1', pin: '1234' });
    await client.resendOtp({ country: 'EG', orderNo: '1' });
    await client.queryStatus({ country: 'EG', reference: 'order-1' });
    await client.createRefund({
      amount: { total: 100, currency: 'EGP' },
      country: 'EG',
      originalReference: 'order-1',
      reference: 'refund-1',
      refundWay: 'Original',
    });
    await client.queryRefund({ country: 'EG', reference: 'refund-1' });
    expect(service!.requests.map((request) => request.path)).toEqual([
      SERVICE_PATHS.inputOtp,
      SERVICE_PATHS.inputPin,
      SERVICE_PATHS.resendOtp,
      SERVICE_PATHS.status,
      SERVICE_PATHS.refundCreate,
      SERVICE_PATHS.refundQuery,
    ]);
    expect(service!.requests[0]!.json).toEqual({ country: 'EG', orderNo: '1', otp: '11315632' });
  });

  it('can send OTPs to the create path, as the specification shows', async () => {
    const client = await clientFor(ok, { otpPath: 'create' });
    await client.submitOtp({ country: 'EG', orderNo: '1', otp: '11315632' });
    expect(service!.requests[0]!.path).toBe(SERVICE_PATHS.create);
  });
});

describe('ServiceClient configuration', () => {
  it('explains what is missing, without repeating the key', () => {
    const attempt = (options: Record<string, unknown>) => () =>
      new ServiceClient({ merchantId, privateKey, environment: 'sandbox', ...options } as never);
    expect(attempt({ environment: 'production' })).toThrow(/baseUrl/);
    expect(attempt({ environment: { baseUrl: 'ftp://service' } })).toThrow(ServiceConfigError);
    expect(attempt({ merchantId: 'abc' })).toThrow(/merchantId/);
    expect(attempt({ privateKey: '' })).toThrow(/privateKey/);
    // The first error a newcomer meets names the variable to set, and the command that sets it to the sandbox's.
    expect(attempt({ merchantId: undefined })).toThrow(/^merchantId must be the string of digits the service issued, and none was given: a shop reads it from SVC_MERCHANT_ID .*npx svc-sandbox -- <command>/);
    expect(attempt({ merchantId: '' })).toThrow(/and none was given: a shop reads it from SVC_MERCHANT_ID/);
    expect(attempt({ privateKey: undefined })).toThrow(/^privateKey must be the private key the service issued, and none was given: a shop reads it from SVC_PRIVATE_KEY .*npx svc-sandbox -- <command>/);
    expect(new ServiceClient({ merchantId, privateKey, environment: 'sandbox' }).baseUrl).toBe('http://127.0.0.1:4010');
    try {
      attempt({ environment: 'production' })();
    } catch (error) {
      expectNoSecret(error);
    }
  });
});
