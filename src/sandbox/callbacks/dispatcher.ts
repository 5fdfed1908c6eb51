/**
 * Sends the callback of every status change, signed with scheme v2, and retries with backoff until the
 * merchant answers 2xx or 72 sandbox hours have passed since the first attempt. Every attempt is recorded,
 * with the signature sent and the merchant's answer. Delivery faults (faults/delivery-faults.ts) make attempts go
 * wrong on purpose; `resend` and `replay` send a logged callback again on request.
 */
import { CALLBACK_TYPE, canonicalJson, type CallbackBody } from '../../core/index.js';
import { isLoopbackUrl } from '../../core/addresses.js';
import { SIGNING_HEADERS } from '../../core/signing.js';
import { signCallback } from '../signing.js';
import { HOUR, MINUTE, type SandboxClock } from '../world/clock.js';
import type { ResolvedMerchant } from '../config.js';
import {
  DELIVERY_FAULTS,
  OUT_OF_ORDER_MAX_HOLD_MINUTES,
  STALE_TIMESTAMP_MS,
  TAMPER_FIELDS,
  type DeliveryFault,
  type DeliveryFaultKind,
  type DeliveryFaultQueue,
} from '../faults/delivery-faults.js';
import type { Order } from '../world/orders.js';

/** Pause before each retry; the last one repeats until the 72 hours are over. */
export const RETRY_DELAYS_MS = [10_000, 30_000, MINUTE, 5 * MINUTE, 15 * MINUTE, 30 * MINUTE, HOUR, 2 * HOUR, 4 * HOUR, 8 * HOUR];
export const RETRY_WINDOW_MS = 72 * HOUR;
/** How much of a merchant's answer the log keeps. */
export const ANSWER_LOG_CHARS = 1_000;

/** Why an attempt was made: the delivery itself (first or retry), or one made on purpose. */
export type AttemptTrigger = 'delivery' | 'duplicate' | 'resend' | 'replay';

export interface DeliveryAttempt {
  /** Grows by one per attempt of this sandbox. */
  id: number;
  notifyId: string;
  orderNo: string;
  /** 1 for the first attempt of this notifyId, then 2, 3, … whatever the trigger. */
  attempt: number;
  trigger: AttemptTrigger;
  /** The delivery fault this attempt met, if any. */
  fault?: DeliveryFaultKind;
  /** What the fault did, in words. */
  note?: string;
  /** Sandbox time of the attempt, milliseconds. */
  at: number;
  url: string | null;
  headers: Record<string, string>;
  /** The bytes sent. */
  body: string;
  /** The merchant's HTTP status, or null when there was no answer. */
  status: number | null;
  /** The start of the merchant's answer. */
  answer?: string;
  error?: string;
  acknowledged: boolean;
}

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

type Send = { headers: Record<string, string>; body: string; fault?: DeliveryFaultKind; note?: string };

export class CallbackDispatcher {
  #deliveries: Delivery[] = [];
  #attempts: DeliveryAttempt[] = [];
  #replays: PlannedReplay[] = [];
  readonly #sending = new Set<Promise<unknown>>();
  readonly #listeners: ((notifyId: string) => void)[] = [];
  readonly #clock: SandboxClock;
  readonly #merchant: (merchantId: string) => ResolvedMerchant | undefined;
  readonly #faults: DeliveryFaultQueue | undefined;
  readonly #timeoutMs: number;
  readonly #allowRemote: boolean;
  #counter = 0;
  #attemptCounter = 0;

  constructor(options: CallbackDispatcherOptions) {
    this.#clock = options.clock;
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
      const original = this.#attempts.find((attempt) => attempt.id === replay.attemptId);
      const delivery = original && this.#find(original.notifyId);
      if (original && delivery) this.#track(this.#replayOf(delivery, original, 'replay'));
    }
  }

  /** Resolves when no attempt is in flight. */
  async idle(): Promise<void> {
    while (this.#sending.size > 0) await Promise.allSettled([...this.#sending]);
  }

  attempts(filter: { orderNo?: string; notifyId?: string } = {}): DeliveryAttempt[] {
    return this.#attempts.filter(
      (attempt) => (filter.orderNo === undefined || attempt.orderNo === filter.orderNo) && (filter.notifyId === undefined || attempt.notifyId === filter.notifyId),
    );
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
    const send = merchant ? await this.#signed(delivery, merchant) : { headers: {}, body: delivery.body };
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
    const original = this.#attempts.findLast((attempt) => attempt.notifyId === notifyId && Object.keys(attempt.headers).length > 0);
    if (!original) return null;
    return this.#track(this.#replayOf(delivery, original, 'replay'));
  }

  clear(): void {
    this.#deliveries = [];
    this.#attempts = [];
    this.#replays = [];
  }

  toData(): DispatcherData {
    return {
      deliveries: this.#deliveries.map((delivery) => ({ ...delivery })),
      attempts: this.#attempts,
      replays: this.#replays,
      counter: this.#counter,
      attemptCounter: this.#attemptCounter,
    };
  }

  restore(data: DispatcherData): void {
    // An attempt cut short by the stop is made again.
    this.#deliveries = data.deliveries.map((delivery) => (delivery.state === 'sending' ? { ...delivery, state: 'waiting' } : { ...delivery }));
    this.#attempts = [...data.attempts];
    this.#replays = [...data.replays];
    this.#counter = data.counter;
    this.#attemptCounter = data.attemptCounter;
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

  /** Records an attempt that sent nothing, and why. */
  #unsent(delivery: Delivery, error: string, fault?: DeliveryFaultKind): DeliveryAttempt {
    delivery.attempts += 1;
    this.#attemptCounter += 1;
    const record: DeliveryAttempt = {
      id: this.#attemptCounter,
      notifyId: delivery.notifyId,
      orderNo: delivery.orderNo,
      attempt: delivery.attempts,
      trigger: 'delivery',
      ...(fault ? { fault } : {}),
      at: this.#clock.now(),
      url: delivery.url ?? null,
      headers: {},
      body: delivery.body,
      status: null,
      error,
      acknowledged: false,
    };
    this.#attempts.push(record);
    return record;
  }

  async #attempt(delivery: Delivery): Promise<void> {
    delivery.state = 'sending';
    delivery.tries += 1;
    delivery.firstAttemptAt ??= this.#clock.now();
    const merchant = this.#merchant(delivery.merchantId);
    const stop = (state: DeliveryState, error: string, fault?: DeliveryFaultKind) => {
      this.#unsent(delivery, error, fault);
      delivery.state = state;
      this.#changed(delivery);
    };
    if (!delivery.url) return stop('abandoned', 'the order has no callbackUrl and the merchant no webhook URL');
    if (!this.#allowRemote && !isLoopbackUrl(delivery.url)) {
      return stop('abandoned', 'not sent: the callback URL is not on this machine (start the sandbox with --allow-remote-callbacks to allow it)');
    }
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

    const record = await this.#send(delivery, 'delivery', await this.#faulty(delivery, merchant, fault));
    // Whatever was held back goes now, after this one.
    for (const held of this.#deliveries) if (held.state === 'held' && held !== delivery) this.#release(held);
    if (fault?.kind === 'duplicate') await this.#send(delivery, 'duplicate', await this.#signed(delivery, merchant));
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

  async #signed(delivery: Delivery, merchant: ResolvedMerchant, timestamp = String(Date.now()), body = delivery.body): Promise<Send> {
    return {
      body,
      headers: {
        'Content-Type': 'application/json',
        [SIGNING_HEADERS.authorization]: await signCallback(timestamp, body, merchant.privateKey),
        [SIGNING_HEADERS.merchantId]: merchant.merchantId,
        [SIGNING_HEADERS.timestamp]: timestamp,
      },
    };
  }

  /** What an attempt that met `fault` sends. RequestTimestamp is real time: the merchant checks it against its own clock. */
  async #faulty(delivery: Delivery, merchant: ResolvedMerchant, fault: DeliveryFault | undefined): Promise<Send> {
    switch (fault?.kind) {
      case 'badSignature': {
        const send = await this.#signed(delivery, merchant);
        const signature = send.headers['Authorization'] as string;
        const last = signature.at(-1) as string;
        send.headers['Authorization'] = `${signature.slice(0, -1)}${((parseInt(last, 16) + 1) % 16).toString(16)}`;
        return { ...send, fault: 'badSignature', note: 'the last hex digit of the signature was changed' };
      }
      case 'tamper': {
        const send = await this.#signed(delivery, merchant);
        const field = fault.field ?? 'amount.total';
        const body = JSON.parse(delivery.body) as Record<string, unknown>;
        const before = field === 'amount.total' ? (body['amount'] as { total: unknown }).total : body[field];
        TAMPER_FIELDS[field](body);
        const after = field === 'amount.total' ? (body['amount'] as { total: unknown }).total : body[field];
        return { ...send, body: canonicalJson(body), fault: 'tamper', note: `${field} changed from ${String(before)} to ${String(after)} after signing` };
      }
      case 'staleTimestamp':
        return { ...(await this.#signed(delivery, merchant, String(Date.now() - STALE_TIMESTAMP_MS))), fault: 'staleTimestamp', note: 'RequestTimestamp is an hour old' };
      case 'invalidBody': {
        const { status: _status, ...rest } = JSON.parse(delivery.body) as Record<string, unknown>;
        const send = await this.#signed(delivery, merchant, String(Date.now()), canonicalJson(rest));
        return { ...send, fault: 'invalidBody', note: 'signed without status, which the specification requires' };
      }
      case 'duplicate':
      case 'replay':
        return { ...(await this.#signed(delivery, merchant)), fault: fault.kind, note: DELIVERY_FAULTS[fault.kind].does };
      default:
        return this.#signed(delivery, merchant);
    }
  }

  #replayOf(delivery: Delivery, original: DeliveryAttempt, trigger: AttemptTrigger): Promise<DeliveryAttempt> {
    return this.#send(delivery, trigger, {
      headers: { ...original.headers },
      body: original.body,
      fault: 'replay',
      note: `the bytes and headers of attempt ${original.attempt}, sent again as they were`,
    });
  }

  /** Posts one attempt and records it with the merchant's answer. */
  async #send(delivery: Delivery, trigger: AttemptTrigger, send: Send, refusal?: string): Promise<DeliveryAttempt> {
    delivery.attempts += 1;
    this.#attemptCounter += 1;
    const record: DeliveryAttempt = {
      id: this.#attemptCounter,
      notifyId: delivery.notifyId,
      orderNo: delivery.orderNo,
      attempt: delivery.attempts,
      trigger,
      ...(send.fault ? { fault: send.fault } : {}),
      ...(send.note ? { note: send.note } : {}),
      at: this.#clock.now(),
      url: delivery.url ?? null,
      headers: send.headers,
      body: send.body,
      status: null,
      acknowledged: false,
    };
    this.#attempts.push(record);
    const url = delivery.url;
    const blocked =
      refusal ??
      (!url
        ? 'the order has no callbackUrl and the merchant no webhook URL'
        : !this.#allowRemote && !isLoopbackUrl(url)
          ? 'not sent: the callback URL is not on this machine (start the sandbox with --allow-remote-callbacks to allow it)'
          : undefined);
    if (blocked || !url) {
      record.error = blocked ?? 'no URL';
      this.#changed(delivery);
      return record;
    }
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: send.headers,
        body: send.body,
        redirect: 'manual',
        signal: AbortSignal.timeout(this.#timeoutMs),
      });
      record.status = response.status;
      const answer = await response.text().catch(() => '');
      if (answer) record.answer = answer.slice(0, ANSWER_LOG_CHARS);
      record.acknowledged = response.status >= 200 && response.status < 300;
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause;
      record.error = cause?.code ?? (error instanceof Error ? error.name : 'failed');
    }
    this.#changed(delivery);
    return record;
  }
}
