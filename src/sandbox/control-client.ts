/**
 * A client of the sandbox's control API: play the payer, the bank and time from a test, a script or a page.
 * It runs wherever `fetch` does (Node, browsers), so the demo, the test suites and `npm run load` all drive
 * the sandbox through it. Published as `svc-checkout/sandbox/control`.
 */
import { fillPath } from '../core/index.js';
import type { DeliveryAttempt } from './callbacks.js';
import type { orderView } from './control-api.js';
import type { FaultKind } from './faults.js';
import type { SentMessage } from './notifications.js';
import { FORM_TOKEN_FIELD, SANDBOX_PATHS, type SandboxOperation } from './paths.js';

export interface SandboxControlOptions {
  /** A fetch implementation; default the global one. */
  fetch?: typeof fetch;
  /** Milliseconds before a call is abandoned. Default 10 000. */
  timeoutMs?: number;
  /** Aborts every call, e.g. when a script stops. */
  signal?: AbortSignal;
}

export interface ControlAnswer<T = unknown> {
  status: number;
  body: T;
}

/** A control call that did not succeed: its status and the sandbox's message (it names the fields). */
export class SandboxControlError extends Error {
  override readonly name = 'SandboxControlError';
  constructor(
    readonly status: number,
    readonly body: unknown,
    what: string,
  ) {
    super(`${what}: HTTP ${status}${typeof (body as { message?: unknown })?.message === 'string' ? `: ${(body as { message: string }).message}` : ''}`);
  }
}

/** An order as the control API shows it (account numbers never, only their last four digits). */
export type SandboxOrderView = ReturnType<typeof orderView>;
export type { DeliveryAttempt as SandboxDelivery, SentMessage as SandboxMessage };

export interface SandboxClockView {
  now: string;
  nowMs: number;
  offsetMs: number;
}

export class SandboxControl {
  readonly baseUrl: string;
  readonly #fetch: typeof fetch;
  readonly #timeoutMs: number;
  readonly #signal: AbortSignal | undefined;

  /** `baseUrl`: the sandbox's address, or the prefix a dev server passes `/sandbox/` through at (`''` for the page's own origin). */
  constructor(baseUrl: string, options: SandboxControlOptions = {}) {
    this.baseUrl = baseUrl.replace(/\/+$/, '');
    this.#fetch = options.fetch ?? ((input, init) => fetch(input, init));
    this.#timeoutMs = options.timeoutMs ?? 10_000;
    this.#signal = options.signal;
  }

  /** Any control call, answered whatever its status. Changes are sent as JSON, as the sandbox requires. */
  async request<T = unknown>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<ControlAnswer<T>> {
    const timeout = AbortSignal.timeout(this.#timeoutMs);
    const response = await this.#fetch(`${this.baseUrl}${path}`, {
      method,
      headers: method === 'GET' ? {} : { 'Content-Type': 'application/json' },
      ...(method === 'GET' ? {} : { body: JSON.stringify(body ?? {}) }),
      signal: this.#signal ? AbortSignal.any([this.#signal, timeout]) : timeout,
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON: kept as text
    }
    return { status: response.status, body: parsed as T };
  }

  async #call<T>(method: 'GET' | 'POST' | 'DELETE', operation: SandboxOperation, params: Record<string, string> = {}, body?: unknown): Promise<T> {
    const path = fillPath(SANDBOX_PATHS[operation], params);
    const answer = await this.request<T>(method, path, body);
    if (answer.status < 200 || answer.status > 299) throw new SandboxControlError(answer.status, answer.body, `${method} ${path}`);
    return answer.body;
  }

  async orders(): Promise<SandboxOrderView[]> {
    return (await this.#call<{ orders: SandboxOrderView[] }>('GET', 'orders')).orders;
  }

  order(orderNo: string): Promise<SandboxOrderView> {
    return this.#call('GET', 'order', { orderNo });
  }

  /** Settles a pending order. */
  complete(orderNo: string, outcome: { status: 'SUCCESS' | 'FAIL' | 'CLOSE'; failureCode?: string; failureReason?: string }): Promise<SandboxOrderView> {
    return this.#call('POST', 'completeOrder', { orderNo }, outcome);
  }

  /** The payer pays a reference code. */
  payReferenceCode(code: string): Promise<SandboxOrderView> {
    return this.#call('POST', 'payReferenceCode', { code });
  }

  /** The payer swipes a card at a terminal. */
  swipe(sn: string, outcome: 'success' | 'fail' = 'success'): Promise<SandboxOrderView> {
    return this.#call('POST', 'swipe', { sn }, { outcome });
  }

  advanceClock(minutes: number): Promise<SandboxClockView> {
    return this.#call('POST', 'advanceClock', {}, { minutes });
  }

  clock(): Promise<SandboxClockView> {
    return this.#call('GET', 'clock');
  }

  async callbacks(filter: { orderNo?: string } = {}): Promise<DeliveryAttempt[]> {
    const query = filter.orderNo ? `?orderNo=${encodeURIComponent(filter.orderNo)}` : '';
    const answer = await this.request<{ callbacks: DeliveryAttempt[] }>('GET', `${SANDBOX_PATHS.callbacks}${query}`);
    if (answer.status !== 200) throw new SandboxControlError(answer.status, answer.body, 'GET callbacks');
    return answer.body.callbacks;
  }

  async notifications(filter: { orderNo?: string } = {}): Promise<SentMessage[]> {
    const query = filter.orderNo ? `?orderNo=${encodeURIComponent(filter.orderNo)}` : '';
    const answer = await this.request<{ notifications: SentMessage[] }>('GET', `${SANDBOX_PATHS.notifications}${query}`);
    if (answer.status !== 200) throw new SandboxControlError(answer.status, answer.body, 'GET notifications');
    return answer.body.notifications;
  }

  /** The next `count` calls to the service's API meet the fault. */
  addFault(fault: { kind: FaultKind; count?: number; delayMs?: number }): Promise<unknown> {
    return this.#call('POST', 'faults', {}, fault);
  }

  clearFaults(): Promise<unknown> {
    return this.#call('DELETE', 'faults');
  }

  reset(): Promise<unknown> {
    return this.#call('POST', 'reset');
  }

  /**
   * Approves or declines an order's 3-D Secure check as the payer would: loads the page the bank's redirect
   * points at (whose form carries its token) and sends its form. Resolves to where the payer is sent back.
   */
  async threeDs(orderNo: string, decision: 'approve' | 'decline'): Promise<string | undefined> {
    const page = await this.#fetch(`${this.baseUrl}${fillPath(SANDBOX_PATHS.threeDsPage, { orderNo })}`, { signal: AbortSignal.timeout(this.#timeoutMs) });
    const html = await page.text();
    if (page.status !== 200) throw new SandboxControlError(page.status, html, `GET 3-D Secure page of ${orderNo}`);
    const token = new RegExp(`name="${FORM_TOKEN_FIELD}" value="([0-9a-f]+)"`).exec(html)?.[1] ?? '';
    const response = await this.#fetch(`${this.baseUrl}${fillPath(SANDBOX_PATHS.threeDsDecision, { orderNo, decision })}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ [FORM_TOKEN_FIELD]: token }).toString(),
      redirect: 'manual',
      signal: AbortSignal.timeout(this.#timeoutMs),
    });
    if (response.type === 'opaqueredirect') return undefined;
    if (response.status !== 303) throw new SandboxControlError(response.status, await response.text(), `3-D Secure ${decision} of ${orderNo}`);
    return response.headers.get('location') ?? undefined;
  }
}
