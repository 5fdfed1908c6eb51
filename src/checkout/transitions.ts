/**
 * What an answer does to an order, as pure functions: no clock but the one passed, no network, no storage. The
 * session calls them and keeps the results; tests call them directly.
 */
import {
  ATTEMPT_NOTE_FIELD,
  attemptNoteOf,
  isErrorCode,
  isPaymentStatus,
  isRetryable,
  isTerminalStatus,
  normalizeNextActionType,
  type CreatePaymentData,
  type Envelope,
  type NotifyMethod,
  type PayMethod,
  type PaymentStatus,
} from '../core/index.js';
import { RESULT_ROLES } from '../core/result-roles.js';
import type { Failure } from './endpoint-client.js';
import type { ActiveOrder, KnownFromCreate, Message, Phase, ResultOutcome, WaitReason } from './state.js';

/** The status fields any answer about an order may carry. */
export interface StatusData {
  status: string;
  reference?: string | undefined;
  orderNo?: string | undefined;
  amount?: { total: number | string; currency: string } | undefined;
  failureCode?: string | null | undefined;
  failureReason?: string | null | undefined;
  nextAction?: { actionType: string; redirectUrl?: string } | undefined;
}

/** m•••@example.com */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@');
  if (at <= 0) return '•••';
  return `${email.slice(0, 1)}•••${email.slice(at)}`;
}

/** •••• 4567 */
export function maskMobile(mobile: string): string {
  const digits = mobile.replace(/\D/g, '');
  return `•••• ${digits.slice(-4)}`;
}

export function knownFromCreate(method: PayMethod, body: Record<string, unknown>): KnownFromCreate {
  if (method === 'Pos') return { sn: body['sn'] as string, actionType: 'SWIPE_CARD' };
  if (method !== 'ReferenceCode') return {};
  const notify = (body['notify'] ?? {}) as { notifyMethod?: NotifyMethod; notifyUserEmail?: string; notifyUserMobile?: string };
  return {
    notifyMethod: notify.notifyMethod ?? 'BOTH',
    maskedEmail: notify.notifyUserEmail ? maskEmail(notify.notifyUserEmail) : undefined,
    maskedMobile: notify.notifyUserMobile ? maskMobile(notify.notifyUserMobile) : undefined,
  };
}

/**
 * What the kit's note of an attempt tells (read by src/core/attempt-note.ts, as the kit that sends it reads it): its
 * method, and its step when it has one here; `undefined` for anything else. Its text is only ever shown as text.
 */
export function knownFromNote(value: unknown): Pick<ActiveOrder, 'payMethod' | 'sn' | 'referenceCode' | 'accountEnding' | 'actionType'> | undefined {
  const note = attemptNoteOf(value);
  if (note?.payMethod === 'Pos') return { ...note, actionType: 'SWIPE_CARD' };
  return note?.payMethod === 'ReferenceCode' ? { ...note, actionType: 'REFERENCE_CODE' } : note;
}

/** The order a successful create answer made. */
export function orderFromCreate(
  data: CreatePaymentData,
  sent: { method: PayMethod; body: Record<string, unknown>; country: string; amount: ActiveOrder['amount'] },
  answer: { expiresIn?: number | undefined; token?: string | undefined; now: number },
): ActiveOrder {
  const { method, body } = sent;
  return {
    reference: data.reference ?? (body['reference'] as string),
    orderNo: String(data.orderNo ?? ''),
    payMethod: method,
    status: isPaymentStatus(data.status) ? data.status : 'PENDING',
    country: (body['country'] as string | undefined) ?? sent.country,
    amount: data.amount ?? sent.amount,
    redirectUrl: data.nextAction?.redirectUrl,
    referenceCode: data.referenceCode,
    ...knownFromCreate(method, body),
    actionType: method === 'ReferenceCode' ? 'REFERENCE_CODE' : normalizeNextActionType(data.nextAction?.actionType),
    expiresAt: answer.expiresIn !== undefined ? answer.now + answer.expiresIn * 1000 : undefined,
    failureCode: data.failureCode,
    failureReason: data.failureReason,
    token: answer.token,
  };
}

/**
 * The order a status answer shows, for a reference whose create answer this page did not see, or that the service
 * refused as a duplicate. `known`: what the create body told of it (kept across a reload); `answerLost`: this page
 * sent that create and lost its answer.
 */
export function orderFromStatus(
  data: StatusData & { status: PaymentStatus },
  found: { reference: string; payMethod: PayMethod; country: string; shownAmount: ActiveOrder['amount']; token: string | undefined },
  how: { known?: KnownFromCreate | undefined; answerLost?: boolean | undefined; duplicate?: boolean | undefined; methodUnknown?: boolean | undefined },
): ActiveOrder {
  // Which payment a pending attempt is, as the kit noted it when it was made (another page's: its terminal, its code).
  const note = data.status === 'PENDING' ? knownFromNote((data as { [ATTEMPT_NOTE_FIELD]?: unknown })[ATTEMPT_NOTE_FIELD]) : undefined;
  return {
    reference: data.reference ?? found.reference,
    orderNo: String(data.orderNo ?? ''),
    payMethod: found.payMethod,
    status: data.status,
    country: found.country,
    amount: data.amount ? { total: Number(data.amount.total), currency: data.amount.currency } : found.shownAmount,
    failureCode: data.failureCode ?? undefined,
    failureReason: data.failureReason ?? undefined,
    token: found.token,
    ...how.known,
    ...note,
    ...(how.answerLost ? { answerLost: true } : {}),
    ...(how.methodUnknown && !note ? { methodUnknown: true } : {}),
    // Refused as a duplicate: this checkout did not make that order, whoever paid it.
    ...(how.duplicate && data.status === 'SUCCESS' ? { paidBefore: true } : {}),
  };
}

/** Whether a status answer's amount (when it has one) is the amount this checkout shows. */
export function sameAmount(found: StatusData['amount'], shown: ActiveOrder['amount']): boolean {
  if (!found || !shown) return true;
  return Number(found.total) === shown.total && found.currency === shown.currency;
}

/**
 * A status seen in any answer, applied to the order: `undefined` when it is about another order (the one
 * before a retry) or changes nothing; otherwise the updated order and what changed.
 */
export function applyStatus(order: ActiveOrder, data: StatusData): { order: ActiveOrder; statusChanged: boolean; actionChanged: boolean } | undefined {
  if (!isPaymentStatus(data.status)) return undefined;
  if (data.reference !== undefined && data.reference !== order.reference) return undefined;
  if (data.orderNo !== undefined && order.orderNo !== '' && String(data.orderNo) !== order.orderNo) return undefined;
  const nextActionType = normalizeNextActionType(data.nextAction?.actionType);
  const actionChanged = nextActionType !== undefined && nextActionType !== order.actionType;
  const statusChanged = data.status !== order.status;
  if (!statusChanged && !actionChanged) return undefined;
  return {
    order: {
      ...order,
      status: data.status,
      failureCode: data.failureCode ?? order.failureCode,
      failureReason: data.failureReason ?? order.failureReason,
      ...(actionChanged ? { actionType: nextActionType, redirectUrl: data.nextAction?.redirectUrl, redirected: false } : {}),
    },
    statusChanged,
    actionChanged,
  };
}

/** How a terminal order is shown. */
export function outcomeOf(order: ActiveOrder): Exclude<ResultOutcome, 'MISMATCH'> {
  if (order.status === 'SUCCESS') return order.paidBefore ? 'PAID_BEFORE' : 'SUCCESS';
  return order.status === 'FAIL' ? 'FAIL' : 'CLOSE';
}

/** Why a pending order without a known next step is waited on. */
export function waitReasonOf(order: ActiveOrder): WaitReason {
  if (order.payMethod === 'ReferenceCode' && order.notifyMethod) return 'code-sent';
  return order.answerLost ? 'answer-lost' : 'in-progress';
}

/** The phase that shows an order: its result, its next step, or a wait. */
export function phaseOf(order: ActiveOrder, reason?: WaitReason): Phase {
  if (isTerminalStatus(order.status)) return { kind: 'result', outcome: outcomeOf(order), order };
  if (order.actionType && reason === undefined) return { kind: 'action', order: { ...order, actionType: order.actionType } };
  return { kind: 'waiting', order, reason: reason ?? waitReasonOf(order) };
}

/** What the payer reads for an envelope that is neither a success nor field errors. */
export function messageForEnvelope(envelope: Envelope): Message {
  const data = (envelope.data ?? {}) as { reason?: unknown; retryAfterSeconds?: unknown };
  if (envelope.code === RESULT_ROLES.refused && typeof data.reason === 'string') {
    // The kit refused this checkout's proof: only a new page (a new token) helps.
    return { kind: data.reason === 'expired' ? 'checkout-expired' : 'checkout-refused' };
  }
  if (envelope.code === 'TOO_MANY_REQUESTS') {
    const seconds = typeof data.retryAfterSeconds === 'number' && data.retryAfterSeconds > 0 ? data.retryAfterSeconds : 30;
    return { kind: 'too-many', seconds };
  }
  if (!isErrorCode(envelope.code)) return { kind: 'generic' };
  // The service's and the kit's codes: sent again later, it may pass (`service`); otherwise only the shop can mend
  // it (its settings, its account at the service): the payer is told to contact it.
  return isRetryable(envelope.code) ? { kind: 'service' } : { kind: 'unavailable' };
}

/** The message a pending order without a next step is shown with. */
export function waitMessage(order: ActiveOrder, reason: WaitReason): Message | undefined {
  switch (reason) {
    case 'code-sent':
      return { kind: 'code-sent', notifyMethod: order.notifyMethod ?? 'BOTH', email: order.maskedEmail ?? '', mobile: order.maskedMobile ?? '' };
    case 'answer-lost':
      return { kind: 'answer-lost' };
    case 'in-progress':
      return order.accountEnding ? { kind: 'in-progress', accountEnding: order.accountEnding } : { kind: 'in-progress' };
    case 'status-only':
      return undefined;
  }
}

/** What the payer is told of a call that got no payment answer: offline, too slow, the shop's error, no such address. */
export function transportMessageOf(error: Pick<Failure, 'code' | 'status'>): 'network' | 'timeout' | 'shop-error' | 'not-found' | 'generic' {
  if (error.code === 'NETWORK') return 'network';
  if (error.code === 'TIMEOUT') return 'timeout';
  if (error.code === 'HTTP' && (error.status === 404 || error.status === 405)) return 'not-found';
  if (error.code === 'HTTP' || error.code === 'BAD_RESPONSE') return 'shop-error';
  return 'generic';
}
