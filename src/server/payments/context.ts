/**
 * What the element's calls share (create.ts, codes.ts, status.ts): the kit's configuration, the service client, the
 * proofs a call carries (its checkout token, its order token), the order tokens the kit issues, who the client is, and
 * the answers every call may give before it reaches the service (a refused proof, a field at fault, a merchant's
 * refusal, the service not answering).
 */
import {
  envelopeForViolations,
  errorEnvelope,
  LIMITS,
  TOKEN_REFUSALS,
  type CheckoutTokenClaims,
  type Envelope,
  type OrderTokenClaims,
  type TokenRefusal,
  type Violation,
} from '../../core/index.js';
import type { KitConfig } from '../config/handler.js';
import { envelopeAnswer, isAbort, webRequestOf, type Answer, type KitRequest } from '../http/http.js';
import { clientKeyOf, rememberedClientAddress } from '../runtime/client-address.js';
import { ServiceError, type ServiceClient } from '../service/client.js';
import { issueOrderToken, ORDER_TOKEN_GRACE_SECONDS, verifyCheckoutToken, verifyOrderToken } from '../tokens/tokens.js';
import { OrderRejection } from './rejection.js';

/** A route reads a Web Request or the Node adapter's view of one, and answers without building a Response. */
export type Route = (value: unknown, request: KitRequest) => Promise<Answer>;

export type Proved<T> = { ok: true; claims: T } | { ok: false; response: Answer };

/** A refused proof: `02000`, with what was wrong, before anything reaches the service. */
export function refused(reason: TokenRefusal | 'order-token'): Answer {
  const message = reason === 'order-token' ? "this call needs the order's token (Svc-Order-Token)" : TOKEN_REFUSALS[reason];
  return envelopeAnswer(errorEnvelope('02000', { message: `authentication failed: ${message}.`, data: { reason } }));
}

export function invalid(...violations: Violation[]): Answer {
  return envelopeAnswer(envelopeForViolations(violations));
}

export const notAnObject = () => invalid({ field: 'body', rule: 'type', message: 'the request body must be a JSON object' });

export interface PaymentContext {
  readonly config: KitConfig;
  readonly client: ServiceClient;
  /** Calls the service; a transport failure becomes the service's own "not available" envelope. */
  callService<T>(operation: string, call: () => Promise<Envelope<T>>): Promise<Envelope<T>>;
  /** Runs a merchant hook; an `OrderRejection` becomes the envelope the element shows at its field. */
  hook<T>(run: () => T | Promise<T>): Promise<{ ok: true; value: T } | { ok: false; response: Answer }>;
  /** The token of an order the kit vouches for, as a create or a status query by reference answers it. */
  orderTokenFor(claims: { orderNo: string; reference: string; country: string }, expireAt: number | undefined): Promise<string>;
  /** When an order expires, on the kit's clock, from its token. */
  deadlineOf(claims: OrderTokenClaims): number;
  checkoutProof(token: string | null): Promise<Proved<CheckoutTokenClaims>>;
  orderProof(token: string | null): Promise<Proved<OrderTokenClaims>>;
  /** The client's address: the merchant's reading of the request, else the socket's. */
  clientAddressOf(request: KitRequest): string | undefined;
  /** What the per-client limits count a client by (an IPv6 address by its prefix). */
  clientKeyFor(address: string | undefined): string | undefined;
}

export function paymentContext(config: KitConfig, client: ServiceClient): PaymentContext {
  const { credentials, logger, now } = config;

  /** Seconds the service's clock is ahead of the kit's, from its latest dated answer; undefined before one. */
  const clockOffset = (): number | undefined => {
    const serviceNow = client.serviceNow();
    return serviceNow === undefined ? undefined : Math.round((serviceNow - now()) / 1000);
  };

  return {
    config,
    client,

    async callService(operation, call) {
      try {
        return await call();
      } catch (error) {
        if (!(error instanceof ServiceError) && !isAbort(error)) throw error;
        // A payer who left (their request's signal abandoned the call) is not the shop's trouble: nothing is logged.
        if (error instanceof ServiceError || (error as Error).name !== 'AbortError') {
          logger.warn(`svc-checkout: ${operation} failed: ${error instanceof Error ? error.message : 'aborted'}`);
        }
        return errorEnvelope('50003');
      }
    },

    async hook(run) {
      try {
        return { ok: true, value: await run() };
      } catch (error) {
        if (!(error instanceof OrderRejection)) throw error;
        return { ok: false, response: invalid({ field: error.field, rule: 'merchant', message: config.redact(error.message) }) };
      }
    },

    async orderTokenFor(claims, expireAt) {
      return issueOrderToken(credentials.privateKey, {
        merchantId: credentials.merchantId,
        ...claims,
        // The order's own life, and a day for a page that comes back to it (3-D Secure, a reload).
        expiresAt: Math.floor(now() / 1000) + (expireAt ?? LIMITS.defaultExpireMinutes) * 60 + ORDER_TOKEN_GRACE_SECONDS,
        clockOffset: clockOffset(),
      });
    },

    // The order's token's expiry less the grace, moved by as much as the service's clock moved against the kit's since
    // the order was made (the service expires it by its own).
    deadlineOf(claims) {
      const offset = clockOffset();
      const drift = offset === undefined || claims.clockOffset === undefined ? 0 : offset - claims.clockOffset;
      return (claims.expiresAt - ORDER_TOKEN_GRACE_SECONDS - drift) * 1000;
    },

    async checkoutProof(token) {
      const proof = await verifyCheckoutToken(token, credentials, now());
      return proof.ok ? proof : { ok: false, response: refused(proof.reason) };
    },

    async orderProof(token) {
      if (!token) return { ok: false, response: refused('order-token') };
      const proof = await verifyOrderToken(token, credentials, now());
      if (proof.ok) return proof;
      logger.warn(`svc-checkout: an order call was refused: its Svc-Order-Token is ${proof.reason}`);
      return { ok: false, response: refused(proof.reason) };
    },

    clientAddressOf: (request) => (config.clientAddress ? config.clientAddress(webRequestOf(request)) : undefined) ?? rememberedClientAddress(request),

    clientKeyFor: (address) => (address ? clientKeyOf(address, config.ipv6ClientPrefix) : undefined),
  };
}
