/**
 * A map of at most `limit` entries that forgets the least recently used first, each operation in constant time.
 * It keeps two generations of at most half the limit each: entries are written to the young one, an entry read
 * from the old one moves to the young one, and when the young one is full it becomes the old one and the old one
 * is dropped whole.
 *
 * The kit's in-memory stores once evicted from the front of a single Map, one entry per write. V8 leaves a hole
 * for each deleted entry until the table is rebuilt, and every walk from the front steps over all of them: at
 * 100 000 keys the throttle store paid 18 µs a new key, up to three times per create (now about 1.5 µs:
 * bench/micro.mjs measures the store at its bound).
 */
export class BoundedMap<K, V> {
  #young = new Map<K, V>();
  #old = new Map<K, V>();
  readonly #half: number;

  constructor(limit: number) {
    if (!Number.isInteger(limit) || limit < 2) throw new RangeError('a bounded map holds at least 2 entries');
    this.#half = Math.floor(limit / 2);
  }

  get size(): number {
    return this.#young.size + this.#old.size;
  }

  get(key: K): V | undefined {
    const young = this.#young.get(key);
    if (young !== undefined) return young;
    const old = this.#old.get(key);
    if (old !== undefined) {
      this.#old.delete(key);
      this.#write(key, old);
    }
    return old;
  }

  set(key: K, value: V): void {
    if (!this.#young.has(key)) this.#old.delete(key);
    this.#write(key, value);
  }

  delete(key: K): void {
    this.#young.delete(key);
    this.#old.delete(key);
  }

  #write(key: K, value: V): void {
    if (this.#young.size >= this.#half && !this.#young.has(key)) {
      this.#old = this.#young;
      this.#young = new Map();
    }
    this.#young.set(key, value);
  }
}
