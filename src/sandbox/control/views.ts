/**
 * What the control API shows of the world: an order, a refund, the clock, the tables a client builds its
 * controls from, and everything at once. The control API's answers, its event stream and the control client's
 * types all take them from here; the world keeps its own records and never asks how they are shown.
 */
import { TERMINAL_PAYMENT_STATUSES } from '../../core/index.js';
import { DELIVERY_FAULTS, TAMPER_FIELDS } from '../faults/delivery-faults.js';
import { FAULT_KINDS } from '../faults/service-faults.js';
import { EXPECTATION_TARGETS } from '../scenarios/expectations.js';
import type { SandboxClock } from '../world/clock.js';
import { SANDBOX_EVENT_TYPES, type SandboxEvent } from '../world/events.js';
import type { Order, Refund } from '../world/orders.js';
import type { SandboxWorld } from '../world/world.js';

const iso = (ms: number) => new Date(ms).toISOString();

/** What the control API shows of an order. Account numbers are never kept, only their last four digits. */
export function orderView(order: Order) {
  return {
    orderNo: order.orderNo,
    reference: order.reference,
    merchantId: order.merchantId,
    payMethod: order.payMethod,
    status: order.status,
    amount: order.amount,
    vat: order.vat,
    country: order.country,
    productName: order.productName,
    createdAt: iso(order.createdAt),
    expiresAt: iso(order.expiresAt),
    updatedAt: iso(order.updatedAt),
    nextAction: order.nextAction ?? null,
    referenceCode: order.referenceCode ?? null,
    sn: order.sn ?? null,
    accountLast4: order.bank?.accountLast4 ?? null,
    callbackUrl: order.callbackUrl ?? null,
    failureCode: order.failureCode ?? null,
    failureReason: order.failureReason ?? null,
    codeAttempts: order.codeAttempts,
    refundedTotal: order.refundedTotal,
    /** How an expectation says it will end. */
    plan: order.plan ? { ...order.plan, at: order.plan.at === undefined ? null : iso(order.plan.at) } : null,
    /** What happened to it, oldest first. */
    life: order.life.map((entry) => ({ ...entry, at: iso(entry.at) })),
  };
}

export function refundView(refund: Refund) {
  return {
    reference: refund.reference,
    originalReference: refund.originalReference,
    orderNo: refund.orderNo,
    originalOrderNo: refund.originalOrderNo,
    merchantId: refund.merchantId,
    country: refund.country,
    amount: refund.amount,
    refundWay: refund.refundWay,
    orderStatus: refund.orderStatus,
    errorCode: refund.errorCode ?? null,
    errorMsg: refund.errorMsg ?? null,
    createdAt: iso(refund.createdAt),
    pendingAt: iso(refund.pendingAt),
    settlesAt: iso(refund.settlesAt),
    outcome: refund.outcome,
    expectationId: refund.expectationId ?? null,
    life: refund.life.map((entry) => ({ ...entry, at: iso(entry.at) })),
  };
}

export function clockView(clock: SandboxClock) {
  return { now: iso(clock.now()), nowMs: clock.now(), offsetMs: clock.offsetMs };
}

/** The words the dashboard and clients build their controls from: every table decided in one place. */
export function vocabulary() {
  return {
    faultKinds: FAULT_KINDS,
    deliveryFaults: DELIVERY_FAULTS,
    tamperFields: Object.keys(TAMPER_FIELDS),
    expectationTargets: EXPECTATION_TARGETS,
    terminalStatuses: [...TERMINAL_PAYMENT_STATUSES],
    eventTypes: SANDBOX_EVENT_TYPES,
  };
}

/** Everything at once: GET /sandbox/v1/state, and the first event of every stream. */
export function snapshot(state: SandboxWorld) {
  return {
    clock: clockView(state.clock),
    merchants: [...state.merchants.values()].map((merchant) => ({
      merchantId: merchant.merchantId,
      name: merchant.name,
      methods: merchant.methods,
      available: merchant.available,
      webhookUrl: merchant.webhookUrl ?? null,
    })),
    orders: state.book.list().map(orderView),
    refunds: state.book.refunds().map(refundView),
    messages: state.outbox.list(),
    deliveries: state.dispatcher.deliveries(),
    faults: state.faults.list(),
    deliveryFaults: state.deliveryFaults.list(),
    expectations: state.expectations.list(),
    links: state.links.list(),
    vocabulary: vocabulary(),
  };
}

export type SandboxSnapshot = ReturnType<typeof snapshot>;

/**
 * An event as a stream's readers see it: the world publishes its own orders and refunds, shown here by their
 * views, as every answer of the control API shows them; the other events carry what they show already.
 */
export function shownEvent(event: SandboxEvent): SandboxEvent {
  if (event.type === 'order') return { ...event, data: orderView(event.data as Order) };
  if (event.type === 'refund') return { ...event, data: refundView(event.data as Refund) };
  return event;
}
