/**
 * The merchant endpoint the element talks to (DESIGN.md §3), as a Web-standard `(Request) => Promise<Response>`
 * so that it runs on Node (through `toNodeListener`), serverless and edge runtimes alike.
 *
 * Every business outcome is HTTP 200 with the service's envelope, unchanged when it came from the service.
 * Non-200 answers are for transport problems only: 404, 405, 413, 415, and on the callback route 401/400 (refused),
 * 500 (`onCallback` failed) and 503 (the same callback is being handled): the service sends those again.
 */
import {
  CALLBACK_BODY,
  EXPIRES_IN_HEADER,
  isPlainObject,
  ORDER_TOKEN_HEADER,
  errorEnvelope,
  isSuccess,
  MERCHANT_PATHS,
  parseJson,
  validate,
  validateCreateRequest,
  envelopeForViolations,
  isHttpUrl,
  successEnvelope,
  type CallbackBody,
  type CreatePaymentRequest,
  type Envelope,
  type MerchantOperation,
} from '../core/index.js';
import { MemoryCallbackStore, type CallbackStore } from './callback-store.js';
import { count, ServiceClient, ServiceConfigError, ServiceError, type ServiceClientOptions } from './service-client.js';
import { constantTimeEqual, decodeUtf8, hmacSha512Hex, verifyCallback } from './signature.js';

/** Throw this from `authorize` to refuse an order; the element shows the message (at `field` when given). */
export class OrderRejection extends Error {
  override readonly name = 'OrderRejection';
  readonly field: string;
  constructor(message: string, options: { field?: string } = {}) {
    super(message);
    this.field = options.field ?? 'order';
  }
}

/**
 * Sees every order before it is signed. Return the order to send (changed or not), or nothing to send it as
 * it is; throw `OrderRejection` to refuse it. This is where the merchant sets the amount, currency and
 * reference from its own records: whatever the browser sent is only a proposal.
 */
export type AuthorizeHook = (
  order: CreatePaymentRequest,
  request: Request,
) => CreatePaymentRequest | void | Promise<CreatePaymentRequest | void>;

/** A verified callback, handed to `onCallback` once per `notifyId`. */
export interface CallbackEvent {
  notifyId: string;
  /** The body, validated; `amount.total` is a number whatever the service sent. */
  body: CallbackBody & { amount: { total: number; currency: string } };
  /** The body exactly as received and signed. */
  raw: string;
  /** `RequestTimestamp`, in milliseconds. */
  timestamp: number;
}

export interface MerchantHandlerOptions extends ServiceClientOptions {
  /** A path prefix the handler is mounted under (e.g. `/checkout`); requests outside it get 404. */
  basePath?: string;
  /** The public address of this handler's `/callbacks` route; when set, every order uses it. */
  callbackUrl?: string;
  authorize?: AuthorizeHook;
  /**
   * Sees every OTP, PIN, resend and status call before it is forwarded; throw `OrderRejection` to refuse it
   * (for example, when the order is not this payer's session's). OTP, PIN and resend calls must already carry
   * the order's `Svc-Order-Token`.
   */
  authorizeAction?: (operation: ActionOperation, body: Record<string, unknown>, request: Request) => void | Promise<void>;
  onCallback?: (event: CallbackEvent) => void | Promise<void>;
  callbackStore?: CallbackStore;
  /** How far a callback's `RequestTimestamp` may be from now. Default 300 seconds. */
  callbackToleranceSeconds?: number;
  /** Largest request body accepted. Default 16 KiB; the largest valid create body is well under 8 KiB. */
  maxBodyBytes?: number;
  /** Where problems are reported. Never given a body, a key or a signature. Default `console`. */
  logger?: Pick<Console, 'warn' | 'error'>;
  /** The clock callbacks are checked against, in milliseconds. */
  now?: () => number;
}

export type MerchantHandler = (request: Request) => Promise<Response>;

export type ActionOperation = Exclude<MerchantOperation, 'create' | 'callbacks'>;

const JSON_TYPE = /^(?:application\/(?:[\w.+-]+\+)?json|text\/json)\s*(?:;|$)/i;

export function createMerchantHandler(options: MerchantHandlerOptions): MerchantHandler {
  const client = new ServiceClient(options);
  const basePath = (options.basePath ?? '').replace(/\/+$/, '');
  const maxBodyBytes = count(options.maxBodyBytes, 16 * 1024, 'maxBodyBytes', 1);
  const toleranceSeconds = count(options.callbackToleranceSeconds, 300, 'callbackToleranceSeconds', 1);
  if (options.callbackUrl !== undefined && !isHttpUrl(options.callbackUrl)) {
    throw new ServiceConfigError('callbackUrl must be an absolute http(s) URL');
  }
  const store = options.callbackStore ?? new MemoryCallbackStore();
  for (const method of ['claim', 'complete', 'release'] as const) {
    if (typeof store[method] !== 'function') throw new ServiceConfigError(`callbackStore.${method} must be a function`);
  }
  // Also for the merchant's own words sent to the browser (an OrderRejection's message).
  const redact = redactor(options.privateKey);
  const logger = redacting(options.logger ?? console, redact);
  const now = options.now ?? Date.now;

  /** The order token: an HMAC of the order number under the merchant's key. */
  const orderToken = (orderNo: string) => hmacSha512Hex(options.privateKey, `svc-checkout-order:${options.merchantId}:${orderNo}`);

  const actions: Record<ActionOperation, (body: never, request: Request) => Promise<Envelope>> = {
    // The client validates these bodies with the tables of src/core and answers 02001 itself. A call is
    // abandoned when the browser gives up on it.
    otp: (body, request) => client.submitOtp(body, { signal: request.signal }),
    pin: (body, request) => client.submitPin(body, { signal: request.signal }),
    resendOtp: (body, request) => client.resendOtp(body, { signal: request.signal }),
    // Tried once: the element polls again anyway, and must hear within its own timeout.
    status: (body, request) => client.queryStatus(body, { signal: request.signal, retries: 0 }),
  };

  const routes: Record<MerchantOperation, (request: Request, body: Uint8Array) => Promise<Response>> = {
    create: (request, body) => withJson(body, (value) => createPayment(value, request)),
    otp: (request, body) => withJson(body, (value) => act('otp', value, request)),
    pin: (request, body) => withJson(body, (value) => act('pin', value, request)),
    resendOtp: (request, body) => withJson(body, (value) => act('resendOtp', value, request)),
    status: (request, body) => withJson(body, (value) => act('status', value, request)),
    callbacks: (request, body) => receiveCallback(request, body),
  };

  async function act(operation: ActionOperation, value: unknown, request: Request): Promise<Response> {
    if (!isPlainObject(value)) return envelope(envelopeForViolations([{ field: 'body', rule: 'type', message: 'the request body must be a JSON object' }]));
    if (operation !== 'status') {
      const orderNo = value['orderNo'];
      if (typeof orderNo !== 'string' || orderNo.trim() === '') {
        return envelope(envelopeForViolations([{ field: 'orderNo', rule: 'required', message: 'orderNo is required' }]));
      }
      const given = new TextEncoder().encode(request.headers.get(ORDER_TOKEN_HEADER)?.trim() ?? '');
      const expected = new TextEncoder().encode(await orderToken(orderNo.trim()));
      if (!constantTimeEqual(given, expected)) {
        logger.warn(`svc-checkout: ${operation} refused: no valid ${ORDER_TOKEN_HEADER} for order ${orderNo.trim()}`);
        return envelope(errorEnvelope('02000'));
      }
    }
    if (options.authorizeAction) {
      try {
        await options.authorizeAction(operation, value, request);
      } catch (error) {
        if (!(error instanceof OrderRejection)) throw error;
        return envelope(envelopeForViolations([{ field: error.field, rule: 'merchant', message: redact(error.message) }]));
      }
    }
    return envelope(await callService(operation, () => actions[operation](value as never, request)));
  }

  async function createPayment(input: unknown, request: Request): Promise<Response> {
    const proposed = validateCreateRequest(input);
    if (!proposed.ok) return envelope(envelopeForViolations(proposed.violations));
    let order = proposed.value;
    if (options.callbackUrl) order = { ...order, callbackUrl: options.callbackUrl };
    if (options.authorize) {
      try {
        order = (await options.authorize(order, request)) ?? order;
      } catch (error) {
        if (!(error instanceof OrderRejection)) throw error;
        return envelope(envelopeForViolations([{ field: error.field, rule: 'merchant', message: redact(error.message) }]));
      }
    }
    const answer = await callService('create', () => client.createPayment(order, { signal: request.signal }));
    const data = isSuccess(answer) && isPlainObject(answer.data) ? answer.data : undefined;
    const headers: Record<string, string> = {};
    if (data?.['status'] === 'PENDING' && typeof order.expireAt === 'number') headers[EXPIRES_IN_HEADER] = String(order.expireAt * 60);
    if (typeof data?.['orderNo'] === 'string') headers[ORDER_TOKEN_HEADER] = await orderToken(data['orderNo']);
    return envelope(answer, headers);
  }

  /** Calls the service; a transport failure becomes the service's own "not available" envelope. */
  async function callService(operation: string, call: () => Promise<Envelope>): Promise<Envelope> {
    try {
      return await call();
    } catch (error) {
      if (!(error instanceof ServiceError) && !isAbort(error)) throw error;
      logger.warn(`svc-checkout: ${operation} failed: ${error instanceof Error ? error.message : 'aborted'}`);
      return errorEnvelope('50003');
    }
  }

  async function receiveCallback(request: Request, body: Uint8Array): Promise<Response> {
    const verification = await verifyCallback({
      headers: request.headers,
      body,
      privateKey: options.privateKey,
      merchantId: options.merchantId,
      now: now(),
      toleranceSeconds,
    });
    if (!verification.ok) {
      logger.warn(`svc-checkout: callback rejected: ${verification.reason}`);
      return problem(401, `callback rejected: ${verification.message}`, { reason: verification.reason });
    }
    const raw = decodeUtf8(body);
    const parsed = raw === undefined ? undefined : parseJson(raw);
    if (raw === undefined || !parsed?.ok) return problem(400, 'the callback body is not JSON');
    const checked = validate<CallbackEvent['body']>(CALLBACK_BODY, parsed.value);
    if (!checked.ok) {
      const broken = checked.violations.map((violation) => `${violation.field} (${violation.rule})`).join(', ');
      logger.warn(`svc-checkout: a signed callback breaks the specification and was refused: ${broken}`);
      return problem(400, 'the callback body breaks the specification', { errors: checked.violations });
    }
    const callback = checked.value;
    const claim = await store.claim(callback.notifyId);
    if (claim !== 'new' && claim !== 'busy' && claim !== 'done') {
      throw new TypeError(`callbackStore.claim answered ${String(claim)}, not 'new', 'busy' or 'done'`);
    }
    if (claim === 'done') return envelope(successEnvelope({ duplicate: true }));
    // Acknowledging it now would lose it if the handling under way fails: the service will send it again.
    if (claim === 'busy') return problem(503, 'this callback is being handled; send it again later', {}, { 'Retry-After': '10' });
    try {
      await options.onCallback?.({ notifyId: callback.notifyId, body: callback, raw, timestamp: verification.timestamp });
    } catch (error) {
      await store.release(callback.notifyId);
      logger.error(`svc-checkout: onCallback failed for notifyId ${callback.notifyId}: ${errorMessage(error)}`);
      return problem(500, 'the callback could not be handled; the service will send it again');
    }
    await store.complete(callback.notifyId);
    return envelope(successEnvelope({ duplicate: false }));
  }

  return async function handle(request: Request): Promise<Response> {
    try {
      const operation = operationFor(new URL(request.url).pathname, basePath);
      if (!operation) return problem(404, 'no such path');
      if (request.method !== 'POST') return problem(405, 'only POST is served here', {}, { Allow: 'POST' });
      if (operation !== 'callbacks' && !JSON_TYPE.test(request.headers.get('content-type') ?? '')) {
        return problem(415, 'the body must be JSON (Content-Type: application/json)');
      }
      const body = await readBody(request, maxBodyBytes);
      if (body === 'too-large') return problem(413, `the body is larger than ${maxBodyBytes} bytes`);
      return await routes[operation](request, body);
    } catch (error) {
      logger.error(`svc-checkout: request failed: ${errorMessage(error)}`);
      return problem(500, 'internal error');
    }
  };
}

async function withJson(body: Uint8Array, next: (value: unknown) => Promise<Response>): Promise<Response> {
  const text = decodeUtf8(body);
  const parsed = text === undefined ? undefined : parseJson(text);
  if (!parsed?.ok) return problem(415, 'the body is not JSON');
  return next(parsed.value);
}

function operationFor(pathname: string, basePath: string): MerchantOperation | undefined {
  if (basePath && pathname !== basePath && !pathname.startsWith(`${basePath}/`)) return undefined;
  const path = pathname.slice(basePath.length).replace(/\/+$/, '');
  return (Object.keys(MERCHANT_PATHS) as MerchantOperation[]).find((operation) => MERCHANT_PATHS[operation] === path);
}

/** Reads at most `limit` bytes; stops reading as soon as the body proves larger. */
export async function readBody(request: Request, limit: number): Promise<Uint8Array | 'too-large'> {
  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  if (declared > limit) return 'too-large';
  if (!request.body) return new Uint8Array();
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      return 'too-large';
    }
    chunks.push(value);
  }
  const body = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}

const COMMON_HEADERS = {
  'Content-Type': 'application/json; charset=utf-8',
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
};

function envelope(body: Envelope, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status: 200, headers: { ...COMMON_HEADERS, ...headers } });
}

function problem(status: number, message: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ message, ...extra }), { status, headers: { ...COMMON_HEADERS, ...headers } });
}

/** `text` without the private key, nor anything shaped like a signature. */
function redactor(privateKey: string): (text: string) => string {
  return (text) => text.split(privateKey).join('[redacted]').replace(/[0-9a-f]{128}/gi, '[redacted]');
}

/** A logger that never prints the private key, nor anything shaped like a signature. */
function redacting(logger: Pick<Console, 'warn' | 'error'>, clean: (text: string) => string): Pick<Console, 'warn' | 'error'> {
  return {
    warn: (line: string) => logger.warn(clean(line)),
    error: (line: string) => logger.error(clean(line)),
  };
}

/** The browser gave up on the request (its signal aborted the call to the service). */
function isAbort(error: unknown): boolean {
  return error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError');
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : 'unknown error';
}
