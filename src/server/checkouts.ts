/**
 * One checkout, one payment (README, "One checkout, one payment"). A checkout is a reference the shop's server
 * decides (a cart's own id) and its attempts, `reference`, `reference-2`, …, each an order of its own at the
 * service. The kit makes attempt n only when the service says every earlier attempt ended unpaid — or, for one
 * still pending, when the payer left it on purpose — and attempts follow one another, so the attempts of a checkout
 * are always 1 to the last. Nothing here is kept by the kit: the service is asked each time.
 */
import {
  attemptReference,
  CALLBACK_CHECKOUT_QUERY,
  errorEnvelope,
  isPaymentStatus,
  isPlainObject,
  isSuccess,
  type CashierStatusData,
  type CheckoutTokenClaims,
  type Envelope,
  type PaymentStatus,
} from '../core/index.js';
import { ServiceError, type ServiceClient } from './service-client.js';
import type { AbortSignalLike } from './transport.js';
import { isAbort } from './http.js';

/** An attempt as the service answers about it. */
export interface Attempt {
  attempt: number;
  reference: string;
  data: CashierStatusData & { status: PaymentStatus };
}

/** What the service says of one attempt: its order, none, or no answer. */
type Found = Attempt | 'none' | 'unknown';

async function attemptAt(client: ServiceClient, checkout: Pick<CheckoutTokenClaims, 'reference' | 'country'>, attempt: number, signal?: AbortSignalLike): Promise<Found> {
  const reference = attemptReference(checkout.reference, attempt);
  let answer: Envelope<CashierStatusData>;
  try {
    answer = await client.send<CashierStatusData>('status', { country: checkout.country, reference }, { signal, retries: 0 });
  } catch (error) {
    if (error instanceof ServiceError || isAbort(error)) return 'unknown';
    throw error;
  }
  const data = isSuccess(answer) && isPlainObject(answer.data) ? answer.data : undefined;
  if (data && isPaymentStatus(data.status)) return { attempt, reference, data: data as Attempt['data'] };
  // The service's "not found" for a reference it never saw; any other refusal says nothing of the order.
  return answer.code === '02006' || (isSuccess(answer) && !data) ? 'none' : 'unknown';
}

const isPaid = (attempt: Attempt) => attempt.data.status === 'SUCCESS';
const isOpen = (attempt: Attempt) => attempt.data.status === 'PENDING' || attempt.data.status === 'INITIAL';

/** Why the kit makes no order for an attempt, and the envelope it answers instead. */
export type AttemptRefusal = { envelope: Envelope; existing?: Attempt };

/**
 * Whether attempt `attempt` of a checkout may be made: `undefined` when it may; otherwise what to answer. Earlier
 * attempts are asked about at once. One paid: that order (`ORDER_EXISTS`), never a second payment. One pending that
 * the payer did not leave (`leaving`, said by the element after "Use another method"): that order. One missing: the
 * attempt is out of order (a hand-made request), refused. No answer from the service: no order either (`50003`).
 */
export async function checkAttempt(
  client: ServiceClient,
  checkout: Pick<CheckoutTokenClaims, 'reference' | 'country'>,
  attempt: number,
  leaving: boolean,
  signal?: AbortSignalLike,
): Promise<AttemptRefusal | undefined> {
  if (attempt <= 1) return undefined;
  const earlier = await Promise.all(Array.from({ length: attempt - 1 }, (_, index) => attemptAt(client, checkout, index + 1, signal)));
  if (earlier.includes('unknown')) return { envelope: errorEnvelope('50003') };
  const found = earlier as (Attempt | 'none')[];
  if (found.includes('none')) {
    return {
      envelope: errorEnvelope('02001', {
        data: { errors: [{ field: 'reference', rule: 'sequence', message: `attempt ${attempt} of this checkout needs attempt ${attempt - 1} first` }] },
      }),
    };
  }
  const attempts = found as Attempt[];
  const paid = attempts.find(isPaid);
  const open = leaving ? undefined : attempts.findLast(isOpen);
  const existing = paid ?? open;
  return existing ? { envelope: { ...errorEnvelope('ORDER_EXISTS'), data: existing.data }, existing } : undefined;
}

/** Where a checkout stands at the service: no attempt yet, one in progress, paid, or every attempt ended unpaid. */
export type CheckoutStanding = 'new' | 'pending' | 'paid' | 'failed' | 'unknown';

export interface CheckoutProgress {
  state: CheckoutStanding;
  /** The attempt the page starts at: the one to show (pending, paid), or the next to make. */
  attempt: number;
  /** That attempt exists: the page finds it before it offers a form. */
  started: boolean;
  /** The order shown, when there is one. */
  order?: { reference: string; orderNo: string; status: PaymentStatus };
}

/**
 * The checkout's attempts, asked about one after another from the first until one the service does not know
 * (attempts follow one another, so that is all of them): a paid one wins, then the last pending one; otherwise the
 * page starts at the next attempt. No answer from the service: the page starts where it would without this
 * (the kit still refuses a second payment when the payer presses Pay).
 */
export async function checkoutProgress(
  client: ServiceClient,
  checkout: Pick<CheckoutTokenClaims, 'reference' | 'country' | 'attempts'>,
  maxAttempts: number,
): Promise<CheckoutProgress> {
  const attempts: Attempt[] = [];
  for (let attempt = 1; attempt <= (checkout.attempts ?? maxAttempts); attempt += 1) {
    const found = await attemptAt(client, checkout, attempt);
    if (found === 'unknown') return { state: 'unknown', attempt: 1, started: false };
    if (found === 'none') break;
    attempts.push(found);
  }
  const shown = attempts.find(isPaid) ?? attempts.findLast(isOpen);
  if (shown) {
    const { reference, orderNo, status } = shown.data;
    return {
      state: isPaid(shown) ? 'paid' : 'pending',
      attempt: shown.attempt,
      started: true,
      order: { reference: reference ?? shown.reference, orderNo: String(orderNo ?? ''), status },
    };
  }
  const next = attempts.length + 1;
  const last = checkout.attempts ?? maxAttempts;
  return { state: attempts.length === 0 ? 'new' : 'failed', attempt: Math.min(next, last), started: false };
}

/** Which checkout and attempt an order is, as the kit made it. */
export interface CheckoutOf {
  /** The checkout's reference: the cart's, the reference of its first attempt. */
  reference: string;
  attempt: number;
  /** Other attempts of the same checkout the service says are paid too (a left attempt paid after all). */
  alsoPaid?: string[];
}

/** The callback address of an attempt: the kit's, with the checkout and attempt in its query. */
export function callbackUrlOf(callbackUrl: string | undefined, checkout: string, attempt: number): string | undefined {
  if (callbackUrl === undefined) return undefined;
  const url = new URL(callbackUrl);
  url.searchParams.set(CALLBACK_CHECKOUT_QUERY.checkout, checkout);
  url.searchParams.set(CALLBACK_CHECKOUT_QUERY.attempt, String(attempt));
  return url.href;
}

/** The checkout a callback's address names, when it is the one of the signed body's reference; otherwise none. */
export function checkoutOfCallback(url: string, reference: string): CheckoutOf | undefined {
  const query = new URL(url).searchParams;
  const checkout = query.get(CALLBACK_CHECKOUT_QUERY.checkout);
  const attempt = Number(query.get(CALLBACK_CHECKOUT_QUERY.attempt));
  if (!checkout || !Number.isSafeInteger(attempt) || attempt < 1) return undefined;
  return attemptReference(checkout, attempt) === reference ? { reference: checkout, attempt } : undefined;
}

/**
 * The other attempts of a checkout the service says are paid, for a payment of one of them: a left attempt paid
 * after all, so that the shop can refund one. Asked one after another from the first, until one the service does
 * not know; an attempt it cannot answer for is not counted.
 */
export async function otherPaidAttempts(client: ServiceClient, checkout: CheckoutOf & { country: string }, maxAttempts: number): Promise<string[]> {
  const paid: string[] = [];
  for (let attempt = 1; attempt <= maxAttempts; attempt += 1) {
    if (attempt === checkout.attempt) continue;
    const found = await attemptAt(client, checkout, attempt);
    if (found === 'none') break;
    if (found !== 'unknown' && isPaid(found)) paid.push(found.reference);
  }
  return paid;
}
