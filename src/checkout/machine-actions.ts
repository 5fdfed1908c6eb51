/**
 * The checkout machine's actions (machine.ts: GRAPH names, for each phase, the action an event runs, the guard it
 * runs under and the phases it may lead to): one per event, each run only once its guard (machine-guards.ts) holds;
 * what the answers to its requests do is in machine-answers.ts.
 */
import { CLIENT_ERROR_CODES, isSuccess, isTerminalStatus, PAYER_CODE_RULES, toAsciiDigits, validate, type Violation } from '../core/index.js';
import { attemptOf, attemptReference } from '../core/tokens.js';
import { CODE_FIELDS } from './code-fields.js';
import { prefilled } from './fields.js';
import { formStateOf } from './first-frame.js';
import { formTransition } from './form.js';
import { isIsolated } from './isolated.js';
import { ANSWERS } from './machine-answers.js';
import type { Draft, EventOf } from './machine-draft.js';
import { configError, notice, transportError } from './machine-errors.js';
import { baseReference, create, emitChange, emitPayResult, foundLatest, foundOrder, lookedUp, lookUp, observeStatus, resyncExpiry, showErrors, showResult, start, vouch } from './machine-steps.js';
import { statusDataOf, type MachineEventType } from './model.js';
import { creatingOf, type ActiveOrder } from './state.js';

/** Failed status checks in a row before the payer is told the status cannot be checked. */
export const STATUS_FAILURES_BEFORE_NOTICE = 3;

type Actions = { [T in MachineEventType]: (d: Draft, event: EventOf<T>) => void };
/** The order of a code step, of a 3-D Secure step: what the guards of their actions (machine-guards.ts) made sure of. */
type CodeOrder = ActiveOrder & { actionType: 'INPUT_OTP' | 'INPUT_PIN' };
type RedirectOrder = ActiveOrder & { actionType: 'REDIRECT_3DS'; redirectUrl: string };

export const ACTIONS: Actions = {
  configure(d, e) {
    const refusedBefore = d.m.settings.refused;
    d.update({ settings: e.settings, config: e.config, problem: e.settings.refused ?? e.problem, pageUrl: e.pageUrl });
    d.set(formStateOf(e.config, e.settings, d.m.state));
    // The payer's details may come after the first render: they fill what is still empty.
    if (e.settings.userInfo && d.m.state.phase.kind === 'form') d.set(prefilled(e.config, e.settings, d.m.state));
    const fresh = e.key !== d.m.key;
    if (fresh) d.update({ base: e.saved?.base ?? baseReference(e.config.reference, d.at, e.nonce), attempt: Math.max(e.saved?.attempt ?? 1, e.config.startAttempt) });
    // A configuration error stands until a setting changes (the kit's refusal of one included: a new value may mend it).
    const broken = Boolean(d.m.problem);
    const kind = d.m.state.phase.kind;
    if (fresh || kind === 'idle' || (kind === 'config-error' && !broken) || (kind === 'form' && broken)) {
      start(d, e.key, e.saved);
      return;
    }
    // A setting refused while an order is under way is said, and the order goes on (the payer may be at the terminal).
    if (e.settings.refused && e.settings.refused !== refusedBefore) configError(d, e.settings.refused);
  },

  resume(d) {
    d.update({ active: true });
    d.do({ type: 'connect' });
  },

  pause(d) {
    d.update({ active: false });
    d.do({ type: 'disconnect' });
  },

  tick() {
    // The countdown is derived from the moment (Draft.done).
  },

  'select-method'(d, e) {
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
    const order = d.order as CodeOrder;
    const field = CODE_FIELDS[order.actionType];
    if (isIsolated(d.m.isolated, field.name)) {
      // Typed in the isolated frame: it said whether the code is one; it adds the code and sends it.
      const rule = d.m.isolated?.broken[field.name];
      if (rule) {
        d.set({ errors: { [field.name]: { rule } }, submitCount: d.m.state.submitCount + 1 });
        d.announce({ kind: 'form-errors', count: 1 });
        return;
      }
      d.set({ errors: {}, alert: undefined, notice: undefined });
      d.requestIsolated({ kind: 'code', field: field.name }, field.name, { country: order.country, orderNo: order.orderNo }, order.token);
      return;
    }
    // Only the payer's code is checked here: the order's country and number are the kit's, as it told them.
    const checked = validate(PAYER_CODE_RULES[order.actionType], { [field.name]: toAsciiDigits(e.code).trim() });
    if (!checked.ok) {
      // Refused before sending: kept, to be corrected, and said aloud as a refusal of the kit's is.
      d.set({ errors: { [field.name]: { rule: (checked.violations[0] as Violation).rule } }, submitCount: d.m.state.submitCount + 1 });
      d.announce({ kind: 'form-errors', count: 1 });
      return;
    }
    d.set({ errors: {}, alert: undefined, notice: undefined });
    d.request({ kind: 'code', field: field.name }, field.name, { country: order.country, orderNo: order.orderNo, ...checked.value }, order.token);
  },

  resend(d) {
    const order = d.order!;
    d.set({ alert: undefined, notice: undefined });
    d.request({ kind: 'resend' }, 'resendOtp', { country: order.country, orderNo: order.orderNo }, order.token);
  },

  'open-redirect'(d) {
    const order = d.order as RedirectOrder;
    if (d.m.state.redirectMode === 'same-window') {
      d.set({ phase: { kind: 'action', order: { ...order, actionType: 'REDIRECT_3DS', redirected: true } } });
      d.do({ type: 'navigate', url: order.redirectUrl });
    } else d.do({ type: 'open-window', url: order.redirectUrl });
  },

  'window-opened'(d, e) {
    const order = d.order as RedirectOrder;
    const redirected = !e.blocked || order.redirected;
    d.set({
      phase: { kind: 'action', order: { ...order, actionType: 'REDIRECT_3DS', redirected } },
      redirectBlocked: e.blocked,
      alert: e.blocked ? { kind: 'redirect-blocked' } : undefined,
    });
  },

  'redirect-decided'(d) {
    ACTIONS['open-redirect'](d, { type: 'open-redirect', at: d.at });
  },

  returned(d) {
    d.do({ type: 'check-status' });
  },

  leave(d) {
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
    // From the form itself (its create's answer still not seen, `creating`), the form stays as it is.
    d.set({ ...(d.m.state.phase.kind === 'form' ? {} : { phase: { kind: 'form' } }), alert: undefined, errors: {}, notice: undefined });
    emitChange(d);
  },

  note(d, e) {
    notice(d, e.message);
  },

  answer(d, e) {
    const request = d.m.request!;
    if (e.answer.orderToken && (request.kind === 'lookup' || request.kind === 'latest')) vouch(d, lookedUp(d, request), e.answer.orderToken);
    d.update({ request: undefined });
    ANSWERS[request.kind](d, request as never, e.answer as never);
  },

  'no-answer'(d, e) {
    const request = d.m.request!;
    d.update({ request: undefined });
    if (request.kind === 'create') {
      // No answer: the create may have reached the service and made the order. Its reference is looked up before
      // the payer is told anything: a new reference could make a second order.
      lookUp(d, { kind: 'lookup', reference: request.reference, method: request.method, known: creatingOf(d.m.state.phase)?.known, lost: true, report: { failure: e.failure }, throughFrame: request.isolated });
      return;
    }
    // Nothing was asked of the payer: the next check asks again.
    if (request.kind === 'lookup' && request.quiet) return;
    if (request.kind === 'lookup') {
      // Still unknown: the form, its create's answer still not seen (`creating`), so a retry sends the same reference
      // and a reload looks again.
      d.set({ phase: { kind: 'form', creating: creatingOf(d.m.state.phase) } });
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
    d.set({ alert: undefined });
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

  expired(d) {
    showResult(d, { ...d.order!, status: 'CLOSE' });
  },

  /**
   * An order of this checkout at `attempt`, made on another device (the kit's record names it): looked for behind the
   * form, which stays as the payer has it (an attempt refused here has none), and shown once found.
   */
  elsewhere(d, e) {
    d.update({ attempt: e.attempt });
    lookUp(d, { kind: 'lookup', reference: attemptReference(d.m.base, e.attempt), method: d.m.state.method, named: true, quiet: true });
  },
};
