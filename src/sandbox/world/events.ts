/**
 * What happens in a sandbox, as events: the dashboard draws from them, tests wait on them, and the data file
 * is written when one is published. Served as Server-Sent Events at /sandbox/v1/events (control/events.ts): a
 * `snapshot` of everything first, then one event per change, each carrying the whole changed item (an order or
 * a refund as the control API shows it).
 */

/** Every event type, and what its `data` is. Decided here once; the dashboard and README follow it. */
export const SANDBOX_EVENT_TYPES = {
  snapshot: 'the whole state, sent first on every connection (as GET /sandbox/v1/state)',
  order: 'an order was created or changed: its view, with its life so far',
  refund: 'a refund was created or changed: its view',
  message: 'a message was "sent" to a payer',
  delivery: 'a callback delivery changed: its view, attempts included',
  clock: 'the sandbox clock was moved',
  faults: 'the queue of service faults changed: the whole queue',
  deliveryFaults: 'the queue of callback delivery faults changed: the whole queue',
  expectations: 'the expectations changed: all of them',
  links: 'the payment links the shop\'s kit made changed: all of them',
  reset: 'the sandbox forgot everything; a snapshot follows',
} as const;

export type SandboxEventType = keyof typeof SANDBOX_EVENT_TYPES;

export interface SandboxEvent {
  /** Grows by one per event of this sandbox process. */
  id: number;
  type: SandboxEventType;
  /** Sandbox time, milliseconds. */
  at: number;
  data: unknown;
}

export type EventListener = (event: SandboxEvent) => void;

export class EventHub {
  readonly #listeners = new Set<EventListener>();
  readonly #watchers = new Set<() => void>();
  #id = 0;

  constructor(private readonly now: () => number) {}

  /**
   * Publishes an event. Its data is made only when someone listens (a stream, a test): a sandbox nobody watches
   * does not copy out every delivery and queue it changes.
   */
  publish(type: SandboxEventType, data: () => unknown): void {
    this.#id += 1;
    for (const watcher of this.#watchers) watcher();
    if (this.#listeners.size === 0) return;
    const event: SandboxEvent = { id: this.#id, type, at: this.now(), data: data() };
    for (const listener of [...this.#listeners]) {
      try {
        listener(event);
      } catch {
        // A listener's failure (a closed stream) is its own business, never the change's.
      }
    }
  }

  subscribe(listener: EventListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Called on every change, without its data (the data file's writer). */
  watch(watcher: () => void): () => void {
    this.#watchers.add(watcher);
    return () => this.#watchers.delete(watcher);
  }

  get subscribers(): number {
    return this.#listeners.size;
  }
}
