// The event stream (Server-Sent Events at /sandbox/v1/events) and the dashboard it drives: what a test or a page
// sees, and that both stay behind the sandbox's guards.
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ServiceClient } from '../../src/server/index.js';
import { createSandbox, DEFAULT_MERCHANT, SANDBOX_EVENT_TYPES, SandboxControl, startDevStack, type Sandbox, type SandboxEvent } from '../../src/sandbox/index.js';
import { SANDBOX_PATHS } from '../../src/sandbox/paths.js';
import { posRequest } from '../core/fixtures.js';

let sandbox: Sandbox;
let control: SandboxControl;
let client: ServiceClient;

beforeEach(async () => {
  sandbox = await createSandbox({ tickMs: 20, heartbeatMs: 50 });
  control = new SandboxControl(sandbox.url);
  client = new ServiceClient({ merchantId: DEFAULT_MERCHANT.merchantId, privateKey: DEFAULT_MERCHANT.privateKey, environment: { baseUrl: sandbox.url } });
});
afterEach(() => sandbox.close());

/** A raw request with any headers, its answer read until `until` holds or the stream ends. */
function raw(method: string, path: string, headers: Record<string, string>, until: (text: string) => boolean = () => false) {
  const url = new URL(sandbox.url);
  return new Promise<{ status: number; headers: Record<string, unknown>; text: string }>((resolve, reject) => {
    const request = httpRequest({ host: url.hostname, port: url.port, method, path, headers }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      const done = () => resolve({ status: response.statusCode ?? 0, headers: response.headers, text });
      response.on('data', (chunk) => {
        text += chunk;
        if (until(text)) {
          request.destroy();
          done();
        }
      });
      response.on('end', done);
    });
    request.on('error', reject);
    request.end();
  });
}
const host = () => new URL(sandbox.url).host;

describe('the event stream', () => {
  it('starts with a snapshot, then sends each change as it happens, each with the whole changed item', async () => {
    const seen: SandboxEvent[] = [];
    const abort = new AbortController();
    const reading = (async () => {
      for await (const event of control.events({ signal: abort.signal })) {
        seen.push(event);
        if (event.type === 'order' && (event.data as { status: string }).status === 'SUCCESS') abort.abort();
      }
    })();
    await expect.poll(() => seen.length).toBeGreaterThan(0);
    expect(seen[0]).toMatchObject({ type: 'snapshot', data: { orders: [], clock: { offsetMs: 0 }, vocabulary: { faultKinds: expect.any(Array) } } });
    const created = await client.createPayment(posRequest({ reference: 'stream-1', sn: 'SN-STREAM' }) as never);
    const orderNo = (created.data as { orderNo: string }).orderNo;
    await control.swipe('SN-STREAM');
    await reading;
    const orders = seen.filter((event) => event.type === 'order').map((event) => event.data as { orderNo: string; status: string; life: unknown[] });
    expect(orders[0]).toMatchObject({ orderNo, status: 'PENDING' });
    expect(orders.at(-1)).toMatchObject({ orderNo, status: 'SUCCESS' });
    expect(orders.at(-1)!.life.length).toBeGreaterThan(1);
    const ids = seen.slice(1).map((event) => event.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
  });

  it('lets a test wait for what it needs: a delivery, a clock move, a queued fault', async () => {
    // What happened before the stream was open is in its snapshot: a matcher looks at both.
    const abandoned = (event: SandboxEvent) =>
      (event.type === 'delivery' && (event.data as { state: string }).state === 'abandoned') ||
      (event.type === 'snapshot' && (event.data as { deliveries: { state: string }[] }).deliveries.some((item) => item.state === 'abandoned'));
    const delivery = control.waitForEvent(abandoned, { types: ['delivery'] });
    await client.createPayment(posRequest({ reference: 'stream-2', sn: 'SN-STREAM-2' }) as never);
    await control.swipe('SN-STREAM-2');
    await delivery;

    const moved = (event: SandboxEvent) => (event.type === 'clock' || event.type === 'snapshot') && JSON.stringify(event.data).includes('"offsetMs":900000');
    const clock = control.waitForEvent(moved, { types: ['clock'] });
    await control.advanceClock(15);
    await clock;
    const queued = (event: SandboxEvent) =>
      (event.type === 'faults' && (event.data as unknown[]).length === 1) || (event.type === 'snapshot' && (event.data as { faults: unknown[] }).faults.length === 1);
    const faults = control.waitForEvent(queued, { types: ['faults'] });
    await control.addFault({ kind: '50003' });
    await faults;
  });

  it('gives up waiting with an error when nothing matches in time', async () => {
    await expect(control.waitForEvent(() => false, { timeoutMs: 200 })).rejects.toThrow(/no event matched within 200 ms/);
  });

  it('keeps an idle stream open with comments, and refuses an unknown event type naming it', async () => {
    const idle = await raw('GET', SANDBOX_PATHS.events, { Host: host() }, (text) => text.includes(': still here'));
    expect(idle.status).toBe(200);
    expect(idle.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(idle.text).toMatch(/^retry: 2000\n\nid: 0\nevent: snapshot\ndata: \{/);
    const bad = await raw('GET', `${SANDBOX_PATHS.events}?types=order,orders`, { Host: host() });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('types: orders is not an event type');
    expect(Object.keys(SANDBOX_EVENT_TYPES)).toContain('order');
  });

  it('answers a DNS-rebound host nothing, and gives CORS to this machine’s pages only', async () => {
    const port = new URL(sandbox.url).port;
    const rebound = await raw('GET', SANDBOX_PATHS.events, { Host: `rebind.evil.example:${port}` });
    expect(rebound.status).toBe(403);
    expect(rebound.text).not.toContain('snapshot');
    const foreign = await raw('GET', SANDBOX_PATHS.events, { Host: host(), Origin: 'https://evil.example' }, (text) => text.includes('snapshot'));
    expect(foreign.headers['access-control-allow-origin']).toBeUndefined();
    const own = await raw('GET', SANDBOX_PATHS.events, { Host: host(), Origin: 'http://localhost:5173' }, (text) => text.includes('snapshot'));
    expect(own.headers['access-control-allow-origin']).toBe('http://localhost:5173');
    expect((await raw('POST', SANDBOX_PATHS.events, { Host: host(), 'Content-Type': 'application/json' })).status).toBe(405);
  });

  it('ends every stream when the sandbox closes', async () => {
    let count = 0;
    const ended = (async () => {
      for await (const _event of control.events()) count += 1;
      return 'ended';
    })();
    await expect.poll(() => count).toBe(1);
    await sandbox.close();
    expect(await ended).toBe('ended');
    sandbox = await createSandbox();
  });
});

describe('the dashboard', () => {
  it('is served at / to browsers and at /sandbox/dashboard, under a policy that allows no inline script or style', async () => {
    for (const [path, root] of [
      ['/', ''],
      [SANDBOX_PATHS.dashboard, '../'],
    ] as const) {
      const page = await raw('GET', path, { Host: host(), Accept: 'text/html,application/xhtml+xml' });
      expect(page.status).toBe(200);
      expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
      const policy = String(page.headers['content-security-policy']);
      expect(policy).toContain("script-src 'self'");
      expect(policy).toContain("style-src 'self'");
      expect(policy).not.toContain('unsafe-inline');
      expect(policy).toMatch(/frame-ancestors 'self' http:\/\/localhost:\*/);
      expect(page.text).toContain(`<script defer src="${root}sandbox/dashboard.js"></script>`);
      // No inline script or style, no value of the sandbox's in the page: it all comes through the stream.
      expect(page.text).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
      expect(page.text).not.toMatch(/<style|\sstyle=|\son\w+=/);
    }
    // Programs asking for JSON still get the description.
    const description = await raw('GET', '/', { Host: host() });
    expect(JSON.parse(description.text)).toMatchObject({ name: 'svc-sandbox', control: { events: SANDBOX_PATHS.events } });
  });

  it('serves its script and styles as files of their own; the script is one function that parses', async () => {
    const script = await raw('GET', SANDBOX_PATHS.dashboardScript, { Host: host() });
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(script.headers['x-content-type-options']).toBe('nosniff');
    expect(() => new Function(script.text)).not.toThrow();
    expect(script.text).not.toMatch(/\binnerHTML\b|\bouterHTML\b|insertAdjacentHTML|document\.write/);
    expect(script.text).toContain('(window, document)');
    const styles = await raw('GET', SANDBOX_PATHS.dashboardStyles, { Host: host() });
    expect(styles.headers['content-type']).toBe('text/css; charset=utf-8');
  });

  it('is not served to a DNS-rebound host', async () => {
    const port = new URL(sandbox.url).port;
    for (const path of ['/', SANDBOX_PATHS.dashboard, SANDBOX_PATHS.dashboardScript]) {
      const answer = await raw('GET', path, { Host: `rebind.evil.example:${port}`, Accept: 'text/html' });
      expect(answer.status, path).toBe(403);
    }
  });
});

describe('through a dev server (the dev stack passes /sandbox/ through)', () => {
  it('streams events as they happen, and serves the dashboard under its prefix', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const stack = await startDevStack({ publicUrl: origin, sandbox: { tickMs: 20 } });
    server.on('request', (request, response) => stack.middleware(request, response, () => response.writeHead(404).end()));
    try {
      const passed = new SandboxControl(origin);
      const created = passed.waitForEvent(
        (event) =>
          (event.type === 'order' && (event.data as { reference: string }).reference === 'through-1') ||
          (event.type === 'snapshot' && JSON.stringify(event.data).includes('"reference":"through-1"')),
        { types: ['order'] },
      );
      const client = new ServiceClient({ merchantId: DEFAULT_MERCHANT.merchantId, privateKey: DEFAULT_MERCHANT.privateKey, environment: { baseUrl: stack.sandbox.url } });
      await client.createPayment(posRequest({ reference: 'through-1' }) as never);
      expect(JSON.stringify((await created).data)).toContain('"status":"PENDING"');
      const page = await fetch(`${origin}/sandbox/dashboard`);
      expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
      expect(await page.text()).toContain('data-api="../sandbox/v1/"');
    } finally {
      await stack.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
