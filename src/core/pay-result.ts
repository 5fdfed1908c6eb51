// Apart from the other values of the service (status.ts): the element exports it with its first frame.
import type { PaymentStatus } from './status.js';

/** The SDK's `PayResultStatus` constants, mapped to the wire values of `orderStatus`. */
export const PayResultStatus = {
  initial: 'INITIAL',
  pending: 'PENDING',
  success: 'SUCCESS',
  fail: 'FAIL',
  close: 'CLOSE',
} as const satisfies Record<string, PaymentStatus>;
