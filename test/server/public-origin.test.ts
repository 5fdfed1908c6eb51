// No policy from a request header (issue 44, DESIGN.md §7): the isolated frame's `connect-src` names the kit's public
// origin from its configuration (`publicOrigin`, else `callbackUrl`'s origin and `returnUrlOrigins`, else its own
// loopback socket), and the sandbox's callback address on a runtime without a socket comes from it too. A forged
// `Host` or `X-Forwarded-Host` changes no byte the kit writes, unless the shop says a proxy of its sets them
// (`trustProxy`). Sent as an attacker sends them: raw HTTP under toNodeListener, and Web requests.
import { request as httpRequest } from 'node:http';
import { describe, expect, it } from 'vitest';
import { CHECKOUT_TOKEN_HEADER, FRAME_PAGE, MERCHANT_PATHS } from '../../src/core/index.js';
import { createMerchantHandler, ServiceConfigError, toNodeListener, type MerchantHandlerOptions } from '../../src/server/index.js';
import { listen } from '../support/fake-service.js';

const cdn = new URL('../../dist/cdn/', import.meta.url);
const FRAME = `/checkout/${FRAME_PAGE}`;
const warnings: string[] = [];
const options = (extra: Partial<MerchantHandlerOptions> = {}): MerchantHandlerOptions => ({
  merchantId: '256612345678901',
  privateKey: 'test-private-key',
  environment: { baseUrl: 'http://127.0.0.1:9' },
  basePath: '/checkout',
  elementFiles: cdn,
  logger: { warn: (line: string) => void warnings.push(line), error() {} },
  ...extra,
});

const FORGED: Record<string, string>[] = [
  {},
  { Host: 'evil.example' },
  { Host: 'evil.example:8443' },
  { 'X-Forwarded-Host': 'evil.example' },
  { 'X-Forwarded-Host': 'evil.example', 'X-Forwarded-Proto': 'http' },
  { Host: 'a; script-src *' },
  { Forwarded: 'host=evil.example;proto=https' },
];

/** The frame's policy for a raw HTTP request with `headers` (node:http sends the Host it is given; fetch would not). */
function policyOver(port: number, headers: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    httpRequest({ host: '127.0.0.1', port, path: FRAME, headers }, (response) => {
      response.resume();
      resolve(String(response.headers['content-security-policy']));
    })
      .on('error', reject)
      .end();
  });
}

/** Every policy the frame is served with under toNodeListener, one per set of forged headers. */
async function policiesOver(extra: Partial<MerchantHandlerOptions>) {
  const server = await listen(toNodeListener(createMerchantHandler(options(extra))));
  try {
    const port = Number(new URL(server.url).port);
    return { port, policies: await Promise.all(FORGED.map((headers) => policyOver(port, headers))) };
  } finally {
    await server.close();
  }
}

/** The same through the Web handler, where a runtime builds the request's URL from `Host`. */
async function policiesOnTheWeb(extra: Partial<MerchantHandlerOptions>) {
  const handler = createMerchantHandler(options(extra));
  const hosts = ['https://pay.shop.example', 'http://evil.example', 'http://127.0.0.1:6666'];
  const answers = await Promise.all(hosts.flatMap((host) => FORGED.map((headers) => handler(new Request(`${host}${FRAME}`, { headers })))));
  return answers.map((answer) => answer.headers.get('content-security-policy'));
}

const connectSrc = (policy: string | null | undefined) => /connect-src ([^;]*)/.exec(policy ?? '')?.[1];

describe("the isolated frame's connect-src", () => {
  it('is the same bytes under a forged Host and X-Forwarded-Host, naming the publicOrigin', async () => {
    const { policies } = await policiesOver({ publicOrigin: 'https://pay.shop.example' });
    const web = await policiesOnTheWeb({ publicOrigin: 'https://pay.shop.example' });
    expect(new Set([...policies, ...web]).size).toBe(1);
    expect(connectSrc(policies[0])).toBe("'self' https://pay.shop.example");
  });

  it('names the origins the shop configures already, when publicOrigin is not given: callbackUrl’s and returnUrlOrigins', async () => {
    const configured = { callbackUrl: 'https://pay.shop.example/checkout/callbacks', returnUrlOrigins: ['https://shop.example', 'https://pay.shop.example'] };
    const { policies } = await policiesOver(configured);
    const web = await policiesOnTheWeb(configured);
    expect(new Set([...policies, ...web]).size).toBe(1);
    expect(connectSrc(policies[0])).toBe("'self' https://pay.shop.example https://shop.example");
  });

  it('names the kit’s own loopback socket on a developer’s machine with nothing configured, whatever Host says', async () => {
    const { port, policies } = await policiesOver({});
    expect(new Set(policies).size).toBe(1);
    expect(connectSrc(policies[0])).toBe(`'self' http://localhost:${port} http://127.0.0.1:${port}`);
  });

  it("says 'self' alone where nothing names the kit (a Web runtime, nothing configured), and warns once", async () => {
    warnings.length = 0;
    const web = await policiesOnTheWeb({});
    expect(new Set(web).size).toBe(1);
    expect(connectSrc(web[0])).toBe("'self'");
    expect(warnings).toEqual(["svc-checkout: the isolated frame's connect-src names no origin of the kit, and WebKit then refuses its calls: set publicOrigin"]);
  });

  it('takes the proxy’s X-Forwarded-Proto and X-Forwarded-Host only with trustProxy, and nothing that is no host', async () => {
    const handler = createMerchantHandler(options({ trustProxy: true, returnUrlOrigins: ['https://shop.example'] }));
    const policy = async (headers: Record<string, string>) => connectSrc((await handler(new Request(`http://10.0.0.5:3000${FRAME}`, { headers }))).headers.get('content-security-policy'));
    expect(await policy({ 'X-Forwarded-Host': 'pay.shop.example, 10.0.0.5', 'X-Forwarded-Proto': 'https, http' })).toBe("'self' https://pay.shop.example");
    expect(await policy({})).toBe("'self' http://10.0.0.5:3000");
    expect(await policy({ 'X-Forwarded-Host': 'a; script-src *', 'X-Forwarded-Proto': 'https' })).toBe("'self' https://shop.example");
    expect(await policy({ 'X-Forwarded-Host': 'pay.shop.example', 'X-Forwarded-Proto': 'javascript' })).toBe("'self' https://shop.example");
    // A publicOrigin given outranks the proxy.
    const given = createMerchantHandler(options({ trustProxy: true, publicOrigin: 'https://pay.shop.example' }));
    const answer = await given(new Request(`http://10.0.0.5:3000${FRAME}`, { headers: { 'X-Forwarded-Host': 'evil.example' } }));
    expect(connectSrc(answer.headers.get('content-security-policy'))).toBe("'self' https://pay.shop.example");
  });

  it('refuses a publicOrigin that is no origin, and a trustProxy that is no boolean, naming the option', () => {
    for (const publicOrigin of ['https://shop.example/checkout', 'http://shop.example', 'shop.example', '']) {
      expect(() => createMerchantHandler(options({ publicOrigin })), publicOrigin).toThrow(ServiceConfigError);
      expect(() => createMerchantHandler(options({ publicOrigin })), publicOrigin).toThrow(/^publicOrigin must be an origin such as https:\/\/shop\.example/);
    }
    expect(() => createMerchantHandler(options({ publicOrigin: 'http://127.0.0.1:5173' }))).not.toThrow();
    expect(() => createMerchantHandler(options({ trustProxy: 'yes' as never }))).toThrow(/^trustProxy must be true or false/);
  });
});

describe("the sandbox's callback address on a runtime without a socket", () => {
  /** A create through the Web handler at `url` (a runtime built it from Host); what the service was sent. */
  async function createdAt(url: string, extra: Partial<MerchantHandlerOptions> = {}) {
    const sent: Record<string, unknown>[] = [];
    const handler = createMerchantHandler(
      options({
        retries: 0,
        fetch: async (_input, init) => {
          sent.push(JSON.parse(String(init?.body)));
          return new Response(JSON.stringify({ code: '50003', message: 'service not available' }), { headers: { 'Content-Type': 'application/json' } });
        },
        ...extra,
      }),
    );
    const token = await handler.checkoutToken({ reference: `WEB-${Date.now()}`, amount: { total: 12_500, currency: 'EGP' }, country: 'EG', product: { name: 'Beans', description: 'Coffee beans 1 kg' } });
    const body = { payMethod: 'ReferenceCode', notify: { notifyUserName: 'Mona Hassan', notifyUserEmail: 'mona@example.com', notifyUserMobile: '+201001234567', notifyLanguage: 'English', notifyMethod: 'BOTH' } };
    await handler(new Request(`${url}/checkout${MERCHANT_PATHS.create}`, { method: 'POST', headers: { 'Content-Type': 'application/json', [CHECKOUT_TOKEN_HEADER]: token }, body: JSON.stringify(body) }));
    return sent.map((order) => (typeof order['callbackUrl'] === 'string' ? order['callbackUrl'].split('?')[0] : 'none'));
  }

  it('is never the Host a request names: the configured loopback origin, or none', async () => {
    expect(await createdAt('http://127.0.0.1:6666')).toEqual(['none']);
    expect(await createdAt('http://127.0.0.1:6666', { publicOrigin: 'http://localhost:5173' })).toEqual(['http://localhost:5173/checkout/callbacks']);
    expect(await createdAt('http://127.0.0.1:6666', { publicOrigin: 'https://shop.example' })).toEqual(['none']);
  });
});
