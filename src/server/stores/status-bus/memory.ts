/** The status bus in memory: one process (the default). */
import type { StatusBus, StatusBusListener, StatusUpdate } from './port.js';

/** One process: every listener hears every update at once. */
export class MemoryStatusBus implements StatusBus {
  readonly live = true;
  readonly #listeners = new Set<StatusBusListener>();

  publish(update: StatusUpdate): void {
    for (const listener of [...this.#listeners]) listener.update(update);
  }

  subscribe(listener: StatusBusListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}
