/**
 * The orders the kit decided for a ticket (src/server/payments/tickets.ts), each kept until its create uses it or its
 * ticket expires. Where orders come from the shop's `authorize` hook, the hook runs when the page asks for a ticket,
 * with the payer's session; the isolated frame's create, which carries no cookie, then finds the order here by the
 * ticket's id and adds only the payer's bank details. Used once: `take` gives the order to one create, never two.
 *
 * Memory by default (one process); `svc-checkout/server/redis` shares it between processes, so that a ticket issued
 * by one process is used by another.
 */
export interface TicketStore {
  /** Keeps `order` (its JSON text) under `id` for `ttlMs`. */
  keep(id: string, order: string, ttlMs: number): Promise<void>;
  /** The order kept under `id`, while it is neither used nor expired; it stays. */
  read(id: string): Promise<string | undefined>;
  /** Takes the order kept under `id`: the one caller that gets it; every later one gets undefined. */
  take(id: string): Promise<string | undefined>;
}
