/**
 * A client of the sandbox's control API: play the payer, the bank and time from a test, a script or a page.
 * It runs wherever `fetch` does (Node, browsers), so the demo, the test suites and `npm run load` all drive
 * the sandbox through it. Published as `svc-checkout/sandbox/control`.
 */
import { fillPath } from '../../core/index.js';
import type { DeliveryAttempt } from '../callbacks/attempts.js';
import type { DeliveryView } from '../callbacks/dispatcher.js';
import type { orderView, refundView, SandboxSnapshot } from './views.js';
import type { DeliveryFault, DeliveryFaultKind, TamperField } from '../faults/delivery-faults.js';
import type { SandboxEvent, SandboxEventType } from '../world/events.js';
import type { Expectation, ExpectationInput } from '../scenarios/expectations.js';
import type { Fault, FaultKind } from '../faults/service-faults.js';
import type { SentMessage } from '../world/notifications.js';
import type { LinkRecord } from '../world/links.js';
import { FORM_TOKEN_FIELD, SANDBOX_PATHS, type SandboxOperation } from '../paths.js';
import type { Scenarios } from '../scenarios/test-values.js';

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
export type SandboxRefundView = ReturnType<typeof refundView>;
/** A payment link as the sandbox was told of it. */
export type SandboxLinkView = LinkRecord;
export type {
  DeliveryAttempt as SandboxDelivery,
  DeliveryView as SandboxDeliveryView,
  SentMessage as SandboxMessage,
  SandboxEvent,
  SandboxEventType,
  SandboxSnapshot,
  Expectation as SandboxExpectation,
  DeliveryFault as SandboxDeliveryFault,
};

/** What an expectation says (EXPECTATION_TARGETS): `target` defaults to `payment`. */
export type SandboxExpectationInput = Omit<ExpectationInput, 'target'> & { target?: ExpectationInput['target'] };

/** A callback delivery fault for the next `count` deliveries (default 1), of one order or reference, or of any. */
export interface SandboxDeliveryFaultInput {
  kind: DeliveryFaultKind;
  count?: number;
  orderNo?: string;
  reference?: string;
  merchantId?: string;
  /** `tamper`: the field changed after signing. */
  field?: TamperField;
  /** `replay`: sandbox minutes before the copy is sent. */
  afterMinutes?: number;
}

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

  /** The payment links the shop's kit made beside this sandbox, the newest first (docs/pay-links.md). */
  async links(): Promise<SandboxLinkView[]> {
    return (await this.#call<{ links: SandboxLinkView[] }>('GET', 'links')).links;
  }

  /** Tells the sandbox of a payment link, for its dashboard (`stack.paymentLink` does, for the links it makes). */
  async addLink(link: Omit<SandboxLinkView, 'madeAt'>): Promise<SandboxLinkView[]> {
    return (await this.#call<{ links: SandboxLinkView[] }>('POST', 'links', {}, link)).links;
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
  addFault(fault: { kind: FaultKind; count?: number; delayMs?: number }): Promise<{ faults: Fault[] }> {
    return this.#call('POST', 'faults', {}, fault);
  }

  clearFaults(): Promise<unknown> {
    return this.#call('DELETE', 'faults');
  }

  async faults(): Promise<Fault[]> {
    return (await this.#call<{ faults: Fault[] }>('GET', 'faults')).faults;
  }

  async removeFault(id: string): Promise<Fault[]> {
    return (await this.#call<{ faults: Fault[] }>('DELETE', 'fault', { id })).faults;
  }

  reset(): Promise<unknown> {
    return this.#call('POST', 'reset');
  }

  /** Everything at once: orders, refunds, messages, deliveries, the clock, queued faults and expectations. */
  state(): Promise<SandboxSnapshot> {
    return this.#call('GET', 'state');
  }

  /** The test values, VAT rates and tables the sandbox runs with. */
  scenarios(): Promise<{ scenarios: Scenarios; vocabulary: SandboxSnapshot['vocabulary'] }> {
    return this.#call('GET', 'scenarios');
  }

  async refunds(): Promise<SandboxRefundView[]> {
    return (await this.#call<{ refunds: SandboxRefundView[] }>('GET', 'refunds')).refunds;
  }

  /** Callback deliveries, each with its state and attempts. */
  async deliveries(filter: { orderNo?: string } = {}): Promise<DeliveryView[]> {
    const query = filter.orderNo ? `?orderNo=${encodeURIComponent(filter.orderNo)}` : '';
    const answer = await this.request<{ deliveries: DeliveryView[] }>('GET', `${SANDBOX_PATHS.deliveries}${query}`);
    if (answer.status !== 200) throw new SandboxControlError(answer.status, answer.body, 'GET deliveries');
    return answer.body.deliveries;
  }

  /**
   * Tells the sandbox what the order (or refund) with a reference will do: its next action, its outcome and
   * failure, after how many sandbox minutes. Before the create, it waits for it; after, it applies at once.
   */
  async expect(expectation: SandboxExpectationInput): Promise<Expectation> {
    return (await this.#call<{ expectation: Expectation }>('POST', 'expectations', {}, expectation)).expectation;
  }

  async expectations(): Promise<Expectation[]> {
    return (await this.#call<{ expectations: Expectation[] }>('GET', 'expectations')).expectations;
  }

  async removeExpectation(id: string): Promise<Expectation[]> {
    return (await this.#call<{ expectations: Expectation[] }>('DELETE', 'expectation', { id })).expectations;
  }

  clearExpectations(): Promise<unknown> {
    return this.#call('DELETE', 'expectations');
  }

  /** The next `count` callback deliveries (of an order, a reference, or any) go wrong as `kind` says (DELIVERY_FAULTS). */
  async addDeliveryFault(fault: SandboxDeliveryFaultInput): Promise<DeliveryFault> {
    return (await this.#call<{ fault: DeliveryFault }>('POST', 'deliveryFaults', {}, fault)).fault;
  }

  async deliveryFaults(): Promise<DeliveryFault[]> {
    return (await this.#call<{ deliveryFaults: DeliveryFault[] }>('GET', 'deliveryFaults')).deliveryFaults;
  }

  async removeDeliveryFault(id: string): Promise<DeliveryFault[]> {
    return (await this.#call<{ deliveryFaults: DeliveryFault[] }>('DELETE', 'deliveryFault', { id })).deliveryFaults;
  }

  clearDeliveryFaults(): Promise<unknown> {
    return this.#call('DELETE', 'deliveryFaults');
  }

  /** Sends a logged callback again now, freshly signed; resolves to the attempt, the merchant's answer in it. */
  async resendCallback(notifyId: string): Promise<DeliveryAttempt> {
    return (await this.#call<{ attempt: DeliveryAttempt }>('POST', 'resendCallback', { notifyId })).attempt;
  }

  /** Sends a callback's last attempt again byte for byte, old signature and timestamp included (a replay attack). */
  async replayCallback(notifyId: string): Promise<DeliveryAttempt> {
    return (await this.#call<{ attempt: DeliveryAttempt }>('POST', 'replayCallback', { notifyId })).attempt;
  }

  /**
   * The sandbox's events as they happen (Server-Sent Events at /sandbox/v1/events), a `snapshot` first. Ends
   * when `signal` aborts or the sandbox closes the stream. `types` keeps only those (and `reset`).
   */
  async *events(options: { signal?: AbortSignal; types?: SandboxEventType[] } = {}): AsyncGenerator<SandboxEvent> {
    const query = options.types && options.types.length > 0 ? `?types=${options.types.map(encodeURIComponent).join(',')}` : '';
    const signals = [options.signal, this.#signal].filter((signal): signal is AbortSignal => signal !== undefined);
    const response = await this.#fetch(`${this.baseUrl}${SANDBOX_PATHS.events}${query}`, {
      headers: { Accept: 'text/event-stream' },
      ...(signals.length > 0 ? { signal: signals.length === 1 ? (signals[0] as AbortSignal) : AbortSignal.any(signals) } : {}),
    });
    if (response.status !== 200 || !response.body) throw new SandboxControlError(response.status, await response.text(), 'GET events');
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    try {
      for (;;) {
        const { done, value } = await reader.read().catch((error: unknown) => {
          if (signals.some((signal) => signal.aborted)) return { done: true as const, value: undefined };
          throw error;
        });
        if (done) return;
        buffer += value;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = block
            .split('\n')
            .filter((line) => line.startsWith('data:'))
            .map((line) => line.slice(5).trimStart())
            .join('\n');
          if (data) yield JSON.parse(data) as SandboxEvent;
        }
      }
    } finally {
      await reader.cancel().catch(() => undefined);
    }
  }

  /**
   * Waits for the first event `matches` accepts, for at most `timeoutMs` (default 5 000); the snapshot counts
   * too, so that what already happened is found. Resolves to that event.
   */
  async waitForEvent(matches: (event: SandboxEvent) => boolean, options: { timeoutMs?: number; types?: SandboxEventType[] } = {}): Promise<SandboxEvent> {
    const timeout = AbortSignal.timeout(options.timeoutMs ?? 5_000);
    for await (const event of this.events({ signal: timeout, ...(options.types ? { types: options.types } : {}) })) {
      if (matches(event)) return event;
    }
    throw new SandboxControlError(408, null, `no event matched within ${options.timeoutMs ?? 5_000} ms`);
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
