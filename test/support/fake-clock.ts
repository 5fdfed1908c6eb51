/**
 * A clock whose timers run only when a test moves it, for code that takes its clock and timers injected (the
 * status poller's `now` and `timers`). Free of Node and DOM: the browser suites use it as the Node ones can.
 * `resolutionMs` makes `now()` read coarser than the timers run, as a browser with reduced timer precision
 * does (Firefox's timers can fire before `Date.now()` reaches their moment).
 */
interface Timer {
  at: number;
  callback: () => void;
}

/** Lets what a timer's callback started (promise chains, a real macrotask's worth) run before the next timer. */
const nextTask = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

export class FakeClock {
  #time: number;
  readonly #resolutionMs: number;
  #nextId = 1;
  readonly #timers = new Map<number, Timer>();

  constructor(options: { startAt?: number; resolutionMs?: number } = {}) {
    this.#time = options.startAt ?? Date.now();
    this.#resolutionMs = options.resolutionMs ?? 1;
  }

  /** Epoch milliseconds, as the code under test reads them. */
  readonly now = (): number => Math.floor(this.#time / this.#resolutionMs) * this.#resolutionMs;

  readonly timers = {
    setTimeout: (callback: () => void, ms: number): unknown => {
      const id = this.#nextId++;
      this.#timers.set(id, { at: this.#time + Math.max(0, ms), callback });
      return id;
    },
    clearTimeout: (handle: unknown): void => {
      this.#timers.delete(handle as number);
    },
  };

  /** Timers armed and not yet run. */
  get pending(): number {
    return this.#timers.size;
  }

  /** Resolves once the clock has been moved `ms` further. */
  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => this.timers.setTimeout(resolve, ms));
  }

  /** Moves the clock by `ms`, running each timer due on the way at its own moment (earliest, then first set). */
  async advance(ms: number, settle: () => Promise<void> = nextTask): Promise<void> {
    const end = this.#time + ms;
    await settle();
    for (;;) {
      let next: [number, Timer] | undefined;
      for (const entry of this.#timers) if (entry[1].at <= end && (!next || entry[1].at < next[1].at)) next = entry;
      if (!next) break;
      this.#timers.delete(next[0]);
      this.#time = Math.max(this.#time, next[1].at);
      next[1].callback();
      await settle();
    }
    this.#time = end;
  }
}
