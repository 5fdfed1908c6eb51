/**
 * `GET /payments/events`: a status stream, proved like the status route (tokens in headers, or in the query string
 * for an `EventSource`, which sends no headers), admitted under the stream limits, and opened on the hub.
 */
import { CHECKOUT_TOKEN_HEADER, ORDER_TOKEN_HEADER, STREAM_QUERY, TOKEN_KINDS } from '../../core/index.js';
import { problem, toResponse } from '../http/http.js';
import { listened, requestChannel, traceStreamRequest } from '../observability/channels.js';
import type { StatusRoutes } from '../payments/status.js';
import { requestScopedIo } from '../runtime/modules.js';
import type { StatusHub } from './hub.js';

export interface EventsRouteOptions {
  /** The kit's hub; undefined when the streams are off (`streams: false`): the route answers 404, the element polls. */
  hub: StatusHub | undefined;
  /** A hub of a request's own, where a request's I/O is its own (workerd). */
  ownHub(): StatusHub;
  statuses: Pick<StatusRoutes, 'proveStatusQuery' | 'admitStream'>;
}

export function eventsRoute(options: EventsRouteOptions): (request: Request) => Promise<Response> {
  const { hub, statuses } = options;

  async function events(request: Request): Promise<Response> {
    if (!hub) return problem(404, 'no such path');
    const search = new URL(request.url).searchParams;
    const token = search.get(STREAM_QUERY.token);
    const tokenOf = (kind: keyof typeof TOKEN_KINDS) => (token?.startsWith(`${TOKEN_KINDS[kind]}.`) ? token : null);
    const value: Record<string, unknown> = {};
    for (const field of ['reference', 'orderNo', 'country']) {
      const given = search.get(field);
      if (given !== null) value[field] = given;
    }
    const proven = await statuses.proveStatusQuery(value, request, {
      orderToken: request.headers.get(ORDER_TOKEN_HEADER) ?? tokenOf('order'),
      checkoutToken: request.headers.get(CHECKOUT_TOKEN_HEADER) ?? tokenOf('checkout'),
    });
    if (!proven.ok) return toResponse(proven.response);
    if (hub.finished(request, proven.proof)) return new Response(null, { status: 204, headers: { 'Cache-Control': 'no-store' } });
    const admitted = await statuses.admitStream(request, proven.proof);
    if (!admitted.ok) return toResponse(admitted.response);
    // Where a request's I/O is its own (workerd), a stream shares no query and hears no callback of another request: it
    // gets a hub of its own, whose status queries bring it what callbacks bring it elsewhere.
    return (requestScopedIo ? options.ownHub() : hub).open(request, proven.proof, admitted.release);
  }

  return (request) => (listened(requestChannel) ? traceStreamRequest(() => events(request)) : events(request));
}
