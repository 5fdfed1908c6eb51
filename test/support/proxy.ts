/**
 * A small HTTP reverse proxy on 127.0.0.1 for tests: round-robin over its targets (several kit processes behind
 * one address, as a load balancer puts them), passing streamed answers on as they come — or, in `buffer` mode,
 * holding every answer back until it ends, as a buffering proxy does. Like nginx and haproxy, it skips a target
 * that refuses the connection, and closes the client's connection when its target dies mid-answer. It records each request's headers and can
 * cut every connection at once.
 */
import { createServer, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface TestProxy {
  url: string;
  requests: { target: string; url: string; headers: IncomingHttpHeaders }[];
  /** Drops every open connection, client and upstream side, as a proxy restart would. */
  cut(): void;
  close(): Promise<void>;
}

export async function startProxy(targets: string[], options: { mode?: 'stream' | 'buffer' } = {}): Promise<TestProxy> {
  let next = 0;
  const sockets = new Set<Socket>();
  const upstreams = new Set<{ destroy(): void }>();
  const requests: TestProxy['requests'] = [];
  /** To the target of `first` and on, skipping a target that refuses the connection (nothing reached it). */
  const forward = (incoming: IncomingMessage, outgoing: ServerResponse, body: Buffer, first: number, tried = 0): void => {
    const target = targets[(first + tried) % targets.length]!;
    requests.push({ target, url: incoming.url ?? '/', headers: incoming.headers });
    const upstream = httpRequest(`${target}${incoming.url ?? '/'}`, { method: incoming.method, headers: incoming.headers, agent: false }, (answer) => {
      // As nginx and haproxy do: a target that dies mid-answer closes the client's connection.
      answer.on('close', () => {
        if (!answer.complete) outgoing.destroy();
      });
      if (options.mode === 'buffer') {
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('end', () => {
          outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
          outgoing.end(Buffer.concat(chunks));
        });
        return;
      }
      outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
      outgoing.flushHeaders();
      answer.pipe(outgoing);
    });
    upstreams.add(upstream);
    upstream.on('close', () => upstreams.delete(upstream));
    upstream.on('error', (error: NodeJS.ErrnoException) => {
      if (!outgoing.headersSent && error.code === 'ECONNREFUSED' && tried + 1 < targets.length) forward(incoming, outgoing, body, first, tried + 1);
      else if (!outgoing.headersSent) outgoing.writeHead(502).end();
      else outgoing.destroy();
    });
    outgoing.on('close', () => upstream.destroy());
    upstream.end(body);
  };
  const server = createServer((incoming, outgoing) => {
    const first = next++;
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => forward(incoming, outgoing, Buffer.concat(chunks), first));
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const cut = () => {
    for (const socket of sockets) socket.destroy();
    for (const upstream of upstreams) upstream.destroy();
  };
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    cut,
    async close() {
      cut();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
