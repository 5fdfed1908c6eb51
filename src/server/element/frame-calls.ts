/**
 * The calls the isolated frame sends itself (docs/isolated-fields.md): a create with the bank account details, an
 * OTP, a PIN. The frame's document has an opaque origin, so its browser sends them as cross-origin requests with
 * `Origin: null`, asks first (a preflight: they are JSON and carry the kit's token headers), and lets the frame read
 * the answer only if the kit allows it. The kit allows it for these three routes and no other, without credentials
 * (the frame sends no cookie), and lets it read the order's token and time left.
 *
 * An opaque origin is anyone's: a sandboxed frame on any site sends `Origin: null` too. That allows nothing new: these
 * routes act only with a checkout token, a ticket or an order token (which the page holds, and anyone can send without
 * a browser), and no cookie or other ambient credential reaches them from such a frame.
 */
import { CHECKOUT_TOKEN_HEADER, EXPIRES_IN_HEADER, ISOLATED_CALLS, ORDER_TOKEN_HEADER, TICKET_HEADER, type KitOperation } from '../../core/index.js';
import type { Answer } from '../http/http.js';

/** The origin the frame's requests carry. */
const OPAQUE_ORIGIN = 'null';

const isIsolatedCall = (operation: KitOperation) => (ISOLATED_CALLS as readonly KitOperation[]).includes(operation);

/** The headers that let the frame read an answer to one of its calls; none for any other request. */
export function frameCallHeaders(operation: KitOperation, origin: string | null): Record<string, string> | undefined {
  if (origin !== OPAQUE_ORIGIN || !isIsolatedCall(operation)) return undefined;
  return {
    'Access-Control-Allow-Origin': OPAQUE_ORIGIN,
    'Access-Control-Expose-Headers': `${ORDER_TOKEN_HEADER}, ${EXPIRES_IN_HEADER}`,
    Vary: 'Origin',
  };
}

/** Adds those headers to an answer of one of the frame's calls. */
export function withFrameCallHeaders(operation: KitOperation, origin: string | null, answer: Answer): Answer {
  const headers = frameCallHeaders(operation, origin);
  return headers ? { ...answer, headers: { ...answer.headers, ...headers } } : answer;
}

/** The same, on a refusal the kit makes before the call's route (415, 413, 500): the frame reads its status too. */
export function frameReadable(operation: KitOperation | undefined, request: Request, response: Response): Response {
  const headers = operation && frameCallHeaders(operation, request.headers.get('origin'));
  if (headers) for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
  return response;
}

/**
 * The answer to a preflight (`OPTIONS`) of one of the frame's calls: what it may send (a JSON POST with the token
 * headers), for ten minutes. Undefined for any other: then the kit answers `OPTIONS` as any method it does not serve.
 */
export function framePreflight(operation: KitOperation, request: Request): Response | undefined {
  const headers = frameCallHeaders(operation, request.headers.get('origin'));
  if (!headers || request.headers.get('access-control-request-method') !== 'POST') return undefined;
  return new Response(null, {
    status: 204,
    headers: {
      ...headers,
      'Access-Control-Allow-Methods': 'POST',
      'Access-Control-Allow-Headers': `Content-Type, Accept, ${CHECKOUT_TOKEN_HEADER}, ${ORDER_TOKEN_HEADER}, ${TICKET_HEADER}`,
      'Access-Control-Max-Age': '600',
      'Cache-Control': 'no-store',
    },
  });
}
