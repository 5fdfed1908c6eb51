/**
 * An order the kit learns of from a status answer rather than from its create's answer — a lookup by reference after a
 * lost answer, a stream's query, `openCheckout`'s or a create's look at a checkout's attempts, another process's order
 * — as reconciliation keeps it (src/server/reconciliation), with the checkout the proof that asked vouches for.
 */
import { isPlainObject, isSuccess, type Amount, type CashierStatusData, type Envelope } from '../../core/index.js';
import { sameAmount, type CheckoutOf } from '../checkouts/walk.js';

/** An order the kit keeps to reconcile: one the service created here and left pending, or one a status answer told of. */
export interface CreatedOrder {
  orderNo: string;
  reference: string;
  country: string;
  amount: { total: number; currency: string };
  expireAt: number | undefined;
  /** Its checkout and attempt, when a checkout token decided it. */
  checkout?: CheckoutOf | undefined;
  /**
   * How the kit learnt of it when it did not make it here: a status answer (a lookup by reference after a lost
   * create answer, a stream's query, another process's order), which also says whether it settled already.
   */
  learnt?: 'pending' | 'settled' | undefined;
}

/** The amount a status answer says the order was made for. */
export function amountOfData(data: CashierStatusData): Amount | undefined {
  const told = data.amount;
  return told && typeof told.currency === 'string' ? { total: Number(told.total), currency: told.currency } : undefined;
}

/** What the proof that asked says of the order it asked about: a checkout token's claims for one of its attempts. */
export interface Vouched {
  reference: string;
  expireAt: number | undefined;
  /** What the checkout was opened for, as its token says. */
  amount?: { total: number; currency: string } | undefined;
  checkout?: { reference: string; attempt: number } | undefined;
}

/**
 * The order a status answer tells of, to keep for reconciliation; undefined when it tells none. Its checkout comes
 * with the amount the token carries only when the service made the order for that amount (or does not say): an attempt
 * made before the cart changed is not vouched for at today's amount.
 */
export function orderLearnt(country: string, answer: Envelope, vouched: Vouched | undefined): CreatedOrder | undefined {
  if (!isSuccess(answer) || !isPlainObject(answer.data)) return undefined;
  const data = answer.data as unknown as CashierStatusData;
  const told = amountOfData(data);
  const amount = told ?? vouched?.amount;
  if (typeof data.orderNo !== 'string' || typeof data.reference !== 'string' || !amount || typeof data.status !== 'string') return undefined;
  const ours = vouched && vouched.reference === data.reference ? vouched : undefined;
  let checkout: CheckoutOf | undefined;
  if (ours?.checkout) {
    const opened = ours.amount && (!told || sameAmount(told, ours.amount)) ? ours.amount : undefined;
    checkout = { ...ours.checkout, ...(opened ? { amount: opened } : {}) };
  }
  return {
    orderNo: data.orderNo,
    reference: data.reference,
    country,
    amount,
    expireAt: ours?.expireAt,
    ...(checkout ? { checkout } : {}),
    learnt: data.status === 'PENDING' ? 'pending' : 'settled',
  };
}
