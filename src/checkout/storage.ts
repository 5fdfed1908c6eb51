/**
 * What survives a reload or a 3-D Secure round trip, in the environment's storage (sessionStorage in a page):
 * the attempt's reference and the order's public facts (DESIGN.md §6). Never an account number, a birth date,
 * an OTP or a PIN, and contacts only masked. Read here (the first frame reads it too); written by the session, from
 * its model (`savedOf`), in one place.
 */
import type { CheckoutConfig } from './config.js';
import type { KeyValueStorage } from './environment.js';
import type { ActiveOrder, Creating } from './state.js';

export interface SavedCheckout {
  version: 1;
  /** The reference the attempts are numbered from. */
  base: string;
  attempt: number;
  /** A create was sent for this reference and its answer not yet seen; `known`, what its body told of the order. */
  creating?: Creating | undefined;
  /** The payer left a pending order for this attempt ("Use another method"): its create says so to the kit. */
  left?: true | undefined;
  /** The references of orders left while pending: watched, since one may still be paid. */
  leftOrders?: string[] | undefined;
  order?: ActiveOrder | undefined;
}

/** The checkout kept under `key`, if any (and if it reads: storage may be disabled, or hold someone else's text). */
export function loadSaved(key: string, storage: KeyValueStorage | undefined): SavedCheckout | undefined {
  try {
    const text = storage?.getItem(key);
    if (!text) return undefined;
    const value = JSON.parse(text) as SavedCheckout;
    return value?.version === 1 && typeof value.base === 'string' && Number.isInteger(value.attempt) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Where a checkout keeps what survives a reload: per merchant and reference, else per page. */
export function storageKeyOf(config: Pick<CheckoutConfig, 'merchantId' | 'reference'>, pageUrl: string): string {
  let page = '';
  try {
    page = new URL(pageUrl).pathname;
  } catch {
    page = '';
  }
  return `svc-checkout:${config.merchantId ?? ''}:${config.reference ?? `page:${page}`}`;
}
