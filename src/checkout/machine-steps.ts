/**
 * What the checkout machine's actions share (machine-actions.ts, machine-answers.ts): starting a checkout, the create
 * and the lookups, showing an order where it stands, applying a status, and the events the page hears of them.
 */
import {
  isHttpUrl,
  isPayMethod,
  isPaymentStatus,
  isTerminalStatus,
  LEAVING_FIELD,
  type CashierStatusData,
  type PayMethod,
  type PaymentStatus,
} from '../core/index.js';
import { attemptOf, attemptReference } from '../core/tokens.js';
import { CODE_FIELDS } from './code-fields.js';
import { fieldsOf, prefilled } from './fields.js';
import { shownErrors, withoutSecrets } from './form-check.js';
import type { Draft, DistributiveOmit } from './machine-draft.js';
import { configError } from './machine-errors.js';
import { isQuiet, statusCallOf, type Request } from './model.js';
import type { ActiveOrder, Phase, WaitReason } from './state.js';
import type { SavedCheckout } from './storage.js';
import { applyStatus, knownFromCreate, orderFromStatus, phaseOf, sameAmount, waitMessage, waitReasonOf, type StatusData } from './transitions.js';

/** "Send the code again" waits this long after a code was sent. */
export const RESEND_WAIT_MS = 30_000;
/** A deadline the kit reports this far from the one the page has moves it (less is the answer's own travel). */
const EXPIRY_DRIFT_MS = 2_000;

/** A checkout (re)started for `key`: a configuration error, the order kept for it, the search for a lost create, or the form. */
export function start(d: Draft, key: string, kept: SavedCheckout | undefined): void {
  d.update({ key, request: undefined, left: false, leftOrders: [], touched: {}, serverErrors: {}, resendAllowedAt: 0, statusFailures: 0 });
  d.do({ type: 'unfollow' });
  d.set({ alert: undefined, notice: undefined, errors: {} });
  // A setting the session could not take stops the checkout here; a merchant field's value is the kit's to judge, at
  // the create (docs/element.md, "A misconfigured attribute").
  if (d.m.problem) {
    configError(d, d.m.problem, undefined, true);
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
    d.set({ phase: { kind: 'looking-up', creating: saved.creating } });
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
export function baseReference(reference: string | undefined, at: number, nonce: string): string {
  return reference ?? `svc-${at.toString(36)}-${nonce}`;
}

/** Sends the form of the chosen method, or shows why it cannot be sent. */
export function create(d: Draft, retried: boolean): void {
  // A lookup behind the form gives way: its answer, come later, is of no request waited on.
  if (d.m.state.phase.kind !== 'form' || d.m.problem || (d.m.request && !isQuiet(d.m.request))) return;
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
  // Nothing of the payer's is wrong (an isolated frame's fields included): the request is there.
  const { value } = d.check!;
  if (!value) return;
  const method = d.m.state.method;
  // After "Use another method" on an order still pending, the kit is told that the payer left it on purpose.
  const sent = { ...(value as unknown as Record<string, unknown>), ...(d.m.left ? { [LEAVING_FIELD]: true } : {}) };
  d.set({ phase: { kind: 'form', creating: { reference: value.reference, payMethod: method, known: knownFromCreate(method, sent) } } });
  d.announce({ kind: 'processing' });
  const request = { kind: 'create', reference: value.reference, method, sent, retried } as const;
  if (d.check!.isolated.length > 0) d.requestIsolated({ ...request, isolated: true }, 'create', sent);
  else d.request(request, 'create', sent);
}

export function lookUp(d: Draft, request: Extract<DistributiveOmit<Request, 'id'>, { kind: 'lookup' }>): void {
  const call = statusCallOf(d.m, request.reference);
  d.request(request, 'status', call.body, call.orderToken);
}

export function latestAttempt(d: Draft, attempt: number, found: Extract<Request, { kind: 'latest' }>['found']): void {
  const call = statusCallOf(d.m, attemptReference(d.m.base, attempt));
  d.request({ kind: 'latest', attempt, found }, 'status', call.body, call.orderToken);
}

/** The reference a lookup asked about. */
export function lookedUp(d: Draft, request: Extract<Request, { kind: 'lookup' | 'latest' }>): string {
  return request.kind === 'lookup' ? request.reference : attemptReference(d.m.base, request.attempt);
}

/**
 * The kit made no order: this checkout already has one, paid or in progress (another tab, a page from before). That
 * order is shown, at its attempt, and the payer's secrets typed for the new one are forgotten.
 */
export function existingOrder(d: Draft, method: PayMethod, data: CashierStatusData, token: string | undefined): void {
  if (!isPaymentStatus(data.status) || typeof data.reference !== 'string') {
    d.set({ phase: { kind: 'form' }, alert: { kind: 'generic' } });
    return;
  }
  const attempt = attemptOf(d.m.base, data.reference, d.m.config?.attempts);
  d.update({ left: false, ...(attempt !== undefined ? { attempt } : {}) });
  if (token) vouch(d, data.reference, token);
  const order = foundOrder(d, data, data.reference, method, { methodUnknown: true }, token);
  forgetSecrets(d, method);
  emitPayResult(d, order);
  // Its step when the kit said which payment it is (a terminal, a code); otherwise a wait for its status.
  show(d, order, { resumed: true, wait: !order.actionType });
}

/** An order of this checkout exists for another amount or currency (the cart changed): shown as no payment of this one. */
export function mismatch(d: Draft, code: string, message: string): void {
  d.do({ type: 'unfollow' });
  d.set({ phase: { kind: 'result', outcome: 'MISMATCH' }, alert: undefined, notice: undefined });
  d.announce({ kind: 'result', outcome: 'MISMATCH' });
  d.error(code, message, false);
}

/** A page that did not create the order (a thank-you page, another tab) follows the latest attempt found. */
export function foundLatest(d: Draft, found: Extract<Request, { kind: 'latest' }>['found']): void {
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
export function foundOrder(d: Draft, data: StatusData, reference: string, payMethod: PayMethod, how: Parameters<typeof orderFromStatus>[2], token = d.m.vouched[reference]): ActiveOrder {
  const found = { reference, payMethod, country: d.m.config?.countryCode ?? '', shownAmount: d.m.state.amount, token };
  return orderFromStatus(data as StatusData & { status: PaymentStatus }, found, how);
}

export function vouch(d: Draft, reference: string, token: string): void {
  if (d.m.vouched[reference] !== token) d.update({ vouched: { ...d.m.vouched, [reference]: token } });
}

/** The order exists, so the service has the payer's secrets: the checkout forgets them. */
export function forgetSecrets(d: Draft, method: PayMethod): void {
  d.set({ values: withoutSecrets(d.m.state.values, method) });
}

export function showErrors(d: Draft, all: boolean): void {
  d.set({ errors: shownErrors(d.m, d.check!, all) });
}

export function emitChange(d: Draft): void {
  const check = d.check;
  const complete = check !== undefined && Object.keys(check.payer).length === 0;
  d.emit({ type: 'change', detail: { payMethod: d.m.state.method, complete } });
}

/**
 * Shows an order where it stands: its result, its next step, or a wait. `resumed`: it was found again (a reload, a
 * lost answer), so the status is checked at once and a 3-D Secure page is not opened again. `wait`: its next step is
 * not known here.
 */
export function show(d: Draft, order: ActiveOrder, how: { resumed: boolean; wait?: boolean; reason?: WaitReason; quiet?: boolean }): void {
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

export function showResult(d: Draft, order: ActiveOrder, quiet = false): void {
  d.do({ type: 'unfollow' });
  d.update({ resendAllowedAt: 0 });
  const phase = phaseOf(order);
  d.set({ phase, alert: undefined, notice: undefined });
  if (quiet || phase.kind !== 'result') return;
  d.announce({ kind: 'result', outcome: phase.outcome });
  if (phase.outcome === 'CLOSE') d.emit({ type: 'expired', detail: { orderNo: order.orderNo, reference: order.reference } });
}

/** Applies a status seen in any answer; a change is reported, and a terminal one ends the flow. */
export function observeStatus(d: Draft, data: StatusData): void {
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
export function resyncExpiry(d: Draft, reference: string, expiresAt: number): void {
  const order = d.order;
  if (!order || order.reference !== reference || isTerminalStatus(order.status)) return;
  if (order.expiresAt !== undefined && Math.abs(order.expiresAt - expiresAt) < EXPIRY_DRIFT_MS) return;
  d.set({ phase: { ...d.m.state.phase, order: { ...order, expiresAt } } as Phase });
  d.do({ type: 'retime', expiresAt });
}

export function emitPayResult(d: Draft, order: ActiveOrder): void {
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
