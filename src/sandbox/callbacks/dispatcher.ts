/**
 * Sends the callback of every status change, signed with scheme v2, and retries with backoff until the
 * merchant answers 2xx or 72 sandbox hours have passed since the first attempt. Every attempt is recorded
 * (attempts.ts), with the signature sent and the merchant's answer. Delivery faults (faults/delivery-faults.ts)
 * make attempts go wrong on purpose (requests.ts says how); `resend` and `replay` send a logged callback again
 * on request.
 */
import { CALLBACK_TYPE, canonicalJson, type CallbackBody } from '../../core/index.js';
import type { ResolvedMerchant } from '../config.js';
import { OUT_OF_ORDER_MAX_HOLD_MINUTES, type DeliveryFaultKind, type DeliveryFaultQueue } from '../faults/delivery-faults.js';
import { HOUR, MINUTE, type SandboxClock } from '../world/clock.js';
import type { Order } from '../world/orders.js';
import { AttemptLog, post, unsendable, type AttemptTrigger, type DeliveryAttempt } from './attempts.js';
import { faulty, replayed, signed, type Send } from './requests.js';

/** Pause before each retry; the last one repeats until the 72 hours are over. */
export const RETRY_DELAYS_MS = [10_000, 30_000, MINUTE, 5 * MINUTE, 15 * MINUTE, 30 * MINUTE, HOUR, 2 * HOUR, 4 * HOUR, 8 * HOUR];
export const RETRY_WINDOW_MS = 72 * HOUR;

export type DeliveryState = 'waiting' | 'sending' | 'held' | 'acknowledged' | 'abandoned' | 'omitted';

interface Delivery {
  notifyId: string;
  orderNo: string;
  reference: string;
  merchantId: string;
  url: string | undefined;
  body: string;
  /** Attempts of any trigger; the number of the next one. */
  attempts: number;
  /** Attempts the delivery itself made (first and retries): the backoff follows these only. */
  tries: number;
  firstAttemptAt?: number;
  nextAttemptAt: number;
  state: DeliveryState;
  /** An out-of-order delivery already held back once: it goes next, and meets no fault. */
  released?: boolean;
}

/** A delivery as the control API and the dashboard show it. */
export interface DeliveryView {
  notifyId: string;
  orderNo: string;
  reference: string;
  merchantId: string;
  url: string | null;
  state: DeliveryState;
  /** Sandbox time of the next attempt, when one is planned. */
  nextAttemptAt: number | null;
  attempts: DeliveryAttempt[];
}

interface PlannedReplay {
  attemptId: number;
  at: number;
}

export interface DispatcherData {
  deliveries: Delivery[];
  attempts: DeliveryAttempt[];
  replays: PlannedReplay[];
  counter: number;
  attemptCounter: number;
}

export interface CallbackDispatcherOptions {
  clock: SandboxClock;
  /** The merchant of an id, as configured now (keys are never kept with a delivery). */
  merchant: (merchantId: string) => ResolvedMerchant | undefined;
  faults?: DeliveryFaultQueue;
  /** Milliseconds to wait for the merchant's answer. Default 5 000. */
  timeoutMs?: number;
  /**
   * Whether callbacks may go to hosts other than this machine. Default false: a sandbox is a development tool,
   * and an order's `callbackUrl` (which a test, or a page, chose) must not make it post to internal addresses.
   */
  allowRemoteCallbacks?: boolean;
}

export class CallbackDispatcher {
  #deliveries: Delivery[] = [];
  #replays: PlannedReplay[] = [];
  readonly #log: AttemptLog;
  readonly #sending = new Set<Promise<unknown>>();
  readonly #listeners: ((notifyId: string) => void)[] = [];
  readonly #clock: SandboxClock;
  readonly #merchant: (merchantId: string) => ResolvedMerchant | undefined;
  readonly #faults: DeliveryFaultQueue | undefined;
  readonly #timeoutMs: number;
  readonly #allowRemote: boolean;
  #counter = 0;

  constructor(options: CallbackDispatcherOptions) {
    this.#clock = options.clock;
    this.#log = new AttemptLog(options.clock);
    this.#merchant = options.merchant;
    this.#faults = options.faults;
    this.#timeoutMs = options.timeoutMs ?? 5_000;
    this.#allowRemote = options.allowRemoteCallbacks ?? false;
  }

  /** Called with a delivery's notifyId whenever it changes: queued, attempted, answered, held, settled. */
  onChange(listener: (notifyId: string) => void): void {
    this.#listeners.push(listener);
  }

  /** Queues the callback of an order's current status. */
  enqueue(order: Order, merchant: ResolvedMerchant): void {
    this.#counter += 1;
    const notifyId = `${order.orderNo}-${String(this.#counter).padStart(6, '0')}`;
    const body: CallbackBody = {
      notifyId,
      reference: order.reference,
      amount: { total: order.amount.total, currency: order.amount.currency },
      orderNo: order.orderNo,
      country: order.country,
      status: order.status,
      timestamp: this.#clock.now(),
      type: CALLBACK_TYPE,
      ...(order.failureCode ? { failureCode: order.failureCode, failureReason: order.failureReason ?? '' } : {}),
      extras: { payMethod: order.payMethod, ...(order.referenceCode ? { referenceCode: order.referenceCode } : {}) },
    };
    const delivery: Delivery = {
      notifyId,
      orderNo: order.orderNo,
      reference: order.reference,
      merchantId: merchant.merchantId,
      url: order.callbackUrl ?? merchant.webhookUrl,
      body: canonicalJson(body),
      attempts: 0,
      tries: 0,
      nextAttemptAt: this.#clock.now(),
      state: 'waiting',
    };
    this.#deliveries.push(delivery);
    this.#changed(delivery);
  }

  /** Starts every attempt that is due on the sandbox clock, and every replay planned. */
  deliverDue(): void {
    const now = this.#clock.now();
    for (const delivery of this.#deliveries) {
      if (delivery.state === 'held' && delivery.nextAttemptAt <= now) this.#release(delivery);
      if (delivery.state !== 'waiting' || delivery.nextAttemptAt > now) continue;
      this.#track(this.#attempt(delivery));
    }
    const due = this.#replays.filter((replay) => replay.at <= now);
    if (due.length === 0) return;
    this.#replays = this.#replays.filter((replay) => replay.at > now);
    for (const replay of due) {
      const original = this.#log.byId(replay.attemptId);
      const delivery = original && this.#find(original.notifyId);
      if (original && delivery) this.#track(this.#send(delivery, 'replay', replayed(original)));
    }
  }

  /** Resolves when no attempt is in flight. */
  async idle(): Promise<void> {
    while (this.#sending.size > 0) await Promise.allSettled([...this.#sending]);
  }

  attempts(filter: { orderNo?: string; notifyId?: string } = {}): DeliveryAttempt[] {
    return this.#log.list(filter);
  }

  deliveries(filter: { orderNo?: string } = {}): DeliveryView[] {
    return this.#deliveries.filter((delivery) => filter.orderNo === undefined || delivery.orderNo === filter.orderNo).map((delivery) => this.#view(delivery));
  }

  delivery(notifyId: string): DeliveryView | undefined {
    const delivery = this.#find(notifyId);
    return delivery && this.#view(delivery);
  }

  /** Sends a logged callback again now, freshly signed, as the service's own retry would. */
  async resend(notifyId: string): Promise<DeliveryAttempt | undefined> {
    const delivery = this.#find(notifyId);
    if (!delivery) return undefined;
    const merchant = this.#merchant(delivery.merchantId);
    const send = merchant ? await signed(merchant, delivery.body) : { headers: {}, body: delivery.body };
    const record = await this.#track(this.#send(delivery, 'resend', send, merchant ? undefined : `merchant ${delivery.merchantId} is not configured`));
    if (record.acknowledged && delivery.state !== 'acknowledged') {
      delivery.state = 'acknowledged';
      this.#changed(delivery);
    }
    return record;
  }

  /**
   * Sends the bytes and headers of a callback's last attempt again now, exactly as they were: what an
   * eavesdropper can do. `undefined` when the callback is unknown; `null` when it was never sent.
   */
  async replay(notifyId: string): Promise<DeliveryAttempt | null | undefined> {
    const delivery = this.#find(notifyId);
    if (!delivery) return undefined;
    const original = this.#log.lastSent(notifyId);
    if (!original) return null;
    return this.#track(this.#send(delivery, 'replay', replayed(original)));
  }

  clear(): void {
    this.#deliveries = [];
    this.#log.clear();
    this.#replays = [];
  }

  toData(): DispatcherData {
    const { attempts, attemptCounter } = this.#log.toData();
    return {
      deliveries: this.#deliveries.map((delivery) => ({ ...delivery })),
      attempts,
      replays: this.#replays,
      counter: this.#counter,
      attemptCounter,
    };
  }

  restore(data: DispatcherData): void {
    // An attempt cut short by the stop is made again.
    this.#deliveries = data.deliveries.map((delivery) => (delivery.state === 'sending' ? { ...delivery, state: 'waiting' } : { ...delivery }));
    this.#log.restore(data);
    this.#replays = [...data.replays];
    this.#counter = data.counter;
  }

  #find(notifyId: string): Delivery | undefined {
    return this.#deliveries.find((delivery) => delivery.notifyId === notifyId);
  }

  #track<T>(promise: Promise<T>): Promise<T> {
    const tracked = promise.finally(() => this.#sending.delete(tracked));
    this.#sending.add(tracked);
    return tracked;
  }

  #view(delivery: Delivery): DeliveryView {
    const planned = delivery.state === 'waiting' || delivery.state === 'held';
    return {
      notifyId: delivery.notifyId,
      orderNo: delivery.orderNo,
      reference: delivery.reference,
      merchantId: delivery.merchantId,
      url: delivery.url ?? null,
      state: delivery.state,
      nextAttemptAt: planned ? delivery.nextAttemptAt : null,
      attempts: this.attempts({ notifyId: delivery.notifyId }),
    };
  }

  #changed(delivery: Delivery): void {
    for (const listener of this.#listeners) listener(delivery.notifyId);
  }

  #release(delivery: Delivery): void {
    delivery.state = 'waiting';
    delivery.released = true;
    delivery.nextAttemptAt = this.#clock.now();
  }

  async #attempt(delivery: Delivery): Promise<void> {
    delivery.state = 'sending';
    delivery.tries += 1;
    delivery.firstAttemptAt ??= this.#clock.now();
    const merchant = this.#merchant(delivery.merchantId);
    const stop = (state: DeliveryState, error: string, fault?: DeliveryFaultKind) => {
      // An attempt that sent nothing is recorded all the same, with why.
      delivery.attempts += 1;
      this.#log.record(delivery, 'delivery', { headers: {}, body: delivery.body, ...(fault ? { fault } : {}) }, error);
      delivery.state = state;
      this.#changed(delivery);
    };
    const refused = unsendable(delivery.url, this.#allowRemote);
    if (refused) return stop('abandoned', refused);
    if (!merchant) return stop('abandoned', `not sent: merchant ${delivery.merchantId} is not configured any more`);

    const fault = delivery.released ? undefined : this.#faults?.take(delivery);
    delete delivery.released;
    if (fault?.kind === 'omit') return stop('omitted', 'not sent: omitted on purpose (delivery fault omit); the sandbox counts it delivered', 'omit');
    if (fault?.kind === 'outOfOrder') {
      // Held back, not tried: its first try is still to come.
      delivery.tries -= 1;
      delivery.state = 'held';
      delivery.nextAttemptAt = this.#clock.now() + OUT_OF_ORDER_MAX_HOLD_MINUTES * MINUTE;
      this.#changed(delivery);
      return;
    }

    const record = await this.#send(delivery, 'delivery', await faulty(merchant, delivery.body, fault));
    // Whatever was held back goes now, after this one.
    for (const held of this.#deliveries) if (held.state === 'held' && held !== delivery) this.#release(held);
    if (fault?.kind === 'duplicate') await this.#send(delivery, 'duplicate', await signed(merchant, delivery.body));
    if (fault?.kind === 'replay') this.#replays.push({ attemptId: record.id, at: this.#clock.now() + (fault.afterMinutes ?? 0) * MINUTE });

    if (record.acknowledged) {
      delivery.state = 'acknowledged';
    } else {
      const delay = RETRY_DELAYS_MS[Math.min(delivery.tries - 1, RETRY_DELAYS_MS.length - 1)] as number;
      const next = this.#clock.now() + delay;
      if (next - (delivery.firstAttemptAt ?? next) > RETRY_WINDOW_MS) delivery.state = 'abandoned';
      else {
        delivery.nextAttemptAt = next;
        delivery.state = 'waiting';
      }
    }
    this.#changed(delivery);
    // A held delivery released above is due now.
    if (this.#deliveries.some((item) => item.state === 'waiting' && item.nextAttemptAt <= this.#clock.now())) this.deliverDue();
  }

  /** Posts one attempt, unless it may not be sent, and records it with the merchant's answer. */
  async #send(delivery: Delivery, trigger: AttemptTrigger, send: Send, refusal?: string): Promise<DeliveryAttempt> {
    delivery.attempts += 1;
    const record = this.#log.record(delivery, trigger, send);
    const blocked = refusal ?? unsendable(delivery.url, this.#allowRemote);
    if (blocked || !delivery.url) record.error = blocked ?? 'no URL';
    else await post(record, delivery.url, this.#timeoutMs);
    this.#changed(delivery);
    return record;
  }
}
