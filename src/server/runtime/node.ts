/**
 * Runs a Web-standard handler under `node:http`, and as Express or Connect middleware. Mount it before any
 * body parser: the callback route needs the body exactly as the service signed it.
 *
 * A handler from `createMerchantHandler` also carries its element calls (`NODE_FAST_PATH`): those are served
 * here straight from Node's request, with a light view of it in place of a Web Request and the answer written
 * as it is, with no Web Response, stream or signal made unless something asks for one. They answer exactly as
 * the Web path does (test/server/node-fast-path.test.ts); everything else takes the Web path.
 */
import { rememberClientAddress, rememberLocalAddress } from './client-address.js';
import { NODE_FAST_PATH, problem, type NodeFastPath } from '../http/http.js';
import { serveFast } from './node-fast-path.js';
import { localOf, toWebRequest, urlOf, type NodeRequest, type NodeResponse } from './node-request.js';

export type { NodeRequest, NodeResponse } from './node-request.js';

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
    const served = fast ? serveFast(fast, request, response, (url) => serve(handler, request, response, next, fast, url)) : serve(handler, request, response, next);
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
  fast?: NodeFastPath,
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
  // The kit's route table says what its path serves (405 with its Allow, or 404); another handler's methods are not
  // known here: 501, as for a method a server does not implement.
  else if (forbiddenMethod) answer = fast ? fast.refuse(url.pathname) : problem(501, `${request.method} is not served here`);
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
