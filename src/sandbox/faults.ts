/**
 * Faults on demand, for the next N calls to the service's API:
 * - not processed, as when the real service never got to the call: `timeout` (held `delayMs`, then cut
 *   unanswered), `50003` (answered "service not available") and `drop` (the connection is cut at once);
 * - processed, as when the service did the work but its answer came late or never: `slow` (answered after
 *   `delayMs`) and `lost` (cut unanswered after `delayMs`). A create that meets one of these made its order.
 */
export const FAULT_KINDS = ['timeout', '50003', 'drop', 'slow', 'lost'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface Fault {
  id: string;
  kind: FaultKind;
  /** Calls still to be affected. */
  remaining: number;
  /** For `timeout`, `slow` and `lost`: how long the call is held before it is answered or cut. */
  delayMs: number;
}

export const DEFAULT_TIMEOUT_FAULT_MS = 20_000;

export interface FaultData {
  faults: Fault[];
  counter: number;
}

export class FaultQueue {
  #faults: Fault[] = [];
  #counter = 0;
  readonly #listeners: (() => void)[] = [];

  onChange(listener: () => void): void {
    this.#listeners.push(listener);
  }

  add(kind: FaultKind, count: number, delayMs = DEFAULT_TIMEOUT_FAULT_MS): Fault {
    this.#counter += 1;
    const fault = { id: `f${this.#counter}`, kind, remaining: count, delayMs };
    this.#faults.push(fault);
    this.#changed();
    return { ...fault };
  }

  /** The fault the next call meets, if any; counts it. */
  take(): Fault | undefined {
    const fault = this.#faults[0];
    if (!fault) return undefined;
    fault.remaining -= 1;
    if (fault.remaining <= 0) this.#faults.shift();
    this.#changed();
    return { ...fault };
  }

  remove(id: string): boolean {
    const before = this.#faults.length;
    this.#faults = this.#faults.filter((fault) => fault.id !== id);
    if (before === this.#faults.length) return false;
    this.#changed();
    return true;
  }

  toData(): FaultData {
    return { faults: this.list(), counter: this.#counter };
  }

  restore(data: FaultData): void {
    this.#faults = data.faults.map((fault) => ({ ...fault }));
    this.#counter = data.counter;
  }

  #changed(): void {
    for (const listener of this.#listeners) listener();
  }

  list(): Fault[] {
    return this.#faults.map((fault) => ({ ...fault }));
  }

  clear(): void {
    this.#faults = [];
    this.#changed();
  }
}
