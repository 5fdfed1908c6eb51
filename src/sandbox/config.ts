/**
 * The merchants a sandbox serves: from options, from the command line, or from a JSON file.
 */
import { isHttpUrl, isPayMethod, MERCHANT_ID_PATTERN, PAY_METHODS, type PayMethod } from '../core/index.js';

export interface SandboxMerchant {
  /** Digits, as the service issues them. */
  merchantId: string;
  /** Signs and verifies every request and callback of this merchant. */
  privateKey: string;
  /** Accepted instead of a signature on status queries, as the SDK's `getCashierStatus` sends it. */
  publicKey?: string;
  /** Where callbacks go when an order has no `callbackUrl`. */
  webhookUrl?: string;
  /** The payment methods the merchant is configured for; others answer `02002`. Default: all three. */
  methods?: readonly PayMethod[];
  /** An unavailable merchant answers `02007` to everything. Default true. */
  available?: boolean;
  /** Shown on the 3-D Secure page and in reference code messages. */
  name?: string;
}

export const DEFAULT_MERCHANT: Readonly<Required<Omit<SandboxMerchant, 'webhookUrl'>>> = {
  merchantId: '256612345678901',
  privateKey: 'sandbox-private-key-256612345678901',
  publicKey: 'sandbox-public-key-256612345678901',
  methods: PAY_METHODS,
  available: true,
  name: 'Sandbox Shop',
};

/** A merchant with every field decided. */
export type ResolvedMerchant = Required<Omit<SandboxMerchant, 'webhookUrl' | 'publicKey'>> &
  Pick<SandboxMerchant, 'webhookUrl' | 'publicKey'>;

export class SandboxConfigError extends Error {
  override readonly name = 'SandboxConfigError';
  constructor(
    message: string,
    /** Where in a file the problem is, as keys and indexes (scenarios/scenario-file.ts turns it into a line). */
    readonly path: readonly (string | number)[] = [],
  ) {
    super(message);
  }
}

export const MERCHANT_KEYS = ['merchantId', 'privateKey', 'publicKey', 'webhookUrl', 'methods', 'available', 'name'] as const;

/** Checks one merchant entry; every problem names the entry and the field. */
export function resolveMerchant(input: unknown, where: string, path: readonly (string | number)[] = []): ResolvedMerchant {
  const problem = (field: string, message: string) => new SandboxConfigError(`${where}.${field} ${message}`, [...path, field]);
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new SandboxConfigError(`${where} must be an object`, path);
  }
  const entry = input as Record<string, unknown>;
  const merchantId = entry['merchantId'];
  if (typeof merchantId !== 'string' || !MERCHANT_ID_PATTERN.test(merchantId)) throw problem('merchantId', 'must be a string of digits');
  const privateKey = entry['privateKey'];
  if (typeof privateKey !== 'string' || privateKey.length === 0) throw problem('privateKey', 'is required');
  const publicKey = entry['publicKey'];
  if (publicKey !== undefined && (typeof publicKey !== 'string' || publicKey.length === 0)) throw problem('publicKey', 'must be a non-empty string');
  const webhookUrl = entry['webhookUrl'];
  if (webhookUrl !== undefined && (typeof webhookUrl !== 'string' || !isHttpUrl(webhookUrl))) {
    throw problem('webhookUrl', 'must be an absolute http(s) URL');
  }
  const methods = entry['methods'] ?? PAY_METHODS;
  if (!Array.isArray(methods) || !methods.every(isPayMethod)) throw problem('methods', `must list some of ${PAY_METHODS.join(', ')}`);
  const available = entry['available'] ?? true;
  if (typeof available !== 'boolean') throw problem('available', 'must be true or false');
  const name = entry['name'] ?? DEFAULT_MERCHANT.name;
  if (typeof name !== 'string') throw problem('name', 'must be a string');
  return {
    merchantId,
    privateKey,
    methods: [...methods],
    available,
    name,
    ...(publicKey !== undefined ? { publicKey } : {}),
    ...(webhookUrl !== undefined ? { webhookUrl } : {}),
  };
}
