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
  kind: FaultKind;
  /** Calls still to be affected. */
  remaining: number;
  /** For `timeout`, `slow` and `lost`: how long the call is held before it is answered or cut. */
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
