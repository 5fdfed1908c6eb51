/**
 * What survives a reload or a 3-D Secure round trip, in the environment's storage (sessionStorage in a page):
 * the attempt's reference and the order's public facts (DESIGN.md §6). Never an account number, a birth date,
 * an OTP or a PIN, and contacts only masked.
 */
import type { PayMethod } from '../core/pay-methods.js';
import type { CheckoutConfig } from './config.js';
import type { KeyValueStorage } from './environment.js';
import type { ActiveOrder } from './state.js';
import type { KnownFromCreate } from './transitions.js';

export interface SavedCheckout {
  version: 1;
  /** The reference the attempts are numbered from. */
  base: string;
  attempt: number;
  /** A create was sent for this reference and its answer not yet seen; `known`, what its body told of the order. */
  creating?: { reference: string; payMethod: PayMethod; known?: KnownFromCreate | undefined } | undefined;
  order?: ActiveOrder | undefined;
}

export class SavedCheckoutStore {
  constructor(
    readonly key: string,
    private readonly storage: KeyValueStorage | undefined,
  ) {}

  load(): SavedCheckout | undefined {
    try {
      const text = this.storage?.getItem(this.key);
      if (!text) return undefined;
      const value = JSON.parse(text) as SavedCheckout;
      return value?.version === 1 && typeof value.base === 'string' && Number.isInteger(value.attempt) ? value : undefined;
    } catch {
      return undefined; // storage disabled, or someone else's text
    }
  }

  save(value: SavedCheckout): void {
    try {
      this.storage?.setItem(this.key, JSON.stringify(value));
    } catch {
      // Storage full or disabled: the payment still works, it only cannot be resumed after a reload.
    }
  }

  clear(): void {
    try {
      this.storage?.removeItem(this.key);
    } catch {
      // as above
    }
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
