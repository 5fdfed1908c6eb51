/**
 * The kit as a Web-standard `(Request) => Promise<Response>`: the element's files first, then the route the path names
 * (routes.ts's table), its method (405 with the route's `Allow`), the frame's preflight, the body its route takes (415
 * for an element's call that is not JSON, 413 past the limit), and the route's handler. A failure anywhere is logged
 * and answered 500, readable by the isolated frame when it was its call.
 */
import type { MerchantOperation } from '../../core/index.js';
import { framePreflight, frameReadable } from '../element/frame-calls.js';
import { JSON_TYPE, problem, readBody, toResponse, type Answer, type KitRequest } from '../http/http.js';
import { allowOf, routeFor, type ElementOperation, type RouteSpec } from './table.js';

/** What each route does, once its method and body are known to be right. */
export interface RouteHandlers {
  /** The element's calls: they answer a failure themselves (500), and never reject. */
  element: Readonly<Record<ElementOperation, (request: KitRequest, body: Uint8Array) => Promise<Answer>>>;
  callbacks(request: Request, body: Uint8Array): Promise<Response>;
  events(request: Request): Promise<Response>;
  returnPage(request: Request): Promise<Response>;
  health(request: Request): Promise<Response>;
  timings(request: Request): Promise<Response>;
}

export interface WebHandlerOptions {
  basePath: string;
  maxBodyBytes: number;
  /** The element's own files under the base path (the element's files, their pages), before any route. */
  files(path: string, request: Request): Response | undefined;
  handlers: RouteHandlers;
  /** Logs a failure and gives its answer: 500, with nothing of what failed. */
  failed(error: unknown): Answer;
}

export function webHandler(options: WebHandlerOptions): (request: Request) => Promise<Response> {
  const { basePath, maxBodyBytes, handlers } = options;

  /** A route's handler for a request of one of its methods. */
  async function serve(route: RouteSpec, request: Request): Promise<Response> {
    if (route.body === 'none') {
      if (route.operation === 'events') return handlers.events(request);
      return route.operation === 'health' ? handlers.health(request) : handlers.returnPage(request);
    }
    if (route.body === 'beacon') return handlers.timings(request);
    if (route.body === 'json' && !JSON_TYPE.test(request.headers.get('content-type') ?? '')) {
      return problem(415, 'the body must be JSON (Content-Type: application/json)');
    }
    const body = await readBody(request, maxBodyBytes);
    if (body === 'too-large') return problem(413, `the body is larger than ${maxBodyBytes} bytes`);
    if (route.body === 'signed') return handlers.callbacks(request, body);
    return toResponse(await handlers.element[route.operation as ElementOperation](request, body));
  }

  return async function handle(request: Request): Promise<Response> {
    let operation: MerchantOperation | undefined;
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
        return problem(405, `only ${route.methods.join(' and ')} ${route.methods.length > 1 ? 'are' : 'is'} served here`, {}, { Allow: allowOf(route) });
      }
      return frameReadable(operation, request, await serve(route, request));
    } catch (error) {
      return frameReadable(operation, request, toResponse(options.failed(error)));
    }
  };
}
