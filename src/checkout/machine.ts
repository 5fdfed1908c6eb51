/**
 * The payment life as one pure function: `transition(model, event)` gives the next model and the effects to run
 * (a request, following the status, an event for the page), and reads no clock, storage or network. `GRAPH` says
 * which events each phase takes; an event it does not list changes nothing. Each handler below is named by its
 * event; what several share (showing an order, the create, the answers' errors) is written once under them.
 * session.ts runs the effects and feeds the answers back as events.
 */
import {
  CLIENT_ERROR_CODES,
  isCreateOutcomeUnknown,
  isDuplicateReference,
  isHttpUrl,
  isPayMethod,
  isPaymentStatus,
  isPlainObject,
  isRetryable,
  LEAVING_FIELD,
  isSuccess,
  isTerminalStatus,
  OTP_REQUEST,
  PIN_REQUEST,
  toAsciiDigits,
  validate,
  violationsOf,
  type CashierStatusData,
  type CreatePaymentData,
  type Envelope,
  type PayMethod,
  type PaymentStatus,
  type Violation,
} from '../core/index.js';
import { RESULT_ROLES } from '../core/result-roles.js';
import { CODE_FIELDS } from './code-fields.js';
import { CONFIG_SOURCES, REFUSED_SETTINGS } from './config-sources.js';
import type { Failure } from './endpoint-client.js';
import { fieldsOf, formFieldOf, type FieldName } from './fields.js';
import { formStateOf, prefilled } from './first-frame.js';
import { checkOf, shownErrors, withoutSecrets } from './form-check.js';
import { formTransition } from './form.js';
import { isIsolated, type IsolatedCall } from './isolated.js';
import { statusCallOf, statusDataOf, type Effect, type MachineEvent, type MachineEventType, type Model, type Next, type Request, type Unanswered } from './model.js';
import { orderOf, type ActiveOrder, type Announcement, type CheckoutEvent, type FieldError, type Message, type Phase, type WaitReason } from './state.js';
import {
  applyStatus,
  knownFromCreate,
  messageForEnvelope,
  orderFromCreate,
  orderFromStatus,
  phaseOf,
  sameAmount,
  transportMessageOf,
  waitMessage,
  waitReasonOf,
  type StatusData,
} from './transitions.js';
import { attemptOf, attemptReference, MAX_ATTEMPTS } from '../core/tokens.js';
import type { SavedCheckout } from './storage.js';

/** "Send the code again" waits this long after a code was sent. */
export const RESEND_WAIT_MS = 30_000;
/** Failed status checks in a row before the payer is told the status cannot be checked. */
export const STATUS_FAILURES_BEFORE_NOTICE = 3;
/** A deadline the kit reports this far from the one the page has moves it (less is the answer's own travel). */
const EXPIRY_DRIFT_MS = 2_000;

type PhaseKind = Phase['kind'];

/**
 * Events every phase takes: the host's, the countdown's, and the answer to a request, which may come after the phase
 * moved on (a code's answer after the stream said paid); a stale one, of a request no longer waited on, does nothing.
 */
const ALWAYS = ['configure', 'resume', 'pause', 'tick', 'answer', 'no-answer', 'left-checked', 'isolated'] as const satisfies readonly MachineEventType[];
/** What a phase that follows an order takes from the status: polls, checks, the stream, the expiry. */
const FOLLOWING = ['polled', 'checked', 'stream-status', 'stream-schedule', 'expired'] as const satisfies readonly MachineEventType[];

/** The graph: the events each phase takes. */
export const GRAPH: Readonly<Record<PhaseKind, readonly MachineEventType[]>> = {
  idle: [...ALWAYS],
  'config-error': [...ALWAYS, 'note'],
  form: [...ALWAYS, 'select-method', 'input', 'blur', 'submit', 'checked', 'leave', 'note', 'isolated-failed', 'online', 'elsewhere'],
  'looking-up': [...ALWAYS, 'checked', 'note'],
  action: [...ALWAYS, ...FOLLOWING, 'submit-code', 'resend', 'open-redirect', 'window-opened', 'redirect-decided', 'returned', 'leave', 'note', 'isolated-failed', 'online'],
  waiting: [...ALWAYS, ...FOLLOWING, 'leave', 'note'],
  result: [...ALWAYS, 'checked', 'leave', 'note'],
};

export function accepts(phase: PhaseKind, type: MachineEventType): boolean {
  return GRAPH[phase].includes(type);
}

/** The next model and effects; the same model and none for an event its phase does not take. */
export function transition(model: Model, event: MachineEvent): Next {
  if (!accepts(model.state.phase.kind, event.type)) return { model, effects: [] };
  const draft = new Draft(model, event.at);
  (HANDLERS[event.type] as (d: Draft, e: MachineEvent) => void)(draft, event);
  return draft.done();
}

// -------------------------------------------------------------------------------------------------------------
// The draft a handler writes: the model as it goes, and the effects in the order they were asked for.

class Draft {
  m: Model;
  readonly at: number;
  readonly effects: Effect[] = [];

  constructor(model: Model, at: number) {
    this.m = model;
    this.at = at;
  }

  update(patch: Partial<Model>): void {
    this.m = { ...this.m, ...patch };
  }

  set(patch: Partial<Model['state']>): void {
    this.m = { ...this.m, state: { ...this.m.state, ...patch } };
  }

  get order(): ActiveOrder | undefined {
    return orderOf(this.m.state.phase);
  }

  /** The form's check, brought up to date with the model. */
  get check() {
    const check = checkOf(this.m);
    if (check !== this.m.check) this.update({ check });
    return check;
  }

  do(effect: Effect): void {
    this.effects.push(effect);
  }

  emit(event: Exclude<CheckoutEvent, { type: 'before-redirect' }>): void {
    this.do({ type: 'emit', event });
  }

  announce(detail: Announcement): void {
    this.emit({ type: 'announce', detail });
  }

  error(code: string, message: string, retryable: boolean): void {
    this.emit({ type: 'error', detail: { code, message, retryable } });
  }

  /** Starts the request the payer waits on, and asks for its call. */
  request(request: DistributiveOmit<Request, 'id'>, call: Extract<Effect, { type: 'post' }>['call'], body: Record<string, unknown>, orderToken?: string): void {
    const id = this.m.nextRequest;
    this.update({ request: { ...request, id } as Request, nextRequest: id + 1 });
    this.do({ type: 'post', request: id, call, body, ...(orderToken ? { orderToken } : {}) });
  }

  /** The same, for a call the isolated frame completes with the values of its fields and sends. */
  requestIsolated(request: DistributiveOmit<Request, 'id'>, call: IsolatedCall, body: Record<string, unknown>, orderToken?: string): void {
    const id = this.m.nextRequest;
    this.update({ request: { ...request, id } as Request, nextRequest: id + 1 });
    this.do({ type: 'post-isolated', request: id, call, body, ...(orderToken ? { orderToken } : {}) });
  }

  /** What every transition ends with: what is derived from the model, written in this one place. */
  done(): Next {
    const busy = this.m.request !== undefined;
    const resendWait = this.m.resendAllowedAt > this.at ? Math.ceil((this.m.resendAllowedAt - this.at) / 1000) : 0;
    if (busy !== this.m.state.busy || resendWait !== this.m.state.resendWait) this.set({ busy, resendWait });
    void this.check;
    return { model: this.m, effects: this.effects };
  }
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
type EventOf<T extends MachineEventType> = Extract<MachineEvent, { type: T }>;
type Handlers = { [T in MachineEventType]: (d: Draft, event: EventOf<T>) => void };

// -------------------------------------------------------------------------------------------------------------
// The handlers, one per event.

const HANDLERS: Handlers = {
  configure(d, e) {
    const refusedBefore = d.m.settings.refused;
    d.update({ settings: e.settings, config: e.config, problem: e.settings.refused ?? e.problem, pageUrl: e.pageUrl });
    d.set(formStateOf(e.config, e.settings, d.m.state));
    // The payer's details may come after the first render: they fill what is still empty.
    if (e.settings.userInfo && d.m.state.phase.kind === 'form') d.set(prefilled(e.config, e.settings, d.m.state));
    const fresh = e.key !== d.m.key;
    if (fresh) d.update({ base: e.saved?.base ?? baseReference(e.config.reference, d.at, e.nonce), attempt: Math.max(e.saved?.attempt ?? 1, e.config.startAttempt) });
    const broken = Boolean(d.m.problem) || (d.check?.config.length ?? 0) > 0;
    const kind = d.m.state.phase.kind;
    if (fresh || kind === 'idle' || (kind === 'config-error' && !broken) || (kind === 'form' && broken)) {
      start(d, e.key, e.saved);
      return;
    }
    // A setting refused while an order is under way is said, and the order goes on (the payer may be at the terminal).
    if (e.settings.refused && e.settings.refused !== refusedBefore) configError(d, e.settings.refused);
  },

  resume(d) {
    if (d.m.active) return;
    d.update({ active: true });
    d.do({ type: 'connect' });
  },

  pause(d) {
    if (!d.m.active) return;
    d.update({ active: false });
    d.do({ type: 'disconnect' });
  },

  tick() {
    // The countdown is derived from the moment (Draft.done).
  },

  'select-method'(d, e) {
    if (d.m.state.busy || !d.m.config?.methods.includes(e.method)) return;
    d.update({ touched: {}, serverErrors: {} });
    d.set({ ...formTransition(d.m.state, e), errors: {}, alert: undefined });
    emitChange(d);
  },

  input(d, e) {
    const { [e.name]: _edited, ...serverErrors } = d.m.serverErrors;
    d.update({ serverErrors });
    d.set(formTransition(d.m.state, e));
    // Fixing a field clears its error at once; new errors wait for the payer to leave the field, or to submit.
    if (d.m.state.errors[e.name]) showErrors(d, false);
    emitChange(d);
  },

  blur(d, e) {
    d.update({ touched: { ...d.m.touched, [e.name]: true } });
    showErrors(d, false);
  },

  /**
   * An isolated frame's fields, as it says they stand: they count in the form's check as typed values do. A change
   * the payer made there is an input of that field (its error clears once fixed, the page hears `change`); a code
   * step's frame only says whether its code is right to send.
   */
  isolated(d, e) {
    d.update({ isolated: e.report });
    if (!e.edited || d.m.state.phase.kind !== 'form') return;
    const { [e.edited]: _edited, ...serverErrors } = d.m.serverErrors;
    d.update({ serverErrors });
    if (d.m.state.errors[e.edited]) showErrors(d, false);
    emitChange(d);
  },

  /**
   * The isolated frame never came (not served, refused by its policy, blocked): the payer cannot type there, and is
   * told so; the page hears a CONFIG error naming the frame's address (never a field's value: there is none).
   */
  'isolated-failed'(d, e) {
    d.set({ alert: { kind: 'fields-unavailable' } });
    d.error('CONFIG', e.reason, false);
  },

  submit(d) {
    create(d, false);
  },

  'submit-code'(d, e) {
    const order = d.order;
    if (d.m.state.busy || (order?.actionType !== 'INPUT_OTP' && order?.actionType !== 'INPUT_PIN')) return;
    const field = CODE_FIELDS[order.actionType];
    if (isIsolated(d.m.isolated, field.name)) {
      // Typed in the isolated frame: it said whether the code is one; it adds the code and sends it.
      const rule = d.m.isolated?.broken[field.name];
      if (rule) {
        d.set({ errors: { [field.name]: { rule } }, submitCount: d.m.state.submitCount + 1 });
        return;
      }
      d.set({ errors: {}, alert: undefined, notice: undefined });
      d.requestIsolated({ kind: 'code', field: field.name }, field.name, { country: order.country, orderNo: order.orderNo }, order.token);
      return;
    }
    const body = { country: order.country, orderNo: order.orderNo, [field.name]: toAsciiDigits(e.code).trim() };
    const checked = validate(field.name === 'pin' ? PIN_REQUEST : OTP_REQUEST, body);
    if (!checked.ok) {
      // Refused before sending: kept, to be corrected.
      const violation = checked.violations.find((item) => item.field === field.name) ?? (checked.violations[0] as Violation);
      d.set({ errors: { [field.name]: { rule: violation.rule } }, submitCount: d.m.state.submitCount + 1 });
      return;
    }
    d.set({ errors: {}, alert: undefined, notice: undefined });
    d.request({ kind: 'code', field: field.name }, field.name, checked.value, order.token);
  },

  resend(d) {
    const order = d.order;
    if (!order || d.m.state.busy || d.m.resendAllowedAt > d.at) return;
    d.set({ alert: undefined, notice: undefined });
    d.request({ kind: 'resend' }, 'resendOtp', { country: order.country, orderNo: order.orderNo }, order.token);
  },

  'open-redirect'(d) {
    const order = d.order;
    if (order?.actionType !== 'REDIRECT_3DS' || !order.redirectUrl || !isHttpUrl(order.redirectUrl)) return;
    if (d.m.state.redirectMode === 'same-window') {
      d.set({ phase: { kind: 'action', order: { ...order, actionType: 'REDIRECT_3DS', redirected: true } } });
      d.do({ type: 'navigate', url: order.redirectUrl });
    } else d.do({ type: 'open-window', url: order.redirectUrl });
  },

  'window-opened'(d, e) {
    const order = d.order;
    if (order?.actionType !== 'REDIRECT_3DS') return;
    const redirected = !e.blocked || order.redirected;
    d.set({
      phase: { kind: 'action', order: { ...order, actionType: 'REDIRECT_3DS', redirected } },
      redirectBlocked: e.blocked,
      alert: e.blocked ? { kind: 'redirect-blocked' } : undefined,
    });
  },

  'redirect-decided'(d, e) {
    // Still this order's step, and still wanted (the host may have left the page: the order is saved).
    const order = d.order;
    if (!e.go || !d.m.active || order?.orderNo !== e.orderNo || order.actionType !== 'REDIRECT_3DS') return;
    HANDLERS['open-redirect'](d, { type: 'open-redirect', at: d.at });
  },

  returned(d) {
    const order = d.order;
    if (order?.actionType === 'REDIRECT_3DS' && !isTerminalStatus(order.status)) d.do({ type: 'check-status' });
  },

  leave(d) {
    // While a create or the search for its lost answer is under way, a new reference could make a second order.
    const { phase } = d.m.state;
    if (d.m.state.busy || phase.kind === 'looking-up') return;
    // A paid checkout is never left: there is nothing more to pay.
    if (phase.kind === 'result' && (phase.outcome === 'SUCCESS' || phase.outcome === 'PAID_BEFORE')) return;
    d.do({ type: 'unfollow' });
    const order = d.order;
    // The next attempt only past an order the service made; a pending one is left on purpose, and the kit is told so.
    if (order) {
      const pending = !isTerminalStatus(order.status);
      // A left order may still be paid: it is looked at now and then, with its own token.
      if (pending && order.token) vouch(d, order.reference, order.token);
      d.update({ attempt: d.m.attempt + 1, left: d.m.left || pending, ...(pending ? { leftOrders: [...d.m.leftOrders, order.reference] } : {}) });
    }
    d.update({ touched: {}, serverErrors: {}, resendAllowedAt: 0 });
    d.set({ phase: { kind: 'form' }, alert: undefined, errors: {}, notice: undefined });
    emitChange(d);
  },

  note(d, e) {
    notice(d, e.message);
  },

  answer(d, e) {
    const request = d.m.request;
    if (request?.id !== e.request) return;
    if (e.answer.orderToken && (request.kind === 'lookup' || request.kind === 'latest')) vouch(d, lookedUp(d, request), e.answer.orderToken);
    d.update({ request: undefined });
    ANSWERS[request.kind](d, request as never, e.answer as never);
  },

  'no-answer'(d, e) {
    const request = d.m.request;
    if (request?.id !== e.request) return;
    d.update({ request: undefined });
    if (request.kind === 'create') {
      // No answer: the create may have reached the service and made the order. Its reference is looked up before
      // the payer is told anything: a new reference could make a second order.
      lookUp(d, { kind: 'lookup', reference: request.reference, method: request.method, known: d.m.creating?.known, lost: true, report: { failure: e.failure }, throughFrame: request.isolated });
      return;
    }
    if (request.kind === 'lookup') {
      // Still unknown: `creating` stays, so a retry sends the same reference and a reload looks again.
      d.set({ phase: { kind: 'form' } });
      transportError(d, e.failure);
      return;
    }
    // A code sent from a step the order has moved past (paid meanwhile: its isolated frame went with the step, and the
    // call's answer with it): nothing is left to say of it.
    if ((request.kind === 'code' || request.kind === 'resend') && d.m.state.phase.kind !== 'action') return;
    transportError(d, e.failure);
    if (request.kind === 'latest') foundLatest(d, request.found);
  },

  /** Back online: "we could not reach the shop" (a form's, a code's) is no longer so; the payer tries again where they were. */
  online(d) {
    if (d.m.state.alert?.kind === 'network') d.set({ alert: undefined });
  },

  polled(d, e) {
    if (e.answer?.orderToken) vouch(d, e.reference, e.answer.orderToken);
    const data = statusDataOf(e.answer);
    if (!data) {
      const failures = d.m.statusFailures + 1;
      d.update({ statusFailures: failures });
      if (failures === STATUS_FAILURES_BEFORE_NOTICE) {
        notice(d, { kind: 'status-unknown' });
        d.error('STATUS_UNKNOWN', CLIENT_ERROR_CODES.STATUS_UNKNOWN.message, true);
      }
      return;
    }
    if (d.m.statusFailures >= STATUS_FAILURES_BEFORE_NOTICE) d.set({ notice: undefined });
    d.update({ statusFailures: 0 });
    observeStatus(d, data);
    if (e.answer?.expiresIn !== undefined) resyncExpiry(d, e.reference, d.at + e.answer.expiresIn * 1000);
  },

  checked(d, e) {
    if (e.answer.orderToken) vouch(d, e.reference, e.answer.orderToken);
    const data = e.answer.envelope.data;
    if (isSuccess(e.answer.envelope) && data) observeStatus(d, data);
  },

  'stream-status'(d, e) {
    if (e.status.orderToken) vouch(d, e.status.reference, e.status.orderToken);
    observeStatus(d, e.status);
  },

  'stream-schedule'(d, e) {
    resyncExpiry(d, e.reference, d.at + e.durationMs);
  },

  /**
   * An order the payer left while it was pending: paid after all, this checkout is paid (shown as such, the order on
   * screen no longer followed); and if the order on screen was paid too, the payer is told it was paid twice. Ended
   * unpaid: no longer watched.
   */
  'left-checked'(d, e) {
    const data = statusDataOf(e.answer);
    if (e.answer.orderToken) vouch(d, e.reference, e.answer.orderToken);
    if (!data || !d.m.leftOrders.includes(e.reference) || (data.status !== 'SUCCESS' && !isTerminalStatus(data.status))) return;
    d.update({ leftOrders: d.m.leftOrders.filter((reference) => reference !== e.reference) });
    if (data.status !== 'SUCCESS') return;
    const { phase } = d.m.state;
    if (phase.kind === 'result' && phase.outcome === 'SUCCESS') {
      notice(d, { kind: 'paid-twice' });
      return;
    }
    if (d.m.state.busy || phase.kind === 'config-error' || phase.kind === 'idle') return;
    const order = foundOrder(d, data, e.reference, d.m.state.method, { methodUnknown: true });
    const attempt = attemptOf(d.m.base, e.reference, d.m.config?.attempts);
    d.update({ left: false, ...(attempt !== undefined ? { attempt } : {}) });
    emitPayResult(d, order);
    showResult(d, order);
    d.set({ notice: { kind: 'left-paid' } });
  },

  /** An order of this checkout made on another device (the kit's record names its attempt): found as a token's `started` would be. */
  elsewhere(d, e) {
    if (d.m.state.busy || d.m.request || d.m.creating || !Number.isInteger(e.attempt) || e.attempt < Math.max(d.m.attempt, 1)) return;
    d.update({ attempt: e.attempt });
    d.set({ phase: { kind: 'looking-up' } });
    lookUp(d, { kind: 'lookup', reference: attemptReference(d.m.base, e.attempt), method: d.m.state.method, named: true });
  },

  expired(d) {
    const order = d.order;
    if (order && !isTerminalStatus(order.status)) showResult(d, { ...order, status: 'CLOSE' });
  },
};

/** What each request's answer does. */
const ANSWERS: { [K in Request['kind']]: (d: Draft, request: Extract<Request, { kind: K }>, answer: { envelope: Envelope<never>; expiresIn?: number; orderToken?: string }) => void } = {
  create(d, request, answer) {
    const envelope = answer.envelope as Envelope<CreatePaymentData>;
    d.emit({ type: 'http-response', detail: envelope });
    if (isSuccess(envelope) && envelope.data) {
      const config = d.m.config!;
      const order = orderFromCreate(
        envelope.data,
        { method: request.method, body: request.sent, country: config.countryCode ?? '', amount: d.m.state.amount },
        { expiresIn: answer.expiresIn, token: answer.orderToken, now: d.at },
      );
      // The kit decides which attempt a create makes: this page goes on from the one it made.
      const attempt = attemptOf(d.m.base, order.reference, MAX_ATTEMPTS);
      d.update({ creating: undefined, left: false, ...(attempt !== undefined ? { attempt } : {}) });
      forgetSecrets(d, request.method);
      emitPayResult(d, order);
      show(d, order, { resumed: false });
    } else if (envelope.code === 'ORDER_EXISTS' && isPlainObject(envelope.data)) {
      existingOrder(d, request.method, envelope.data as unknown as CashierStatusData, answer.orderToken);
    } else if (envelope.code === 'CHECKOUT_CHANGED') {
      // The cart was paid at another amount: this checkout takes no payment, and says so.
      d.update({ creating: undefined });
      mismatch(d, envelope.code, envelope.message);
    } else if (isCreateOutcomeUnknown(envelope.code)) {
      // An answer that cannot say whether the order was made: its status decides.
      lookUp(d, { kind: 'lookup', reference: request.reference, method: request.method, known: d.m.creating?.known, lost: true, report: { envelope } });
    } else if (isDuplicateReference(envelope.code)) {
      lookUp(d, { kind: 'lookup', reference: request.reference, method: request.method, duplicate: true, retried: request.retried });
    } else {
      d.update({ creating: undefined });
      envelopeError(d, envelope);
    }
  },

  /**
   * A create whose answer was lost (a reload, a timeout) or refused as a duplicate: pending resumes, paid shows the
   * result, failed or closed shows it or (a duplicate) moves on to the next attempt, and no order at all is said.
   */
  lookup(d, request, answer) {
    const envelope = answer.envelope as Envelope<CashierStatusData>;
    const data = statusDataOf(answer as never);
    if (!data) {
      // No such order: the create never arrived, and the same reference may be sent again.
      d.update({ creating: undefined });
      d.set({ phase: { kind: 'form' } });
      if (request.duplicate) envelopeError(d, envelope);
      if (request.report && request.throughFrame && isNoAnswer(request.report)) frameRefused(d);
      else if (request.report) report(d, request.report);
      return;
    }
    // An order of this reference for another amount is not the one the payer is looking at: never shown as theirs.
    if (!sameAmount(data.amount, d.m.state.amount)) {
      d.update({ creating: undefined });
      mismatch(d, 'ORDER_MISMATCH', CLIENT_ERROR_CODES.ORDER_MISMATCH.message);
      return;
    }
    const spent = data.status === 'FAIL' || data.status === 'CLOSE';
    if (spent && request.duplicate) {
      // That reference is spent (its order failed or closed): the payer meant to pay, so once, send the next.
      if (!request.retried) {
        d.update({ attempt: d.m.attempt + 1, creating: undefined });
        create(d, true);
      }
      return;
    }
    const told = (data as { payMethod?: unknown }).payMethod;
    const method = request.named && isPayMethod(told) ? told : request.method;
    const order = foundOrder(d, data, request.reference, method, { known: request.known, answerLost: request.lost, duplicate: request.duplicate, methodUnknown: request.named && !isPayMethod(told) });
    d.update({ creating: undefined });
    forgetSecrets(d, method);
    if (request.lost || !spent) emitPayResult(d, order);
    // A POS order always waits for its card at the terminal this page named; others wait for their status.
    show(d, order, { resumed: true, wait: order.actionType !== 'SWIPE_CARD' });
  },

  latest(d, request, answer) {
    const data = statusDataOf(answer as never);
    // The latest attempt, unless an earlier one was paid: that payment is what this checkout shows.
    const paid = request.found?.data.status === 'SUCCESS';
    const found = data && !paid ? { data, reference: attemptReference(d.m.base, request.attempt) } : request.found;
    if (data && request.attempt < (d.m.config?.attempts ?? 1)) {
      latestAttempt(d, request.attempt + 1, found);
      return;
    }
    foundLatest(d, found);
  },

  code(d, request, answer) {
    const envelope = answer.envelope as Envelope<CreatePaymentData>;
    if (isSuccess(envelope) && envelope.data) {
      observeStatus(d, envelope.data);
      return;
    }
    // The kit's own limit of wrong codes for the order (docs/limits.md): said at the field, no wait to count down.
    if (envelope.code === 'TOO_MANY_REQUESTS' && (envelope.data as { limit?: unknown } | null)?.limit === 'wrongCodesPerOrder') {
      d.error(envelope.code, envelope.message, false);
      d.set({ errors: { [request.field]: { rule: 'exhausted' } }, submitCount: d.m.state.submitCount + 1 });
      d.announce({ kind: 'form-errors', count: 1 });
      return;
    }
    const violation = violationsOf(envelope).find((item) => item.field === request.field);
    if (!violation) {
      envelopeError(d, envelope);
      return;
    }
    const left = violation.triesLeft;
    d.set({ errors: { [request.field]: { rule: violation.rule, ...(left !== undefined ? { left } : {}) } }, submitCount: d.m.state.submitCount + 1 });
    // Kept with the order: a reload says it again.
    const order = d.order;
    if (order && left !== undefined) d.set({ phase: { ...d.m.state.phase, order: { ...order, triesLeft: left } } as Phase });
    d.announce({ kind: 'form-errors', count: 1 });
  },

  resend(d, _request, answer) {
    if (!isSuccess(answer.envelope)) {
      envelopeError(d, answer.envelope);
      return;
    }
    // A new code is on its way: what was said of the last one no longer holds.
    d.set({ errors: {} });
    notice(d, { kind: 'resent' });
    d.update({ resendAllowedAt: d.at + RESEND_WAIT_MS });
  },
};

// -------------------------------------------------------------------------------------------------------------
// What the handlers share.

/** A checkout (re)started for `key`: a configuration error, the order kept for it, the search for a lost create, or the form. */
function start(d: Draft, key: string, kept: SavedCheckout | undefined): void {
  d.update({ key, request: undefined, creating: undefined, left: false, leftOrders: [], touched: {}, serverErrors: {}, resendAllowedAt: 0, statusFailures: 0 });
  d.do({ type: 'unfollow' });
  d.set({ alert: undefined, notice: undefined, errors: {} });
  const violation = d.m.problem ? undefined : d.check?.config[0];
  const setting = d.m.problem ?? (violation && (CONFIG_SOURCES[violation.field] ?? violation.field));
  if (setting) {
    configError(d, setting, violation, true);
    return;
  }
  const config = d.m.config!;
  d.set(prefilled(config, d.m.settings, d.m.state));
  // The kit found an attempt of this checkout further on than this page kept (another tab, a fresh token for the cart),
  // or the cart changed since this page kept its order: what it kept is not this checkout's any more.
  const overtaken = config.started && (kept?.attempt ?? 0) < config.startAttempt;
  const changed = kept?.order !== undefined && !sameAmount(kept.order.amount, d.m.state.amount);
  const saved = overtaken || changed ? undefined : kept;
  // The order shown is the attempt this page is at: "Try again" asks the kit for the next one after it.
  if (saved?.order) d.update({ attempt: saved.attempt });
  if (saved?.left) d.update({ left: true });
  if (saved?.leftOrders) d.update({ leftOrders: saved.leftOrders.filter((reference) => typeof reference === 'string') });
  let resumed = true;
  if (saved?.order) {
    const { resendAllowedAt = 0, ...order } = saved.order;
    d.update({ resendAllowedAt });
    show(d, order, { resumed: true, quiet: true });
    // What the last wrong code was told stands after a reload: the tries left, at the code's field.
    if (order.triesLeft !== undefined && (order.actionType === 'INPUT_OTP' || order.actionType === 'INPUT_PIN')) {
      d.set({ errors: { [CODE_FIELDS[order.actionType].name]: { rule: 'mismatch', left: order.triesLeft } } });
    }
  } else if (config.started) {
    // Paid, or in progress: found before anything is offered, at the attempt the kit names.
    d.set({ phase: { kind: 'looking-up' } });
    const reference = config.startReference ?? attemptReference(d.m.base, config.startAttempt);
    lookUp(d, { kind: 'lookup', reference, method: d.m.state.method, named: true });
  } else if (saved?.creating) {
    // Nothing to press while the order is looked for: a second create would race the recovery.
    d.update({ creating: saved.creating });
    d.set({ phase: { kind: 'looking-up' } });
    lookUp(d, { kind: 'lookup', reference: saved.creating.reference, method: saved.creating.payMethod, known: saved.creating.known });
  } else if (d.m.settings.statusOnly) {
    d.set({ phase: { kind: 'looking-up' } });
    latestAttempt(d, 1, undefined);
  } else {
    resumed = false;
    d.set({ phase: { kind: 'form' } });
  }
  d.emit({ type: 'ready', detail: { methods: [...config.methods], resumed } });
}

/** The reference attempts are numbered from: the shop's, else one of this page's own. */
function baseReference(reference: string | undefined, at: number, nonce: string): string {
  return reference ?? `svc-${at.toString(36)}-${nonce}`;
}

/** Sends the form of the chosen method, or shows why it cannot be sent. */
function create(d: Draft, retried: boolean): void {
  if (d.m.state.phase.kind !== 'form' || d.m.problem || d.m.request) return;
  const touched = { ...d.m.touched };
  for (const field of fieldsOf(d.m.state.method)) touched[field.name] = true;
  d.update({ touched });
  showErrors(d, true);
  d.set({ submitCount: d.m.state.submitCount + 1, alert: undefined });
  const count = Object.keys(d.check!.payer).length;
  if (count > 0) {
    d.announce({ kind: 'form-errors', count });
    return;
  }
  const { value, all } = d.check!;
  if (!value) {
    const first = all[0] as Violation;
    const setting = CONFIG_SOURCES[first.field] ?? first.field;
    configError(d, setting, first, true);
    return;
  }
  const method = d.m.state.method;
  // After "Use another method" on an order still pending, the kit is told that the payer left it on purpose.
  const sent = { ...(value as unknown as Record<string, unknown>), ...(d.m.left ? { [LEAVING_FIELD]: true } : {}) };
  d.update({ creating: { reference: value.reference, payMethod: method, known: knownFromCreate(method, sent) } });
  d.announce({ kind: 'processing' });
  const request = { kind: 'create', reference: value.reference, method, sent, retried } as const;
  if (d.check!.isolated.length > 0) d.requestIsolated({ ...request, isolated: true }, 'create', sent);
  else d.request(request, 'create', sent);
}

function lookUp(d: Draft, request: Extract<DistributiveOmit<Request, 'id'>, { kind: 'lookup' }>): void {
  const call = statusCallOf(d.m, request.reference);
  d.request(request, 'status', call.body, call.orderToken);
}

function latestAttempt(d: Draft, attempt: number, found: Extract<Request, { kind: 'latest' }>['found']): void {
  const call = statusCallOf(d.m, attemptReference(d.m.base, attempt));
  d.request({ kind: 'latest', attempt, found }, 'status', call.body, call.orderToken);
}

/** The reference a lookup asked about. */
function lookedUp(d: Draft, request: Extract<Request, { kind: 'lookup' | 'latest' }>): string {
  return request.kind === 'lookup' ? request.reference : attemptReference(d.m.base, request.attempt);
}

/**
 * The kit made no order: this checkout already has one, paid or in progress (another tab, a page from before). That
 * order is shown, at its attempt, and the payer's secrets typed for the new one are forgotten.
 */
function existingOrder(d: Draft, method: PayMethod, data: CashierStatusData, token: string | undefined): void {
  if (!isPaymentStatus(data.status) || typeof data.reference !== 'string') {
    d.update({ creating: undefined });
    d.set({ alert: { kind: 'generic' } });
    return;
  }
  const attempt = attemptOf(d.m.base, data.reference, d.m.config?.attempts);
  d.update({ creating: undefined, left: false, ...(attempt !== undefined ? { attempt } : {}) });
  if (token) vouch(d, data.reference, token);
  const order = foundOrder(d, data, data.reference, method, { methodUnknown: true }, token);
  forgetSecrets(d, method);
  emitPayResult(d, order);
  show(d, order, { resumed: true, wait: true });
}

/** An order of this checkout exists for another amount or currency (the cart changed): shown as no payment of this one. */
function mismatch(d: Draft, code: string, message: string): void {
  d.do({ type: 'unfollow' });
  d.set({ phase: { kind: 'result', outcome: 'MISMATCH' }, alert: undefined, notice: undefined });
  d.announce({ kind: 'result', outcome: 'MISMATCH' });
  d.error(code, message, false);
}

/** A page that did not create the order (a thank-you page, another tab) follows the latest attempt found. */
function foundLatest(d: Draft, found: Extract<Request, { kind: 'latest' }>['found']): void {
  if (!found) {
    d.set({ phase: { kind: 'looking-up' }, alert: d.m.state.alert ?? { kind: 'in-progress' } });
    return;
  }
  // Its method is the one its status names, decided here once; else the form's, said to be a guess.
  const told = (found.data as { payMethod?: unknown }).payMethod;
  const order = foundOrder(d, found.data, found.reference, isPayMethod(told) ? told : d.m.state.method, { methodUnknown: !isPayMethod(told) });
  emitPayResult(d, order);
  show(d, order, { resumed: true, wait: true, reason: 'status-only' });
}

/** An order found by its status: at the configured country, of the amount shown unless the status says one, proved by its token. */
function foundOrder(d: Draft, data: StatusData, reference: string, payMethod: PayMethod, how: Parameters<typeof orderFromStatus>[2], token = d.m.vouched[reference]): ActiveOrder {
  const found = { reference, payMethod, country: d.m.config?.countryCode ?? '', shownAmount: d.m.state.amount, token };
  return orderFromStatus(data as StatusData & { status: PaymentStatus }, found, how);
}

function vouch(d: Draft, reference: string, token: string): void {
  if (d.m.vouched[reference] !== token) d.update({ vouched: { ...d.m.vouched, [reference]: token } });
}

/** The order exists, so the service has the payer's secrets: the checkout forgets them. */
function forgetSecrets(d: Draft, method: PayMethod): void {
  d.set({ values: withoutSecrets(d.m.state.values, method) });
}

function showErrors(d: Draft, all: boolean): void {
  d.set({ errors: shownErrors(d.m, d.check!, all) });
}

function emitChange(d: Draft): void {
  const check = d.check;
  const complete = check !== undefined && Object.keys(check.payer).length === 0 && check.config.length === 0;
  d.emit({ type: 'change', detail: { payMethod: d.m.state.method, complete } });
}

/**
 * Shows an order where it stands: its result, its next step, or a wait. `resumed`: it was found again (a reload, a
 * lost answer), so the status is checked at once and a 3-D Secure page is not opened again. `wait`: its next step is
 * not known here.
 */
function show(d: Draft, order: ActiveOrder, how: { resumed: boolean; wait?: boolean; reason?: WaitReason; quiet?: boolean }): void {
  d.set({ method: order.payMethod });
  if (isTerminalStatus(order.status)) {
    showResult(d, order, how.quiet);
    return;
  }
  const phase = how.wait || !order.actionType ? phaseOf(order, how.reason ?? waitReasonOf(order)) : phaseOf(order);
  if (phase.kind === 'waiting') {
    const alert = waitMessage(order, phase.reason);
    d.set({ phase, alert, notice: undefined, errors: {} });
    if (alert) d.announce(alert);
    d.do({ type: 'follow', expiresAt: order.expiresAt, checkFirst: true });
    return;
  }
  if (phase.kind !== 'action') return;
  d.set({ phase, alert: undefined, notice: undefined, errors: {} });
  const { actionType } = phase.order;
  d.emit({
    type: 'action',
    detail: {
      actionType,
      orderNo: order.orderNo,
      reference: order.reference,
      ...(order.redirectUrl ? { redirectUrl: order.redirectUrl } : {}),
      ...(order.referenceCode ? { referenceCode: order.referenceCode } : {}),
    },
  });
  d.announce({ kind: 'step', actionType });
  // The code was just sent: "send it again" waits as long as after a resend.
  if (actionType === 'INPUT_OTP' && !how.resumed) d.update({ resendAllowedAt: d.at + RESEND_WAIT_MS });
  if (actionType === 'REDIRECT_3DS' && !how.resumed) {
    if (!order.redirectUrl || !isHttpUrl(order.redirectUrl)) {
      d.set({ alert: { kind: 'generic' } });
      d.error('REDIRECT_URL', 'the 3-D Secure address is not an http(s) URL', false);
      return;
    }
    d.do({ type: 'hold-redirect', detail: { orderNo: order.orderNo, reference: order.reference, redirectUrl: order.redirectUrl } });
  }
  d.do({ type: 'follow', expiresAt: order.expiresAt, checkFirst: how.resumed });
}

function showResult(d: Draft, order: ActiveOrder, quiet = false): void {
  d.do({ type: 'unfollow' });
  d.update({ resendAllowedAt: 0 });
  const phase = phaseOf(order);
  d.set({ phase, alert: undefined, notice: undefined });
  if (quiet || phase.kind !== 'result') return;
  d.announce({ kind: 'result', outcome: phase.outcome });
  if (phase.outcome === 'CLOSE') d.emit({ type: 'expired', detail: { orderNo: order.orderNo, reference: order.reference } });
}

/** Applies a status seen in any answer; a change is reported, and a terminal one ends the flow. */
function observeStatus(d: Draft, data: StatusData): void {
  const order = d.order;
  if (!order) return;
  const applied = applyStatus(order, data);
  if (!applied) return;
  const updated = { ...applied.order, token: applied.order.token ?? d.m.vouched[order.reference] };
  if (applied.statusChanged) emitPayResult(d, updated);
  if (isTerminalStatus(updated.status)) showResult(d, updated);
  else if (applied.actionChanged) show(d, updated, { resumed: false });
  else d.set({ phase: { ...d.m.state.phase, order: updated } as Phase });
}

/**
 * The kit said how long the order has left (each status answer of a pending order does): its deadline and countdown
 * follow, should the device's clock or a sleeping tab have drifted from the kit's.
 */
function resyncExpiry(d: Draft, reference: string, expiresAt: number): void {
  const order = d.order;
  if (!order || order.reference !== reference || isTerminalStatus(order.status)) return;
  if (order.expiresAt !== undefined && Math.abs(order.expiresAt - expiresAt) < EXPIRY_DRIFT_MS) return;
  d.set({ phase: { ...d.m.state.phase, order: { ...order, expiresAt } } as Phase });
  d.do({ type: 'retime', expiresAt });
}

function emitPayResult(d: Draft, order: ActiveOrder): void {
  d.emit({
    type: 'pay-result',
    detail: {
      callbackName: 'webPayCallback',
      eventName: 'svc-pay-result',
      merchantId: d.m.config?.merchantId ?? '',
      orderNo: order.orderNo,
      orderStatus: order.status,
      payNo: order.orderNo,
      referenceCode: order.referenceCode ?? '',
    },
  });
  d.announce({ kind: 'status', status: order.status });
}

/**
 * A checkout that is not set up correctly, by the setting at fault: a `CONFIG` error, also written to the log, where
 * its developer looks (the payer of a live checkout reads only that it is not available). Only the machine's own
 * findings are written there, never words from an answer.
 */
function configError(d: Draft, setting: string, violation?: Violation, stop = false): void {
  // `stop`: the checkout cannot go on, and shows why instead of its form.
  if (stop) d.set({ phase: { kind: 'config-error', setting } });
  const message = violation ? `${setting}: ${violation.message}` : (REFUSED_SETTINGS.get(setting) ?? `${CLIENT_ERROR_CODES.CONFIG.message}: ${setting}`);
  d.do({ type: 'log', message: `svc-checkout: ${message}` });
  d.error('CONFIG', message, false);
}

/** The isolated frame's own fetch got no answer at all (not a timeout, not a frame that went). */
const isNoAnswer = (unanswered: Unanswered) => 'failure' in unanswered && unanswered.failure.frame === true;

/** What a developer reads when something in front of the kit refuses the isolated frame's calls. */
export const FRAME_REFUSED =
  "the isolated fields' create got no answer while the page's own call to the same kit did: something in front of the kit " +
  "answers the frame's preflight (OPTIONS from Origin: null) and refuses it, most often a dev server's own CORS (Vite: set " +
  'server.cors: false) or a CORS middleware mounted before the kit (Express cors(): mount it after the kit, or on your other ' +
  'routes only). See docs/isolated-fields.md, "Behind a CORS middleware"';

/**
 * The isolated frame's create got no answer while the lookup that followed it, the page's own call to the kit, got
 * one: not the payer's connection, but the kit's set-up. The payer reads that the secure fields could not reach the
 * shop (not to check their connection), and the developer what to change.
 */
function frameRefused(d: Draft): void {
  d.do({ type: 'log', message: `svc-checkout: ${FRAME_REFUSED}` });
  alert(d, { kind: 'fields-refused' });
  d.error('CONFIG', FRAME_REFUSED, false);
}

/** A lost create's order was never made: what its failure said is said now. */
function report(d: Draft, unanswered: Unanswered): void {
  if ('failure' in unanswered) transportError(d, unanswered.failure);
  else envelopeError(d, unanswered.envelope);
}

function transportError(d: Draft, failure: Failure): void {
  alert(d, { kind: failure.code ? transportMessageOf(failure) : 'generic' });
  d.error(failure.code ?? 'NETWORK', failure.message, failure.retryable);
}

/** A passing message: shown, and said in the live region. */
function notice(d: Draft, message: Message): void {
  d.set({ notice: message });
  d.announce(message);
}

/** An error the payer must read: shown, and said in the live region (where "Processing…" was). */
function alert(d: Draft, message: Message): void {
  d.set({ alert: message });
  d.announce(message);
}

/**
 * An envelope that is not a success: field errors where they belong, the rest as an alert that says what the payer
 * can do. A refusal of what the payer cannot change (the shop's settings, its account at the service) keeps the form
 * and says to contact the shop; the page hears the code, and for `02001` the fields and rules at fault.
 */
function envelopeError(d: Draft, envelope: Envelope<unknown>): void {
  const violations = violationsOf(envelope);
  const named = violations.map((violation) => `${violation.field} (${violation.rule}): ${violation.message}`).join('; ');
  d.error(envelope.code, named ? `${envelope.message} ${named}` : envelope.message, isRetryable(envelope.code));
  if (envelope.code !== RESULT_ROLES.invalid) {
    alert(d, messageForEnvelope(envelope));
    return;
  }
  const errors: Partial<Record<FieldName, FieldError>> = {};
  const others: Message[] = [];
  for (const violation of violations) {
    const field = formFieldOf(d.m.state.method, violation.field);
    if (field) errors[field] = violation.rule === 'merchant' ? { rule: 'merchant', text: violation.message } : { rule: violation.rule };
    // The merchant's own words (an OrderRejection) are for the payer; the service's English is not.
    else if (violation.rule === 'merchant') others.push({ kind: 'merchant', text: violation.message });
    else if (violation.rule === 'limit' || violation.rule === 'state') others.push({ kind: violation.rule });
    // A field the payer never sees (the reference, the return address, a setting): only the shop can mend it.
    else others.push({ kind: 'unavailable' });
  }
  const fields = Object.keys(errors) as FieldName[];
  if (fields.length > 0) {
    const touched = { ...d.m.touched };
    for (const field of fields) touched[field] = true;
    d.update({ touched, serverErrors: { ...d.m.serverErrors, ...errors } });
    d.set({ errors, submitCount: d.m.state.submitCount + 1, alert: others[0] });
    d.announce({ kind: 'form-errors', count: fields.length });
    return;
  }
  alert(d, others[0] ?? { kind: 'unavailable' });
}
