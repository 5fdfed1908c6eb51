// The service client's two transports: on Node a keep-alive node:http pool of its own, and fetch (elsewhere, or
// when the merchant passes their own). The pool keeps its connections; both fail the same ways on the same answers.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ServiceClient, ServiceError } from '../../src/server/index.js';

const merchantId = '256612345678901';
const privateKey = 'OPAYPRV-transport-test-key';
const OK = JSON.stringify({ code: '00000', message: 'SUCCESSFUL', data: { status: 'PENDING' } });

let server: Server | undefined;
let connections = 0;

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
  connections = 0;
});

async function serve(answer: (request: IncomingMessage, response: ServerResponse) => void): Promise<string> {
  server = createServer((request, response) => {
    request.resume();
    request.on('end', () => answer(request, response));
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const TRANSPORTS = {
  'node:http pool': {},
  fetch: { fetch: (input: RequestInfo | URL, init?: RequestInit) => fetch(input, init) },
};

describe('the Node pool', () => {
  it('carries sequential calls on one kept-alive connection, and concurrent ones on a few', async () => {
    const url = await serve((_request, response) => response.end(OK));
    const client = new ServiceClient({ merchantId, privateKey, environment: { baseUrl: url } });
    for (let index = 0; index < 20; index++) expect((await client.queryStatus({ country: 'EG', reference: `order-${index}` })).code).toBe('00000');
    expect(connections).toBe(1);
    await Promise.all(Array.from({ length: 8 }, (_, index) => client.queryStatus({ country: 'EG', reference: `order-${index}` })));
    expect(connections).toBeLessThanOrEqual(8);
    const before = connections;
    for (let index = 0; index < 20; index++) await client.queryStatus({ country: 'EG', reference: `order-${index}` });
    expect(connections).toBe(before);
  });

  it("keeps no connection a server says it will close within a second (its Keep-Alive hint)", async () => {
    const url = await serve((_request, response) => {
      response.setHeader('Keep-Alive', 'timeout=1');
      response.end(OK);
    });
    const client = new ServiceClient({ merchantId, privateKey, environment: { baseUrl: url } });
    for (let index = 0; index < 3; index++) await client.queryStatus({ country: 'EG', reference: `order-${index}` });
    expect(connections).toBe(3);
  });

  it('serves a service under a path prefix and on an IPv6 loopback address', async () => {
    const paths: string[] = [];
    server = createServer((request, response) => {
      paths.push(request.url ?? '');
      request.resume();
      request.on('end', () => response.end(OK));
    });
    await new Promise<void>((resolve) => server!.listen(0, '::1', resolve));
    const client = new ServiceClient({ merchantId, privateKey, environment: { baseUrl: `http://[::1]:${(server.address() as AddressInfo).port}/gateway/` } });
    expect((await client.queryStatus({ country: 'EG', reference: 'order-1' })).code).toBe('00000');
    expect(paths).toEqual(['/gateway/api/v1/international/cashier/status']);
  });
});

describe.each(Object.entries(TRANSPORTS))('the %s transport', (_name, transport) => {
  const client = (url: string, options: object = {}) =>
    new ServiceClient({ merchantId, privateKey, environment: { baseUrl: url }, retries: 0, timeoutMs: 300, ...transport, ...options });

  it('refuses a redirect as a network failure', async () => {
    const url = await serve((_request, response) => {
      response.writeHead(302, { Location: 'https://elsewhere.example/' });
      response.end();
    });
    await expect(client(url).queryStatus({ country: 'EG', reference: 'order-1' })).rejects.toMatchObject({ kind: 'network', operation: 'status' });
  });

  it('reports an answer cut off mid-body, with its status', async () => {
    const url = await serve((_request, response) => {
      response.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': '400' });
      response.write(OK.slice(0, 10), () => response.destroy());
    });
    const error = await client(url).queryStatus({ country: 'EG', reference: 'order-1' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ServiceError);
    expect(error).toMatchObject({ kind: 'network', status: 200, message: 'status: the answer was cut off' });
  });

  it('gives up on an answer whose body never ends, as a timeout', async () => {
    const url = await serve((_request, response) => {
      response.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': '400' });
      response.write(OK.slice(0, 10));
    });
    await expect(client(url).queryStatus({ country: 'EG', reference: 'order-1' })).rejects.toMatchObject({ kind: 'timeout', status: 200 });
  });

  it('gives up on a service that never answers, as a timeout', async () => {
    const url = await serve(() => undefined);
    await expect(client(url).queryStatus({ country: 'EG', reference: 'order-1' })).rejects.toMatchObject({ kind: 'timeout', message: 'status: no answer within 300 ms' });
  });

  it('reads the body as UTF-8, a leading byte order mark dropped', async () => {
    const url = await serve((_request, response) => response.end(`\ufeff${JSON.stringify({ code: '00000', message: 'تم', data: { name: 'منى 😀' } })}`));
    expect(await client(url).queryStatus({ country: 'EG', reference: 'order-1' })).toEqual({ code: '00000', message: 'تم', data: { name: 'منى 😀' } });
  });

  it('names the system error when the service cannot be reached', async () => {
    const url = await serve(() => undefined);
    server!.close();
    server!.closeAllConnections();
    server = undefined;
    await expect(client(url).queryStatus({ country: 'EG', reference: 'order-1' })).rejects.toMatchObject({ kind: 'network', message: 'status: the service could not be reached (ECONNREFUSED)' });
  });

  it("stops at once when the caller's signal aborts, with the caller's reason", async () => {
    const url = await serve(() => undefined);
    const controller = new AbortController();
    const call = client(url, { timeoutMs: 10_000 }).queryStatus({ country: 'EG', reference: 'order-1' }, { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    await expect(call).rejects.toMatchObject({ name: 'AbortError' });
  });
});
