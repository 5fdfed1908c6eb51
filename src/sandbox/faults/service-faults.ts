/**
 * Faults on demand, for the next N calls to the service's API:
 * - not processed, as when the real service never got to the call: `timeout` (held `delayMs`, then cut
 *   unanswered), `50003` (answered "service not available") and `drop` (the connection is cut at once);
 * - processed, as when the service did the work but its answer came late or never: `slow` (answered after
 *   `delayMs`) and `lost` (cut unanswered after `delayMs`). A create that meets one of these made its order.
 */
import { ConsumableQueue, countDown, type QueueData } from '../world/consumable-queue.js';

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

export type FaultData = QueueData<Fault, 'faults'>;

export class FaultQueue extends ConsumableQueue<Fault, 'faults'> {
  constructor() {
    super('f', 'faults');
  }

  add(kind: FaultKind, count: number, delayMs = DEFAULT_TIMEOUT_FAULT_MS): Fault {
    return this.push((id) => ({ id, kind, remaining: count, delayMs }));
  }

  /** The fault the next call meets, if any; counts it. */
  take(): Fault | undefined {
    return this.consume(() => true, countDown);
  }
}
