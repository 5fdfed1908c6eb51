/**
 * A checkout is one cart, one amount, one sequence (docs/one-payment.md). Its identity is the shop's cart id (the
 * checkout's reference) with the amount and currency its token carries; its attempts are orders of their own at the
 * service, `<cart>`, `<cart>--2`, `<cart>--3`, … (src/core/tokens.ts), a space no shop's id can reach. The kit, not
 * a tab, decides which attempt a create makes: the next one after every attempt the service knows, and none while an
 * attempt at this amount is paid or pending (unless the payer left it), nor once the cart was paid at another amount.
 *
 * What the service says is asked here, one status query per attempt; a record of the kit's (src/server/stores/checkouts) spares
 * the queries it can prove needless.
 */
import {
  attemptReference,
  CALLBACK_CHECKOUT_QUERY,
  checkoutOfReference,
  isPaymentStatus,
  isPlainObject,
  isSuccess,
  legacyAttemptReference,
  MAX_ATTEMPTS,
  type Amount,
  type CashierStatusData,
  type Envelope,
  type PaymentStatus,
} from '../../core/index.js';
import type { CheckoutRecord, CheckoutStore } from '../stores/checkouts/port.js';
import { StoreUnavailableError } from '../stores/shared.js';
import { constantTimeEqual } from '../runtime/signature.js';
import { callbackCheckoutTag } from '../tokens/tokens.js';

/** An attempt as the service answers about it. */
export interface Attempt {
  attempt: number;
  reference: string;
  /** An order of the kit's earlier scheme (`<cart>-2`): found, never made again. */
  legacy?: true;
  data: CashierStatusData & { status: PaymentStatus };
}

/** One status query of the walk, by reference: the service's answer, or `throttled` when a limit refused it. */
export type AskStatus = (reference: string) => Promise<Envelope<CashierStatusData> | 'throttled'>;

/** What the service says of one reference: its order, none, no answer, or a limit refused to ask. */
type Found = Attempt | 'none' | 'unknown' | 'throttled';

async function attemptAt(ask: AskStatus, reference: string, attempt: number, legacy = false): Promise<Found> {
  const answer = await ask(reference);
  if (answer === 'throttled') return 'throttled';
  const data = isSuccess(answer) && isPlainObject(answer.data) ? answer.data : undefined;
  if (data && isPaymentStatus(data.status)) return { attempt, reference, ...(legacy ? { legacy: true as const } : {}), data: data as Attempt['data'] };
  // The service's "not found" for a reference it never saw; any other refusal says nothing of the order.
  return answer.code === '02006' || (isSuccess(answer) && !data) ? 'none' : 'unknown';
}

const isPaid = (attempt: Attempt) => attempt.data.status === 'SUCCESS';
const isOpen = (attempt: Attempt) => attempt.data.status === 'PENDING' || attempt.data.status === 'INITIAL';

/** The checkout's attempts, as the service knows them. */
export interface CheckoutWalk {
  /** In the order they were made: the first, the earlier scheme's, then `--2` and after. */
  attempts: Attempt[];
  /** The number of the attempt a create makes next. */
  next: number;
  /** The record it started from (what each attempt was made for), when there was one. */
  record: CheckoutRecord | undefined;
}

export type WalkResult = CheckoutWalk | 'unknown' | 'throttled';

export interface WalkOptions {
  ask: AskStatus;
  store: CheckoutStore;
  /** The attempt the caller expects next (the element's): asked about at once with those before it. */
  hint?: number | undefined;
  /**
   * For a create: with no record and no attempt expected after the first, the first is made without asking (the
   * service refuses a reference it has, and the kit then walks).
   */
  guessFirst?: boolean;
  /** Look for the earlier scheme's orders whatever the record says (the first attempt was found where none was thought). */
  recount?: boolean;
  /** Told when the store cannot be read or written: the walk asks the service instead. */
  warn(message: string): void;
}

/**
 * Every attempt of a checkout the service knows. Attempts follow one another, so the walk asks from the first until
 * one the service does not know; those the record proves missing are not asked (a record that says none was made:
 * nothing is asked). No answer, or a limit: the walk says so, and decides nothing.
 */
export async function walkCheckout(checkout: string, options: WalkOptions): Promise<WalkResult> {
  const { ask, store } = options;
  const record = await Promise.resolve()
    .then(() => store.read(checkout))
    .catch((error: unknown) => {
      if (!(error instanceof StoreUnavailableError)) options.warn(`svc-checkout: the checkout store could not be read: ${String(error)}`);
      return undefined;
    });
  if (record?.forwarded === 0 || (!record && options.guessFirst && (options.hint ?? 1) <= 1)) return { attempts: [], next: 1, record };
  // Attempts after the record's last were never forwarded: not asked about.
  const known = record?.forwarded;
  const first = Math.min(known ?? Math.max(options.hint ?? 1, 1), MAX_ATTEMPTS);
  const batch = await Promise.all(Array.from({ length: first }, (_, index) => attemptAt(ask, attemptReference(checkout, index + 1), index + 1)));
  const attempts: Attempt[] = [];
  for (const found of batch) {
    if (found === 'unknown' || found === 'throttled') return found;
    if (found === 'none') break;
    attempts.push(found);
  }
  if (attempts.length === first && (known === undefined || first < known)) {
    for (let attempt = first + 1; attempt <= MAX_ATTEMPTS; attempt += 1) {
      const found = await attemptAt(ask, attemptReference(checkout, attempt), attempt);
      if (found === 'unknown' || found === 'throttled') return found;
      if (found === 'none') break;
      attempts.push(found);
    }
  }
  const next = attempts.length + 1;
  if (attempts.length === 0) {
    await note(options, () => store.seen(checkout, 0, 0));
    return { attempts, next, record };
  }
  const legacy = await legacyAttempts(checkout, options.recount ? undefined : record, options);
  if (typeof legacy === 'string') return legacy;
  if (!record || record.forwarded < attempts.length || record.legacy !== legacy.length) {
    await note(options, () => store.seen(checkout, attempts.length, legacy.length));
  }
  return { attempts: [attempts[0]!, ...legacy, ...attempts.slice(1)], next, record };
}

/**
 * The orders of the kit's earlier scheme (`<cart>-2`, `<cart>-3`, … made one after another after the first ended
 * unpaid): looked for once per record, then asked about by the count it keeps. A reference that is a checkout of its
 * own (its record says so) is that checkout's, not this one's.
 */
async function legacyAttempts(checkout: string, record: CheckoutRecord | undefined, options: WalkOptions): Promise<Attempt[] | 'unknown' | 'throttled'> {
  const found: Attempt[] = [];
  const counted = record?.legacy;
  for (let attempt = 2; attempt <= (counted === undefined ? MAX_ATTEMPTS : counted + 1); attempt += 1) {
    const reference = legacyAttemptReference(checkout, attempt);
    if (counted === undefined && (await Promise.resolve(options.store.read(reference)).catch(() => undefined))) break;
    const order = await attemptAt(options.ask, reference, attempt, true);
    if (order === 'unknown' || order === 'throttled') return order;
    if (order === 'none') break;
    found.push(order);
  }
  return found;
}

async function note(options: WalkOptions, write: () => void | Promise<void>): Promise<void> {
  await Promise.resolve()
    .then(write)
    .catch((error: unknown) => {
      if (!(error instanceof StoreUnavailableError)) options.warn(`svc-checkout: the checkout store could not be written: ${String(error)}`);
    });
}

/** Where a checkout stands at the service, for the amount its token carries. */
export type CheckoutStanding = 'new' | 'pending' | 'paid' | 'changed' | 'failed' | 'unknown';

/** What each attempt was made for: the service's word, else the kit's record of it; undefined when neither says. */
function amountOf(attempt: Attempt, record: CheckoutRecord | undefined): Amount | undefined {
  const told = attempt.data.amount;
  if (told && Number.isSafeInteger(Number(told.total)) && typeof told.currency === 'string') return { total: Number(told.total), currency: told.currency };
  return attempt.legacy ? undefined : record?.amounts[attempt.attempt];
}

export const sameAmount = (a: Amount, b: Amount): boolean => a.total === b.total && a.currency === b.currency;

export interface Judged {
  state: Exclude<CheckoutStanding, 'unknown'>;
  /** The attempt the checkout shows: paid (at this amount, or at another: `changed`), or pending. */
  shown?: Attempt | undefined;
  next: number;
}

/**
 * The checkout as its token's amount sees it: an attempt paid at this amount is its payment (`paid`); one paid at
 * another amount means the cart changed after it was paid (`changed`: no second payment, the shop is told); the last
 * attempt pending at this amount is in progress (`pending`) unless the payer left it. An attempt pending at another
 * amount is not this checkout's payment: the next attempt may be made (if it is paid after all, the shop hears it as a
 * second payment, `alsoPaid`).
 */
export function judge(walk: CheckoutWalk, amount: Amount, leaving: boolean): Judged {
  const same = (attempt: Attempt) => {
    const made = amountOf(attempt, walk.record);
    return made === undefined || sameAmount(made, amount);
  };
  const paid = walk.attempts.find((attempt) => isPaid(attempt) && same(attempt));
  if (paid) return { state: 'paid', shown: paid, next: walk.next };
  const changed = walk.attempts.find(isPaid);
  if (changed) return { state: 'changed', shown: changed, next: walk.next };
  const open = leaving ? undefined : walk.attempts.findLast((attempt) => isOpen(attempt) && same(attempt));
  if (open) return { state: 'pending', shown: open, next: walk.next };
  return { state: walk.attempts.length === 0 ? 'new' : 'failed', next: walk.next };
}

/** Which checkout and attempt an order is, as the kit made it. */
export interface CheckoutOf {
  /** The checkout's reference: the cart's, the reference of its first attempt. */
  reference: string;
  attempt: number;
  /**
   * The amount the checkout was opened for when this attempt was made (its token's), as the kit vouches for it: from
   * the callback address it signed, its reconciliation records or its checkout store. Compare it with the amount paid
   * (`event.body.amount`) and with the cart as it is now before you ship. Absent when the kit cannot vouch for it
   * (an order made before it kept it): treat such a payment as one to look at by hand.
   */
  amount?: Amount | undefined;
  /** Other attempts of the same checkout the service says are paid too (a left attempt paid after all). */
  alsoPaid?: string[];
}

/** What the kit's callback address carries of an attempt, beside the checkout and attempt. */
const CALLBACK_AMOUNT_QUERY = { total: 'amount', currency: 'currency', tag: 'tag' } as const;

const encoder = new TextEncoder();
const sameText = (a: string, b: string) => constantTimeEqual(encoder.encode(a), encoder.encode(b));

const vouched = (checkout: string, attempt: number, amount: Amount) => `${checkout}\n${attempt}\n${amount.total}\n${amount.currency}`;

/**
 * The callback address of an attempt: the kit's, with the checkout, the attempt and the amount it was opened for in
 * its query, and the kit's own tag over them (the service signs only the body).
 */
export async function callbackUrlOf(callbackUrl: string | undefined, privateKey: string, checkout: string, attempt: number, amount: Amount): Promise<string | undefined> {
  if (callbackUrl === undefined) return undefined;
  const url = new URL(callbackUrl);
  url.searchParams.set(CALLBACK_CHECKOUT_QUERY.checkout, checkout);
  url.searchParams.set(CALLBACK_CHECKOUT_QUERY.attempt, String(attempt));
  url.searchParams.set(CALLBACK_AMOUNT_QUERY.total, String(amount.total));
  url.searchParams.set(CALLBACK_AMOUNT_QUERY.currency, amount.currency);
  url.searchParams.set(CALLBACK_AMOUNT_QUERY.tag, await callbackCheckoutTag(privateKey, vouched(checkout, attempt, amount)));
  return url.href;
}

/**
 * The checkout a callback's order is, when the kit made it from a checkout token: its address names the checkout and
 * attempt of the signed body's reference, with the amount it was opened for under the kit's tag (the service signs
 * only the body). An address of the earlier scheme (`?checkout=cart&attempt=2`, no amount) is believed for the
 * checkout when it names the body's reference. A callback to the merchant's webhook carries none of it: the kit's
 * checkout store says what the attempt was made for, when it has it.
 */
export async function checkoutOfCallback(url: string, reference: string, privateKey: string, store: CheckoutStore): Promise<CheckoutOf | undefined> {
  const query = new URL(url).searchParams;
  const { base, attempt } = checkoutOfReference(reference);
  const named = query.get(CALLBACK_CHECKOUT_QUERY.checkout);
  const namedAttempt = Number(query.get(CALLBACK_CHECKOUT_QUERY.attempt));
  if (named !== null && named !== base && Number.isSafeInteger(namedAttempt) && namedAttempt >= 2 && legacyAttemptReference(named, namedAttempt) === reference) {
    return { reference: named, attempt: namedAttempt };
  }
  if (named === base && namedAttempt === attempt) {
    const total = Number(query.get(CALLBACK_AMOUNT_QUERY.total));
    const currency = query.get(CALLBACK_AMOUNT_QUERY.currency);
    const tag = query.get(CALLBACK_AMOUNT_QUERY.tag);
    const amount = Number.isSafeInteger(total) && currency ? { total, currency } : undefined;
    if (amount && tag && sameText(tag, await callbackCheckoutTag(privateKey, vouched(base, attempt, amount)))) return { reference: base, attempt, amount };
  }
  return (await checkoutOfRecord(reference, store)) ?? (named === base && namedAttempt === attempt ? { reference: base, attempt } : undefined);
}

/**
 * The checkout an order's reference is an attempt of, as the kit's checkout store recorded it when it forwarded the
 * attempt (what the attempt was made for); undefined when the store has no such record (or cannot be read).
 */
export async function checkoutOfRecord(reference: string, store: CheckoutStore): Promise<CheckoutOf | undefined> {
  const { base, attempt } = checkoutOfReference(reference);
  const record = await Promise.resolve()
    .then(() => store.read(base))
    .catch(() => undefined);
  const made = record?.amounts[attempt];
  return made ? { reference: base, attempt, amount: made } : undefined;
}

/**
 * The other attempts of a checkout the service says are paid, for a payment of one of them: a left attempt paid
 * after all, so that the shop can refund one. An attempt the service cannot answer for is not counted.
 */
export async function otherPaidAttempts(ask: AskStatus, store: CheckoutStore, checkout: CheckoutOf, paidReference: string, warn: (message: string) => void): Promise<string[]> {
  // The kit's record proves the checkout has one order, the one paid: nothing to ask.
  const record = await Promise.resolve()
    .then(() => store.read(checkout.reference))
    .catch(() => undefined);
  if (record && record.forwarded <= 1 && record.legacy === 0 && checkout.attempt === 1) return [];
  const walk = await walkCheckout(checkout.reference, { ask, store, hint: checkout.attempt, warn });
  if (typeof walk === 'string') return [];
  return walk.attempts.filter((attempt) => isPaid(attempt) && attempt.reference !== paidReference).map((attempt) => attempt.reference);
}

export interface CheckoutProgress {
  /**
   * `new`: no attempt yet; `pending`: an attempt at this amount in progress; `paid`: an attempt at this amount paid;
   * `changed`: the cart was paid at another amount (`order.amount`): no payment for this amount is taken; `failed`: no
   * attempt at this amount is paid or in progress (every attempt ended unpaid, or was made for another amount);
   * `unknown`: the service did not answer, or a limit of the kit refused to ask it.
   */
  state: CheckoutStanding;
  /** The attempt the page starts at: the one to show (pending, paid, changed), or the next to make. */
  attempt: number;
  /** That attempt exists: the page finds it before it offers a form. */
  started: boolean;
  /** The order shown, when there is one: its amount is what it was made for (what was paid, when paid). */
  order?: { reference: string; orderNo: string; status: PaymentStatus; amount?: Amount | undefined };
}

/** The progress a judged checkout shows, for the page's token: where it starts, and the order it shows first. */
export function progressOf(judged: Judged, attempts: number, record: CheckoutRecord | undefined): CheckoutProgress & { startedReference?: string } {
  const shown = judged.shown;
  if (!shown) return { state: judged.state, attempt: Math.min(judged.next, attempts), started: false };
  const amount = amountOf(shown, record);
  return {
    state: judged.state,
    attempt: shown.legacy ? 1 : Math.min(shown.attempt, attempts),
    started: true,
    ...(shown.legacy ? { startedReference: shown.reference } : {}),
    order: { reference: shown.data.reference ?? shown.reference, orderNo: String(shown.data.orderNo ?? ''), status: shown.data.status, ...(amount ? { amount } : {}) },
  };
}
