/**
 * The sandbox runs on a developer's machine while that developer browses the web. These are the requests a
 * hostile page can make it receive — cross-site form and text/plain posts, a DNS-rebound host name, a framed or
 * forged 3-D Secure decision — and callbacks it must not send off the machine unless told to.
 */
import { request as httpRequest } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ServiceClient } from '../../src/server/index.js';
import { createSandbox, DEFAULT_MERCHANT, SandboxControl, type Sandbox } from '../../src/sandbox/index.js';
import { FORM_TOKEN_FIELD, SANDBOX_PATHS } from '../../src/sandbox/paths.js';
import { bankAccountRequest, posRequest } from '../core/fixtures.js';

let sandbox: Sandbox;
let control: SandboxControl;
let client: ServiceClient;
let lines: string[];

beforeEach(async () => {
  lines = [];
  sandbox = await createSandbox({ tickMs: 20, log: (line: string) => lines.push(line) });
  control = new SandboxControl(sandbox.url);
  client = new ServiceClient({ merchantId: DEFAULT_MERCHANT.merchantId, privateKey: DEFAULT_MERCHANT.privateKey, environment: { baseUrl: sandbox.url } });
});
afterEach(() => sandbox.close());

/** A raw request, with any Host, Origin or type a browser on a hostile page could make it carry. */
function raw(method: string, path: string, headers: Record<string, string>, body = ''): Promise<{ status: number; headers: Record<string, unknown>; text: string }> {
  const url = new URL(sandbox.url);
  return new Promise((resolve, reject) => {
    const request = httpRequest({ host: url.hostname, port: url.port, method, path, headers: { ...headers, 'Content-Length': Buffer.byteLength(body) } }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, text }));
    });
    request.on('error', reject);
    request.end(body);
  });
}

const host = () => new URL(sandbox.url).host;

describe('the control API', () => {
  it('refuses a cross-site text/plain post (a form or a no-CORS fetch), and changes nothing', async () => {
    const before = (await control.clock()).nowMs;
    const answer = await raw('POST', SANDBOX_PATHS.advanceClock, { Host: host(), 'Content-Type': 'text/plain' }, '{"minutes":60}');
    expect(answer.status).toBe(415);
    expect(answer.text).toContain('application/json');
    expect((await control.clock()).nowMs - before).toBeLessThan(60_000);
  });

  it('refuses changes from another site, even as JSON, and gives its scripts no CORS', async () => {
    const answer = await raw('POST', SANDBOX_PATHS.reset, { Host: host(), Origin: 'https://evil.example', 'Content-Type': 'application/json' }, '{}');
    expect(answer.status).toBe(403);
    const read = await raw('GET', SANDBOX_PATHS.orders, { Host: host(), Origin: 'https://evil.example' });
    expect(read.headers['access-control-allow-origin']).toBeUndefined();
    const own = await raw('GET', SANDBOX_PATHS.orders, { Host: host(), Origin: 'http://localhost:5173' });
    expect(own.headers['access-control-allow-origin']).toBe('http://localhost:5173');
  });

  it('answers nothing to a host name rebound to this machine (DNS rebinding)', async () => {
    const port = new URL(sandbox.url).port;
    for (const [method, path] of [
      ['GET', SANDBOX_PATHS.orders],
      ['POST', SANDBOX_PATHS.reset],
    ] as const) {
      const answer = await raw(method, path, { Host: `rebind.evil.example:${port}`, 'Content-Type': 'application/json' }, method === 'POST' ? '{}' : '');
      expect(answer.status, `${method} ${path}`).toBe(403);
      expect(answer.text).not.toContain('orders');
    }
  });

  it('logs a hostile path escaped, on one line', async () => {
    await raw('GET', '/sandbox/v1/orders/%0a2026-11-22%20POST%20/sandbox/v1/orders/1/complete%20200', { Host: host() });
    await raw('GET', `/${'\u202e'.repeat(3)}`.replace(/\u202e/g, '%E2%80%AE'), { Host: host() });
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e]/);
  });
});

describe('the newer control routes, behind the same guards', () => {
  const changes: [string, string][] = [
    ['POST', SANDBOX_PATHS.expectations],
    ['DELETE', SANDBOX_PATHS.expectations],
    ['DELETE', '/sandbox/v1/expectations/e1'],
    ['POST', SANDBOX_PATHS.deliveryFaults],
    ['DELETE', SANDBOX_PATHS.deliveryFaults],
    ['DELETE', '/sandbox/v1/delivery-faults/d1'],
    ['DELETE', '/sandbox/v1/faults/f1'],
    ['POST', '/sandbox/v1/callbacks/n1/resend'],
    ['POST', '/sandbox/v1/callbacks/n1/replay'],
  ];
  const reads = [
    SANDBOX_PATHS.state,
    SANDBOX_PATHS.scenarios,
    SANDBOX_PATHS.refunds,
    SANDBOX_PATHS.deliveries,
    SANDBOX_PATHS.expectations,
    SANDBOX_PATHS.deliveryFaults,
  ];
  const expectation = JSON.stringify({ reference: 'guarded', outcome: 'FAIL' });
  const deliveryFault = JSON.stringify({ kind: 'omit' });
  const bodyFor = (path: string) => (path === SANDBOX_PATHS.expectations ? expectation : path === SANDBOX_PATHS.deliveryFaults ? deliveryFault : '{}');

  it('refuse a change sent as text/plain (415), from another site (403) or to a rebound host (403), and change nothing', async () => {
    await control.expect({ reference: 'kept', outcome: 'SUCCESS' });
    await control.addDeliveryFault({ kind: 'duplicate' });
    await control.addFault({ kind: 'slow' });
    const port = new URL(sandbox.url).port;
    for (const [method, path] of changes) {
      const body = bodyFor(path);
      const plain = await raw(method, path, { Host: host(), 'Content-Type': 'text/plain' }, body);
      expect(plain.status, `${method} ${path} text/plain`).toBe(415);
      const foreign = await raw(method, path, { Host: host(), Origin: 'https://evil.example', 'Content-Type': 'application/json' }, body);
      expect(foreign.status, `${method} ${path} from another site`).toBe(403);
      const rebound = await raw(method, path, { Host: `rebind.evil.example:${port}`, 'Content-Type': 'application/json' }, body);
      expect(rebound.status, `${method} ${path} rebound`).toBe(403);
    }
    expect(await control.expectations()).toMatchObject([{ reference: 'kept' }]);
    expect(await control.deliveryFaults()).toMatchObject([{ kind: 'duplicate' }]);
    expect(await control.faults()).toMatchObject([{ kind: 'slow' }]);
  });

  it('answer reads to this machine only, with CORS for its pages alone', async () => {
    const port = new URL(sandbox.url).port;
    for (const path of reads) {
      expect((await raw('GET', path, { Host: `rebind.evil.example:${port}` })).status, path).toBe(403);
      const foreign = await raw('GET', path, { Host: host(), Origin: 'https://evil.example' });
      expect(foreign.headers['access-control-allow-origin'], path).toBeUndefined();
      const own = await raw('GET', path, { Host: host(), Origin: 'http://127.0.0.1:8000' });
      expect(own.status, path).toBe(200);
      expect(own.headers['access-control-allow-origin'], path).toBe('http://127.0.0.1:8000');
    }
  });

  it('take a change from this machine’s pages, preflight included', async () => {
    const preflight = await raw('OPTIONS', SANDBOX_PATHS.deliveryFaults, {
      Host: host(),
      Origin: 'http://localhost:5173',
      'Access-Control-Request-Method': 'DELETE',
      'Access-Control-Request-Headers': 'content-type',
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-methods']).toContain('DELETE');
    const added = await raw('POST', SANDBOX_PATHS.expectations, { Host: host(), Origin: 'http://localhost:5173', 'Content-Type': 'application/json' }, expectation);
    expect(added.status).toBe(200);
    expect(added.headers['access-control-allow-origin']).toBe('http://localhost:5173');
  });
});

describe('the 3-D Secure page', () => {
  async function redirectOrder(): Promise<string> {
    const answer = await client.createPayment(bankAccountRequest({ bankAccountNumber: '2215381200', reference: `tds-${Date.now()}` }) as never);
    return (answer.data as { orderNo: string }).orderNo;
  }

  it('cannot be framed by other sites', async () => {
    const orderNo = await redirectOrder();
    const page = await raw('GET', SANDBOX_PATHS.threeDsPage.replace('{orderNo}', orderNo), { Host: host() });
    expect(page.status).toBe(200);
    const policy = String(page.headers['content-security-policy']);
    expect(policy).toMatch(/frame-ancestors 'self' http:\/\/localhost:\* http:\/\/127\.0\.0\.1:\*/);
    expect(policy).not.toContain('*.');
    expect(policy).not.toMatch(/frame-ancestors[^;]*\s\*(\s|;|$)/);
  });

  it('takes no decision without the token of the form it served (CSRF)', async () => {
    const orderNo = await redirectOrder();
    const decide = (token: string) =>
      raw('POST', SANDBOX_PATHS.threeDsDecision.replace('{orderNo}', orderNo).replace('{decision}', 'approve'), { Host: host(), 'Content-Type': 'application/x-www-form-urlencoded' }, `${FORM_TOKEN_FIELD}=${token}`);
    expect((await decide('')).status).toBe(403);
    expect((await decide('0'.repeat(64))).status).toBe(403);
    expect((await control.order(orderNo)).status).toBe('PENDING');
    // The page's own form, as the payer sends it.
    await control.threeDs(orderNo, 'approve');
    expect((await control.order(orderNo)).status).not.toBe('PENDING');
  });
});

describe('callbacks', () => {
  it('sends callbacks only to this machine unless started with --allow-remote-callbacks', async () => {
    const answer = await client.createPayment(posRequest({ reference: 'remote-1', callbackUrl: 'https://shop.example/callbacks' }) as never);
    const orderNo = (answer.data as { orderNo: string }).orderNo;
    await control.swipe('N78101818218');
    let deliveries: Awaited<ReturnType<SandboxControl['callbacks']>> = [];
    for (let tries = 0; tries < 100 && deliveries.length === 0; tries += 1) {
      deliveries = await control.callbacks({ orderNo });
      if (deliveries.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]).toMatchObject({ url: 'https://shop.example/callbacks', status: null, acknowledged: false });
    expect(deliveries[0]!.error).toContain('--allow-remote-callbacks');
  });
});
