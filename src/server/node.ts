/**
 * Runs a Web-standard handler under `node:http`, and as Express or Connect middleware. Mount it before any
 * body parser: the callback route needs the body exactly as the service signed it.
 */
import { rememberClientAddress } from './client-address.js';

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
  socket?: { remoteAddress?: string | undefined } | null | undefined;
  on(event: 'data', listener: (chunk: Uint8Array) => void): unknown;
  on(event: 'end', listener: () => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  pause(): unknown;
  resume(): unknown;
  removeAllListeners(event: 'data'): unknown;
}

export interface NodeResponse {
  headersSent: boolean;
  writableFinished: boolean;
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

export type NodeListener = (request: NodeRequest, response: NodeResponse, next?: (error?: unknown) => void) => void;

export interface NodeListenerOptions {
  /** Called when a request could not reach the handler (it then gets 500). Default: logs the message. */
  onError?: (error: unknown) => void;
}

/**
 * `handler` as a `node:http` request listener. Given Express's or Connect's `next`, a path the handler does
 * not serve (404) is passed on to the next middleware instead of being answered.
 */
export function toNodeListener(handler: (request: Request) => Promise<Response>, options: NodeListenerOptions = {}): NodeListener {
  return (request, response, next) => {
    void serve(handler, request, response, next).catch((error: unknown) => {
      (options.onError ?? logError)(error);
      if (!response.headersSent) {
        response.writeHead(500, { 'Content-Type': 'application/json; charset=utf-8' });
        response.end(JSON.stringify({ message: 'internal error' }));
      } else {
        response.destroy();
      }
    });
  };
}

function logError(error: unknown): void {
  console.error(`svc-checkout: ${error instanceof Error ? error.message : 'request failed'}`);
}

/** Methods the Fetch API refuses to put in a `Request` (Node's parser passes TRACE on; CONNECT never reaches us). */
const FETCH_FORBIDDEN_METHODS = new Set(['CONNECT', 'TRACE', 'TRACK']);

async function serve(
  handler: (request: Request) => Promise<Response>,
  request: NodeRequest,
  response: NodeResponse,
  next?: (error?: unknown) => void,
): Promise<void> {
  const url = urlOf(request);
  // No Web Request can describe a target that is not a URL, or a method fetch refuses. The handler serves
  // neither: they are answered here (404, 405) or, under Express, left to the next middleware.
  const forbiddenMethod = FETCH_FORBIDDEN_METHODS.has((request.method ?? 'GET').toUpperCase());
  if ((url === undefined || forbiddenMethod) && typeof next === 'function') {
    next();
    return;
  }
  // The handler's calls to the service stop when the browser goes away.
  const abandoned = new AbortController();
  response.once('close', () => {
    if (!response.writableFinished) abandoned.abort();
  });
  let answer: Response;
  if (url === undefined) answer = problem(404, 'no such path');
  else if (forbiddenMethod) answer = problem(405, 'only POST is served here', { Allow: 'POST' });
  else {
    const webRequest = toWebRequest(request, url, abandoned.signal);
    rememberClientAddress(webRequest, request.socket?.remoteAddress);
    answer = await handler(webRequest);
  }
  if (answer.status === 404 && typeof next === 'function') {
    next();
    return;
  }
  const headers: Record<string, string> = {};
  answer.headers.forEach((value, name) => {
    headers[name] = value;
  });
  // A body that was refused unread may still be arriving; close rather than read it to the end.
  if (answer.status === 413) headers['connection'] = 'close';
  if (answer.body && isEventStream(answer) && typeof response.write === 'function') {
    await pipe(answer.body, response, headers, answer.status);
    return;
  }
  const body = new Uint8Array(await answer.arrayBuffer());
  response.writeHead(answer.status, headers);
  response.end(body);
}

function isEventStream(answer: Response): boolean {
  return /^text\/event-stream\b/i.test(answer.headers.get('content-type') ?? '');
}

/**
 * Sends a streamed body as it comes (Server-Sent Events), waiting for the socket when it is full. When the client
 * goes away, the stream is cancelled: the handler's side of it (timers, subscriptions) is cleaned up there.
 */
async function pipe(body: ReadableStream<Uint8Array>, response: NodeResponse, headers: Record<string, string>, status: number): Promise<void> {
  const reader = body.getReader();
  let closed = false;
  let wake: (() => void) | undefined;
  const onClose = () => {
    closed = true;
    wake?.();
    void reader.cancel().catch(() => undefined);
  };
  response.once('close', onClose);
  response.writeHead(status, headers);
  response.flushHeaders?.();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || closed) break;
      if (!response.write!(value) && !closed) {
        await new Promise<void>((resolve) => {
          wake = resolve;
          response.once('drain', resolve);
        });
        wake = undefined;
      }
    }
  } finally {
    response.removeListener?.('close', onClose);
    if (!closed) response.end();
  }
}

function problem(status: number, message: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ message }), {
    status,
    headers: { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store', ...headers },
  });
}

/**
 * The request's URL; a Host header that names no host is taken as localhost. Undefined when the request target
 * itself is not a URL (an absolute-form target such as `http://[/payments`).
 */
function urlOf(request: NodeRequest): URL | undefined {
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

function toWebRequest(request: NodeRequest, url: URL, signal: AbortSignal): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined || name.startsWith(':')) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  }
  const method = request.method ?? 'GET';
  if (method === 'GET' || method === 'HEAD') return new Request(url, { method, headers, signal });
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
