/**
 * What the kit knows of each checkout without asking the service (docs/one-payment.md): the last attempt whose create
 * it forwarded, written before it forwards one, and what each attempt was made for. A record that says none was
 * forwarded proves that the checkout has no order, so that a page load asks the service nothing; a record that says
 * n proves that no attempt after n exists. Without a record (a new process, an evicted one), the kit asks the service.
 *
 * The record is never what keeps a payment single: every attempt's reference is fixed by its number, so a create
 * the record missed meets the service's own refusal of a reference used twice (`02004`), and the kit answers with
 * that order. Memory by default (one process); `svc-checkout/server/redis` shares it between processes.
 */
import type { Amount, AttemptNote } from '../../../core/index.js';
export interface CheckoutRecord {
  /** The last attempt whose create the kit forwarded; 0 when the service said the checkout had none. */
  forwarded: number;
  /** The amount each forwarded attempt was made for, by attempt. */
  amounts: Readonly<Record<number, Amount>>;
  /** How many orders of the kit's earlier scheme (`<cart>-2`, …) the checkout has, once looked for. */
  legacy?: number | undefined;
  /** Which payment each attempt is (its terminal, its code, its account's last digits), by attempt, once noted. */
  notes?: Readonly<Record<number, AttemptNote>> | undefined;
}

export interface CheckoutStore {
  read(checkout: string): CheckoutRecord | undefined | Promise<CheckoutRecord | undefined>;
  /**
   * The service just said the checkout has `attempts` attempts (0: no order), and `legacy` orders of the earlier
   * scheme: merged with the record, never below what it says (a create forwarded meanwhile wrote its attempt first).
   */
  seen(checkout: string, attempts: number, legacy: number): void | Promise<void>;
  /**
   * The create of `attempt` is about to be forwarded, for `amount`: noted before it is. The kit forwards a first attempt
   * only for a checkout it believes has no order, so a record that did not count the earlier scheme's orders counts
   * none then (were the first attempt there after all, the service refuses it and the kit looks again). `note`: which
   * payment it is, when the create tells it (a terminal, an account's ending), written with it in one go.
   */
  forwarding(checkout: string, attempt: number, amount: Amount, note?: AttemptNote): void | Promise<void>;
  /**
   * Which payment attempt `attempt` is (src/core/attempt-note.ts), when only the service's answer tells it (a
   * reference code); read when another page of the checkout asks where it stands.
   */
  noted(checkout: string, attempt: number, note: AttemptNote): void | Promise<void>;
}

/** How long a checkout's record lasts after its last write, by default: 30 days. */
export const CHECKOUT_RECORD_TTL_MS = 30 * 86_400_000;
