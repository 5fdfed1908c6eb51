/**
 * The checkout's only network peer: the merchant's endpoint (DESIGN.md §3). Every call is a JSON POST; an
 * answer is the service's envelope, or a `EndpointError` saying why there is none.
 */
import {
  CHECKOUT_TOKEN_HEADER,
  CLIENT_ERROR_CODES,
  EXPIRES_IN_HEADER,
  ORDER_TOKEN_HEADER,
  isPlainObject,
  MERCHANT_PATHS,
  TICKET_HEADER,
  type ClientErrorCode,
  type Envelope,
  type MerchantOperation,
} from '../core/index.js';

/** How long a call waits for the kit's answer. */
export const DEFAULT_TIMEOUT_MS = 20_000;

export class EndpointError extends Error {
  override readonly name = 'EndpointError';
  constructor(
    readonly code: ClientErrorCode,
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }

  get retryable(): boolean {
    if (this.code === 'HTTP') return this.status === 429 || (this.status !== undefined && this.status >= 500);
    return CLIENT_ERROR_CODES[this.code].retryable;
  }
}

export interface EndpointAnswer<T> {
  envelope: Envelope<T>;
  /** Seconds until the order expires, when the kit said so. */
  expiresIn?: number;
  /** The order's token, for its OTP, PIN and resend calls. */
  orderToken?: string;
}

export interface EndpointClientOptions {
  endpoint: string;
  /** Sent with every call: the order the shop's server decided. */
  checkoutToken?: string | undefined;
  credentials?: RequestCredentials;
  timeoutMs?: number;
  fetch?: typeof fetch;
}

export class EndpointClient {
  readonly #base: string;
  readonly #checkoutToken: string | undefined;
  readonly #credentials: RequestCredentials;
  readonly #timeoutMs: number;
  readonly #fetch: typeof fetch;

  constructor(options: EndpointClientOptions) {
    this.#fetch = options.fetch ?? ((input, init) => fetch(input, init));
    this.#base = options.endpoint.replace(/\/+$/, '');
    this.#checkoutToken = options.checkoutToken;
    this.#credentials = options.credentials ?? 'same-origin';
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  /** Posts `body` with the checkout token; `orderToken` goes in the header the kit checks on an order's own calls. */
  async post<T>(
    operation: MerchantOperation,
    body: unknown,
    options: { signal?: AbortSignal | undefined; orderToken?: string | undefined } = {},
  ): Promise<EndpointAnswer<T>> {
    const signal = options.signal;
    const timeout = AbortSignal.timeout(this.#timeoutMs);
    let response: Response;
    try {
      response = await this.#fetch(`${this.#base}${MERCHANT_PATHS[operation]}`, {
        method: 'POST',
        headers: requestHeaders(this.#checkoutToken, options.orderToken),
        body: JSON.stringify(body),
        credentials: this.#credentials,
        signal: signal ? anySignal(signal, timeout) : timeout,
      });
    } catch (error) {
      if (signal?.aborted) throw error;
      throw unanswered(operation, timeout.aborted ? 'timeout' : 'network', this.#timeoutMs);
    }
    return answerOf<T>(operation, response);
  }
}

/** The headers of a call: JSON, and the proofs it carries. */
export function requestHeaders(checkoutToken: string | undefined, orderToken: string | undefined, ticket?: string): Record<string, string> {
  return {
    'Content-Type': 'application/json',
    Accept: 'application/json',
    ...(checkoutToken ? { [CHECKOUT_TOKEN_HEADER]: checkoutToken } : {}),
    ...(orderToken ? { [ORDER_TOKEN_HEADER]: orderToken } : {}),
    ...(ticket ? { [TICKET_HEADER]: ticket } : {}),
  };
}

/**
 * A call the isolated frame sent itself and got no answer to (its own fetch failed): told from a call lost because
 * its frame went, since the page's next call to the same kit tells whether the network or the frame's way was at fault.
 */
export class FrameCallUnanswered extends EndpointError {
  constructor(operation: string) {
    super('NETWORK', `${operation}: ${CLIENT_ERROR_CODES.NETWORK.message}`);
  }
}

/**
 * Why a call got no answer, as plain data (what the machine is told: no `Error` object crosses into it): the client's
 * code and HTTP status when it is an `EndpointError` (none for anything else), the words, whether the same call may
 * work later, and `frame` when the isolated frame's own fetch got no answer.
 */
export interface Failure {
  code: ClientErrorCode | undefined;
  message: string;
  retryable: boolean;
  status?: number | undefined;
  frame?: true | undefined;
}

export const failureOf = (error: unknown): Failure =>
  error instanceof EndpointError
    ? { code: error.code, message: error.message, retryable: error.retryable, status: error.status, frame: error instanceof FrameCallUnanswered || undefined }
    : { code: undefined, message: error instanceof Error ? error.message : 'request failed', retryable: true };

/**
 * Whether a call had no answer at all: its fetch rejected (offline, refused on the way, given up after `timeoutMs`).
 * A code it carried never reached the kit, or no answer says it did: the payer's code is kept, to be sent again.
 */
export function neverAnswered(error: Error): boolean {
  return error instanceof EndpointError && (error.code === 'NETWORK' || error.code === 'TIMEOUT');
}

/** A call that got no answer: the network failed, or the kit did not answer within `timeoutMs`. */
export function unanswered(operation: string, why: 'network' | 'timeout', timeoutMs = DEFAULT_TIMEOUT_MS): EndpointError {
  return why === 'timeout'
    ? new EndpointError('TIMEOUT', `${operation}: no answer within ${timeoutMs} ms`)
    : new EndpointError('NETWORK', `${operation}: ${CLIENT_ERROR_CODES.NETWORK.message}`);
}

/**
 * The kit's answer to a call: its envelope, and the order's token and time left when it gives them; an
 * `EndpointError` when it is no envelope (the isolated frame's answers are read here too, by the page).
 */
export async function answerOf<T>(operation: string, response: Pick<Response, 'status' | 'headers' | 'json'>): Promise<EndpointAnswer<T>> {
  if (response.status !== 200) {
    throw new EndpointError('HTTP', `${operation}: HTTP ${response.status}`, response.status);
  }
  let value: unknown;
  try {
    value = await response.json();
  } catch {
    throw new EndpointError('BAD_RESPONSE', `${operation}: ${CLIENT_ERROR_CODES.BAD_RESPONSE.message}`);
  }
  if (!isPlainObject(value) || typeof value['code'] !== 'string') {
    throw new EndpointError('BAD_RESPONSE', `${operation}: ${CLIENT_ERROR_CODES.BAD_RESPONSE.message}`);
  }
  const envelope: Envelope<T> = {
    code: value['code'],
    message: typeof value['message'] === 'string' ? value['message'] : '',
    data: (value['data'] ?? null) as T | null,
  };
  const expiresIn = Number(response.headers.get(EXPIRES_IN_HEADER));
  const orderToken = response.headers.get(ORDER_TOKEN_HEADER) ?? undefined;
  return {
    envelope,
    ...(Number.isFinite(expiresIn) && expiresIn > 0 ? { expiresIn } : {}),
    ...(orderToken ? { orderToken } : {}),
  };
}

/** `AbortSignal.any`, where the browser lacks it. */
function anySignal(...signals: AbortSignal[]): AbortSignal {
  if ('any' in AbortSignal) return AbortSignal.any(signals);
  const controller = new AbortController();
  for (const signal of signals) {
    if (signal.aborted) controller.abort(signal.reason);
    else signal.addEventListener('abort', () => controller.abort(signal.reason), { once: true });
  }
  return controller.signal;
}
