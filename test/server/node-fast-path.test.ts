// toNodeListener serves the element's calls of a merchant handler straight from Node's request (no Web Request,
// Response or stream); everything else, and any Web handler, goes the Web way. Both paths must answer alike: the
// same generated requests are sent to a kit on each path, each in front of its own copy of a scripted service, on
// the same clock, and every answer (status, headers, body) and every byte the service receives must be the same.
// Also here: the payer going away abandons the call to the service on both paths.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MERCHANT_PATHS, ORDER_TOKEN_HEADER } from '../../src/core/index.js';
import { createMerchantHandler, issueOrderToken, OrderRejection, toNodeListener, type MerchantHandlerOptions, type NodeListener } from '../../src/server/index.js';
import { allowOf, routeFor } from '../../src/server/routes/table.js';
import { closeAgent, send, tally, watchUnhandled } from '../property/support.js';
import { listen, startFakeService, type FakeService } from '../support/fake-service.js';
import { caseOf, credentials, merchantId, NOW, ORDERS, privateKey, proofHeaders, received, scripted, seen } from '../support/kit-cases.js';

const cases = tally('fast path against Web path');
const unhandled = watchUnhandled();

interface Side {
  service: FakeService;
  kit: { url: string; close(): Promise<void> };
  logged: string[];
}

/** A kit in front of its own scripted service; `web` wraps the handler so that toNodeListener sees a plain Web handler. */
async function side(web: boolean, options: Partial<MerchantHandlerOptions> = {}): Promise<Side> {
  const service = await startFakeService(scripted);
  const logged: string[] = [];
  const handler = createMerchantHandler({
    ...credentials,
    environment: { baseUrl: service.url },
    callbackUrl: 'https://shop.example/checkout/callbacks',
    merchantName: 'Nile Coffee Roasters',
    retryDelayMs: 1,
    now: () => NOW,
    logger: { warn: (line) => logged.push(line), error: (line) => logged.push(line) },
    ...options,
  });
  const listener: NodeListener = toNodeListener(web ? (request) => handler(request) : handler);
  const kit = await listen((request: IncomingMessage, response: ServerResponse) => listener(request, response));
  return { service, kit, logged };
}

/** Hooks that read the Web Request the fast path makes for them: a header decides. */
const HOOKS: Partial<MerchantHandlerOptions> = {
  clientAddress: (request) => request.headers.get('x-client-address') ?? undefined,
  authorize: (order, request) => {
    if (request.headers.get('x-refuse')) throw new OrderRejection(`refused for ${new URL(request.url).pathname}`, { field: 'reference' });
    return order;
  },
  authorizeAction: (operation, _body, request) => {
    if (request.headers.get('x-refuse')) throw new OrderRejection(`no ${operation} here`);
  },
};

const CONFIGURATIONS: Record<string, Partial<MerchantHandlerOptions>> = {
  'checkout tokens': {},
  'checkout tokens, with hooks': HOOKS,
  'orders from authorize': { ...HOOKS, orders: 'authorize' },
};

const sides: Record<string, { fast: Side; web: Side }> = {};

beforeAll(async () => {
  for (const [name, options] of Object.entries(CONFIGURATIONS)) sides[name] = { fast: await side(false, options), web: await side(true, options) };
});

afterAll(async () => {
  console.log(cases.report());
  unhandled.stop();
  closeAgent();
  for (const { fast, web } of Object.values(sides)) {
    for (const { service, kit } of [fast, web]) {
      await kit.close();
      await service.close();
    }
  }
});

describe('toNodeListener: the fast path answers as the Web path does', () => {
  for (const name of Object.keys(CONFIGURATIONS)) {
    it(`for generated requests to every element route (${name})`, async () => {
      const { fast, web } = sides[name]!;
      await cases.check(
        `element routes, ${name}`,
        caseOf,
        async (generated) => {
          const headers = { ...generated.headers, ...(await proofHeaders(generated.proof, generated.body)) };
          if (generated.contentType) headers['Content-Type'] = generated.contentType;
          const raw = { method: generated.method, path: generated.path, headers, body: generated.method === 'TRACE' ? undefined : generated.body, chunked: generated.chunked };
          const before = [fast.service.requests.length, web.service.requests.length] as const;
          const [fastAnswer, webAnswer] = [await send(fast.kit.url, raw), await send(web.kit.url, raw)];
          if (generated.method === 'TRACE') {
            // Fetch cannot carry TRACE: the kit answers it from its route table (405 and the route's Allow, or 404);
            // a handler wrapped in a function of the shop's (the Web side here) has no table to tell: 501.
            // A target that is no URL is 404 on both sides.
            const route = webAnswer.status === 404 ? undefined : routeFor(new URL(generated.path, 'http://kit').pathname, '');
            if (webAnswer.status !== 404) expect(webAnswer.status).toBe(501);
            expect(fastAnswer.status).toBe(route ? 405 : 404);
            if (route) expect(fastAnswer.headers['allow']).toBe(allowOf(route));
          } else expect(seen(fastAnswer)).toEqual(seen(webAnswer));
          expect(received(fast.service, before[0])).toEqual(received(web.service, before[1]));
          // The fast path writes a Content-Length; the Web path sends its Response's body chunked.
          const tookFastPath = fastAnswer.headers['content-length'] !== undefined;
          expect(webAnswer.headers['content-length']).toBeUndefined();
          if (generated.method === 'POST' && generated.path === MERCHANT_PATHS[generated.route]) expect(tookFastPath).toBe(true);
          const code = (fastAnswer.json as { code?: string } | undefined)?.code;
          return `${tookFastPath ? 'fast' : 'web'} ${fastAnswer.status}${code ? ` ${code}` : ''}`;
        },
        400,
      );
      expect(fast.logged).toEqual(web.logged);
      expect(fast.logged.join('\n')).not.toContain(privateKey);
      expect(unhandled.problems).toEqual([]);
    });
  }
});

describe('toNodeListener: the payer going away', () => {
  for (const path of ['fast', 'web'] as const) {
    it(`abandons the call to the service, and logs nothing of it (${path} path)`, async () => {
      let seenByService: IncomingMessage | undefined;
      let closedAt: number | undefined;
      const service = await listen((request) => {
        seenByService = request;
        request.on('close', () => (closedAt = Date.now()));
        request.resume(); // and never answer
      });
      const logged: string[] = [];
      const handler = createMerchantHandler({ ...credentials, environment: { baseUrl: service.url }, now: () => NOW, logger: { warn: (line) => logged.push(line), error: (line) => logged.push(line) } });
      const listener = toNodeListener(path === 'web' ? (request) => handler(request) : handler);
      const kit = await listen((request, response) => listener(request, response));
      try {
        const token = await issueOrderToken(privateKey, { merchantId, orderNo: ORDERS[0]!, reference: 'order-1001', country: 'EG', expiresAt: NOW / 1000 + 3_600 });
        const { hostname, port } = new URL(kit.url);
        const payer = httpRequest({ host: hostname, port, method: 'POST', path: MERCHANT_PATHS.status, headers: { 'Content-Type': 'application/json', [ORDER_TOKEN_HEADER]: token } });
        payer.on('error', () => undefined);
        payer.end('{}');
        await waitFor(() => seenByService !== undefined);
        const left = Date.now();
        payer.destroy();
        await waitFor(() => closedAt !== undefined);
        expect(closedAt! - left).toBeLessThan(2_000);
        // A payer who leaves is not an error in the shop's log ("status failed: This operation was aborted" was).
        await new Promise((resolve) => setTimeout(resolve, 200));
        expect(logged).toEqual([]);
      } finally {
        await kit.close();
        await service.close();
      }
    });
  }
});

async function waitFor(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
