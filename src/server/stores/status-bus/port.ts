/**
 * Brings a status the kit learnt (a verified callback, a status query) to every payer streaming that order,
 * whichever process they are connected to. The default bus lives in memory: one process. A shared bus (Redis
 * pub/sub, `svc-checkout/server/redis`) replaces it when the kit runs in several; while a shared bus cannot
 * deliver, it says so (`connection('down')`) and the streams fall back to status queries.
 */
import { isPaymentStatus, isPlainObject, type PaymentStatus } from '../../../core/index.js';
/** One order's status, as the kit learnt it. */
export interface StatusUpdate {
  orderNo: string;
  reference: string;
  status: PaymentStatus;
  failureCode?: string;
  failureReason?: string;
  /**
   * `callback`: the kit verified the service's callback; `query`: a status query the kit made saw it; `payer`: the
   * payer acted on the order (a create or a code of it answered) — no news of its status (`status` is the one the
   * action left it in, as the payer's page knows it), only a cue for its streams to poll briskly (src/server/streams/pace.ts).
   */
  source: 'callback' | 'query' | 'payer';
  /** When the kit learnt it, epoch milliseconds. */
  at: number;
}

export interface StatusBusListener {
  update(update: StatusUpdate): void;
  /** Delivery stopped (`down`: updates may be missed from now on) or resumed (`up`). */
  connection?(state: 'up' | 'down'): void;
}

export interface StatusBus {
  /** Whether updates published anywhere reach this process's listeners now. A bus without it is always live. */
  readonly live?: boolean;
  /** Tells every listener, in this process and every other sharing the bus. Never throws for the bus's own trouble. */
  publish(update: StatusUpdate): void | Promise<void>;
  /** Listens from now on; returns the function that stops listening. */
  subscribe(listener: StatusBusListener): () => void;
}

/** An update that came from outside the process (a shared bus), checked field by field; undefined when it is not one. */
export function statusUpdateOf(value: unknown): StatusUpdate | undefined {
  if (!isPlainObject(value)) return undefined;
  const { orderNo, reference, status, failureCode, failureReason, source, at } = value;
  if (typeof orderNo !== 'string' || typeof reference !== 'string' || !isPaymentStatus(status)) return undefined;
  if ((source !== 'callback' && source !== 'query' && source !== 'payer') || typeof at !== 'number' || !Number.isFinite(at)) return undefined;
  return {
    orderNo,
    reference,
    status,
    ...(typeof failureCode === 'string' ? { failureCode } : {}),
    ...(typeof failureReason === 'string' ? { failureReason } : {}),
    source,
    at,
  };
}
