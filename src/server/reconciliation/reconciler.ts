/**
 * Reconciliation: the service is the source of truth, and a callback can be lost for good (the service gave up,
 * the shop's endpoint was down for days) while the payer has gone. So the kit keeps the orders it created and has
 * not seen settled, and asks the service about each one that stays quiet, and about each at its deadline. A
 * settled status it finds reaches the shop through the same exactly-once hand-over as a callback
 * (`onCallback` with `source: 'reconciliation'`), and the order is forgotten.
 *
 * The orders sit in a `ReconciliationStore`: in memory for one process, in Redis for several, where a sweep takes
 * each due order under a lease, so one process asks about it. Status queries are limited per second across the
 * processes through the throttle store.
 */
import { CALLBACK_TYPE, isPlainObject, isSuccess, isTerminalStatus, isPaymentStatus, type Envelope, type StatusRequest } from '../../core/index.js';
import { BoundedMap } from '../stores/bounded-map.js';
import { StoreUnavailableError } from '../stores/shared.js';
import type { ReconciliationStore, TrackedOrder } from '../stores/reconciliation/port.js';
import { outcomeKey, type CallbackEvent, type Deliver } from '../callbacks/hand-over.js';
import { callbackChannel, elapsed, listened, sweepChannel, traced, type CallbackTrace, type SweepTrace } from '../observability/channels.js';
import { errorMessage, logValue, type Logger } from '../http/http.js';
import type { ThrottleStore } from '../stores/throttle/port.js';
import type { CheckoutOf } from '../checkouts/walk.js';
import type { ResolvedReconcileOptions } from '../config/reconcile.js';
export type { ReconcileOptions, ResolvedReconcileOptions } from '../config/reconcile.js';

/** What one sweep did. */
export interface SweepReport {
  /** Status queries sent. */
  asked: number;
  /** Settled outcomes handed to `onCallback` by this sweep. */
  handled: number;
  /** Orders forgotten: settled (now or before), or given up on. */
  forgotten: number;
}

export interface ReconcilerOptions {
  store: ReconciliationStore;
  throttleStore: ThrottleStore;
  query(query: StatusRequest): Promise<Envelope>;
  /** The exactly-once hand-over the callbacks use. */
  deliver: Deliver;
  /** A settled status the kit found: the status streams hear of it. Must not throw. */
  found(event: CallbackEvent): void;
  /**
   * The checkout of an order kept without one (first learnt from a proof that names none: a stream by order token), or
   * without the amount it was opened for (an attempt made before the cart changed), from the kit's record of the
   * checkout's attempts, as a callback to the merchant's webhook gets it.
   */
  checkoutOf?: ((order: TrackedOrder) => Promise<CheckoutOf | undefined>) | undefined;
  options: ResolvedReconcileOptions;
  now(): number;
  logger: Logger;
}

/** A sweep's hold on the orders it took: long enough for its queries, short enough that a dead process delays little. */
const TAKE_LEASE_MS = 60_000;

/** The service closes an order at its expiry on its own clock: asked this long after the kit's deadline. */
const DEADLINE_MARGIN_MS = 10_000;

/** Queries in flight at once in one sweep. */
const PARALLEL_QUERIES = 8;

export class Reconciler {
  readonly #options: ReconcilerOptions;
  readonly #limits: ResolvedReconcileOptions;
  #sweeping: Promise<SweepReport> | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #running = false;
  #closed = false;
  #fullSaid = false;
  /** Orders this process has sent to the store, so that each status answer of one does not write it again. */
  readonly #learnt = new BoundedMap<string, true>(10_000);

  constructor(options: ReconcilerOptions) {
    this.#options = options;
    this.#limits = options.options;
  }

  /**
   * Keeps an order the kit just created, or learnt of from a status answer (`learnt`: its create answer was lost, or
   * another process made it): a learnt order kept already stays as it is, one that settled is due at once (its
   * callback may be lost too). Each learnt order is sent to the store once per process. Never throws: a store that
   * cannot keep it now costs only its reconciliation.
   */
  async track(order: TrackedOrder, learnt?: 'pending' | 'settled'): Promise<void> {
    if (learnt && this.#learnt.get(order.orderNo)) return;
    this.#learnt.set(order.orderNo, true);
    try {
      const dueAt = learnt === 'settled' ? this.#options.now() : this.#firstDue(order);
      const kept = await this.#options.store.track(order, dueAt, learnt !== undefined);
      if (!kept && !this.#fullSaid) {
        this.#fullSaid = true;
        this.#options.logger.warn('svc-checkout: the reconciliation store is full: new orders are not reconciled until some settle (raise maxOrders).');
      } else if (kept) this.#fullSaid = false;
    } catch (error) {
      if (!(error instanceof StoreUnavailableError)) this.#options.logger.warn(`svc-checkout: an order could not be kept for reconciliation: ${errorMessage(error)}`);
      this.#learnt.delete(order.orderNo); // told again by the next status answer
    }
  }

  /**
   * A status query of the kit's own (a payer's stream, the status route) saw the order settled: asked about at the
   * next sweep rather than after the quiet time. Never throws.
   */
  settling(orderNo: string): void {
    void Promise.resolve()
      .then(() => this.#options.store.reschedule(orderNo, this.#options.now()))
      .catch(() => undefined);
  }

  /** The order's outcome reached the shop: it is not asked about again. Never throws. */
  settled(orderNo: string): void {
    void Promise.resolve()
      .then(() => this.#options.store.forget(orderNo))
      .catch(() => undefined); // its next sweep finds it settled, and forgets it then
  }

  /** Sweeps every `sweepSeconds` from now on (a timer that does not hold the process open). */
  start(): void {
    if (this.#running || this.#closed || this.#limits.sweepMs === undefined) return;
    this.#running = true;
    this.#schedule();
  }

  /** Stops the sweeps: the timer, and a sweep waiting for its turn within the rate. */
  stop(): void {
    this.#running = false;
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #schedule(): void {
    if (!this.#running || this.#limits.sweepMs === undefined) return;
    this.#timer = setTimeout(() => {
      void this.sweep().finally(() => this.#schedule());
    }, this.#limits.sweepMs);
    (this.#timer as { unref?: () => void }).unref?.();
  }

  /** Asks about every due order, within the rate; one sweep at a time in a process. */
  sweep(): Promise<SweepReport> {
    this.#sweeping ??= (listened(sweepChannel) ? this.#tracedSweep() : this.#sweep()).finally(() => {
      this.#sweeping = undefined;
    });
    return this.#sweeping;
  }

  /** A sweep traced on svc-checkout:sweep (someone listens): its report, and how long it took. */
  #tracedSweep(): Promise<SweepReport> {
    const trace: SweepTrace = {};
    const started = performance.now();
    return traced(sweepChannel!, trace, async () => {
      const report = await this.#sweep();
      Object.assign(trace, report, { durationMs: elapsed(started) });
      return report;
    });
  }

  /** The hand-over of an outcome the kit found, traced on svc-checkout:callback as a callback is (someone listens). */
  #deliver(event: CallbackEvent): ReturnType<Deliver> {
    if (!listened(callbackChannel)) return this.#options.deliver(event);
    const { orderNo, reference, status } = event.body;
    const trace: CallbackTrace = { source: 'reconciliation', orderNo, reference, status };
    const started = performance.now();
    return traced(callbackChannel, trace, async () => {
      try {
        return await this.#options.deliver(event, trace);
      } finally {
        trace.durationMs = elapsed(started);
      }
    });
  }

  async #sweep(): Promise<SweepReport> {
    const report: SweepReport = { asked: 0, handled: 0, forgotten: 0 };
    const { store } = this.#options;
    // Small takes: an order waits in no process's hands while another process is free to ask about it.
    const batch = PARALLEL_QUERIES * 2;
    for (;;) {
      const now = this.#options.now();
      let taken: TrackedOrder[];
      try {
        taken = await store.take(now, batch, now + TAKE_LEASE_MS);
      } catch (error) {
        if (!(error instanceof StoreUnavailableError)) this.#options.logger.warn(`svc-checkout: a reconciliation sweep failed: ${errorMessage(error)}`);
        return report;
      }
      if (taken.length === 0) return report;
      let index = 0;
      let stopped = false;
      const left: TrackedOrder[] = [];
      const worker = async () => {
        while (index < taken.length) {
          const order = taken[index++]!;
          if (stopped || !(await this.#turn())) {
            stopped = true;
            left.push(order);
            continue;
          }
          await this.#ask(order, report);
        }
      };
      await Promise.all(Array.from({ length: Math.min(PARALLEL_QUERIES, taken.length) }, worker));
      if (stopped) {
        // The kit closed mid-sweep: what was taken and not asked is due again at once, for any process's next sweep.
        await Promise.all(left.map((order) => this.#reschedule(order.orderNo, this.#options.now())));
        return report;
      }
      if (taken.length < batch) return report;
    }
  }

  /**
   * Waits for a query's turn within `queriesPerSecond`, counted across processes: a window that is full is waited out,
   * and the sweep goes on in the next, so that it keeps the rate rather than stopping at the first refusal (the orders
   * behind would wait a whole sweep for each window). False when the kit closed meanwhile.
   */
  async #turn(): Promise<boolean> {
    for (;;) {
      if (this.#closed) return false;
      const hit = await this.#options.throttleStore.hit('reconcile', this.#limits.queriesPerSecond, 1000);
      if (hit.allowed) return true;
      await new Promise((resolve) => setTimeout(resolve, Math.max(5, hit.retryAfterMs)));
    }
  }

  async #ask(order: TrackedOrder, report: SweepReport): Promise<void> {
    report.asked += 1;
    let answer: Envelope | undefined;
    try {
      answer = await this.#options.query({ country: order.country, orderNo: order.orderNo });
    } catch {
      // The service is away or slow: asked again after the quiet time, as a pending order is.
    }
    const now = this.#options.now();
    const data = answer && isSuccess(answer) && isPlainObject(answer.data) ? answer.data : undefined;
    const status = data?.['status'];
    if (!data || !isPaymentStatus(status) || !isTerminalStatus(status)) {
      if (now > order.deadline + this.#limits.giveUpMs) {
        this.#options.logger.warn(
          `svc-checkout: order ${logValue(order.orderNo)} is still ${data ? String(status) : 'unknown to the status query'} ` +
            `${Math.round(this.#limits.giveUpMs / 3_600_000)} h past its expiry: reconciliation gave up on it.`,
        );
        await this.#forget(order.orderNo, report);
        return;
      }
      await this.#reschedule(order.orderNo, this.#nextDue(order, now));
      return;
    }
    // Kept without its checkout, or without what it was opened for: the kit's record of the checkout, when it has one.
    const checkout = order.checkout?.amount ? order.checkout : ((await this.#options.checkoutOf?.(order).catch(() => undefined)) ?? order.checkout);
    const event = reconciledEvent(checkout ? { ...order, checkout } : order, data, status, now);
    this.#options.found(event);
    const result = await this.#deliver(event);
    if (result === 'handled') report.handled += 1;
    if (result === 'handled' || result === 'duplicate') await this.#forget(order.orderNo, report);
    // Being handled elsewhere (a callback under way): looked at again at the next sweep.
    else if (result === 'busy') await this.#reschedule(order.orderNo, now + (this.#limits.sweepMs ?? this.#limits.quietMs));
    else if (result === 'failed') await this.#reschedule(order.orderNo, now + this.#limits.quietMs);
    // 'unavailable': the store is away; the take's lease runs out and any process takes it again.
  }

  #firstDue(order: TrackedOrder): number {
    return this.#nextDue(order, this.#options.now());
  }

  /** After the quiet time, or just after the deadline if that comes first. */
  #nextDue(order: TrackedOrder, now: number): number {
    const quiet = now + this.#limits.quietMs;
    const atDeadline = order.deadline + DEADLINE_MARGIN_MS;
    return now < atDeadline && atDeadline < quiet ? atDeadline : quiet;
  }

  async #reschedule(orderNo: string, dueAt: number): Promise<void> {
    await Promise.resolve()
      .then(() => this.#options.store.reschedule(orderNo, dueAt))
      .catch(() => undefined); // the take's lease runs out: asked again then
  }

  async #forget(orderNo: string, report: SweepReport): Promise<void> {
    report.forgotten += 1;
    await Promise.resolve()
      .then(() => this.#options.store.forget(orderNo))
      .catch(() => undefined);
  }
}

/** The outcome a status query found, in the shape of a callback's event. */
function reconciledEvent(order: TrackedOrder, data: Record<string, unknown>, status: CallbackEvent['body']['status'], now: number): CallbackEvent {
  const amount = isPlainObject(data['amount']) ? data['amount'] : undefined;
  const total = Number(amount?.['total']);
  const currency = amount?.['currency'];
  const notifyId = `reconciled:${order.orderNo}:${status}`;
  const body: CallbackEvent['body'] = {
    notifyId,
    reference: typeof data['reference'] === 'string' ? data['reference'] : order.reference,
    amount: {
      total: Number.isSafeInteger(total) ? total : order.amount.total,
      currency: typeof currency === 'string' ? currency : order.amount.currency,
    },
    orderNo: order.orderNo,
    country: order.country,
    status,
    timestamp: now,
    type: CALLBACK_TYPE,
  };
  if (typeof data['failureCode'] === 'string' && data['failureCode'] !== '') body.failureCode = data['failureCode'];
  if (typeof data['failureReason'] === 'string' && data['failureReason'] !== '') body.failureReason = data['failureReason'];
  return {
    source: 'reconciliation',
    // The key a callback of this outcome carries too: one outcome, one key, whichever way it came.
    outcomeKey: outcomeKey(order.orderNo, status, notifyId),
    notifyId,
    body,
    raw: JSON.stringify(data),
    timestamp: now,
    ...(order.checkout ? { checkout: order.checkout } : {}),
  };
}
