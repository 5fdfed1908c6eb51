/**
 * Items by the moment they fall due, earliest first, and in the order they were queued when they fall due at
 * the same moment: a binary heap. The order book keeps its pending orders' deadlines here, so that applying what
 * is due costs the orders that are due, not every order the sandbox ever took (a long development session, a
 * bench, a data file restored).
 */
interface Entry<T> {
  at: number;
  sequence: number;
  item: T;
}

export class DueQueue<T> {
  #heap: Entry<T>[] = [];
  #sequence = 0;

  get size(): number {
    return this.#heap.length;
  }

  push(at: number, item: T): void {
    const heap = this.#heap;
    heap.push({ at, sequence: this.#sequence++, item });
    let index = heap.length - 1;
    while (index > 0) {
      const parent = (index - 1) >> 1;
      if (!earlier(heap[index]!, heap[parent]!)) break;
      [heap[index], heap[parent]] = [heap[parent]!, heap[index]!];
      index = parent;
    }
  }

  /** The earliest item if it is due at `now` or before, taken out of the queue; else undefined. */
  takeDue(now: number): { at: number; item: T } | undefined {
    const heap = this.#heap;
    const first = heap[0];
    if (!first || first.at > now) return undefined;
    const last = heap.pop()!;
    if (heap.length > 0) {
      heap[0] = last;
      let index = 0;
      for (;;) {
        const left = index * 2 + 1;
        const right = left + 1;
        let smallest = index;
        if (left < heap.length && earlier(heap[left]!, heap[smallest]!)) smallest = left;
        if (right < heap.length && earlier(heap[right]!, heap[smallest]!)) smallest = right;
        if (smallest === index) break;
        [heap[index], heap[smallest]] = [heap[smallest]!, heap[index]!];
        index = smallest;
      }
    }
    return { at: first.at, item: first.item };
  }

  clear(): void {
    this.#heap = [];
  }
}

function earlier<T>(a: Entry<T>, b: Entry<T>): boolean {
  return a.at < b.at || (a.at === b.at && a.sequence < b.sequence);
}
