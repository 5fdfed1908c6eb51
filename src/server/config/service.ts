/**
 * The service client's options (a `ServiceClient`'s, and the part of `createMerchantHandler`'s that reaches the
 * service), resolved once into what the client reads.
 */
import { MERCHANT_ID_PATTERN, SERVICE_ENVIRONMENTS } from '../../core/index.js';
import { isLiveAddressAllowed } from '../../core/addresses.js';
import { choiceOption, numberOption } from './checks.js';
import { optionError, ServiceConfigError, withoutSecrets } from './errors.js';

export type Environment = 'sandbox' | 'production' | { baseUrl: string };

export interface ServiceClientOptions {
  /** The merchant id the service issued (digits). */
  merchantId: string;
  /** The merchant's private key. It signs requests; it is never sent, logged or put in an error. */
  privateKey: string;
  environment: Environment;
  /** Milliseconds before a call is abandoned. Default 15 000. */
  timeoutMs?: number;
  /** How many times a call that is safe to repeat is tried again after a transport failure. Default 2. */
  retries?: number;
  /** First pause between tries, doubled each time. Default 250 ms. */
  retryDelayMs?: number;
  /** Where OTPs go: the real service's action path (default) or the create path, as the specification shows. */
  otpPath?: 'action' | 'create';
  /**
   * A fetch implementation. Default: on Node, a keep-alive node:http(s) connection pool of the client's own;
   * elsewhere, the global fetch.
   */
  fetch?: typeof fetch;
}

export interface ServiceConfig {
  readonly merchantId: string;
  readonly privateKey: string;
  readonly baseUrl: string;
  readonly timeoutMs: number;
  readonly retries: number;
  readonly retryDelayMs: number;
  readonly otpPath: 'action' | 'create';
  readonly fetch: typeof fetch | undefined;
}

/** Where the service answers: the sandbox's default address, or the one given (https, or http on a loopback address). */
export function resolveBaseUrl(environment: Environment): string {
  if (typeof environment === 'object' && environment !== null && typeof environment.baseUrl === 'string') {
    let url: URL | undefined;
    try {
      url = new URL(environment.baseUrl);
    } catch {
      // said below
    }
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
      throw optionError('environment.baseUrl', 'an absolute http(s) URL', environment.baseUrl);
    }
    // The private key's signatures, payers' account numbers and birth dates travel on this line.
    if (!isLiveAddressAllowed(url.href)) {
      throw optionError('environment.baseUrl', 'https: (http: only on a loopback address, such as a local svc-sandbox)', environment.baseUrl);
    }
    return url.href.replace(/\/+$/, '');
  }
  if (environment === 'sandbox') return SERVICE_ENVIRONMENTS.sandbox;
  if (environment === 'production') {
    throw new ServiceConfigError(
      "environment must be { baseUrl: 'https://…' }, not 'production': the service's production address is issued at " +
        'onboarding and is not published in its specification (environment.baseUrl)',
    );
  }
  throw optionError('environment', "'sandbox', 'production' or { baseUrl }", environment);
}

/** How many times a call is tried again: the client's own, or a call's (`retries` of its options). */
export const retriesOption = (option: string, value: unknown, fallback: number) => numberOption(option, value, { fallback, min: 0, integer: true, unit: 'tries' });

export function resolveServiceConfig(options: ServiceClientOptions): ServiceConfig {
  // A value given in another option's place may be the private key: no error shows it.
  return withoutSecrets(typeof options.privateKey === 'string' ? options.privateKey : '', () => resolved(options));
}

/**
 * Where the credentials usually come from, for the first error a newcomer meets: the variables our samples read, and
 * the command that sets them to the sandbox's test merchant.
 */
const fromTheEnvironment = (variable: string) =>
  `a shop reads it from ${variable} (our samples read SVC_MERCHANT_ID, SVC_PRIVATE_KEY and SVC_BASE_URL): set them to what the ` +
  'service issued you, or run the shop beside the sandbox, which sets them to its test merchant: npx svc-sandbox -- <command> ' +
  '(say, npx svc-sandbox -- node server.mjs)';

function resolved(options: ServiceClientOptions): ServiceConfig {
  if (typeof options.merchantId !== 'string' || !MERCHANT_ID_PATTERN.test(options.merchantId)) {
    throw optionError('merchantId', 'the string of digits the service issued', options.merchantId || undefined, { why: fromTheEnvironment('SVC_MERCHANT_ID') });
  }
  if (typeof options.privateKey !== 'string' || options.privateKey.length === 0) {
    throw optionError('privateKey', 'the private key the service issued', options.privateKey, { secret: true, why: fromTheEnvironment('SVC_PRIVATE_KEY') });
  }
  if (options.fetch !== undefined && typeof options.fetch !== 'function') throw optionError('fetch', 'a fetch function', options.fetch);
  return Object.freeze({
    merchantId: options.merchantId,
    privateKey: options.privateKey,
    baseUrl: resolveBaseUrl(options.environment),
    timeoutMs: numberOption('timeoutMs', options.timeoutMs, { fallback: 15_000, min: 1, unit: 'milliseconds' }),
    retries: retriesOption('retries', options.retries, 2),
    retryDelayMs: numberOption('retryDelayMs', options.retryDelayMs, { fallback: 250, min: 0, unit: 'milliseconds' }),
    otpPath: choiceOption('otpPath', options.otpPath, ['action', 'create'] as const, 'action'),
    fetch: options.fetch,
  });
}
