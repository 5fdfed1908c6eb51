/**
 * What the control API queues for what is to come: service faults for the next calls, delivery faults for the
 * next callbacks, expectations for the next orders with a reference. One shape for the three: items oldest
 * first, each met by the first thing it matches; ids of a prefix and a counter that never goes back, so that an
 * id stays unique across a restart with a data file; and listeners told of every change (the event stream, the
 * data file). What an item is, and when it is spent, is its queue's to say.
 */
export type QueueData<T, Key extends string> = { [key in Key]: T[] } & { counter: number };

export class ConsumableQueue<T extends { id: string }, Key extends string> {
  #items: T[] = [];
  #counter = 0;
  readonly #listeners: (() => void)[] = [];

  /** `idPrefix` starts every id; `dataKey` names the list in the saved data (the data file's format). */
  constructor(
    private readonly idPrefix: string,
    private readonly dataKey: Key,
  ) {}

  onChange(listener: () => void): void {
    this.#listeners.push(listener);
  }

  /** Queues the item `make` builds with its new id; returns a copy of it. */
  protected push(make: (id: string) => T): T {
    this.#counter += 1;
    const item = make(`${this.idPrefix}${this.#counter}`);
    this.#items.push(item);
    this.#changed();
    return { ...item };
  }

  /**
   * The first item `matches` accepts, oldest first, used once: `use` changes it in place and says whether it is
   * spent (a spent item leaves the queue). A copy of it as used; undefined when nothing matched.
   */
  protected consume(matches: (item: T) => boolean, use: (item: T) => boolean): T | undefined {
    const index = this.#items.findIndex(matches);
    const item = this.#items[index];
    if (!item) return undefined;
    if (use(item)) this.#items.splice(index, 1);
    this.#changed();
    return { ...item };
  }

  /** Changes the item with this id in place; `change` says whether it changed anything. */
  protected update(id: string, change: (item: T) => boolean): void {
    const item = this.#items.find((each) => each.id === id);
    if (item && change(item)) this.#changed();
  }

  list(): T[] {
    return this.#items.map((item) => ({ ...item }));
  }

  remove(id: string): boolean {
    const before = this.#items.length;
    this.#items = this.#items.filter((item) => item.id !== id);
    if (before === this.#items.length) return false;
    this.#changed();
    return true;
  }

  clear(): void {
    this.#items = [];
    this.#changed();
  }

  toData(): QueueData<T, Key> {
    return { [this.dataKey]: this.list(), counter: this.#counter } as QueueData<T, Key>;
  }

  restore(data: QueueData<T, Key>): void {
    this.#items = (data[this.dataKey] as T[]).map((item) => ({ ...item }));
    this.#counter = data.counter;
  }

  #changed(): void {
    for (const listener of this.#listeners) listener();
  }
}

/** A `use` for items met a number of times (`remaining`): counts one; spent at none. */
export function countDown(item: { remaining: number }): boolean {
  item.remaining -= 1;
  return item.remaining <= 0;
}
