/** A new cart of the coffee shop the kit's tests sell from: its own reference each time, the rest as given. */
import type { CheckoutOrder } from '../../src/server/index.js';

let serial = 0;

/** A cart of 125.00 EGP of coffee beans, `reference` a new one starting with `prefix`; `extra` on top. */
export function newCart<T extends CheckoutOrder = CheckoutOrder>(prefix: string, extra: Partial<T> = {}): T {
  serial += 1;
  return {
    reference: `${prefix}-${Date.now().toString(36)}-${serial}`,
    amount: { total: 12_500, currency: 'EGP' },
    country: 'EG',
    product: { name: 'Coffee beans', description: 'Ethiopian, 250 g' },
    ...extra,
  } as T;
}
