/**
 * Faults on demand: the next N calls to the service's API time out, answer 50003, or lose their connection.
 * A call that meets a fault is not processed, as when the real service never got to it.
 */
export const FAULT_KINDS = ['timeout', '50003', 'drop'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface Fault {
  kind: FaultKind;
  /** Calls still to be affected. */
  remaining: number;
  /** For `timeout`: how long the call is held before its connection is closed unanswered. */
  delayMs: number;
}

export const DEFAULT_TIMEOUT_FAULT_MS = 20_000;

export class FaultQueue {
  readonly #faults: Fault[] = [];

  add(kind: FaultKind, count: number, delayMs = DEFAULT_TIMEOUT_FAULT_MS): Fault {
    const fault = { kind, remaining: count, delayMs };
    this.#faults.push(fault);
    return fault;
  }

  /** The fault the next call meets, if any; counts it. */
  take(): Fault | undefined {
    const fault = this.#faults[0];
    if (!fault) return undefined;
    fault.remaining -= 1;
    if (fault.remaining <= 0) this.#faults.shift();
    return { ...fault };
  }

  list(): Fault[] {
    return this.#faults.map((fault) => ({ ...fault }));
  }

  clear(): void {
    this.#faults.length = 0;
  }
}
