/**
 * The service's endpoints as the sandbox answers them: one function per operation, from an authenticated
 * merchant and a parsed body to the specification's envelope. Validation is src/core's; outcomes come from
 * the test values in scenarios/test-values.ts.
 */
import {
  DUPLICATE_REFERENCE_CODES,
  envelopeForViolations,
  errorEnvelope,
  fillPath,
  isPayMethod,
  isPlainObject,
  isTerminalStatus,
  LIMITS,
  OTP_REQUEST,
  PAYMENT_NOT_FOUND_MESSAGE,
  PIN_REQUEST,
  REFUND_CREATE,
  REFUND_QUERY,
  RESEND_OTP_REQUEST,
  STATUS_REQUEST,
  successEnvelope,
  validate,
  validateCreateRequest,
  type BankAccountCreateRequest,
  type CashierStatusData,
  type CreatePaymentData,
  type CreatePaymentRequest,
  type Envelope,
  type OtpRequest,
  type PinRequest,
  type RefundCreateRequest,
  type RefundQueryRequest,
  type RefundStatusData,
  type ResendOtpRequest,
  type StatusRequest,
  type Violation,
} from '../../core/index.js';
import { SANDBOX_PATHS } from '../paths.js';
import { MINUTE, type SandboxClock } from '../world/clock.js';
import type { ResolvedMerchant } from '../config.js';
import { describePlan, failureOf, planOf, withExpectation, type Expectation, type ExpectationBook } from '../scenarios/expectations.js';
import type { Outbox } from '../world/notifications.js';
import type { Order, OrderBook, Refund } from '../world/orders.js';
import {
  bankAccountScenario,
  errorForAmount,
  FAILURES,
  MAX_CODE_ATTEMPTS,
  MAX_OTP_RESENDS,
  REFUND_PENDING_MINUTES,
  REFUND_SETTLE_MINUTES,
  refundScenario,
  type Scenarios,
} from '../scenarios/test-values.js';

/** Orders that name no country are taken to be Egyptian (the VAT rule and callbacks need one). */
export const DEFAULT_COUNTRY = 'EG';

export interface ServiceContext {
  merchant: ResolvedMerchant;
  book: OrderBook;
  outbox: Outbox;
  clock: SandboxClock;
  scenarios: Scenarios;
  expectations: ExpectationBook;
  /** The address payers' browsers reach the sandbox at, for the 3-D Secure page. */
  publicUrl: string;
}

const FAMILY_OF_METHOD = { Pos: 'payment', BankAccount: 'payment', ReferenceCode: 'referenceCode' } as const;

function invalid(...violations: Violation[]): Envelope {
  return envelopeForViolations(violations);
}

/** The create path; it also takes the specification's `{country, orderNo, otp}` body. */
export function createPayment(context: ServiceContext, body: unknown): Envelope {
  if (isPlainObject(body) && body['otp'] !== undefined && body['payMethod'] === undefined) return submitOtp(context, body);
  const method = isPlainObject(body) ? body['payMethod'] : undefined;
  if (isPayMethod(method) && !context.merchant.methods.includes(method)) return errorEnvelope('02002');
  const checked = validateCreateRequest(body, { now: new Date(context.clock.now()) });
  if (!checked.ok) return envelopeForViolations(checked.violations);
  const request = checked.value;
  const triggered = errorForAmount(request.amount.total, FAMILY_OF_METHOD[request.payMethod]);
  if (triggered) return errorEnvelope(triggered);
  if (context.book.hasReference(context.merchant.merchantId, request.reference)) {
    return errorEnvelope(DUPLICATE_REFERENCE_CODES[request.payMethod]);
  }
  switch (request.payMethod) {
    case 'Pos': {
      const fields = base(context, request);
      const expectation = takeExpectation(context, fields);
      const order = context.book.add({ ...fields, sn: request.sn, nextAction: 'SWIPE_CARD' }, 'created: PENDING, waits for a card at the terminal');
      applyPlan(context, order, expectation);
      return successEnvelope(createData(order, context));
    }
    case 'BankAccount':
      return createBankAccountPayment(context, request);
    case 'ReferenceCode': {
      const fields = base(context, request);
      const expectation = takeExpectation(context, fields);
      const order = context.book.add({ ...fields, referenceCode: context.book.nextReferenceCode() }, 'created: PENDING, waits for the reference code to be paid');
      applyPlan(context, order, expectation);
      if (order.status === 'PENDING') {
        const sent = context.outbox.sendReferenceCode(order, request.notify, request.merchantName ?? context.merchant.name, context.clock.now());
        for (const message of sent) context.book.note(order, `reference code sent by ${message.channel} to ${message.to}`);
      }
      return successEnvelope(createData(order, context));
    }
  }
}

function base(context: ServiceContext, request: CreatePaymentRequest) {
  const createdAt = context.clock.now();
  return {
    merchantId: context.merchant.merchantId,
    orderNo: context.book.nextOrderNo(),
    reference: request.reference,
    payMethod: request.payMethod,
    status: 'PENDING' as const,
    amount: { ...request.amount },
    country: request.country ?? DEFAULT_COUNTRY,
    createdAt,
    expiresAt: createdAt + (request.expireAt ?? LIMITS.defaultExpireMinutes) * MINUTE,
    productName: request.product.name,
    ...(request.callbackUrl ? { callbackUrl: request.callbackUrl } : {}),
  };
}

function takeExpectation(context: ServiceContext, fields: { merchantId: string; reference: string; orderNo: string }): Expectation | undefined {
  return context.expectations.take('payment', fields.merchantId, fields.reference, fields.orderNo);
}

/** Gives a new order the plan its expectation names, and settles it at once when that is due now. */
function applyPlan(context: ServiceContext, order: Order, expectation: Expectation | undefined): void {
  if (!expectation) return;
  if (expectation.nextAction && order.payMethod !== 'BankAccount') {
    context.expectations.applied(expectation, order.orderNo, `nextAction ignored: it is for bank account orders, and this is ${order.payMethod}`);
  }
  const plan = planOf(expectation, order.createdAt);
  if (plan) context.book.plan(order, plan, describePlan(plan));
  else context.book.note(order, `expectation ${expectation.id}: asks for ${expectation.nextAction}`);
  context.book.settleDue();
}

function createBankAccountPayment(context: ServiceContext, request: BankAccountCreateRequest): Envelope {
  const { scenarios } = context;
  const magic = bankAccountScenario(request.bankCode, request.bankAccountNumber, scenarios);
  if (magic.checksDateOfBirth) {
    const given = { dobDay: request.dobDay, dobMonth: request.dobMonth, dobYear: request.dobYear };
    const expected = { dobDay: scenarios.dateOfBirth.dobDay, dobMonth: scenarios.dateOfBirth.dobMonth, dobYear: scenarios.dateOfBirth.dobYear };
    if (JSON.stringify(given) !== JSON.stringify(expected)) {
      return invalid({ field: 'dobDay', rule: 'mismatch', message: 'dobDay, dobMonth and dobYear do not match the account holder' });
    }
  }
  const fields = base(context, request);
  const expectation = takeExpectation(context, fields);
  const scenario = withExpectation(magic, expectation);
  const order = context.book.add(
    {
      ...fields,
      nextAction: scenario.nextAction,
      bank: {
        scenario,
        bankCode: request.bankCode,
        accountLast4: request.bankAccountNumber.slice(-4),
        returnUrl: request.returnUrl,
      },
    },
    `created: PENDING, asks for ${scenario.nextAction}`,
  );
  if (scenario.failsAtCreate) context.book.complete(order, 'FAIL', scenario.failsAtCreate, 'failed at create (test account)');
  else applyPlan(context, order, expectation);
  if (order.status === 'PENDING' && order.nextAction === 'INPUT_OTP') sendOtp(context, order);
  return successEnvelope(createData(order, context));
}

function sendOtp(context: ServiceContext, order: Order): void {
  const message = context.outbox.sendOtp(order, context.scenarios.otp, context.clock.now());
  context.book.note(order, `OTP sent by ${message.channel} to ${message.to}`);
}

/** `data` of create and of the OTP, PIN and resend actions. */
function createData(order: Order, context: ServiceContext): CreatePaymentData {
  const data: CreatePaymentData = {
    reference: order.reference,
    orderNo: order.orderNo,
    status: order.status,
    amount: { ...order.amount },
  };
  if (order.payMethod !== 'ReferenceCode') data.vat = { total: order.vat.total, currency: order.vat.currency };
  if (order.nextAction && order.status === 'PENDING') {
    data.nextAction = { actionType: order.nextAction };
    if (order.nextAction === 'REDIRECT_3DS') {
      data.nextAction.redirectUrl = `${context.publicUrl}${fillPath(SANDBOX_PATHS.threeDsPage, { orderNo: order.orderNo })}`;
    }
  }
  if (order.referenceCode) data.referenceCode = order.referenceCode;
  if (order.failureCode) {
    data.failureCode = order.failureCode;
    data.failureReason = order.failureReason ?? '';
  }
  return data;
}

/** Finds the order an action names, or the envelope that says why not. */
function orderForAction(
  context: ServiceContext,
  body: { orderNo?: string; reference?: string },
  waitingFor: Order['nextAction'],
  what: string,
): Order | Envelope {
  context.book.expireDue();
  const order = context.book.find(context.merchant.merchantId, body);
  if (!order) return errorEnvelope('02006', { message: PAYMENT_NOT_FOUND_MESSAGE });
  if (isTerminalStatus(order.status)) return successEnvelope(createData(order, context));
  if (order.nextAction !== waitingFor) {
    const field = body.orderNo !== undefined ? 'orderNo' : 'reference';
    return invalid({ field, rule: 'state', message: `order ${order.orderNo} is not waiting for ${what}` });
  }
  return order;
}

function isEnvelope(value: Order | Envelope): value is Envelope {
  return 'code' in value;
}

function submitCode(context: ServiceContext, order: Order, given: string, expected: string, field: 'otp' | 'pin'): Envelope {
  const name = field === 'otp' ? 'OTP' : 'PIN';
  if (given === expected) {
    context.book.completeStep(order, order.bank?.scenario.outcome ?? 'success', `${name} entered`);
    return successEnvelope(createData(order, context));
  }
  order.codeAttempts += 1;
  const left = MAX_CODE_ATTEMPTS - order.codeAttempts;
  if (left <= 0) {
    context.book.complete(order, 'FAIL', FAILURES.codeAttempts, `wrong ${name} ${MAX_CODE_ATTEMPTS} times`);
    return successEnvelope(createData(order, context));
  }
  context.book.note(order, `wrong ${name}; ${left} ${left === 1 ? 'attempt' : 'attempts'} left`);
  return invalid({
    field,
    rule: 'mismatch',
    message: `${field} does not match the code the payer received; ${left} ${left === 1 ? 'attempt' : 'attempts'} left`,
    triesLeft: left,
  });
}

export function submitOtp(context: ServiceContext, body: unknown): Envelope {
  const checked = validate<OtpRequest>(OTP_REQUEST, body);
  if (!checked.ok) return envelopeForViolations(checked.violations);
  const order = orderForAction(context, checked.value, 'INPUT_OTP', 'an OTP');
  if (isEnvelope(order)) return order;
  return submitCode(context, order, checked.value.otp, context.scenarios.otp, 'otp');
}

export function submitPin(context: ServiceContext, body: unknown): Envelope {
  const checked = validate<PinRequest>(PIN_REQUEST, body);
  if (!checked.ok) return envelopeForViolations(checked.violations);
  const order = orderForAction(context, checked.value, 'INPUT_PIN', 'a PIN');
  if (isEnvelope(order)) return order;
  return submitCode(context, order, checked.value.pin, context.scenarios.pin, 'pin');
}

export function resendOtp(context: ServiceContext, body: unknown): Envelope {
  const checked = validate<ResendOtpRequest>(RESEND_OTP_REQUEST, body);
  if (!checked.ok) return envelopeForViolations(checked.violations);
  const order = orderForAction(context, checked.value, 'INPUT_OTP', 'an OTP');
  if (isEnvelope(order)) return order;
  if (order.otpResends >= MAX_OTP_RESENDS) {
    const field = checked.value.orderNo !== undefined ? 'orderNo' : 'reference';
    return invalid({ field, rule: 'limit', message: `the OTP of order ${order.orderNo} was already sent again ${MAX_OTP_RESENDS} times` });
  }
  order.otpResends += 1;
  sendOtp(context, order);
  return successEnvelope(createData(order, context));
}

export function queryStatus(context: ServiceContext, body: unknown): Envelope {
  const checked = validate<StatusRequest>(STATUS_REQUEST, body);
  if (!checked.ok) return envelopeForViolations(checked.violations);
  context.book.expireDue();
  const order = context.book.find(context.merchant.merchantId, checked.value);
  if (!order) return errorEnvelope('02006', { message: PAYMENT_NOT_FOUND_MESSAGE });
  return successEnvelope(statusData(order));
}

export function statusData(order: Order): CashierStatusData {
  return {
    reference: order.reference,
    orderNo: order.orderNo,
    status: order.status,
    amount: { ...order.amount },
    vat: {
      total: order.vat.total,
      currency: order.vat.currency,
      rate: order.vat.rate,
      currencySymbo: currencySymbol(order.vat.currency),
    },
    failureCode: order.failureCode ?? null,
    failureReason: order.failureReason ?? null,
    silence: 'Y',
  };
}

function currencySymbol(currency: string): string {
  const part = new Intl.NumberFormat('en', { style: 'currency', currency, currencyDisplay: 'narrowSymbol' })
    .formatToParts(0)
    .find((item) => item.type === 'currency');
  return part?.value ?? currency;
}

export function createRefund(context: ServiceContext, body: unknown): Envelope {
  const checked = validate<RefundCreateRequest>(REFUND_CREATE, body);
  if (!checked.ok) return envelopeForViolations(checked.violations);
  const request = checked.value;
  const triggered = errorForAmount(request.amount.total, 'refund');
  if (triggered) return errorEnvelope(triggered);
  const merchantId = context.merchant.merchantId;
  if (context.book.hasRefund(merchantId, request.reference)) {
    return invalid({ field: 'reference', rule: 'duplicate', message: `reference ${request.reference} was already used for a refund` });
  }
  const original = context.book.find(merchantId, { reference: request.originalReference });
  if (!original) return errorEnvelope('02006', { message: PAYMENT_NOT_FOUND_MESSAGE });
  if (original.status !== 'SUCCESS') {
    return invalid({ field: 'originalReference', rule: 'state', message: `order ${request.originalReference} was not paid` });
  }
  if (request.amount.currency !== original.amount.currency) {
    return invalid({ field: 'amount.currency', rule: 'mismatch', message: `amount.currency must be ${original.amount.currency}` });
  }
  const refundable = original.amount.total - original.refundedTotal;
  if (request.amount.total > refundable) {
    return invalid({ field: 'amount.total', rule: 'max', message: `amount.total must be at most ${refundable}, what is left to refund` });
  }
  original.refundedTotal += request.amount.total;
  const createdAt = context.clock.now();
  const orderNo = context.book.nextOrderNo();
  const expectation = context.expectations.take('refund', merchantId, request.reference, orderNo);
  const magic = refundScenario(request.amount.total, context.scenarios);
  const failure = expectation && failureOf(expectation);
  const outcome: Refund['outcome'] = expectation?.outcome
    ? failure
      ? { outcome: 'FAIL', errorCode: failure.failureCode, errorMsg: failure.failureReason }
      : { outcome: 'SUCCESS' }
    : { outcome: magic.outcome, ...(magic.errorCode ? { errorCode: magic.errorCode } : {}), ...(magic.errorMsg ? { errorMsg: magic.errorMsg } : {}) };
  const settleMinutes = expectation?.afterMinutes ?? magic.afterMinutes ?? REFUND_SETTLE_MINUTES;
  const refund = context.book.addRefund(
    {
      merchantId,
      reference: request.reference,
      originalReference: original.reference,
      orderNo,
      originalOrderNo: original.orderNo,
      country: request.country,
      amount: { ...request.amount },
      refundWay: request.refundWay,
      orderStatus: 'INITIAL',
      createdAt,
      pendingAt: createdAt + REFUND_PENDING_MINUTES * MINUTE,
      settlesAt: createdAt + settleMinutes * MINUTE,
      outcome,
      ...(expectation ? { expectationId: expectation.id } : {}),
    },
    expectation ? `created: INITIAL; expectation ${expectation.id}: ${outcome.outcome} after ${settleMinutes} min` : `created: INITIAL; ${outcome.outcome} after ${settleMinutes} min`,
  );
  context.book.note(original, `refund ${refund.reference} of ${refund.amount.total} created`);
  return successEnvelope(refundData(refund));
}

export function queryRefund(context: ServiceContext, body: unknown): Envelope {
  const checked = validate<RefundQueryRequest>(REFUND_QUERY, body);
  if (!checked.ok) return envelopeForViolations(checked.violations);
  const refund = context.book.findRefund(context.merchant.merchantId, checked.value.reference);
  if (!refund) return errorEnvelope('02006');
  return successEnvelope(refundData(refund));
}

function refundData(refund: Refund): RefundStatusData {
  return {
    reference: refund.reference,
    originalReference: refund.originalReference,
    orderNo: refund.orderNo,
    originalOrderNo: refund.originalOrderNo,
    country: refund.country,
    amount: { ...refund.amount },
    orderStatus: refund.orderStatus,
    ...(refund.errorCode ? { errorCode: refund.errorCode, errorMsg: refund.errorMsg ?? '' } : {}),
  };
}
