/**
 * A checkout's state: plain data, kinds and parameters only — never translated text, so that a view words it
 * in its own language at the moment it shows it. Each phase past the form carries its own order, so a step
 * without an order, or a result of no order, cannot be written.
 */
import type { CreatePaymentData, Envelope, NextActionType, NotifyMethod, PayMethod, PaymentStatus, WebPayResult } from '../core/index.js';
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
  /** A bank account order's last characters of the account, as the kit noted them (another page's payment). */
  accountEnding?: string | undefined;
  notifyMethod?: NotifyMethod | undefined;
  maskedEmail?: string | undefined;
  maskedMobile?: string | undefined;
  /** Epoch milliseconds, from the merchant kit's `Svc-Expires-In`. */
  expiresAt?: number | undefined;
  failureCode?: string | undefined;
  failureReason?: string | undefined;
  /** True once the payer went to (or opened) the 3-D Secure page. */
  redirected?: boolean | undefined;
  /** The merchant kit's token for this order's own calls (not a secret beyond this order). */
  token?: string | undefined;
  /** Found by its reference after this page's create got no usable answer: its next step is unknown here. */
  answerLost?: boolean | undefined;
  /** Paid, but not by an order this checkout made (its create was refused as a duplicate). */
  paidBefore?: boolean | undefined;
  /** Found by its reference by a page that did not make it: the service does not say its method. */
  methodUnknown?: boolean | undefined;
  /** A wrong code was sent: the tries the service said were left. */
  triesLeft?: number | undefined;
  /** When "send the code again" may be used (epoch ms), kept with the order so that a reload waits as long. */
  resendAllowedAt?: number | undefined;
}

/**
 * What a create body tells about its order, whatever the answer: the terminal a POS order waits at (its next
 * action is always the swipe), and where a reference code was sent (contacts masked).
 */
export type KnownFromCreate = Pick<ActiveOrder, 'sn' | 'notifyMethod' | 'maskedEmail' | 'maskedMobile'> & { actionType?: 'SWIPE_CARD' };

/**
 * A create sent for `reference` whose answer is not yet seen (lost, or still to come): the form and the search for
 * its order are in this sub-state until an answer says what became of it, so that a retry sends the same reference
 * and a reload looks for it again. `known`: what its body told of the order.
 */
export interface Creating {
  reference: string;
  payMethod: PayMethod;
  known?: KnownFromCreate | undefined;
}

/** Why a pending order is shown without its next step. */
export type WaitReason = 'answer-lost' | 'code-sent' | 'in-progress' | 'status-only';

/**
 * `PAID_BEFORE`: the order of this reference was paid, but not through this checkout. `MISMATCH`: an order of
 * this reference exists for another amount or currency (it is not shown).
 */
export type ResultOutcome = 'SUCCESS' | 'PAID_BEFORE' | 'FAIL' | 'CLOSE' | 'MISMATCH';

export type Phase =
  /** Nothing configured yet. */
  | { kind: 'idle' }
  /** A setting is missing or wrong; `setting` names it (an attribute, or `payParams`). */
  | { kind: 'config-error'; setting: string }
  /** `creating`: a create was sent and its answer not yet seen (Creating). */
  | { kind: 'form'; creating?: Creating | undefined }
  /** A create's answer was lost (a reload mid-request, a status-only page): its order is being looked for. */
  | { kind: 'looking-up'; creating?: Creating | undefined }
  | { kind: 'action'; order: ActiveOrder & { actionType: ActionType } }
  | { kind: 'waiting'; order: ActiveOrder; reason: WaitReason }
  | { kind: 'result'; outcome: Exclude<ResultOutcome, 'MISMATCH'>; order: ActiveOrder }
  | { kind: 'result'; outcome: 'MISMATCH' };

/**
 * What the payer is told, as a kind and its parameters: a view words it (`Translation` in the element).
 * `merchant` carries the shop's own words (an `OrderRejection`), shown as they are.
 */
export type Message =
  /** No answer at all: the request failed (offline, refused on the way). */
  | { kind: 'network' }
  /** The shop's server took longer than the element waits. */
  | { kind: 'timeout' }
  /** The shop's server answered, but not with a payment answer (5xx, a page that is not JSON). */
  | { kind: 'shop-error' }
  /** The endpoint is not there (404): the page points at the wrong address, a setting of the shop. */
  | { kind: 'not-found' }
  /** The isolated frame that holds the payer's fields did not load (not served, or refused by its policy). */
  | { kind: 'fields-unavailable' }
  /** The isolated frame's call got no answer while the page's own call to the kit did: the shop's set-up, not the network. */
  | { kind: 'fields-refused' }
  | { kind: 'generic' }
  | { kind: 'service' }
  /** Refused for something only the shop can mend (its settings, its account at the service): contact the shop. */
  | { kind: 'unavailable' }
  | { kind: 'checkout-expired' }
  | { kind: 'checkout-refused' }
  | { kind: 'too-many'; seconds: number }
  | { kind: 'merchant'; text: string }
  | { kind: 'limit' }
  | { kind: 'state' }
  | { kind: 'redirect-blocked' }
  | { kind: 'answer-lost' }
  /** `accountEnding`: the bank account's last characters, when another page's payment is from one. */
  | { kind: 'in-progress'; accountEnding?: string | undefined }
  | { kind: 'code-sent'; notifyMethod: NotifyMethod; email: string; mobile: string }
  | { kind: 'status-unknown' }
  | { kind: 'resent' }
  | { kind: 'copied' }
  | { kind: 'copy-failed' }
  /** An order of this checkout the payer left while it was pending was paid after all: the checkout is paid. */
  | { kind: 'left-paid' }
  /** That order was paid, and so was the one shown: paid twice (the shop refunds one). */
  | { kind: 'paid-twice' };

/** What is said aloud to screen reader users as the payment moves (a view words these too). */
export type Announcement =
  | Message
  | { kind: 'processing' }
  | { kind: 'form-errors'; count: number }
  | { kind: 'step'; actionType: ActionType }
  | { kind: 'status'; status: PaymentStatus }
  | { kind: 'result'; outcome: ResultOutcome };

/** A field's error: the broken rule (src/core's rule names), and the shop's own words for rule `merchant`. */
export interface FieldError {
  rule: string;
  text?: string;
  /** A wrong code: the tries the service says are left. */
  left?: number;
}

export interface CheckoutState {
  phase: Phase;
  /** The methods offered, in order, and the one chosen. */
  methods: readonly PayMethod[];
  method: PayMethod;
  amount: { total: number; currency: string } | undefined;
  merchantName: string;
  productName: string;
  /** The shop's reference of the order (its own number, which the payer reads first), when the shop gave one. */
  reference: string | undefined;
  /** The payer's values per method, as typed. */
  values: Readonly<Record<PayMethod, Readonly<Partial<Record<FieldName, string>>>>>;
  /** Errors at fields that have been visited or submitted. */
  errors: Readonly<Partial<Record<FieldName, FieldError>>>;
  /** About the whole form or step. */
  alert: Message | undefined;
  /** A polite, passing message ("A new code is on its way"). */
  notice: Message | undefined;
  /** A request the payer is waiting on (a create, a code): nothing else may be sent meanwhile. */
  busy: boolean;
  /** Seconds before "send the code again" may be used. */
  resendWait: number;
  redirectMode: 'same-window' | 'new-window';
  redirectBlocked: boolean;
  /** Increases each time the payer submits a form, so that a view moves focus to the first invalid field. */
  submitCount: number;
  /** The POS terminal the shop named (the cashier knows it): the payer is not asked for it. */
  terminal: string | undefined;
  /**
   * Where the isolated fields' frame is served (the endpoint, docs/isolated-fields.md): the bank account details and
   * the codes are typed there. Undefined when the shop turned isolation off (`isolated: false`): then in the page.
   */
  isolatedAt: string | undefined;
}

export interface ActionDetail {
  /** The next action, or `REFERENCE_CODE` when the payer pays a reference code elsewhere. */
  actionType: ActionType;
  orderNo: string;
  reference: string;
  redirectUrl?: string;
  referenceCode?: string;
}

export interface ErrorDetail {
  /** A service code (`50003`, `02001`, …) or the element's own (`NETWORK`, `TIMEOUT`, `HTTP`, `CONFIG`, `UNLOADED`, …: `CLIENT_ERROR_CODES`). */
  code: string;
  message: string;
  /** Whether the same action may work if the payer tries it again. */
  retryable: boolean;
}

export interface ExpiredDetail {
  orderNo: string;
  reference: string;
}

export interface ReadyDetail {
  methods: PayMethod[];
  /** True when the checkout picked up an order in progress (a reload, or the return from 3-D Secure). */
  resumed: boolean;
}

export interface ChangeDetail {
  payMethod: PayMethod;
  /** Whether the payer's part of the form is valid, so that `submit()` would send it. */
  complete: boolean;
}

/** The detail of a session event, by its type: the element's DOM events carry these (src/element/events). */
export type CheckoutEventDetail<T extends CheckoutEvent['type']> = Extract<CheckoutEvent, { type: T }>['detail'];

export interface RedirectDetail {
  orderNo: string;
  reference: string;
  redirectUrl: string;
}

/**
 * Today's events of the element, as plain data (the element dispatches each as a DOM event). `before-redirect`
 * comes before the payer leaves for 3-D Secure: `waitUntil(promise)` holds the redirect until the promise
 * settles (a rejection stays), `preventDefault()` stays; the payer can then go with `openRedirect()`.
 */
export type CheckoutEvent =
  | { type: 'http-response'; detail: Envelope<CreatePaymentData> }
  | { type: 'pay-result'; detail: WebPayResult }
  | { type: 'action'; detail: ActionDetail }
  | { type: 'expired'; detail: ExpiredDetail }
  | { type: 'error'; detail: ErrorDetail }
  | { type: 'ready'; detail: ReadyDetail }
  | { type: 'change'; detail: ChangeDetail }
  | { type: 'announce'; detail: Announcement }
  | { type: 'before-redirect'; detail: RedirectDetail; waitUntil(promise: Promise<unknown>): void; preventDefault(): void };

/** The order of a phase, when it has one. */
export function orderOf(phase: Phase): ActiveOrder | undefined {
  return 'order' in phase ? phase.order : undefined;
}

/** The create of a phase whose answer is not yet seen, when it is in that sub-state. */
export function creatingOf(phase: Phase): Creating | undefined {
  return 'creating' in phase ? phase.creating : undefined;
}
