/**
 * What a status stream proved (`StreamProof`), and the order it watches (`OrderWatch`): its connections, the status
 * last known, its one timer of the next check, and the status delivered to its connections (`deliverStatus`).
 */
import { encodeEvent, isPaymentStatus, isPlainObject, STREAM_EVENTS, type StatusRequest, type StreamStatus } from '../../core/index.js';
import { errorMessage, type Logger } from '../http/http.js';
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
  /** Until when it is asked about briskly: `briskSeconds` after the payer's last action on it (pace.ts). */
  briskUntil = Number.NEGATIVE_INFINITY;
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

/** Makes the order token a stream by reference hands its page once the order is known. */
export type OrderTokenFor = (claims: { orderNo: string; reference: string; country: string }, expireAt: number | undefined) => Promise<string>;

/**
 * Sends the status the watch knows to the given connections that do not have it yet, in order: on a stream by
 * reference, with the order's token once the order is known.
 */
export function deliverStatus(watch: OrderWatch, connections: StreamConnection[], orderTokenFor: OrderTokenFor, logger: Logger): Promise<void> {
  watch.delivery = watch.delivery.then(async () => {
    const known = watch.known;
    if (!known) return;
    let payload: StreamStatus = known;
    if (watch.vouchFor && known.reference === watch.vouchFor.reference) {
      if (watch.orderToken?.orderNo !== known.orderNo) {
        try {
          const token = await orderTokenFor({ orderNo: known.orderNo, reference: known.reference, country: watch.vouchFor.country }, watch.vouchFor.expireAt);
          watch.orderToken = { orderNo: known.orderNo, token };
        } catch (error) {
          logger.error(`svc-checkout: an order token could not be made: ${errorMessage(error)}`);
        }
      }
      if (watch.orderToken) payload = { ...known, orderToken: watch.orderToken.token };
    }
    const event = encodeEvent({ event: STREAM_EVENTS.status, id: known.status, data: JSON.stringify(payload) });
    for (const connection of connections) {
      if (connection.closed || connection.seen === known.status) continue;
      connection.seen = known.status;
      connection.write(event);
    }
  });
  return watch.delivery;
}
