/**
 * The element's calls as the routes serve them: the body read as JSON and handed to its route, traced on
 * `svc-checkout:request` when someone listens, readable by the isolated frame when it was the frame's call, and a
 * failure answered 500. The same calls feed the Web handler and, under `toNodeListener`, the Node fast path, which
 * takes a request view and the body's bytes and writes the answer with no Web Request or Response made.
 */
import { isPayMethod, isPlainObject } from '../../core/index.js';
import { withFrameCallHeaders } from '../element/frame-calls.js';
import { problem, withJson, type Answer, type KitRequest, type NodeFastPath } from '../http/http.js';
import { listened, requestChannel, traceRequest, type RequestTrace } from '../observability/channels.js';
import type { Route } from '../payments/context.js';
import { ELEMENT_OPERATIONS, methodRefused, ROUTES, routeFor, type ElementOperation } from './table.js';

export type ElementCall = (request: KitRequest, body: Uint8Array) => Promise<Answer>;

/** Each element call, by operation: it never rejects (a failure is logged and answered 500 by `failed`). */
export function elementCalls(routes: Readonly<Record<ElementOperation, Route>>, failed: (error: unknown) => Answer): Readonly<Record<ElementOperation, ElementCall>> {
  const calls = {} as Record<ElementOperation, ElementCall>;
  for (const operation of ELEMENT_OPERATIONS) {
    const route = routes[operation];
    const call = (request: KitRequest, body: Uint8Array, trace?: RequestTrace) =>
      withJson(body, (value) => {
        if (trace && isPlainObject(value) && isPayMethod(value['payMethod'])) trace.method = value['payMethod'];
        return route(value, request);
      });
    const answered: ElementCall = (request, body) =>
      (listened(requestChannel) ? traceRequest(operation, (trace) => call(request, body, trace)) : call(request, body)).catch(failed);
    calls[operation] = ROUTES[operation].frame
      ? async (request, body) => withFrameCallHeaders(operation, request.headers.get('origin'), await answered(request, body))
      : answered;
  }
  return Object.freeze(calls);
}

/** What `toNodeListener` serves itself: the element's calls, found by their exact path or through the route table. */
export function nodeFastPath(calls: Readonly<Record<ElementOperation, ElementCall>>, basePath: string, maxBodyBytes: number, failed: (error: unknown) => Answer): NodeFastPath {
  // A request target that is exactly a call's path needs no URL parsed.
  const exact = new Map(ELEMENT_OPERATIONS.map((operation) => [`${basePath}${ROUTES[operation].path}`, calls[operation]]));
  return {
    maxBodyBytes,
    failed,
    exact: (target) => exact.get(target),
    refuse: (pathname) => {
      const route = routeFor(pathname, basePath);
      return route ? methodRefused(route) : problem(404, 'no such path');
    },
    route: (pathname) => {
      const route = routeFor(pathname, basePath);
      return route?.body === 'json' ? calls[route.operation as ElementOperation] : undefined;
    },
  };
}
