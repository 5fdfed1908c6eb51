/**
 * The sandbox's `node:http` server: listens on its host and port, answers a request it cannot parse with 400
 * and a route that failed with 500 (a sandbox never falls over), and at close cuts every connection at once,
 * event streams and held calls included.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { sendJson } from './json-answer.js';
import { printable } from './printable.js';

export interface HttpServer {
  /** The base URL, e.g. http://127.0.0.1:4010. */
  url: string;
  close(): Promise<void>;
}

export interface HttpServerOptions {
  host: string;
  port: number;
  log: (line: string) => void;
}

export async function startHttpServer(
  options: HttpServerOptions,
  handle: (request: IncomingMessage, response: ServerResponse) => Promise<void>,
): Promise<HttpServer> {
  const { log } = options;
  const sockets = new Set<Socket>();
  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      log(`${request.method} ${printable(request.url ?? '')} failed: ${error instanceof Error ? error.message : 'error'}`);
      if (!response.headersSent) sendJson(response, 500, { message: 'internal error' });
      else response.destroy();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('clientError', (_error, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
    else socket.destroy();
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const urlHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;

  return {
    url: `http://${urlHost}:${address.port}`,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}
