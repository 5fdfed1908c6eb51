/**
 * Runs a Web-standard handler under `node:http`, and as Express or Connect middleware. Mount it before any
 * body parser: the callback route needs the body exactly as the service signed it.
 *
 * A handler from `createMerchantHandler` also carries its element calls (`NODE_FAST_PATH`): those are served
 * here straight from Node's request, with a light view of it in place of a Web Request and the answer written
 * as it is, with no Web Response, stream or signal made unless something asks for one. They answer exactly as
 * the Web path does (test/server/node-fast-path.test.ts); everything else takes the Web path.
 */
import { rememberClientAddress, rememberLocalAddress, type LocalAddress } from './client-address.js';
import { AS_WEB_REQUEST, JSON_TYPE, NODE_FAST_PATH, problem, problemAnswer, type Answer, type KitRequest, type NodeFastPath } from '../http/http.js';
import { byteLength } from './modules.js';
import { LightAbort, webSignal } from '../service/transport.js';

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
  const fast = (handler as { [NODE_FAST_PATH]?: NodeFastPath })[NODE_FAST_PATH];
  return (request, response, next) => {
    const served = fast ? serveFast(fast, handler, request, response, next) : serve(handler, request, response, next);
    void served.catch((error: unknown) => {
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

/** The address and port the request reached this server at. */
function localOf(request: NodeRequest): LocalAddress | undefined {
  const socket = request.socket;
  return socket?.localAddress && socket.localPort ? { address: socket.localAddress, port: socket.localPort } : undefined;
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
  url = urlOf(request),
): Promise<void> {
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
  else if (forbiddenMethod) answer = problem(405, 'only POST is served here', {}, { Allow: 'POST' });
  else {
    const webRequest = toWebRequest(request, url, abandoned.signal);
    rememberClientAddress(webRequest, request.socket?.remoteAddress);
    rememberLocalAddress(webRequest, () => localOf(request));
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

function toWebRequest(request: NodeRequest, url: URL, signal: AbortSignal, withBody = true): Request {
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

// ---------------------------------------------------------------------------------------------------------------
// The fast path: the element's calls of a handler from createMerchantHandler

/**
 * An element call, served from Node's request as the Web path serves it: the same checks in the same order
 * (415 before the body is read, 413 as soon as it proves too large), the same route, the same answer. Anything
 * else — another path or method, a body a middleware already read — goes the Web way.
 */
async function serveFast(
  fast: NodeFastPath,
  handler: (request: Request) => Promise<Response>,
  request: NodeRequest,
  response: NodeResponse,
  next?: (error?: unknown) => void,
): Promise<void> {
  const eligible = request.method === 'POST' && !bodyTaken(request);
  let url: URL | undefined;
  let call = eligible ? fast.exact(request.url ?? '') : undefined;
  if (!call) {
    url = urlOf(request);
    call = eligible && url !== undefined ? fast.route(url.pathname) : undefined;
    if (!call) return serve(handler, request, response, next, url);
  }
  const view = new NodeRequestView(request, url, response);
  rememberClientAddress(view, () => request.socket?.remoteAddress);
  rememberLocalAddress(view, () => localOf(request));
  if (!JSON_TYPE.test(view.headers.get('content-type') ?? '')) {
    return writeAnswer(response, problemAnswer(415, 'the body must be JSON (Content-Type: application/json)'));
  }
  let body: Uint8Array | 'too-large';
  try {
    body = await readNodeBody(request, fast.maxBodyBytes);
  } catch (error) {
    return writeAnswer(response, fast.failed(error));
  }
  if (body === 'too-large') return writeAnswer(response, problemAnswer(413, `the body is larger than ${fast.maxBodyBytes} bytes`));
  writeAnswer(response, await call(view, body));
}

/** A body parser (Express's `express.json()`) ran first: the Web path reports it, or takes the bytes it kept. */
function bodyTaken(request: NodeRequest): boolean {
  return request.readableEnded || request.body !== undefined || request.rawBody !== undefined;
}

/**
 * Writes an answer made for this request (its headers are its own, so they are completed in place): the kit's
 * element calls, and every answer of the sandbox.
 */
export function writeAnswer(response: NodeResponse, answer: Answer): void {
  if (response.destroyed) return;
  const { headers } = answer;
  headers['Content-Length'] = String(byteLength(answer.body));
  // A body that was refused unread may still be arriving; close rather than read it to the end.
  if (answer.status === 413) headers['Connection'] = 'close';
  response.writeHead(answer.status, headers);
  response.end(answer.body);
}

/**
 * Reads at most `limit` bytes, as readBody (http.ts) does from a Web Request: a declared length over the limit
 * is refused unread, and reading stops as soon as the body proves larger. The kit's element calls and the
 * sandbox read their bodies with it.
 */
export function readNodeBody(request: NodeRequest, limit: number): Promise<Uint8Array | 'too-large'> {
  const declared = Number(headerOf(request, 'content-length') ?? Number.NaN);
  if (declared > limit) return Promise.resolve('too-large');
  return new Promise((resolve, reject) => {
    const chunks: Uint8Array[] = [];
    let size = 0;
    let settled = false;
    request.on('data', (chunk) => {
      size += chunk.byteLength;
      if (size > limit) {
        settled = true;
        request.pause();
        request.removeAllListeners('data');
        resolve('too-large');
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => {
      settled = true;
      resolve(chunks.length === 1 ? chunks[0]! : concat(chunks, size));
    });
    request.on('error', (error) => {
      settled = true;
      reject(error);
    });
    // Without an end: the client went away mid-body.
    request.on('close', () => {
      if (!settled) reject(new Error('the request was closed before its body ended'));
    });
  });
}

function concat(chunks: Uint8Array[], size: number): Uint8Array {
  const body = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}

/** A header as a Web `Headers` would give it: repeated values joined by ", ", or null. */
function headerOf(request: NodeRequest, name: string): string | null {
  const value = request.headers[name.toLowerCase()];
  if (value === undefined) return null;
  return typeof value === 'string' ? value : value.join(', ');
}

/**
 * What the element's routes read of Node's request. Its signal is a light one (`ClientGone`); the Web Request a
 * merchant's hook receives (without its body, which has been read, as on the Web path) is made only when asked
 * for, with a real AbortSignal that follows it.
 */
class NodeRequestView implements KitRequest {
  readonly #request: NodeRequest;
  /** Parsed when first read: a target that is exactly a call's path (nearly all of them) needs no URL. */
  #url: URL | undefined;
  #web: Request | undefined;
  readonly headers: KitRequest['headers'];
  readonly signal = new ClientGone();

  constructor(request: NodeRequest, url: URL | undefined, response: NodeResponse) {
    this.#request = request;
    this.#url = url;
    this.headers = { get: (name) => headerOf(request, name) };
    response.once('close', () => {
      if (!response.writableFinished) this.signal.abort();
    });
  }

  get url(): string {
    return this.#parsedUrl().href;
  }

  #parsedUrl(): URL {
    // The target is a path (it matched a call's), so it always makes a URL.
    this.#url ??= urlOf(this.#request)!;
    return this.#url;
  }

  [AS_WEB_REQUEST](): Request {
    this.#web ??= toWebRequest(this.#request, this.#parsedUrl(), webSignal(this.signal), false);
    return this.#web;
  }
}

/** Aborts when the client goes away before its answer is written. */
class ClientGone extends LightAbort {}
