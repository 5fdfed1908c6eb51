/**
 * Faults for the next create only. The sandbox's fault queue hits the next service calls, whichever they are,
 * and a page that is polling an order's status would spend a fault on a status query. The demo's server holds
 * these instead and hands one to the sandbox's fault API just before the merchant kit sends a create, through
 * the kit's `fetch` option, so that the create and nothing else meets it.
 */
import { SERVICE_PATHS } from '../src/core/index.js';
import { ConsumableQueue } from '../src/sandbox/world/consumable-queue.js';
import { FAULT_KINDS, SandboxControl, type FaultKind } from '../src/sandbox/index.js';
import type { HeldFault } from './orders.js';

type Held = HeldFault & { id: string };

export class NextCreateFaults extends ConsumableQueue<Held, 'faults'> {
  #sandbox: SandboxControl | undefined;

  constructor() {
    super('n', 'faults');
  }

  /** Where the faults go when a create leaves; set once the sandbox listens. */
  attach(sandboxUrl: string): void {
    this.#sandbox = new SandboxControl(sandboxUrl);
  }

  /** Holds a fault, or says what is wrong with it. */
  hold(body: unknown): Held | { error: string } {
    const { kind, delayMs } = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
    if (typeof kind !== 'string' || !(FAULT_KINDS as readonly string[]).includes(kind)) {
      return { error: `kind must be one of ${FAULT_KINDS.join(', ')}` };
    }
    if (delayMs !== undefined && (!Number.isInteger(delayMs) || (delayMs as number) < 0 || (delayMs as number) > 600_000)) {
      return { error: 'delayMs must be a whole number of milliseconds from 0 to 600000' };
    }
    return this.push((id) => ({ id, kind: kind as FaultKind, ...(delayMs !== undefined ? { delayMs: delayMs as number } : {}) }));
  }

  /** The kit's fetch: a create (a body with `payMethod`: the specification also sends OTPs to the create path) takes the first held fault with it. */
  readonly fetch: typeof fetch = async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const held = url.pathname === SERVICE_PATHS.create && this.#sandbox && isCreate(init?.body) ? this.consume(() => true, () => true) : undefined;
    if (held) {
      const { id: _id, ...fault } = held;
      await this.#sandbox!.addFault({ ...fault, count: 1 });
    }
    return fetch(input, init);
  };
}

function isCreate(body: unknown): boolean {
  if (typeof body !== 'string') return false;
  try {
    return typeof (JSON.parse(body) as { payMethod?: unknown }).payMethod === 'string';
  } catch {
    return false;
  }
}
