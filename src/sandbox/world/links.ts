/**
 * The payment links a shop's kit made beside this sandbox (docs/pay-links.md): told by the stack that wires the two
 * (`stack.paymentLink`) or through the control API, so that the dashboard lists each link with its checkout's orders.
 * The sandbox never reads a link (it holds no key of the kit's): it keeps what it was told, the newest first.
 */
export interface LinkRecord {
  /** The pay page's address. */
  url: string;
  /** The cart's id: its checkout's orders are this reference and its attempts (`<cart>--2`, …). */
  reference: string;
  amount: { total: number; currency: string };
  productName: string;
  /** Unix seconds. */
  expiresAt: number;
  /** Sandbox time, milliseconds. */
  madeAt: number;
}

/** The links kept, at most: a sandbox runs for a day of development, not for a shop's history. */
const LIMIT = 500;

export class LinkBook {
  #links: LinkRecord[] = [];
  readonly #listeners = new Set<() => void>();

  add(link: LinkRecord): void {
    this.#links = [link, ...this.#links.filter((kept) => kept.url !== link.url)].slice(0, LIMIT);
    for (const listener of this.#listeners) listener();
  }

  list(): LinkRecord[] {
    return this.#links.map((link) => ({ ...link, amount: { ...link.amount } }));
  }

  clear(): void {
    this.#links = [];
  }

  onChange(listener: () => void): void {
    this.#listeners.add(listener);
  }
}
