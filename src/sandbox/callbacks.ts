/**
 * Sends the callback of every status change, signed with scheme v2, and retries with backoff until the
 * merchant answers 2xx or 72 sandbox hours have passed since the first attempt. Every attempt is recorded.
 */
import { CALLBACK_TYPE, canonicalJson, type CallbackBody } from '../core/index.js';
import { isLoopbackUrl } from '../server/addresses.js';
import { signCallback } from '../server/signature.js';
import { HOUR, MINUTE, type SandboxClock } from './clock.js';
import type { ResolvedMerchant } from './config.js';
import type { Order } from './orders.js';

/** Pause before each retry; the last one repeats until the 72 hours are over. */
export const RETRY_DELAYS_MS = [10_000, 30_000, MINUTE, 5 * MINUTE, 15 * MINUTE, 30 * MINUTE, HOUR, 2 * HOUR, 4 * HOUR, 8 * HOUR];
export const RETRY_WINDOW_MS = 72 * HOUR;

export interface DeliveryAttempt {
  notifyId: string;
  orderNo: string;
  attempt: number;
  /** Sandbox time of the attempt, milliseconds. */
  at: number;
  url: string | null;
  headers: Record<string, string>;
  body: string;
  /** The merchant's HTTP status, or null when there was no answer. */
  status: number | null;
  error?: string;
  acknowledged: boolean;
}

interface Delivery {
  notifyId: string;
  orderNo: string;
  merchant: ResolvedMerchant;
  url: string | undefined;
  body: string;
  attempts: number;
  firstAttemptAt?: number;
  nextAttemptAt: number;
  state: 'waiting' | 'sending' | 'acknowledged' | 'abandoned';
}

export interface CallbackDispatcherOptions {
  clock: SandboxClock;
  /** Milliseconds to wait for the merchant's answer. Default 5 000. */
  timeoutMs?: number;
  /**
   * Whether callbacks may go to hosts other than this machine. Default false: a sandbox is a development tool,
   * and an order's `callbackUrl` (which a test, or a page, chose) must not make it post to internal addresses.
   */
  allowRemoteCallbacks?: boolean;
}

export class CallbackDispatcher {
  readonly #deliveries: Delivery[] = [];
  readonly #attempts: DeliveryAttempt[] = [];
  readonly #sending = new Set<Promise<void>>();
  readonly #clock: SandboxClock;
  readonly #timeoutMs: number;
  readonly #allowRemote: boolean;
  #counter = 0;

  constructor(options: CallbackDispatcherOptions) {
    this.#clock = options.clock;
    this.#timeoutMs = options.timeoutMs ?? 5_000;
    this.#allowRemote = options.allowRemoteCallbacks ?? false;
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
    this.#deliveries.push({
      notifyId,
      orderNo: order.orderNo,
      merchant,
      url: order.callbackUrl ?? merchant.webhookUrl,
      body: canonicalJson(body),
      attempts: 0,
      nextAttemptAt: this.#clock.now(),
      state: 'waiting',
    });
  }

  /** Starts every attempt that is due on the sandbox clock. */
  deliverDue(): void {
    const now = this.#clock.now();
    // Settled deliveries are done with; their attempts stay in the log.
    for (let index = this.#deliveries.length - 1; index >= 0; index--) {
      const state = this.#deliveries[index]?.state;
      if (state === 'acknowledged' || state === 'abandoned') this.#deliveries.splice(index, 1);
    }
    for (const delivery of this.#deliveries) {
      if (delivery.state !== 'waiting' || delivery.nextAttemptAt > now) continue;
      const sending = this.#attempt(delivery).finally(() => this.#sending.delete(sending));
      this.#sending.add(sending);
    }
  }

  /** Resolves when no attempt is in flight. */
  async idle(): Promise<void> {
    while (this.#sending.size > 0) await Promise.allSettled([...this.#sending]);
  }

  attempts(filter: { orderNo?: string } = {}): DeliveryAttempt[] {
    return this.#attempts.filter((attempt) => filter.orderNo === undefined || attempt.orderNo === filter.orderNo);
  }

  clear(): void {
    this.#deliveries.length = 0;
    this.#attempts.length = 0;
  }

  async #attempt(delivery: Delivery): Promise<void> {
    delivery.state = 'sending';
    delivery.attempts += 1;
    const at = this.#clock.now();
    delivery.firstAttemptAt ??= at;
    const record: DeliveryAttempt = {
      notifyId: delivery.notifyId,
      orderNo: delivery.orderNo,
      attempt: delivery.attempts,
      at,
      url: delivery.url ?? null,
      headers: {},
      body: delivery.body,
      status: null,
      acknowledged: false,
    };
    this.#attempts.push(record);
    if (!delivery.url) {
      record.error = 'the order has no callbackUrl and the merchant no webhook URL';
      delivery.state = 'abandoned';
      return;
    }
    if (!this.#allowRemote && !isLoopbackUrl(delivery.url)) {
      record.error = 'not sent: the callback URL is not on this machine (start the sandbox with --allow-remote-callbacks to allow it)';
      delivery.state = 'abandoned';
      return;
    }
    // RequestTimestamp is real time: the merchant checks it against its own clock, which the sandbox's
    // advances do not move. The body's `timestamp` is the sandbox time the change happened.
    const timestamp = String(Date.now());
    record.headers = {
      'Content-Type': 'application/json',
      Authorization: await signCallback(timestamp, delivery.body, delivery.merchant.privateKey),
      MerchantId: delivery.merchant.merchantId,
      RequestTimestamp: timestamp,
    };
    try {
      const response = await fetch(delivery.url, {
        method: 'POST',
        headers: record.headers,
        body: delivery.body,
        redirect: 'manual',
        signal: AbortSignal.timeout(this.#timeoutMs),
      });
      record.status = response.status;
      await response.body?.cancel().catch(() => undefined);
      record.acknowledged = response.status >= 200 && response.status < 300;
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause;
      record.error = cause?.code ?? (error instanceof Error ? error.name : 'failed');
    }
    if (record.acknowledged) {
      delivery.state = 'acknowledged';
      return;
    }
    const delay = RETRY_DELAYS_MS[Math.min(delivery.attempts - 1, RETRY_DELAYS_MS.length - 1)] as number;
    const next = this.#clock.now() + delay;
    if (next - delivery.firstAttemptAt > RETRY_WINDOW_MS) {
      delivery.state = 'abandoned';
      return;
    }
    delivery.nextAttemptAt = next;
    delivery.state = 'waiting';
  }
}
