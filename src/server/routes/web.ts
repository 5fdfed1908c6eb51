/**
 * The kit as a Web-standard `(Request) => Promise<Response>`: the element's files first, then the route the path names
 * (table.ts), its method (405 with the route's `Allow`), the frame's preflight, the body its route takes (415
 * for an element's call that is not JSON, 413 past the limit), and the route's handler. A failure anywhere is logged
 * and answered 500, readable by the isolated frame when it was its call.
 */
import type { KitOperation } from '../../core/index.js';
import { framePreflight, frameReadable } from '../element/frame-calls.js';
import { JSON_TYPE, problem, readBody, toResponse, type Answer, type KitRequest } from '../http/http.js';
import { ELEMENT_OPERATIONS, methodRefused, routeFor, type ElementOperation, type RouteSpec } from './table.js';

/** What a route does once its method and body are known to be right: `body` is the bytes read for a `json` or `signed` route. */
export type RouteHandler = (request: Request, body: Uint8Array | undefined) => Promise<Response>;

/** The routes other than the element's calls, by operation. */
export type RouteHandlers = Readonly<Record<Exclude<KitOperation, ElementOperation>, RouteHandler>>;

export interface WebHandlerOptions {
  basePath: string;
  maxBodyBytes: number;
  /** The element's own files under the base path (the element's files, their pages), before any route. */
  files(path: string, request: Request): Response | undefined;
  /** The element's calls: they answer a failure themselves (500), and never reject. */
  element: Readonly<Record<ElementOperation, (request: KitRequest, body: Uint8Array) => Promise<Answer>>>;
  handlers: RouteHandlers;
  /** Logs a failure and gives its answer: 500, with nothing of what failed. */
  failed(error: unknown): Answer;
}

export function webHandler(options: WebHandlerOptions): (request: Request) => Promise<Response> {
  const { basePath, maxBodyBytes } = options;
  const element = (call: WebHandlerOptions['element'][ElementOperation]): RouteHandler => async (request, body) => toResponse(await call(request, body!));
  const serveRoute: Readonly<Record<KitOperation, RouteHandler>> = {
    ...options.handlers,
    ...(Object.fromEntries(ELEMENT_OPERATIONS.map((operation) => [operation, element(options.element[operation])])) as Record<ElementOperation, RouteHandler>),
  };

  /** A route's handler for a request of one of its methods, with the body its route reads. */
  async function serve(route: RouteSpec, request: Request): Promise<Response> {
    if (route.body === 'json' && !JSON_TYPE.test(request.headers.get('content-type') ?? '')) {
      return problem(415, 'the body must be JSON (Content-Type: application/json)');
    }
    const body = route.body === 'json' || route.body === 'signed' ? await readBody(request, maxBodyBytes) : undefined;
    if (body === 'too-large') return problem(413, `the body is larger than ${maxBodyBytes} bytes`);
    return serveRoute[route.operation](request, body);
  }

  return async function handle(request: Request): Promise<Response> {
    let operation: KitOperation | undefined;
    try {
      const pathname = new URL(request.url).pathname;
      const file = pathname.startsWith(`${basePath}/`) ? options.files(pathname.slice(basePath.length), request) : undefined;
      if (file) return file;
      const route = routeFor(pathname, basePath);
      if (!route) return problem(404, 'no such path');
      operation = route.operation;
      if (request.method === 'OPTIONS' && route.frame) {
        const preflight = framePreflight(route.operation, request);
        if (preflight) return preflight;
      }
      if (!(route.methods as readonly string[]).includes(request.method)) {
        return methodRefused(route);
      }
      return frameReadable(operation, request, await serve(route, request));
    } catch (error) {
      return frameReadable(operation, request, toResponse(options.failed(error)));
    }
  };
}
