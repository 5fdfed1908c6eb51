/**
 * Every attempt to deliver a callback, kept as it was made: numbered, dated on the sandbox clock, with the
 * headers and bytes sent and the merchant's answer, or why nothing was sent. Posting an attempt is here too;
 * when one is made, and what it sends, is the dispatcher's (dispatcher.ts, requests.ts).
 */
import { isLoopbackUrl } from '../../core/addresses.js';
import type { DeliveryFaultKind } from '../faults/delivery-faults.js';
import type { SandboxClock } from '../world/clock.js';
import type { Send } from './requests.js';

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

/** The delivery an attempt belongs to, as its record names it: `attempts` already counts this one. */
export interface Attempted {
  notifyId: string;
  orderNo: string;
  url: string | undefined;
  attempts: number;
}

export class AttemptLog {
  #attempts: DeliveryAttempt[] = [];
  #counter = 0;

  constructor(private readonly clock: SandboxClock) {}

  /** Keeps the record of an attempt made now; `error` says why it sent nothing, when it sent nothing. */
  record(delivery: Attempted, trigger: AttemptTrigger, send: Send, error?: string): DeliveryAttempt {
    this.#counter += 1;
    const record: DeliveryAttempt = {
      id: this.#counter,
      notifyId: delivery.notifyId,
      orderNo: delivery.orderNo,
      attempt: delivery.attempts,
      trigger,
      ...(send.fault ? { fault: send.fault } : {}),
      ...(send.note ? { note: send.note } : {}),
      at: this.clock.now(),
      url: delivery.url ?? null,
      headers: send.headers,
      body: send.body,
      status: null,
      ...(error !== undefined ? { error } : {}),
      acknowledged: false,
    };
    this.#attempts.push(record);
    return record;
  }

  list(filter: { orderNo?: string; notifyId?: string } = {}): DeliveryAttempt[] {
    return this.#attempts.filter(
      (attempt) => (filter.orderNo === undefined || attempt.orderNo === filter.orderNo) && (filter.notifyId === undefined || attempt.notifyId === filter.notifyId),
    );
  }

  byId(id: number): DeliveryAttempt | undefined {
    return this.#attempts.find((attempt) => attempt.id === id);
  }

  /** The last attempt of a callback that sent something (one with headers): what a replay sends again. */
  lastSent(notifyId: string): DeliveryAttempt | undefined {
    return this.#attempts.findLast((attempt) => attempt.notifyId === notifyId && Object.keys(attempt.headers).length > 0);
  }

  clear(): void {
    this.#attempts = [];
  }

  toData(): { attempts: DeliveryAttempt[]; attemptCounter: number } {
    return { attempts: this.#attempts, attemptCounter: this.#counter };
  }

  restore(data: { attempts: DeliveryAttempt[]; attemptCounter: number }): void {
    this.#attempts = [...data.attempts];
    this.#counter = data.attemptCounter;
  }
}

/**
 * Why a callback to `url` may not be sent, or undefined when it may. A sandbox is a development tool: unless told
 * otherwise, an order's `callbackUrl` (which a test, or a page, chose) must not make it post to other machines.
 */
export function unsendable(url: string | undefined, allowRemote: boolean): string | undefined {
  if (!url) return 'the order has no callbackUrl and the merchant no webhook URL';
  if (!allowRemote && !isLoopbackUrl(url)) return 'not sent: the callback URL is not on this machine (start the sandbox with --allow-remote-callbacks to allow it)';
  return undefined;
}

/** Posts an attempt's request to `url`, and writes the merchant's answer, or why there was none, into its record. */
export async function post(record: DeliveryAttempt, url: string, timeoutMs: number): Promise<void> {
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: record.headers,
      body: record.body,
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
    record.status = response.status;
    const answer = await response.text().catch(() => '');
    if (answer) record.answer = answer.slice(0, ANSWER_LOG_CHARS);
    record.acknowledged = response.status >= 200 && response.status < 300;
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause;
    record.error = cause?.code ?? (error instanceof Error ? error.name : 'failed');
  }
}
