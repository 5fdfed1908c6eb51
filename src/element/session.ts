/**
 * What survives a reload or a 3-D Secure round trip, in sessionStorage: the attempt's reference and the
 * order's public facts (DESIGN.md §6). Never an account number, a birth date, an OTP or a PIN, and contacts
 * only masked.
 */
import type { PayMethod } from '../core/index.js';
import type { ActiveOrder } from './state.js';

export interface SavedCheckout {
  version: 1;
  /** The reference the attempts are numbered from. */
  base: string;
  attempt: number;
  /** A create was sent for this reference and its answer not yet seen. */
  creating?: { reference: string; payMethod: PayMethod } | undefined;
  order?: ActiveOrder | undefined;
}

export class CheckoutSession {
  constructor(readonly key: string) {}

  load(): SavedCheckout | undefined {
    try {
      const text = sessionStorage.getItem(this.key);
      if (!text) return undefined;
      const value = JSON.parse(text) as SavedCheckout;
      return value?.version === 1 && typeof value.base === 'string' && Number.isInteger(value.attempt) ? value : undefined;
    } catch {
      return undefined; // storage disabled, or someone else's text
    }
  }

  save(value: SavedCheckout): void {
    try {
      sessionStorage.setItem(this.key, JSON.stringify(value));
    } catch {
      // Storage full or disabled: the payment still works, it only cannot be resumed after a reload.
    }
  }

  clear(): void {
    try {
      sessionStorage.removeItem(this.key);
    } catch {
      // as above
    }
  }
}

/** m•••@example.com */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@');
  if (at <= 0) return '•••';
  return `${email.slice(0, 1)}•••${email.slice(at)}`;
}

/** •••• 4567 */
export function maskMobile(mobile: string): string {
  const digits = mobile.replace(/\D/g, '');
  return `•••• ${digits.slice(-4)}`;
}
