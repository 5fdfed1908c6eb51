// The readiness answer (`GET /health`, src/server/health.ts): 200 while the service answers this process and its Redis
// is up, 503 while either is not, in a few fixed words; the service probed at most once per ten seconds, and not at
// all while the kit's own calls say how it is; the same answer on the Web path and under toNodeListener.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MERCHANT_PATHS } from '../../src/core/index.js';
import { createSandbox, DEFAULT_MERCHANT, type Sandbox } from '../../src/sandbox/index.js';
import { createMerchantHandler, toNodeListener, type MerchantHandlerOptions } from '../../src/server/index.js';
import { connectRedis } from '../../src/server/redis/connect.js';
import { posRequest } from '../core/fixtures.js';
import { listen, startFakeService } from '../support/fake-service.js';
import { freePort, startRedis } from '../support/redis-server.js';
import { eventually } from '../support/sandbox-fixture.js';
import { tokenHeader } from '../support/tokens.js';

const quiet = { warn: () => undefined, error: () => undefined };
const kit = (options: Partial<MerchantHandlerOptions> & { environment: MerchantHandlerOptions['environment'] }) =>
  createMerchantHandler({ ...DEFAULT_MERCHANT, basePath: '/checkout', retries: 0, logger: quiet, ...options });
const health = (handler: (request: Request) => Promise<Response>, method = 'GET') => handler(new Request(`http://shop.example/checkout${MERCHANT_PATHS.health}`, { method }));

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await createSandbox({ log: () => undefined });
});
afterAll(() => sandbox.close());

describe('the readiness answer', () => {
  it('is 200 while the service answers, with nothing but the words of its states; HEAD the same without a body', async () => {
    const handler = kit({ environment: { baseUrl: sandbox.url } });
    const answer = await health(handler);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    const text = await answer.text();
    expect(JSON.parse(text)).toEqual({ status: 'ready', service: 'reachable' });
    for (const secret of [DEFAULT_MERCHANT.privateKey, DEFAULT_MERCHANT.merchantId, sandbox.url, '127.0.0.1']) expect(text).not.toContain(secret);
    const head = await health(handler, 'HEAD');
    expect([head.status, await head.text()]).toEqual([200, '']);
    expect((await health(handler, 'POST')).status).toBe(405);
  });

  it('is 503 while the service cannot be reached from this process', async () => {
    const handler = kit({ environment: { baseUrl: `http://127.0.0.1:${await freePort()}` } });
    const answer = await health(handler);
    expect([answer.status, await answer.json()]).toEqual([503, { status: 'not-ready', service: 'unreachable' }]);
  });

  it('asks the service at most once in ten seconds, and not at all while the kit’s own calls say it answers', async () => {
    const service = await startFakeService(() => ({ status: 404, body: 'not here' }));
    try {
      const handler = kit({ environment: { baseUrl: service.url } });
      for (let ask = 0; ask < 5; ask++) expect((await health(handler)).status).toBe(200);
      expect(service.requests.map((request) => `${request.method} ${request.path}`)).toEqual(['HEAD /']);

      service.respond = () => ({ body: { code: '02000', message: 'authentication failed.', data: null } });
      const fresh = kit({ environment: { baseUrl: service.url } });
      const body = posRequest({ reference: 'health-1' });
      await fresh(
        new Request(`http://shop.example/checkout${MERCHANT_PATHS.status}`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', ...(await tokenHeader(DEFAULT_MERCHANT, body)) },
          body: JSON.stringify({ reference: 'health-1' }),
        }),
      );
      const calls = service.requests.length;
      expect((await health(fresh)).status).toBe(200);
      expect(service.requests.length).toBe(calls);
    } finally {
      await service.close();
    }
  });

  it('says Redis is down, and the process not ready, while its Redis is away; ready again when it is back', async () => {
    const redis = await startRedis();
    const shared = await connectRedis({ url: redis.url, merchantId: DEFAULT_MERCHANT.merchantId, commandTimeoutMs: 300, recoveryHoldMs: 0, logger: quiet });
    try {
      const handler = kit({ environment: { baseUrl: sandbox.url }, ...shared.stores });
      expect([(await health(handler)).status, await (await health(handler)).json()]).toEqual([200, { status: 'ready', service: 'reachable', redis: 'up' }]);
      await redis.kill();
      const down = await eventually('Redis to be down', async () => {
        const answer = await health(handler);
        return answer.status === 503 && ((await answer.json()) as Record<string, string>);
      });
      expect(down).toEqual({ status: 'not-ready', service: 'reachable', redis: 'down' });
      await redis.start();
      await eventually('Redis to be back', async () => (await health(handler)).status === 200, 10_000);
    } finally {
      await shared.close();
      await redis.stop();
    }
  });

  it('answers the same under toNodeListener as on the Web path', async () => {
    const handler = kit({ environment: { baseUrl: sandbox.url } });
    const server = await listen(toNodeListener(handler));
    try {
      for (const method of ['GET', 'HEAD', 'DELETE']) {
        const web = await health(handler, method);
        const node = await fetch(`${server.url}/checkout${MERCHANT_PATHS.health}`, { method });
        expect([node.status, node.headers.get('content-type'), await node.text()], method).toEqual([web.status, web.headers.get('content-type'), await web.text()]);
      }
    } finally {
      await server.close();
    }
  });
});
