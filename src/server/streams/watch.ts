/**
 * What a status stream proved (`StreamProof`), and the order it watches (`OrderWatch`): its connections, the status
 * last known, and its one timer of the next check.
 */
import { isPaymentStatus, isPlainObject, type StatusRequest, type StreamStatus } from '../../core/index.js';
import type { StreamConnection } from './connection.js';

/** What a stream proved: the status query it may make, and what the proof says of the order's life. */
export interface StreamProof {
  query: StatusRequest;
  /** The latest the order can expire, epoch ms; undefined when the proof does not tell. */
  expiresAt: number | undefined;
  /**
   * A stream by reference gets the order's token once the order is known (as the status route answers). `amount`: what
   * the checkout token carries; the status route vouches only for an order made for it.
   */
  vouchFor?: {
    reference: string;
    country: string;
    expireAt: number | undefined;
    amount?: { total: number; currency: string } | undefined;
    /** The checkout the reference is an attempt of, as its token says (reconciliation hands it over with the order). */
    checkout?: { reference: string; attempt: number } | undefined;
  };
  /**
   * `expiresAt` again, as the kit now knows the service's clock (each dated answer tells it): the status
   * route's `Svc-Expires-In` reads it after its query, and a stream whose order's deadline moved sends its
   * schedule again.
   */
  deadline?: (() => number) | undefined;
}

export const keyOf = (query: StatusRequest) => (query.orderNo !== undefined ? `o:${query.orderNo}` : `r:${query.reference}`);

/** The status a status query's `data` or a callback tells, in the stream's words; undefined when it tells none. */
export function streamStatusOf(data: unknown): StreamStatus | undefined {
  if (!isPlainObject(data)) return undefined;
  const { reference, orderNo, status, failureCode, failureReason } = data;
  if (typeof reference !== 'string' || typeof orderNo !== 'string' || !isPaymentStatus(status)) return undefined;
  return {
    reference,
    orderNo,
    status,
    ...(typeof failureCode === 'string' && failureCode !== '' ? { failureCode } : {}),
    ...(typeof failureReason === 'string' && failureReason !== '' ? { failureReason } : {}),
  };
}

export class OrderWatch {
  readonly connections = new Set<StreamConnection>();
  known: StreamStatus | undefined;
  orderToken: { orderNo: string; token: string } | undefined;
  /** When the order can change no more: the last check is then, and the streams end. */
  endsAt: number;
  /** Whether `endsAt` is the order's expiry (the streams end with `expired`) or only a connection's limit. */
  expiryKnown: boolean;
  deadline: StreamProof['deadline'];
  lastCheckAt = Number.NEGATIVE_INFINITY;
  step = 0;
  timer: unknown;
  abort: AbortController | undefined;
  /** Deliveries in order: a stream by reference waits for the order token before it sends a status. */
  delivery: Promise<void> = Promise.resolve();
  ended = false;

  constructor(
    readonly key: string,
    readonly query: StatusRequest,
    readonly vouchFor: StreamProof['vouchFor'],
    endsAt: number,
    expiryKnown: boolean,
  ) {
    this.endsAt = endsAt;
    this.expiryKnown = expiryKnown;
  }
}
