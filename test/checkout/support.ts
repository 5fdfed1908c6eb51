/**
 * A checkout session in Node, as a page would run it, against the real merchant kit and the real sandbox: the
 * session's fetch is the kit's handler itself (a Web `Request` in, a `Response` out), the kit calls the sandbox
 * over 127.0.0.1. The session's clock and timers are a fake one the test moves; nothing sleeps.
 */
import { CHECKOUT_TOKEN_HEADER } from '../../src/core/index.js';
import { CheckoutSession, type CheckoutEnvironment, type CheckoutEvent, type CheckoutSettings, type KeyValueStorage } from '../../src/checkout/index.js';
import { createMerchantHandler, issueCheckoutToken, type CheckoutOrder, type MerchantHandler, type MerchantHandlerOptions } from '../../src/server/index.js';
import { createSandbox, DEFAULT_MERCHANT, SandboxControl, type Sandbox } from '../../src/sandbox/index.js';

export const ENDPOINT = 'https://shop.example/checkout';
export const PAGE = 'https://shop.example/pay';

/** Timers that run only when the test moves the clock. */
export class FakeClock {
  /** Starts at the real time, so that tokens the kit issues on it and the sandbox's orders agree. */
  now = Math.floor(Date.now() / 1000) * 1000;
  #next = 1;
  readonly #timers = new Map<number, { at: number; callback: () => void }>();
  readonly #followers: ((ms: number) => void)[] = [];

  readonly timers = {
    setTimeout: (callback: () => void, ms: number): unknown => {
      const id = this.#next++;
      this.#timers.set(id, { at: this.now + Math.max(0, ms), callback });
      return id;
    },
    clearTimeout: (handle: unknown): void => {
      this.#timers.delete(handle as number);
    },
  };

  /** Moves another clock (the sandbox's) with this one: time goes on for the kit and the service alike. */
  follow(move: (ms: number) => void): void {
    this.#followers.push(move);
  }

  #moveTo(at: number): void {
    const ms = at - this.now;
    this.now = at;
    if (ms > 0) for (const move of this.#followers) move(ms);
  }

  get pending(): number {
    return this.#timers.size;
  }

  /** Moves the clock by `ms`, running each timer due on the way at its own moment, and what it starts. */
  async advance(ms: number, settle: () => Promise<void>): Promise<void> {
    const end = this.now + ms;
    for (;;) {
      let next: [number, { at: number; callback: () => void }] | undefined;
      for (const entry of this.#timers) if (entry[1].at <= end && (!next || entry[1].at < next[1].at)) next = entry;
      if (!next) break;
      this.#timers.delete(next[0]);
      this.#moveTo(Math.max(this.now, next[1].at));
      next[1].callback();
      await settle();
    }
    this.#moveTo(end);
  }
}

export class MemoryStorage implements KeyValueStorage {
  readonly entries = new Map<string, string>();
  getItem(key: string) {
    return this.entries.get(key) ?? null;
  }
  setItem(key: string, value: string) {
    this.entries.set(key, value);
  }
  removeItem(key: string) {
    this.entries.delete(key);
  }
}

export interface Harness {
  sandbox: Sandbox;
  control: SandboxControl;
  handler: MerchantHandler;
  clock: FakeClock;
  storage: MemoryStorage;
  /** Every call the sessions made to the kit, by path. */
  calls: string[];
  navigated: string[];
  opened: string[];
  /** A page's window is blocked when false. */
  allowWindows: boolean;
  /** Hides or shows the sessions' page, as a tab switch does (`visibilitychange`). */
  setHidden(hidden: boolean): void;
  token(order?: Partial<CheckoutOrder>): Promise<string>;
  /** A session as a page makes it, with its events recorded; `resume()`d (on screen). */
  session(settings?: Partial<CheckoutSettings>): Promise<{ session: CheckoutSession; events: CheckoutEvent[] }>;
  /** Waits until no call of any session is in flight (and what each answer started has run). */
  settle(): Promise<void>;
  /** Moves the sessions' clock, running their timers and waiting for what they send. */
  advance(ms: number): Promise<void>;
  close(): Promise<void>;
}

/** As a browser's fetch does: aborting the request errors the body being read. */
function abortable(response: Response, signal: AbortSignal): Response {
  if (!response.body) return response;
  const reader = response.body.getReader();
  const aborted = new Promise<never>((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    else signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
  aborted.catch(() => undefined);
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await Promise.race([reader.read(), aborted]);
        if (done) controller.close();
        else controller.enqueue(value);
      } catch (error) {
        void reader.cancel(error).catch(() => undefined);
        controller.error(error);
      }
    },
    cancel: (reason) => reader.cancel(reason),
  });
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}

export interface HarnessOptions {
  /** More options of the kit (`streams: false`…). */
  kit?: Partial<MerchantHandlerOptions>;
  /** Stands between the sessions and the kit: a proxy that buffers, a CSP that refuses (fakes of failures). */
  intercept?: (request: Request, kit: (request: Request) => Promise<Response>) => Promise<Response>;
}

export async function harness(options: HarnessOptions = {}): Promise<Harness> {
  const sandbox = await createSandbox({ tickMs: 5 });
  const credentials = { merchantId: DEFAULT_MERCHANT.merchantId, privateKey: DEFAULT_MERCHANT.privateKey };
  const clock = new FakeClock();
  clock.follow((ms) => sandbox.clock.advance(ms));
  const handler = createMerchantHandler({
    ...credentials,
    environment: { baseUrl: sandbox.url },
    basePath: '/checkout',
    retryDelayMs: 1,
    logger: { warn: () => undefined, error: () => undefined },
    returnUrlOrigins: ['https://shop.example'],
    // The kit's status streams keep time with the sessions: heartbeats, its own status queries, expiry.
    timers: clock.timers,
    now: () => clock.now,
    ...options.kit,
  });
  const storage = new MemoryStorage();
  const calls: string[] = [];
  let inFlight = 0;
  const fetchThroughKit = (async (input: string, init?: RequestInit) => {
    inFlight += 1;
    try {
      calls.push(new URL(input).pathname.replace('/checkout', ''));
      // As a page on the shop's origin would send it.
      const request = new Request(input, { ...init, headers: { ...(init?.headers as Record<string, string>), Origin: 'https://shop.example' } } as never);
      const response = await (options.intercept ? options.intercept(request, handler) : handler(request));
      return init?.signal ? abortable(response, init.signal) : response;
    } finally {
      inFlight -= 1;
    }
  }) as typeof fetch;
  const settle = async () => {
    // A call's answer starts more work (a status check after a create, a timer): wait until nothing is in
    // flight for a few turns of the event loop.
    for (let quiet = 0; quiet < 5; ) {
      await new Promise((resolve) => setImmediate(resolve));
      quiet = inFlight === 0 ? quiet + 1 : 0;
    }
  };
  let hidden = false;
  const visibilityListeners = new Set<() => void>();
  const h: Harness = {
    sandbox,
    control: new SandboxControl(sandbox.url),
    handler,
    clock,
    storage,
    calls,
    navigated: [],
    opened: [],
    allowWindows: true,
    setHidden(value) {
      hidden = value;
      for (const listener of [...visibilityListeners]) listener();
    },
    token: (order = {}) =>
      issueCheckoutToken(
        credentials,
        {
          reference: `order-${Math.random().toString(36).slice(2, 10)}`,
          amount: { total: 12_500, currency: 'EGP' },
          country: 'EG',
          product: { name: 'Espresso beans', description: '1 kg bag' },
          merchantName: 'Cairo Coffee',
          expireAt: 30,
          ...order,
        },
        { now: Date.now() },
      ),
    async session(settings = {}) {
      const environment: Partial<CheckoutEnvironment> = {
        fetch: fetchThroughKit,
        now: () => clock.now,
        timers: clock.timers,
        visibility: {
          hidden: () => hidden,
          subscribe: (listener) => {
            visibilityListeners.add(listener);
            return () => visibilityListeners.delete(listener);
          },
        },
        online: { subscribe: () => () => undefined },
        storage,
        pageUrl: () => PAGE,
        navigate: (url) => void h.navigated.push(url),
        openWindow: (url) => {
          if (!h.allowWindows) return false;
          h.opened.push(url);
          return true;
        },
      };
      const session = new CheckoutSession(undefined, { environment });
      const events: CheckoutEvent[] = [];
      session.on((event) => events.push(event));
      // Polling unless a test follows the stream (test/checkout/live-status.test.ts).
      session.configure({ endpoint: ENDPOINT, checkoutToken: settings.checkoutToken ?? (await h.token()), liveStatus: false, ...settings });
      session.resume();
      await settle();
      return { session, events };
    },
    settle,
    advance: (ms) => clock.advance(ms, settle),
    async close() {
      await sandbox.close();
    },
  };
  return h;
}

/** The types of the events, in order, without the announcements. */
export function kinds(events: CheckoutEvent[]): string[] {
  return events.filter((event) => event.type !== 'announce').map((event) => (event.type === 'pay-result' ? `pay-result ${event.detail.orderStatus}` : event.type));
}

export { CHECKOUT_TOKEN_HEADER };
