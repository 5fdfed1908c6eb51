/**
 * A typed client of the payment service. Each call is validated with the rules of src/core, serialised once
 * (keys sorted, no whitespace), signed, and those exact bytes are sent. A business error comes back as the
 * service's envelope; a transport failure throws a `ServiceError`. On Node the calls share a keep-alive
 * connection pool; elsewhere, or with a `fetch` of the merchant's, they go through fetch (transport.ts).
 */
import {
  canonicalJson,
  envelopeForViolations,
  isPlainObject,
  parseJson,
  SERVICE_OPERATIONS,
  type CashierStatusData,
  type CreatePaymentData,
  type CreatePaymentInput,
  type Envelope,
  type OtpRequest,
  type PinRequest,
  type RefundCreateRequest,
  type RefundQueryRequest,
  type RefundStatusData,
  type ResendOtpRequest,
  type ServiceOperation,
  type StatusRequest,
  type Validation,
} from '../../core/index.js';
import { resolveServiceConfig, retriesOption, type ServiceClientOptions, type ServiceConfig } from '../config/service.js';
import { elapsed, listened, serviceChannel, traced, type ServiceCallTrace } from '../observability/channels.js';
import { signRequest } from '../runtime/signature.js';
import { fetchExchange, nodeExchange, TransportFailure, type AbortSignalLike, type Exchange } from './transport.js';

export interface CallOptions {
  /** Abandons the call when it aborts: an AbortSignal, or anything with its abort members. */
  signal?: AbortSignalLike;
  /** This call's own number of retries, in place of the client's. */
  retries?: number;
}

export type { Environment, ServiceClientOptions } from '../config/service.js';
export { ServiceConfigError } from '../config/errors.js';

export type ServiceErrorKind = 'timeout' | 'network' | 'http' | 'response';

/** A call that produced no envelope. Its message names the operation and what went wrong, never a secret. */
export class ServiceError extends Error {
  override readonly name = 'ServiceError';
  constructor(
    readonly kind: ServiceErrorKind,
    readonly operation: ServiceOperation,
    message: string,
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}



/** Connection errors that prove the request never reached the service, so that any call may be repeated. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN']);

export class ServiceClient {
  readonly baseUrl: string;
  readonly merchantId: string;
  readonly #privateKey: string;
  readonly #timeoutMs: number;
  readonly #retries: number;
  readonly #retryDelayMs: number;
  readonly #otpPath: 'action' | 'create';
  readonly #exchange: Exchange;
  readonly #fetch: typeof fetch | undefined;
  /** When a call last got an answer, and when one last got none (this machine's clock): the readiness answer reads them. */
  #answeredAt = 0;
  #unansweredAt = 0;
  #probe: Promise<boolean> | undefined;
  /** The service's time as its latest dated answer told it, and when that answer came (this machine's clock). */
  #serviceTime: { at: number; receivedAt: number } | undefined;

  /** Its options (`ServiceClientOptions`), or the configuration they resolve to (config/service.ts). */
  constructor(options: ServiceClientOptions | ServiceConfig) {
    const config = isResolved(options) ? options : resolveServiceConfig(options);
    this.baseUrl = config.baseUrl;
    this.merchantId = config.merchantId;
    this.#privateKey = config.privateKey;
    this.#timeoutMs = config.timeoutMs;
    this.#retries = config.retries;
    this.#retryDelayMs = config.retryDelayMs;
    this.#otpPath = config.otpPath;
    this.#fetch = config.fetch;
    this.#exchange = config.fetch
      ? fetchExchange(this.baseUrl, config.fetch)
      : (nodeExchange(this.baseUrl) ?? fetchExchange(this.baseUrl, (input, init) => fetch(input, init)));
  }

  /**
   * The service's time now, in epoch milliseconds: the `Date` of its latest answer (to the second) plus the time
   * since it came. Undefined until an answer was dated. The merchant kit tells a page an order's time left in
   * the service's time, which expires it (a moved sandbox clock included).
   */
  serviceNow(): number | undefined {
    const time = this.#serviceTime;
    return time && time.at + (Date.now() - time.receivedAt);
  }

  /** Creates a payment order of any method. `ReferenceCode` amounts and expiry may be digit strings. */
  createPayment(body: CreatePaymentInput, options?: CallOptions): Promise<Envelope<CreatePaymentData>> {
    return this.#call('create', body, options);
  }

  submitOtp(body: OtpRequest, options?: CallOptions): Promise<Envelope<CreatePaymentData>> {
    const operation = this.#otpPath === 'create' ? 'create' : 'inputOtp';
    // The OTP's rules, whichever path carries it.
    return this.#checked(operation, SERVICE_OPERATIONS.inputOtp.check(body), options);
  }

  submitPin(body: PinRequest, options?: CallOptions): Promise<Envelope<CreatePaymentData>> {
    return this.#call('inputPin', body, options);
  }

  resendOtp(body: ResendOtpRequest, options?: CallOptions): Promise<Envelope<CreatePaymentData>> {
    return this.#call('resendOtp', body, options);
  }

  queryStatus(body: StatusRequest, options?: CallOptions): Promise<Envelope<CashierStatusData>> {
    return this.#call('status', body, options);
  }

  createRefund(body: RefundCreateRequest, options?: CallOptions): Promise<Envelope<RefundStatusData>> {
    return this.#call('refundCreate', body, options);
  }

  queryRefund(body: RefundQueryRequest, options?: CallOptions): Promise<Envelope<RefundStatusData>> {
    return this.#call('refundQuery', body, options);
  }

  /** Checked with the operation's rules (SERVICE_OPERATIONS): invalid input gets the service's own `02001`. */
  #call<T>(operation: ServiceOperation, body: unknown, options?: CallOptions): Promise<Envelope<T>> {
    return this.#checked(operation, SERVICE_OPERATIONS[operation].check(body), options);
  }

  /** Invalid input never leaves the process: it gets the `02001` envelope the service would answer. */
  async #checked<T>(operation: ServiceOperation, checked: Validation<unknown>, options?: CallOptions): Promise<Envelope<T>> {
    if (!checked.ok) return envelopeForViolations(checked.violations) as Envelope<T>;
    return this.send<T>(operation, checked.value, options);
  }

  /**
   * Sends one signed request to an operation's path, unvalidated. The body is serialised here, once; the
   * signature is computed over those bytes and the same bytes are sent.
   */
  async send<T = unknown>(operation: ServiceOperation, body: unknown, options: CallOptions = {}): Promise<Envelope<T>> {
    const text = canonicalJson(body);
    const signature = await signRequest(text, this.#privateKey);
    const path = SERVICE_OPERATIONS[operation].path;
    const headers = {
      'Content-Type': 'application/json',
      Authorization: `Bearer ${signature}`,
      MerchantId: this.merchantId,
    };
    const retries = options.retries === undefined ? this.#retries : retriesOption('retries', options.retries, 0);
    for (let attempt = 0; ; attempt++) {
      try {
        const envelope = await (listened(serviceChannel)
          ? this.#traced<T>(operation, path, headers, text, body, attempt, options.signal)
          : this.#attempt<T>(operation, path, headers, text, options.signal));
        if (envelope.code === '50003' && SERVICE_OPERATIONS[operation].safeToRepeat && attempt < retries) {
          await this.#pause(attempt, options.signal);
          continue;
        }
        return envelope;
      } catch (error) {
        if (!(error instanceof ServiceError) || attempt >= retries || options.signal?.aborted) throw error;
        const repeatable = SERVICE_OPERATIONS[operation].safeToRepeat ? isTransient(error) : neverSent(error);
        if (!repeatable) throw error;
        await this.#pause(attempt, options.signal);
      }
    }
  }

  /**
   * Whether the service answers this process: as its latest call found, when that was within `maxAgeMs`; else a `HEAD`
   * of its base address, unsigned, answered with any HTTP status within `timeoutMs` (one at a time).
   */
  reachable(maxAgeMs: number, timeoutMs: number): Promise<boolean> {
    const latest = Math.max(this.#answeredAt, this.#unansweredAt);
    if (latest > 0 && Date.now() - latest <= maxAgeMs) return Promise.resolve(this.#answeredAt >= this.#unansweredAt);
    const fetchImpl = this.#fetch ?? ((input: string, init?: RequestInit) => fetch(input, init));
    this.#probe ??= fetchImpl(this.baseUrl, { method: 'HEAD', redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) })
      .then(
        (response) => {
          void response.body?.cancel().catch(() => undefined);
          this.#answeredAt = Date.now();
          return true;
        },
        () => {
          this.#unansweredAt = Date.now();
          return false;
        },
      )
      .finally(() => {
        this.#probe = undefined;
      });
    return this.#probe;
  }

  /** One try as `#attempt` makes it, traced on `svc-checkout:service` (someone listens). */
  #traced<T>(operation: ServiceOperation, path: string, headers: Record<string, string>, text: string, body: unknown, attempt: number, signal?: AbortSignalLike): Promise<Envelope<T>> {
    const context: ServiceCallTrace = { operation, path, attempt: attempt + 1 };
    const named = isPlainObject(body) ? body : {};
    if (typeof named['reference'] === 'string') context.reference = named['reference'];
    if (typeof named['orderNo'] === 'string') context.orderNo = named['orderNo'];
    const started = performance.now();
    return traced(serviceChannel!, context, async () => {
      try {
        const envelope = await this.#attempt<T>(operation, path, headers, text, signal);
        context.status = 200;
        context.code = envelope.code;
        return envelope;
      } catch (error) {
        if (error instanceof ServiceError && error.status !== undefined) context.status = error.status;
        throw error;
      } finally {
        context.durationMs = elapsed(started);
      }
    });
  }

  /** One try: an envelope, or a `ServiceError` that says what went wrong (or the caller's own abort). */
  async #attempt<T>(operation: ServiceOperation, path: string, headers: Record<string, string>, body: string, signal?: AbortSignalLike): Promise<Envelope<T>> {
    let answer: { status: number; text: string; date?: string | undefined };
    try {
      answer = await this.#exchange({ path, headers, body, timeoutMs: this.#timeoutMs, signal });
    } catch (error) {
      if (!(error instanceof TransportFailure)) throw error;
      if (error.status === undefined) this.#unansweredAt = Date.now();
      else this.#answeredAt = Date.now();
      const cause = error.cause;
      if (error.status !== undefined) {
        throw new ServiceError(error.kind, operation, `${operation}: the answer was cut off`, error.status, { cause });
      }
      if (error.kind === 'timeout') {
        throw new ServiceError('timeout', operation, `${operation}: no answer within ${this.#timeoutMs} ms`, undefined, { cause });
      }
      throw new ServiceError('network', operation, `${operation}: the service could not be reached (${connectionErrorName(cause)})`, undefined, { cause });
    }
    const receivedAt = Date.now();
    this.#answeredAt = receivedAt;
    if (answer.date !== undefined) {
      const at = Date.parse(answer.date);
      if (Number.isFinite(at)) this.#serviceTime = { at, receivedAt };
    }
    if (answer.status !== 200) {
      throw new ServiceError('http', operation, `${operation}: the service answered HTTP ${answer.status}`, answer.status);
    }
    const parsed = parseJson(answer.text);
    if (!parsed.ok || !isPlainObject(parsed.value) || typeof parsed.value['code'] !== 'string') {
      throw new ServiceError('response', operation, `${operation}: the answer is not a JSON envelope`, answer.status);
    }
    const value = parsed.value;
    return {
      code: value['code'] as string,
      message: typeof value['message'] === 'string' ? value['message'] : '',
      data: (value['data'] ?? null) as T | null,
    };
  }

  #pause(attempt: number, signal?: AbortSignalLike): Promise<void> {
    const delay = this.#retryDelayMs * 2 ** attempt * (0.75 + Math.random() * 0.5);
    return new Promise((resolve, reject) => {
      const abort = () => {
        clearTimeout(timer);
        reject(signal?.reason);
      };
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', abort);
        resolve();
      }, delay);
      signal?.addEventListener('abort', abort, { once: true });
    });
  }
}

/** A numeric option: its default when absent, else a finite number of at least `min`. */
/** A configuration made by `resolveServiceConfig`: frozen, and its base address resolved. */
function isResolved(options: ServiceClientOptions | ServiceConfig): options is ServiceConfig {
  return Object.isFrozen(options) && typeof (options as ServiceConfig).baseUrl === 'string';
}

function isTransient(error: ServiceError): boolean {
  if (error.kind === 'http') return error.status !== undefined && [429, 502, 503, 504].includes(error.status);
  return error.kind === 'timeout' || error.kind === 'network';
}

function neverSent(error: ServiceError): boolean {
  if (error.kind !== 'network') return false;
  const cause = error.cause as { cause?: { code?: unknown }; code?: unknown } | undefined;
  const code = cause?.cause?.code ?? cause?.code;
  return typeof code === 'string' && NOT_SENT_CODES.has(code);
}

/** fetch's error carries the system's code in its cause; node:http's carries it itself. */
function connectionErrorName(error: unknown): string {
  const failure = error as { code?: unknown; cause?: { code?: unknown } } | undefined;
  if (typeof failure?.cause?.code === 'string') return failure.cause.code;
  if (typeof failure?.code === 'string') return failure.code;
  return error instanceof Error ? error.message : 'unknown error';
}
