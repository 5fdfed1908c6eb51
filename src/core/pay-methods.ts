// Apart from the other values of the service (status.ts): the element's first frame offers the methods, and takes
// nothing else of them.
/** The payment methods the service offers, spelt exactly as `payMethod` must be. */
export const PAY_METHODS = ['Pos', 'BankAccount', 'ReferenceCode'] as const;
export type PayMethod = (typeof PAY_METHODS)[number];

export function isPayMethod(value: unknown): value is PayMethod {
  return typeof value === 'string' && (PAY_METHODS as readonly string[]).includes(value);
}
