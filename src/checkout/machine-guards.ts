/**
 * The guards of the checkout machine's actions (machine.ts, GRAPH names one per edge that has one): what must hold of
 * the model and the event for the action to run. A guard that fails leaves the phase where it is and asks for nothing.
 * Pure reads of the model as the event finds it.
 */
import { isHttpUrl, isTerminalStatus } from '../core/index.js';
import type { EventOf } from './machine-draft.js';
import { ELSEWHERE_RECHECK_MS, type MachineEvent, type Model } from './model.js';
import { creatingOf, orderOf } from './state.js';

const orderIn = (model: Model) => orderOf(model.state.phase);

/** A 3-D Secure step whose page can be opened: an http(s) address. */
const redirectable = (model: Model): boolean => {
  const order = orderIn(model);
  return order?.actionType === 'REDIRECT_3DS' && Boolean(order.redirectUrl) && isHttpUrl(order.redirectUrl as string);
};

export const GUARDS = {
  /** Not following yet: a second resume asks for nothing. */
  inactive: (model: Model) => !model.active,
  active: (model: Model) => model.active,
  /** Nothing under way, and a method the configuration offers. */
  offered: (model: Model, event: EventOf<'select-method'>) => !model.state.busy && Boolean(model.config?.methods.includes(event.method)),
  /** A code step (OTP or PIN), its last code not still being sent. */
  codeStep: (model: Model) => {
    const type = orderIn(model)?.actionType;
    return !model.state.busy && (type === 'INPUT_OTP' || type === 'INPUT_PIN');
  },
  /** An order, nothing under way, and the wait after the last code over. */
  resendable: (model: Model, event: MachineEvent) => orderIn(model) !== undefined && !model.state.busy && model.resendAllowedAt <= event.at,
  redirectable,
  redirectStep: (model: Model) => orderIn(model)?.actionType === 'REDIRECT_3DS',
  /** Still this order's step, and still wanted (the host may have left the page: the order is saved). */
  redirectWanted: (model: Model, event: EventOf<'redirect-decided'>) =>
    event.go && model.active && orderIn(model)?.orderNo === event.orderNo && redirectable(model),
  /** Back from the bank's page while the order is not yet paid or ended. */
  redirectPending: (model: Model) => {
    const order = orderIn(model);
    return order?.actionType === 'REDIRECT_3DS' && !isTerminalStatus(order.status);
  },
  /**
   * Nothing under way (while a create or the search for its lost answer is, a new reference could make a second
   * order), and not paid: a paid checkout is never left, there is nothing more to pay.
   */
  leavable: (model: Model) => {
    const { phase, busy } = model.state;
    return !busy && phase.kind !== 'looking-up' && !(phase.kind === 'result' && (phase.outcome === 'SUCCESS' || phase.outcome === 'PAID_BEFORE'));
  },
  /** The answer (or its absence) of the request waited on; a stale one, of a request no longer waited on, does nothing. */
  awaited: (model: Model, event: EventOf<'answer' | 'no-answer'>) => model.request?.id === event.request,
  /** "We could not reach the shop" is what the payer reads. */
  networkAlert: (model: Model) => model.state.alert?.kind === 'network',
  /**
   * Nothing under way, and an attempt of this checkout at least as late as the page's own: maybe another device's order
   * (or the page's own create the service refused, which made none: looked up behind the form all the same, since
   * another device may have paid at that attempt since).
   */
  newAttempt: (model: Model, event: EventOf<'elsewhere'>) =>
    !model.request &&
    !creatingOf(model.state.phase) &&
    Number.isInteger(event.attempt) &&
    event.attempt >= Math.max(model.attempt, 1) &&
    !(!event.seen && model.foundEmpty?.attempt === event.attempt && event.at - model.foundEmpty.at < ELSEWHERE_RECHECK_MS),
  /** An order not yet paid or ended. */
  pending: (model: Model) => {
    const order = orderIn(model);
    return order !== undefined && !isTerminalStatus(order.status);
  },
} as const;

export type GuardName = keyof typeof GUARDS;
