/**
 * The fast path of `toNodeListener`: a handler from `createMerchantHandler` carries its element calls
 * (`NODE_FAST_PATH`, fed by the kit's route table), and those are served here straight from Node's request, with a
 * light view of it in place of a Web Request and the answer written as it is, with no Web Response, stream or signal
 * made unless something asks for one. They answer exactly as the Web path does (test/server/node-fast-path.test.ts).
 */
import { rememberClientAddress, rememberLocalAddress } from './client-address.js';
import { AS_WEB_REQUEST, concatBytes, JSON_TYPE, problemAnswer, type Answer, type KitRequest, type NodeFastPath } from '../http/http.js';
import { byteLength } from './modules.js';
import { bodyTaken, headerOf, localOf, toWebRequest, urlOf, type NodeRequest, type NodeResponse } from './node-request.js';
import { LightAbort, webSignal } from '../service/transport.js';

/**
 * An element call, served from Node's request as the Web path serves it: the same checks in the same order
 * (415 before the body is read, 413 as soon as it proves too large), the same route, the same answer. Anything
 * else — another path or method, a body a middleware already read — goes the Web way.
 */
export async function serveFast(
  fast: NodeFastPath,
  request: NodeRequest,
  response: NodeResponse,
  otherwise: (url: URL | undefined) => Promise<void>,
): Promise<void> {
  const eligible = request.method === 'POST' && !bodyTaken(request);
  let url: URL | undefined;
  let call = eligible ? fast.exact(request.url ?? '') : undefined;
  if (!call) {
    url = urlOf(request);
    call = eligible && url !== undefined ? fast.route(url.pathname) : undefined;
    if (!call) return otherwise(url);
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

/**
 * Writes an answer made for this request (its headers are its own, so they are completed in place): the kit's
 * element calls.
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
 * Reads at most `limit` bytes, as readBody (src/server/http/http.ts) does from a Web Request: a declared length over the limit
 * is refused unread, and reading stops as soon as the body proves larger. The kit's element calls read their
 * bodies with it.
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
      resolve(chunks.length === 1 ? chunks[0]! : concatBytes(chunks, size));
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
