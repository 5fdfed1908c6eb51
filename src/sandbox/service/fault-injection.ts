/**
 * Service faults applied to a call (faults/service-faults.ts says what each kind is): cut at once, held then cut, answered
 * "service not available", or processed and then answered late or never. Calls held for a fault are let go
 * when the sandbox closes.
 */
import { errorEnvelope, type Envelope } from '../../core/index.js';
import type { Fault } from '../faults/service-faults.js';
import type { Exchange } from '../http/router.js';

/** Timers of held calls, all cleared at close. */
export class HeldCalls {
  readonly #timers = new Set<NodeJS.Timeout>();

  /** Runs `then` after `delayMs`, unless the sandbox closes first. */
  hold(delayMs: number, then: () => void): void {
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      then();
    }, delayMs);
    this.#timers.add(timer);
  }

  clear(): void {
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
  }
}

/** Answers a service call as `fault` makes it go (`serve` processes it), or as usual without one. */
export async function answerWithFault(fault: Fault | undefined, exchange: Exchange, held: HeldCalls, serve: () => Promise<Envelope>): Promise<void> {
  const { request, method, path, log, finish } = exchange;
  if (fault?.kind === 'drop') {
    log(`${method} ${path} dropped (fault)`);
    request.socket.destroy();
    return;
  }
  if (fault?.kind === 'timeout') {
    log(`${method} ${path} held ${fault.delayMs}ms (fault)`);
    held.hold(fault.delayMs, () => request.socket.destroy());
    return;
  }
  if (fault?.kind === '50003') return finish(200, errorEnvelope('50003'));
  const answer = await serve();
  if (fault?.kind === 'slow') {
    log(`${method} ${path} processed, answer held ${fault.delayMs}ms (fault)`);
    held.hold(fault.delayMs, () => finish(200, answer));
    return;
  }
  if (fault?.kind === 'lost') {
    log(`${method} ${path} processed, answer lost after ${fault.delayMs}ms (fault)`);
    held.hold(fault.delayMs, () => request.socket.destroy());
    return;
  }
  finish(200, answer);
}
