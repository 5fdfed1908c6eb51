/**
 * The checkout machine's vocabulary: its model (the public `CheckoutState` and what the machine keeps beside it),
 * the events it takes and the effects it asks for. machine.ts is the graph over them; session.ts runs the effects.
 * What survives a reload is computed here from the model (`savedOf`), never kept in step by hand.
 */
import { attemptReference, isPaymentStatus, isSuccess, type CashierStatusData, type CreatePaymentRequest, type Violation } from '../core/index.js';
import type { PayMethod } from '../core/pay-methods.js';
import type { CheckoutConfig, CheckoutSettings } from './config.js';
import type { EndpointAnswer, Failure } from './endpoint-client.js';
import type { FieldName } from './fields.js';
import type { FormEvent } from './form.js';
import type { IsolatedCall, IsolatedReport } from './isolated.js';
import type { ActiveOrder, CheckoutEvent, CheckoutState, FieldError, KnownFromCreate, Message, RedirectDetail } from './state.js';
import { creatingOf, orderOf } from './state.js';
import type { SavedCheckout } from './storage.js';
import type { StatusData } from './transitions.js';
import type { StreamStatus } from '../core/stream.js';

/** What a failed create leaves to say when its order turns out never to have been made. */
export type Unanswered = { envelope: CreateEnvelope } | { failure: Failure };
type CreateEnvelope = EndpointAnswer<unknown>['envelope'];

/** The one request the payer waits on; `id` tells its answer from a stale one's. */
export type Request =
  /** `isolated`: sent by the isolated frame, from its own opaque origin. */
  | { id: number; kind: 'create'; reference: string; method: PayMethod; sent: Record<string, unknown>; retried: boolean; isolated?: boolean | undefined }
  /**
   * A create whose answer was lost or refused: its reference's status decides. `known`: what its body told;
   * `lost`: this page sent it and lost the answer; `duplicate`: refused as one; `report`: what to say if no such
   * order exists.
   */
  | {
      id: number;
      kind: 'lookup';
      reference: string;
      method: PayMethod;
      known?: KnownFromCreate | undefined;
      lost?: boolean | undefined;
      /** Named by the kit in the checkout token: its method is the order's own, not the form's. */
      named?: boolean | undefined;
      duplicate?: boolean | undefined;
      retried?: boolean | undefined;
      report?: Unanswered | undefined;
      /** The lost create was the isolated frame's: this lookup is the page's own call to the same kit. */
      throughFrame?: boolean | undefined;
      /**
       * Asked behind the form (another device's order, which the kit's record names): the form stays as it is and
       * may still be sent, and only an order found changes what the payer sees.
       */
      quiet?: true | undefined;
    }
  /** A status-only page looks for the latest attempt the service knows, one reference after another. */
  | { id: number; kind: 'latest'; attempt: number; found?: { data: CashierStatusData; reference: string } | undefined }
  | { id: number; kind: 'code'; field: 'otp' | 'pin' }
  | { id: number; kind: 'resend' };

/** A lookup behind the form (`quiet`): the payer waits on nothing, and the form may be sent meanwhile. */
/** How long an attempt a lookup behind the form found empty is not asked about again. */
export const ELSEWHERE_RECHECK_MS = 30_000;

export const isQuiet = (request: Request | undefined): boolean => request?.kind === 'lookup' && request.quiet === true;

/** The create body the form would send now, checked once per change of what it is built from. */
export interface FormCheck {
  /** What it was built from, compared by identity. */
  inputs: readonly unknown[];
  /** The payer's violations by form field (the first of each). */
  payer: Readonly<Partial<Record<FieldName, Violation>>>;
  /** Every violation, in the validator's order (an isolated frame's last). */
  all: readonly Violation[];
  /** The method's fields an isolated frame holds: the create goes through it, which adds their values. */
  isolated: readonly FieldName[];
  /** The create request, when nothing of the payer's is wrong; without the isolated fields' values. */
  value: CreatePaymentRequest | undefined;
  /** The create request less the isolated fields, when nothing else is wrong: what a ticket is asked for. */
  withoutIsolated: CreatePaymentRequest | undefined;
}

export interface Model {
  /** What subscribers read. */
  state: CheckoutState;
  settings: CheckoutSettings;
  config: CheckoutConfig | undefined;
  /** A setting at fault (refused by the host, or unreadable). */
  problem: string | undefined;
  /** The storage key this checkout was started for. */
  key: string | undefined;
  /** The page's address: the default 3-D Secure return address. */
  pageUrl: string;
  /** The reference the attempts are numbered from, and the attempt now. */
  base: string;
  attempt: number;
  /**
   * The attempt a lookup behind the form last found no order at, and when: asked again only after ELSEWHERE_RECHECK_MS
   * or once the payer comes back to the page (the kit's record may name it at every light check, every 3 s: a create
   * refused here made no order there).
   */
  foundEmpty?: { attempt: number; at: number } | undefined;
  /** The payer left a pending order for this attempt: the next create says so (`leaving`) to the kit. */
  left: boolean;
  /** Orders the payer left while they were pending, by reference: watched, since one may still be paid. */
  leftOrders: readonly string[];
  request: Request | undefined;
  nextRequest: number;
  /** Fields the payer has left or submitted: their errors show. */
  touched: Readonly<Partial<Record<FieldName, true>>>;
  /** Field errors the service reported, kept until the payer edits the field. */
  serverErrors: Readonly<Partial<Record<FieldName, FieldError>>>;
  check: FormCheck | undefined;
  /** The payer's fields an isolated frame holds, and the rules they break (isolated.ts): never their values. */
  isolated: IsolatedReport | undefined;
  /** When "send the code again" may be used, epoch ms. */
  resendAllowedAt: number;
  statusFailures: number;
  /** Order tokens the kit handed out with status answers, by reference. */
  vouched: Readonly<Record<string, string>>;
  /** The host is on screen: the order is followed and the countdown runs. */
  active: boolean;
}

/** Every event carries the moment it happened (`at`, epoch ms): the machine reads no clock. */
export type MachineEvent = (
  | { type: 'configure'; settings: CheckoutSettings; config: CheckoutConfig; problem: string | undefined; key: string; saved: SavedCheckout | undefined; pageUrl: string; nonce: string }
  | { type: 'resume' }
  | { type: 'pause' }
  | FormEvent
  | { type: 'blur'; name: FieldName }
  /** An isolated frame attached, reported (`edited`: the field the payer changed), or gone (`report` undefined). */
  | { type: 'isolated'; report: IsolatedReport | undefined; edited?: FieldName | undefined }
  /** The isolated frame did not load: why, for the developer. */
  | { type: 'isolated-failed'; reason: string }
  | { type: 'submit' }
  | { type: 'submit-code'; code: string }
  | { type: 'resend' }
  | { type: 'open-redirect' }
  | { type: 'leave' }
  | { type: 'note'; message: Message }
  | { type: 'answer'; request: number; answer: EndpointAnswer<unknown> }
  | { type: 'no-answer'; request: number; failure: Failure }
  /** The browser is back online. */
  | { type: 'online' }
  /** The poller's status request: its answer, or none (`answer` undefined). */
  | { type: 'polled'; reference: string; answer: EndpointAnswer<CashierStatusData> | undefined }
  /** A status the payer or the host asked for (`checkNow()`). */
  | { type: 'checked'; reference: string; answer: EndpointAnswer<CashierStatusData> }
  | { type: 'stream-status'; status: StreamStatus }
  | { type: 'stream-schedule'; reference: string; durationMs: number }
  /** The order's expiry passed and the last check still saw it pending. */
  | { type: 'expired' }
  /** A look at an order the payer left while it was pending. */
  | { type: 'left-checked'; reference: string; answer: EndpointAnswer<CashierStatusData> }
  | { type: 'redirect-decided'; orderNo: string; go: boolean }
  | { type: 'window-opened'; blocked: boolean }
  /** The bank's window is done with (the kit's return page said so). */
  | { type: 'returned' }
  /** A second of the resend countdown. */
  | { type: 'tick' }
  /** The kit's record shows an order of this checkout at `attempt`, made on another device: looked up, then followed. */
  | { type: 'elsewhere'; attempt: number; seen?: boolean | undefined }
) & { at: number };

export type MachineEventType = MachineEvent['type'];

export type Effect =
  | { type: 'post'; request: number; call: 'create' | 'status' | 'otp' | 'pin' | 'resendOtp'; body: Record<string, unknown>; orderToken?: string | undefined }
  /** The same, through the isolated frame, which adds the values of its fields to `body` and posts to the kit itself. */
  | { type: 'post-isolated'; request: number; call: IsolatedCall; body: Record<string, unknown>; orderToken?: string | undefined }
  /** Follow the order's status (stream, else polling); `checkFirst` looks at once. */
  | { type: 'follow'; expiresAt: number | undefined; checkFirst: boolean }
  | { type: 'unfollow' }
  | { type: 'retime'; expiresAt: number }
  | { type: 'check-status' }
  | { type: 'connect' }
  | { type: 'disconnect' }
  | { type: 'emit'; event: Exclude<CheckoutEvent, { type: 'before-redirect' }> }
  /** Tell listeners the payer is about to leave for the bank, let them hold it, then decide (`redirect-decided`). */
  | { type: 'hold-redirect'; detail: RedirectDetail }
  | { type: 'navigate'; url: string }
  | { type: 'open-window'; url: string }
  | { type: 'log'; message: string };

export interface Next {
  model: Model;
  effects: readonly Effect[];
}

export function initialModel(state: CheckoutState): Model {
  return {
    state,
    settings: {},
    config: undefined,
    problem: undefined,
    key: undefined,
    pageUrl: '',
    base: '',
    attempt: 1,
    left: false,
    leftOrders: [],
    request: undefined,
    nextRequest: 1,
    touched: {},
    serverErrors: {},
    check: undefined,
    isolated: undefined,
    resendAllowedAt: 0,
    statusFailures: 0,
    vouched: {},
    active: false,
  };
}

/** The reference of the current attempt: the base, then base--2, base--3, … */
export function currentReference(model: Model): string {
  return attemptReference(model.base, model.attempt);
}

/** The reference a status request is about: the order's, the create's whose answer is not yet seen, or the attempt's. */
export function statusReferenceOf(model: Model): string {
  const { phase } = model.state;
  return orderOf(phase)?.reference ?? creatingOf(phase)?.reference ?? currentReference(model);
}

/** The order token that proves a status request for `reference`: the order's own, or one the kit vouched. */
export function orderTokenFor(model: Model, reference: string): string | undefined {
  const order = orderOf(model.state.phase);
  return (order?.reference === reference ? order.token : undefined) ?? model.vouched[reference];
}

/**
 * The status call for `reference`, decided here once for the machine's lookups and the session's polls and checks: its
 * body (the country of the order shown when it is that one, else the configuration's) and its proof (`orderTokenFor`).
 */
export function statusCallOf(model: Model, reference: string): { body: { country: string; reference: string }; orderToken: string | undefined } {
  const order = orderOf(model.state.phase);
  const country = (order?.reference === reference ? order.country : undefined) ?? model.config?.countryCode ?? '';
  return { body: { country, reference }, orderToken: orderTokenFor(model, reference) };
}

/**
 * What is kept across a reload or a 3-D Secure round trip (DESIGN.md §6): the attempt's reference, the create whose
 * answer is not yet seen (its phase's `creating`), and the order shown. Nothing before the checkout is set up.
 */
export function savedOf(model: Model): SavedCheckout | undefined {
  const { phase } = model.state;
  if (!model.key || phase.kind === 'idle' || phase.kind === 'config-error') return undefined;
  const order: ActiveOrder | undefined = orderOf(phase);
  const creating = creatingOf(phase);
  // A code's wait goes with the order, so that a reload waits as long.
  const resendAllowedAt = model.resendAllowedAt > 0 ? model.resendAllowedAt : undefined;
  return {
    version: 1,
    base: model.base,
    attempt: model.attempt,
    ...(creating ? { creating } : {}),
    ...(model.left ? { left: true } : {}),
    ...(model.leftOrders.length > 0 ? { leftOrders: [...model.leftOrders] } : {}),
    ...(order ? { order: resendAllowedAt ? { ...order, resendAllowedAt } : order } : {}),
  };
}

/** A status answer that names a known payment status. */
export function statusDataOf(answer: EndpointAnswer<CashierStatusData> | undefined): (StatusData & CashierStatusData) | undefined {
  const data = answer?.envelope.data;
  return answer && isSuccess(answer.envelope) && data && isPaymentStatus(data.status) ? data : undefined;
}
