// The merchant kit where Node's modules are not: src/server bundled as an edge runtime's bundler would (esbuild,
// platform neutral) and run in a V8 context that has the Web platform's globals only — no process, no require, no
// Buffer, so no node:crypto and no node:http. There it signs with WebCrypto and calls the service with fetch, and
// its handler answers the same generated requests exactly as the Node kit does (node:crypto, the keep-alive pool,
// toNodeListener's fast path), and sends the service the same bytes.
import { createHmac } from 'node:crypto';
import { runInContext, createContext } from 'node:vm';
import { build } from 'esbuild';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MERCHANT_PATHS } from '../../src/core/index.js';
import * as nodeKit from '../../src/server/index.js';
import { closeAgent, send, tally } from '../property/support.js';
import { listen, startFakeService, type FakeService } from '../support/fake-service.js';
import { caseOf, credentials, NOW, proofHeaders, received, scripted, seen } from '../support/kit-cases.js';

type Kit = typeof nodeKit;

const cases = tally('edge runtime against Node');
const used = { subtle: 0, fetch: 0 };
let edge: Kit;
let context: Record<string, unknown>;

/** The Web platform's globals an edge runtime gives (WinterCG's common API), with WebCrypto and fetch counted. */
function webGlobals(): Record<string, unknown> {
  const subtle = new Proxy(crypto.subtle, {
    get(target, name) {
      const member = Reflect.get(target, name, target) as unknown;
      if (typeof member !== 'function') return member;
      return (...args: unknown[]) => {
        used.subtle++;
        return (member as (...values: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return {
    crypto: { subtle, getRandomValues: <T extends ArrayBufferView<ArrayBuffer>>(array: T) => crypto.getRandomValues(array), randomUUID: () => crypto.randomUUID() },
    fetch: (input: RequestInfo | URL, init?: RequestInit) => {
      used.fetch++;
      return fetch(input, init);
    },
    Request,
    Response,
    Headers,
    URL,
    URLSearchParams,
    TextEncoder,
    TextDecoder,
    AbortController,
    AbortSignal,
    DOMException,
    ReadableStream,
    WritableStream,
    TransformStream,
    Blob,
    FormData,
    setTimeout,
    clearTimeout,
    setInterval,
    clearInterval,
    queueMicrotask,
    structuredClone,
    atob,
    btoa,
    console,
  };
}

async function loadEdgeKit(): Promise<Kit> {
  const bundled = await build({
    entryPoints: [new URL('../../src/server/index.ts', import.meta.url).pathname],
    bundle: true,
    write: false,
    format: 'iife',
    globalName: 'kit',
    platform: 'neutral',
    target: 'es2022',
    logLevel: 'silent',
  });
  const code = bundled.outputFiles[0]!.text;
  // What a bundler for an edge runtime would have to resolve: nothing of Node's.
  expect(code).not.toMatch(/\bimport\s*\(|\brequire\s*\(|from\s*["']node:/);
  context = createContext(webGlobals());
  runInContext(code, context, { filename: 'svc-checkout-server.edge.js' });
  return context['kit'] as Kit;
}

let service: { node: FakeService; edge: FakeService };
let nodeServer: { url: string; close(): Promise<void> };
let edgeHandler: (request: Request) => Promise<Response>;

/** The same options on both: a client address from a header, as a merchant behind a proxy would read it. */
const options = (baseUrl: string) => ({
  ...credentials,
  environment: { baseUrl },
  callbackUrl: 'https://shop.example/checkout/callbacks',
  merchantName: 'Nile Coffee Roasters',
  retryDelayMs: 1,
  now: () => NOW,
  clientAddress: (request: Request) => request.headers.get('x-client-address') ?? '198.51.100.1',
  logger: { warn: () => undefined, error: () => undefined },
});

beforeAll(async () => {
  edge = await loadEdgeKit();
  service = { node: await startFakeService(scripted), edge: await startFakeService(scripted) };
  const nodeListener = nodeKit.toNodeListener(nodeKit.createMerchantHandler(options(service.node.url)));
  nodeServer = await listen((request, response) => nodeListener(request, response));
  edgeHandler = edge.createMerchantHandler(options(service.edge.url));
});

afterAll(async () => {
  console.log(cases.report());
  closeAgent();
  await nodeServer?.close();
  await service?.node.close();
  await service?.edge.close();
});

describe('the kit without Node modules', () => {
  it('runs where there is no process, require or Buffer', () => {
    expect(runInContext('[typeof process, typeof require, typeof Buffer, typeof module]', context)).toEqual(['undefined', 'undefined', 'undefined', 'undefined']);
  });

  it('signs with WebCrypto, exactly as node:crypto does', async () => {
    const before = used.subtle;
    await fc.assert(
      fc.asyncProperty(fc.string({ minLength: 1, maxLength: 80 }), fc.oneof(fc.string({ maxLength: 400 }), fc.uint8Array({ maxLength: 400 })), async (key, body) => {
        const expected = createHmac('sha512', key).update(body).digest('hex');
        expect(await edge.signRequest(body, key)).toBe(expected);
        expect(await nodeKit.signRequest(body, key)).toBe(expected);
        const timestamp = String(NOW);
        const signature = await edge.signCallback(timestamp, body, key);
        expect(signature).toBe(await nodeKit.signCallback(timestamp, body, key));
        const check = { headers: { Authorization: signature, RequestTimestamp: timestamp }, body, privateKey: key, now: NOW };
        expect(await edge.verifyCallback(check)).toEqual(await nodeKit.verifyCallback(check));
      }),
      { seed: 20_261_122, numRuns: 200 },
    );
    expect(used.subtle).toBeGreaterThan(before);
  });

  it('issues and checks the same tokens', async () => {
    const order = { reference: 'order-1001', amount: { total: 12_500, currency: 'EGP' }, country: 'EG', product: { name: 'Espresso beans', description: '1 kg' } };
    const token = await edge.issueCheckoutToken(credentials, order, { now: NOW });
    expect(token).toBe(await nodeKit.issueCheckoutToken(credentials, order, { now: NOW }));
    expect(await edge.verifyCheckoutToken(token, credentials, NOW)).toEqual(await nodeKit.verifyCheckoutToken(token, credentials, NOW));
    const tampered = `${token.slice(0, -2)}${token.endsWith('AA') ? 'AB' : 'AA'}`;
    expect(await edge.verifyCheckoutToken(tampered, credentials, NOW)).toEqual({ ok: false, reason: 'forged' });
  });

  it('answers generated requests to every element route as the Node kit does, and sends the same bytes', async () => {
    const fetchesBefore = used.fetch;
    await cases.check(
      'element routes, Web handler without Node modules against toNodeListener on Node',
      caseOf.filter((generated) => generated.method === 'POST' && generated.path === MERCHANT_PATHS[generated.route]),
      async (generated) => {
        const headers: Record<string, string> = { ...generated.headers, ...(await proofHeaders(generated.proof, generated.body)) };
        delete headers['Host'];
        if (generated.contentType) headers['Content-Type'] = generated.contentType;
        const before = [service.node.requests.length, service.edge.requests.length] as const;
        const nodeAnswer = await send(nodeServer.url, { method: 'POST', path: generated.path, headers: { ...headers, Host: 'shop.example' }, body: generated.body });
        const body = typeof generated.body === 'string' ? generated.body : new Uint8Array(generated.body);
        const response = await edgeHandler(new Request(`http://shop.example${generated.path}`, { method: 'POST', headers, body }));
        const text = await response.text();
        const edgeAnswer = { status: response.status, headers: Object.fromEntries(response.headers), text, json: undefined };
        // Connection: close on a 413 is the Node adapter's own (it stops reading); elsewhere the platform decides.
        expect({ ...seen(edgeAnswer), closes: undefined }).toEqual({ ...seen(nodeAnswer), closes: undefined });
        expect(received(service.edge, before[1])).toEqual(received(service.node, before[0]));
        return `${nodeAnswer.status} ${(nodeAnswer.json as { code?: string } | undefined)?.code ?? ''}`.trim();
      },
      300,
    );
    expect(used.fetch).toBeGreaterThan(fetchesBefore);
  });
});
