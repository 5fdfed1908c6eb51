/**
 * What the answer to each of the checkout machine's requests does (the `answer` action, machine-actions.ts): the
 * create's, a lookup's, the latest attempt's, a code's and a resend's.
 */
import {
  CLIENT_ERROR_CODES,
  isCreateOutcomeUnknown,
  isDuplicateReference,
  isPayMethod,
  isPlainObject,
  isSuccess,
  violationsOf,
  type CashierStatusData,
  type CreatePaymentData,
  type Envelope,
} from '../core/index.js';
import { attemptOf, attemptReference, MAX_ATTEMPTS } from '../core/tokens.js';
import type { Draft } from './machine-draft.js';
import { envelopeError, frameRefused, isNoAnswer, notice, report } from './machine-errors.js';
import { create, emitPayResult, existingOrder, forgetSecrets, foundLatest, foundOrder, latestAttempt, lookUp, mismatch, observeStatus, RESEND_WAIT_MS, show } from './machine-steps.js';
import { statusDataOf, type Request } from './model.js';
import { creatingOf, type Phase } from './state.js';
import { orderFromCreate, sameAmount } from './transitions.js';

/** What each request's answer does. */
export const ANSWERS: { [K in Request['kind']]: (d: Draft, request: Extract<Request, { kind: K }>, answer: { envelope: Envelope<never>; expiresIn?: number; orderToken?: string }) => void } = {
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
      d.update({ left: false, ...(attempt !== undefined ? { attempt } : {}) });
      forgetSecrets(d, request.method);
      emitPayResult(d, order);
      show(d, order, { resumed: false });
    } else if (envelope.code === 'ORDER_EXISTS' && isPlainObject(envelope.data)) {
      existingOrder(d, request.method, envelope.data as unknown as CashierStatusData, answer.orderToken);
    } else if (envelope.code === 'CHECKOUT_CHANGED') {
      // The cart was paid at another amount: this checkout takes no payment, and says so.
      mismatch(d, envelope.code, envelope.message);
    } else if (isCreateOutcomeUnknown(envelope.code)) {
      // An answer that cannot say whether the order was made: its status decides.
      lookUp(d, { kind: 'lookup', reference: request.reference, method: request.method, known: creatingOf(d.m.state.phase)?.known, lost: true, report: { envelope } });
    } else if (isDuplicateReference(envelope.code)) {
      lookUp(d, { kind: 'lookup', reference: request.reference, method: request.method, duplicate: true, retried: request.retried });
    } else {
      // Refused: no order was made, the form is back without its create.
      d.set({ phase: { kind: 'form' } });
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
    // Asked behind the form: nothing there leaves the form as the payer has it (that attempt is not asked about again
    // for a while), and an order found there replaces the form only (a result shown meanwhile stays).
    if (request.quiet && (!data || d.m.state.phase.kind !== 'form')) {
      if (!data) d.update({ foundEmpty: { attempt: d.m.attempt, at: d.at } });
      return;
    }
    if (!data) {
      // No such order: the create never arrived, and the same reference may be sent again.
      d.set({ phase: { kind: 'form' } });
      if (request.duplicate) envelopeError(d, envelope);
      if (request.report && request.throughFrame && isNoAnswer(request.report)) frameRefused(d);
      else if (request.report) report(d, request.report);
      return;
    }
    // An order of this reference for another amount is not the one the payer is looking at: never shown as theirs.
    if (!sameAmount(data.amount, d.m.state.amount)) {
      mismatch(d, 'ORDER_MISMATCH', CLIENT_ERROR_CODES.ORDER_MISMATCH.message);
      return;
    }
    const spent = data.status === 'FAIL' || data.status === 'CLOSE';
    if (spent && request.duplicate) {
      // That reference is spent (its order failed or closed): the payer meant to pay, so once, send the next.
      if (!request.retried) {
        d.update({ attempt: d.m.attempt + 1 });
        d.set({ phase: { kind: 'form' } });
        create(d, true);
      }
      return;
    }
    const told = (data as { payMethod?: unknown }).payMethod;
    const method = request.named && isPayMethod(told) ? told : request.method;
    const order = foundOrder(d, data, request.reference, method, { known: request.known, answerLost: request.lost, duplicate: request.duplicate, methodUnknown: request.named && !isPayMethod(told) });
    forgetSecrets(d, method);
    if (request.lost || !spent) emitPayResult(d, order);
    // A step this page knows (its own POS order's terminal, or the kit's note of another page's terminal or code) is shown; others wait for their status.
    show(d, order, { resumed: true, wait: !order.actionType });
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
