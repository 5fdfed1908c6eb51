/**
 * The state `<svc-checkout>` shares with its parts through @lit/context, and the actions the parts may ask
 * the element to take. The element owns both; parts only render and ask.
 */
import { createContext } from '@lit/context';
import type { NextActionType, NotifyMethod, PayMethod, PaymentStatus } from '../core/index.js';
import type { LocalizeController } from './controllers/localize.js';
import type { FieldName } from './fields.js';

export type ActionType = NextActionType | 'REFERENCE_CODE';

/** The order being paid, as far as the browser knows it. Never holds an account number, a birth date or a code. */
export interface ActiveOrder {
  reference: string;
  orderNo: string;
  payMethod: PayMethod;
  status: PaymentStatus;
  country: string;
  amount?: { total: number; currency: string } | undefined;
  actionType?: ActionType | undefined;
  redirectUrl?: string | undefined;
  referenceCode?: string | undefined;
  sn?: string | undefined;
  notifyMethod?: NotifyMethod | undefined;
  maskedEmail?: string | undefined;
  maskedMobile?: string | undefined;
  /** Epoch milliseconds, from the merchant kit's `Svc-Expires-In`. */
  expiresAt?: number | undefined;
  failureCode?: string | undefined;
  failureReason?: string | undefined;
  /** True once the payer went to (or opened) the 3-D Secure page. */
  redirected?: boolean | undefined;
  /** The merchant kit's token for this order's OTP, PIN and resend calls (not a secret beyond this order). */
  token?: string | undefined;
  /** Found by its reference after this page's create got no usable answer: its next step is unknown here. */
  answerLost?: boolean | undefined;
  /** Paid, but not by an order this checkout made (its create was refused as a duplicate). */
  paidBefore?: boolean | undefined;
}

export type Step =
  | { kind: 'config-error'; setting: string }
  | { kind: 'form' }
  | { kind: 'action' }
  | { kind: 'waiting' }
  | { kind: 'result'; outcome: ResultOutcome };

/**
 * `PAID_BEFORE`: the order of this reference was paid, but not through this checkout. `MISMATCH`: an order of
 * this reference exists for another amount or currency.
 */
export type ResultOutcome = 'SUCCESS' | 'PAID_BEFORE' | 'FAIL' | 'CLOSE' | 'MISMATCH';

export interface CheckoutState {
  step: Step;
  methods: readonly PayMethod[];
  method: PayMethod;
  amount: { total: number; currency: string } | undefined;
  merchantName: string;
  productName: string;
  /** The payer's values per method, as typed. */
  values: Readonly<Record<PayMethod, Readonly<Partial<Record<FieldName, string>>>>>;
  /** Localised messages at fields that have been visited or submitted. */
  errors: Readonly<Partial<Record<FieldName, string>>>;
  /** A message about the whole form or step. */
  alert: string | undefined;
  busy: boolean;
  order: ActiveOrder | undefined;
  /** A polite, passing message ("A new code is on its way"). */
  notice: string | undefined;
  /** Seconds before "send the code again" may be used. */
  resendWait: number;
  redirectMode: 'same-window' | 'new-window';
  redirectBlocked: boolean;
  /** Increases each time the payer submits a form, so that parts move focus to the first invalid field. */
  submitCount: number;
}

export interface CheckoutActions {
  selectMethod(method: PayMethod): void;
  input(name: FieldName, value: string): void;
  blur(name: FieldName): void;
  submit(): Promise<void>;
  /** Resolves to whether the code was sent (one refused before sending is kept, to be corrected). */
  submitCode(code: string): Promise<boolean>;
  resendOtp(): Promise<void>;
  openRedirect(): void;
  copyReferenceCode(): Promise<void>;
  retry(): void;
}

export interface CheckoutContext {
  state: CheckoutState;
  actions: CheckoutActions;
  localize: LocalizeController;
}

export const checkoutContext = createContext<CheckoutContext>(Symbol('svc-checkout'));
