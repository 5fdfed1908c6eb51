/**
 * Node's request as the kit reads it: the parts of `IncomingMessage` and `ServerResponse` it uses, its URL, its
 * headers, the address it reached, and the Web Request made of it (its body a stream read only when asked for).
 */
import type { LocalAddress } from './client-address.js';

/**
 * The parts of Node's `IncomingMessage` and `ServerResponse` this adapter uses, written out so that the kit's
 * types need no `@types/node` (an edge or serverless project may not have them).
 */
export interface NodeRequest {
  url?: string | undefined;
  method?: string | undefined;
  headers: Record<string, string | string[] | undefined>;
  readableEnded: boolean;
  body?: unknown;
  rawBody?: unknown;
  socket?: { remoteAddress?: string | undefined; localAddress?: string | undefined; localPort?: number | undefined } | null | undefined;
  on(event: 'data', listener: (chunk: Uint8Array) => void): unknown;
  on(event: 'end' | 'close', listener: () => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  pause(): unknown;
  resume(): unknown;
  removeAllListeners(event: 'data'): unknown;
}

export interface NodeResponse {
  headersSent: boolean;
  writableFinished: boolean;
  /** Node's own responses say when their client is gone; nothing is written to them then. */
  destroyed?: boolean;
  writeHead(status: number, headers: Record<string, string>): unknown;
  end(body?: Uint8Array | string): unknown;
  destroy(): unknown;
  once(event: 'close', listener: () => void): unknown;
  /** For streamed bodies (the status stream); without it, a stream is sent when it ends. */
  write?(chunk: Uint8Array): boolean;
  once(event: 'drain', listener: () => void): unknown;
  removeListener?(event: 'close' | 'drain', listener: () => void): unknown;
  flushHeaders?(): void;
}

/** The address and port the request reached this server at. */
export function localOf(request: NodeRequest): LocalAddress | undefined {
  const socket = request.socket;
  return socket?.localAddress && socket.localPort ? { address: socket.localAddress, port: socket.localPort } : undefined;
}

/**
 * The request's URL; a Host header that names no host is taken as localhost. Undefined when the request target
 * itself is not a URL (an absolute-form target such as `http://[/payments`).
 */
export function urlOf(request: NodeRequest): URL | undefined {
  const host = request.headers['host'];
  for (const base of [`http://${safeHost(typeof host === 'string' ? host : undefined)}`, 'http://localhost']) {
    try {
      return new URL(request.url ?? '/', base);
    } catch {
      // try the next base
    }
  }
  return undefined;
}

export function toWebRequest(request: NodeRequest, url: URL, signal: AbortSignal, withBody = true): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined || name.startsWith(':')) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  }
  const method = request.method ?? 'GET';
  if (method === 'GET' || method === 'HEAD' || !withBody) return new Request(url, { method, headers, signal });
  return new Request(url, { method, headers, signal, body: bodyOf(request), duplex: 'half' } as RequestInit);
}

/** Only a plausible host name reaches `new URL`; anything else is served as localhost. */
function safeHost(host: string | undefined): string {
  return host && /^[A-Za-z0-9.:[\]-]+$/.test(host) ? host : 'localhost';
}

/** The body as a web stream; a body parser that ran first (Express's `express.json()`) is reported. */
function bodyOf(request: NodeRequest): ReadableStream<Uint8Array> | Uint8Array {
  if (request.rawBody instanceof Uint8Array) return request.rawBody;
  if (request.readableEnded || request.body !== undefined) {
    if (request.body instanceof Uint8Array) return request.body;
    if (typeof request.body === 'string') return new TextEncoder().encode(request.body);
    throw new Error('the request body was already read by another middleware: mount svc-checkout before body parsers');
  }
  // Nothing is read until the handler reads the body (high water mark 0): a path it does not serve leaves the
  // body untouched for the next middleware.
  let listening = false;
  return new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (!listening) {
          listening = true;
          request.on('data', (chunk: Uint8Array) => {
            controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
            if ((controller.desiredSize ?? 1) <= 0) request.pause();
          });
          request.on('end', () => {
            try {
              controller.close();
            } catch {
              // already cancelled
            }
          });
          request.on('error', (error) => controller.error(error));
        }
        request.resume();
      },
      cancel() {
        // Stop reading; the 413 answer closes the connection.
        request.pause();
        request.removeAllListeners('data');
      },
    },
    { highWaterMark: 0 },
  );
}

/** A body parser (Express's `express.json()`) ran first: the Web path reports it, or takes the bytes it kept. */
export function bodyTaken(request: NodeRequest): boolean {
  return request.readableEnded || request.body !== undefined || request.rawBody !== undefined;
}

/** A header as a Web `Headers` would give it: repeated values joined by ", ", or null. */
export function headerOf(request: NodeRequest, name: string): string | null {
  const value = request.headers[name.toLowerCase()];
  if (value === undefined) return null;
  return typeof value === 'string' ? value : value.join(', ');
}
