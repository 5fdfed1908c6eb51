/**
 * A scripted HTTP peer on 127.0.0.1 that records every request byte for byte. It stands in for the payment
 * service in tests of the merchant kit's transport (the stateful sandbox has its own suites).
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  raw: Buffer;
  json: unknown;
}

export interface ScriptedAnswer {
  status?: number;
  /** An object is sent as JSON; a string as is. */
  body?: unknown;
  delayMs?: number;
  /** Close the connection without answering. */
  drop?: boolean;
  /** More headers (a `Date` of the service's clock). */
  headers?: Record<string, string>;
}

export type Responder = (request: RecordedRequest) => ScriptedAnswer | Promise<ScriptedAnswer>;

export interface FakeService {
  url: string;
  requests: RecordedRequest[];
  respond: Responder;
  close(): Promise<void>;
}

export async function startFakeService(respond: Responder): Promise<FakeService> {
  const requests: RecordedRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const service = { requests, respond } as FakeService;
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', async () => {
      const raw = Buffer.concat(chunks);
      let json: unknown;
      try {
        json = JSON.parse(raw.toString('utf8'));
      } catch {
        json = undefined;
      }
      const recorded = { method: request.method ?? '', path: request.url ?? '', headers: request.headers, raw, json };
      requests.push(recorded);
      const answer = await service.respond(recorded);
      if (answer.delayMs) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(() => {
            timers.delete(timer);
            resolve();
          }, answer.delayMs);
          timers.add(timer);
        });
      }
      if (answer.drop) {
        request.socket.destroy();
        return;
      }
      const body = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body ?? {});
      if (response.destroyed) return;
      response.writeHead(answer.status ?? 200, { 'Content-Type': 'application/json', ...answer.headers });
      response.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  service.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  service.close = async () => {
    for (const timer of timers) clearTimeout(timer);
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return service;
}

/** Starts a node:http server for a listener on 127.0.0.1 and returns its address. */
export async function listen(listener: Parameters<typeof createServer>[1]): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
