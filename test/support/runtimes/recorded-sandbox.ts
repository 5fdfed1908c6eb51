/**
 * The real sandbox behind a recording proxy on 127.0.0.1, one per kit under comparison. The kit calls the proxy,
 * which keeps every request's bytes, passes it to the sandbox and dates the answer at the comparison's fixed
 * second (the sandbox dates answers by the real clock, and the kit reads the service's clock from that header:
 * two kits asked in the same second-turn would otherwise issue order tokens a second apart). The sandbox sends
 * its callbacks to the merchant's webhook, the proxy's /kit-callbacks, which passes them to the kit once it runs.
 *
 * Two such services given the same requests in the same order answer alike: order numbers, reference codes and
 * notifyIds are counters, and a 3-D Secure address names `PUBLIC_URL`, not the sandbox's port.
 */
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSandbox, SandboxControl, type Sandbox } from '../../../src/sandbox/index.js';

export const PUBLIC_URL = 'http://sandbox.test';

export interface ServiceRequest {
  path: string;
  authorization: string | undefined;
  merchantId: string | undefined;
  /** The body's bytes, as hex. */
  raw: string;
}

export interface RecordedSandbox {
  sandbox: Sandbox;
  control: SandboxControl;
  /** The address the kit is given as the service. */
  url: string;
  requests: ServiceRequest[];
  /** Where the sandbox's callbacks go from now on: the kit's /callbacks. */
  deliverTo(callbacksUrl: string): void;
  close(): Promise<void>;
}

function readAll(message: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    message.on('data', (chunk: Buffer) => chunks.push(chunk));
    message.on('end', () => resolve(Buffer.concat(chunks)));
    message.on('error', reject);
  });
}

function forward(target: string, method: string, headers: IncomingMessage['headers'], body: Buffer): Promise<{ status: number; headers: IncomingMessage['headers']; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(target, { method, headers: { ...headers, host: new URL(target).host, connection: 'close' } }, (answer) => {
      readAll(answer).then((bytes) => resolve({ status: answer.statusCode ?? 502, headers: answer.headers, body: bytes }), reject);
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

/** A sandbox for `merchant`; `date`: the fixed time every service answer is dated at, in ms (else the sandbox's own). */
export async function startRecordedSandbox(merchant: { merchantId: string; privateKey: string }, date?: number): Promise<RecordedSandbox> {
  let sandboxUrl = '';
  let callbacksUrl: string | undefined;
  const requests: ServiceRequest[] = [];
  const server = createServer((incoming: IncomingMessage, outgoing: ServerResponse) => {
    void (async () => {
      const body = await readAll(incoming);
      const path = incoming.url ?? '/';
      if (path === '/kit-callbacks') {
        if (!callbacksUrl) return outgoing.writeHead(503).end();
        const answer = await forward(callbacksUrl, 'POST', incoming.headers, body);
        return outgoing.writeHead(answer.status, { 'Content-Type': answer.headers['content-type'] ?? 'text/plain' }).end(answer.body);
      }
      requests.push({
        path,
        authorization: incoming.headers['authorization'],
        merchantId: incoming.headers['merchantid'] as string | undefined,
        raw: body.toString('hex'),
      });
      const answer = await forward(`${sandboxUrl}${path}`, incoming.method ?? 'POST', incoming.headers, body);
      const headers = date === undefined ? { ...answer.headers } : { ...answer.headers, date: new Date(date).toUTCString() };
      delete headers['transfer-encoding'];
      delete headers['connection'];
      outgoing.writeHead(answer.status, headers).end(answer.body);
    })().catch((error: unknown) => {
      if (!outgoing.headersSent) outgoing.writeHead(502).end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const sandbox = await createSandbox({ ...merchant, webhookUrl: `${url}/kit-callbacks`, publicUrl: PUBLIC_URL, tickMs: 20 });
  sandboxUrl = sandbox.url;
  return {
    sandbox,
    control: new SandboxControl(sandbox.url),
    url,
    requests,
    deliverTo(target) {
      callbacksUrl = target;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await sandbox.close();
    },
  };
}
