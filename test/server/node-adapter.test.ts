// toNodeListener with requests no Web Request can describe as they came: a Host header that names no host, a
// request target that is not a URL, and TRACE, which fetch refuses. None of them is a 500.
import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createMerchantHandler, toNodeListener, type NodeListener } from '../../src/server/index.js';
import { listen } from '../support/fake-service.js';

let server: { url: string; close(): Promise<void> } | undefined;
const errors: unknown[] = [];
afterEach(async () => {
  await server?.close();
  server = undefined;
  errors.length = 0;
});

/** A handler that says what it was given. */
const echo = async (request: Request) =>
  new Response(JSON.stringify({ method: request.method, host: new URL(request.url).host, path: new URL(request.url).pathname }), {
    headers: { 'Content-Type': 'application/json' },
  });

async function serve(listener: NodeListener) {
  server = await listen((request, response) => listener(request, response));
  return server.url;
}

function raw(base: string, method: string, path: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; body: string; allow: string | undefined; nosniff: string | undefined }>((resolve, reject) => {
    const request = httpRequest(`${base}/`, { method, path, headers }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body, allow: response.headers['allow'], nosniff: response.headers['x-content-type-options'] as string | undefined }));
    });
    request.on('error', reject);
    // Node's own parser refuses a TRACE with a body (400) before any listener sees it.
    request.end(method === 'TRACE' ? undefined : '{}');
  });
}

describe('toNodeListener with requests a Web Request cannot carry as they came', () => {
  it('serves a Host header that names no host (or a port out of range) as localhost', async () => {
    const url = await serve(toNodeListener(echo, { onError: (error) => errors.push(error) }));
    for (const host of ['[', ':', 'a:99999', '[::1']) {
      const answer = await raw(url, 'POST', '/payments', { Host: host });
      expect(answer.status, host).toBe(200);
      expect(JSON.parse(answer.body)).toEqual({ method: 'POST', host: 'localhost', path: '/payments' });
    }
    expect(errors).toEqual([]);
  });

  it('answers 404 to a request target that is not a URL, or leaves it to the next middleware', async () => {
    const url = await serve(toNodeListener(echo, { onError: (error) => errors.push(error) }));
    const answer = await raw(url, 'POST', 'http://[/payments');
    // With the headers of every answer of the kit's, as the Web handler's own 404 has them.
    expect(answer).toMatchObject({ status: 404, nosniff: 'nosniff' });
    expect(JSON.parse(answer.body)).toEqual({ message: 'no such path' });

    let passedOn = 0;
    const listener = toNodeListener(echo);
    await server!.close();
    const nextUrl = await serve((request, response) =>
      listener(request, response, () => {
        passedOn++;
        response.writeHead(204, {});
        response.end();
      }),
    );
    expect((await raw(nextUrl, 'POST', 'http://a:99999/payments')).status).toBe(204);
    expect(passedOn).toBe(1);
    expect(errors).toEqual([]);
  });

  it("answers TRACE, which fetch refuses to carry, from the kit's route table (405 and its Allow, or 404), 501 for another handler, or leaves it to the next middleware", async () => {
    const kit = createMerchantHandler({ merchantId: '100001', privateKey: 'k'.repeat(32), environment: { baseUrl: 'http://127.0.0.1:9' }, elementFiles: false });
    let url = await serve(toNodeListener(kit, { onError: (error) => errors.push(error) }));
    for (const [path, allow] of [['/payments', 'POST'], ['/payments/events', 'GET'], ['/return', 'GET, HEAD']] as const) {
      const answer = await raw(url, 'TRACE', path);
      expect(answer, path).toMatchObject({ status: 405, allow, nosniff: 'nosniff' });
      expect(JSON.parse(answer.body).message, path).toMatch(/^only (GET|POST)( and HEAD are| is) served here$/);
    }
    expect((await raw(url, 'TRACE', '/nowhere')).status).toBe(404);
    await server!.close();

    url = await serve(toNodeListener(echo, { onError: (error) => errors.push(error) }));
    const answer = await raw(url, 'TRACE', '/payments');
    expect(answer).toMatchObject({ status: 501, allow: undefined, nosniff: 'nosniff' });
    expect(JSON.parse(answer.body)).toEqual({ message: 'TRACE is not served here' });
    expect(errors).toEqual([]);

    let passedOn = 0;
    const listener = toNodeListener(echo);
    await server!.close();
    const nextUrl = await serve((request, response) =>
      listener(request, response, () => {
        passedOn++;
        response.writeHead(204, {});
        response.end();
      }),
    );
    expect((await raw(nextUrl, 'TRACE', '/payments')).status).toBe(204);
    expect(passedOn).toBe(1);
  });
});
