/**
 * The control API under /sandbox/v1/: what the payer, the bank, the network and time would do, on demand, for
 * tests, the demo, the dashboard and merchants. Answers are plain JSON with HTTP statuses (this API is the
 * sandbox's own, not the service's): 400 names the fields, 404 and 409 say what is missing or already
 * settled. What it shows of orders, refunds and the clock is views.ts's; its routes over HTTP are routes.ts's,
 * and its event stream (/sandbox/v1/events) is events.ts's.
 */
import {
  integer,
  matchPath,
  ORDER_FORMATS,
  oneOf,
  REFERENCE_CODE,
  TERMINAL_PAYMENT_STATUSES,
  text,
  validate,
  type Format,
  type RuleTable,
  type Violation,
} from '../../core/index.js';
import { checkDeliveryFault } from '../faults/delivery-faults.js';
import { FAULT_KINDS, type FaultKind } from '../faults/service-faults.js';
import { SANDBOX_PATHS } from '../paths.js';
import { applyToOrder, applyToRefund, checkExpectation } from '../scenarios/expectations.js';
import { FAILURES } from '../scenarios/test-values.js';
import { LATEST_TIME, MINUTE } from '../world/clock.js';
import type { Order } from '../world/orders.js';
import type { SandboxWorld } from '../world/world.js';
import { clockView, orderView, refundView, snapshot, vocabulary } from './views.js';

export interface ControlAnswer {
  status: number;
  body: unknown;
}

const positiveMinutes: Format = (value, field) => {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || value > 5_256_000) {
    return { ok: false, rule: 'range', message: `${field} must be a number of minutes greater than 0 (at most ten years)` };
  }
  return { ok: true, value };
};

const COMPLETE_BODY: RuleTable = {
  fields: {
    status: { required: true, format: oneOf([...TERMINAL_PAYMENT_STATUSES]) },
    failureCode: { required: false, format: text({ max: 64 }) },
    failureReason: { required: false, format: text({ max: 256 }) },
  },
};
const SWIPE_BODY: RuleTable = { fields: { outcome: { required: false, format: oneOf(['success', 'fail']), default: 'success' } } };
const ADVANCE_BODY: RuleTable = { fields: { minutes: { required: true, format: positiveMinutes } } };
const FAULT_BODY: RuleTable = {
  fields: {
    kind: { required: true, format: oneOf(FAULT_KINDS) },
    count: { required: false, format: integer({ min: 1, max: 1000, expected: 'a whole number from 1 to 1000' }), default: 1 },
    delayMs: { required: false, format: integer({ min: 1, max: 600_000, expected: 'milliseconds from 1 to 600000' }) },
  },
};

const LINK_BODY: RuleTable = {
  fields: {
    url: { required: true, format: text({ max: 2_048, pattern: /^https?:\/\/\S+\/pay\/pl1\.[\w-]+$/, expected: "a pay page's address (http(s)://…/pay/pl1.…)" }) },
    reference: { required: true, format: ORDER_FORMATS.reference },
    'amount.total': { required: true, format: ORDER_FORMATS.minorUnits },
    'amount.currency': { required: true, format: ORDER_FORMATS.currency },
    productName: { required: true, format: ORDER_FORMATS.productName },
    expiresAt: { required: true, format: integer({ min: 0, max: 253_402_300_799, expected: 'unix seconds' }) },
  },
};

const badRequest = (violations: Violation[]): ControlAnswer => ({
  status: 400,
  body: { message: violations.map((violation) => violation.message).join('; '), errors: violations },
});
const notFound = (message: string): ControlAnswer => ({ status: 404, body: { message } });
const conflict = (message: string, order: Order): ControlAnswer => ({ status: 409, body: { message, order: orderView(order) } });
const ok = (body: unknown): ControlAnswer => ({ status: 200, body });

type Route = {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  run(state: SandboxWorld, params: Record<string, string>, body: unknown, query: URLSearchParams): ControlAnswer | Promise<ControlAnswer>;
};

const ROUTES: Route[] = [
  { method: 'GET', path: SANDBOX_PATHS.links, run: (state) => ok({ links: state.links.list() }) },
  {
    method: 'POST',
    path: SANDBOX_PATHS.links,
    run: (state, _params, body) => {
      const checked = validate<{ url: string; reference: string; amount: { total: number; currency: string }; productName: string; expiresAt: number }>(LINK_BODY, body);
      if (!checked.ok) return badRequest(checked.violations);
      const { url, reference, amount, productName, expiresAt } = checked.value;
      state.links.add({ url, reference, amount: { total: amount.total, currency: amount.currency }, productName, expiresAt, madeAt: state.clock.now() });
      return ok({ links: state.links.list() });
    },
  },
  { method: 'GET', path: SANDBOX_PATHS.orders, run: (state) => ok({ orders: state.book.list().map(orderView) }) },
  {
    method: 'GET',
    path: SANDBOX_PATHS.order,
    run: (state, { orderNo }) => {
      const order = state.book.get(orderNo ?? '');
      return order ? ok(orderView(order)) : notFound(`no order ${orderNo}`);
    },
  },
  {
    method: 'POST',
    path: SANDBOX_PATHS.completeOrder,
    run: (state, { orderNo }, body) => {
      const checked = validate<{ status: 'SUCCESS' | 'FAIL' | 'CLOSE'; failureCode?: string; failureReason?: string }>(COMPLETE_BODY, body ?? {});
      if (!checked.ok) return badRequest(checked.violations);
      const order = state.book.get(orderNo ?? '');
      if (!order) return notFound(`no order ${orderNo}`);
      const { status, failureCode, failureReason } = checked.value;
      const given = { ...(failureCode ? { failureCode } : {}), ...(failureReason ? { failureReason } : {}) };
      if (!state.book.complete(order, status, status === 'SUCCESS' ? undefined : given, 'settled through the control API')) {
        return conflict(`order ${order.orderNo} is already ${order.status}`, order);
      }
      return ok(orderView(order));
    },
  },
  {
    method: 'POST',
    path: SANDBOX_PATHS.payReferenceCode,
    run: (state, { code }) => {
      const checked = validate(REFERENCE_CODE, { referenceCode: code });
      if (!checked.ok) return badRequest(checked.violations);
      const order = state.book.byReferenceCode(code ?? '');
      if (!order) return notFound(`no order has reference code ${code}`);
      if (!state.book.completeStep(order, 'success', 'reference code paid')) return conflict(`reference code ${code} is ${order.status}, it cannot be paid`, order);
      return ok(orderView(order));
    },
  },
  {
    method: 'POST',
    path: SANDBOX_PATHS.swipe,
    run: (state, { sn }, body) => {
      const checked = validate<{ outcome: 'success' | 'fail' }>(SWIPE_BODY, body ?? {});
      if (!checked.ok) return badRequest(checked.violations);
      state.book.settleDue();
      const order = state.book.pendingAtTerminal(sn ?? '');
      if (!order) return notFound(`no pending order waits at terminal ${sn}`);
      if (checked.value.outcome === 'success') state.book.completeStep(order, 'success', 'card swiped');
      else state.book.complete(order, 'FAIL', FAILURES.cardDeclined, 'card declined at the terminal');
      return ok(orderView(order));
    },
  },
  {
    method: 'POST',
    path: SANDBOX_PATHS.advanceClock,
    run: (state, _, body) => {
      const checked = validate<{ minutes: number }>(ADVANCE_BODY, body ?? {});
      if (!checked.ok) return badRequest(checked.violations);
      if (state.clock.now() + checked.value.minutes * MINUTE > LATEST_TIME) {
        return badRequest([{ field: 'minutes', rule: 'range', message: 'minutes would move the sandbox clock past the end of the year 9999' }]);
      }
      state.clock.advance(checked.value.minutes * MINUTE);
      state.events.publish('clock', () => clockView(state.clock));
      state.tick();
      return ok(clockView(state.clock));
    },
  },
  { method: 'GET', path: SANDBOX_PATHS.clock, run: (state) => ok(clockView(state.clock)) },
  {
    method: 'GET',
    path: SANDBOX_PATHS.callbacks,
    run: (state, _, __, query) => ok({ callbacks: state.dispatcher.attempts(filterOf(query)) }),
  },
  {
    method: 'GET',
    path: SANDBOX_PATHS.deliveries,
    run: (state, _, __, query) => ok({ deliveries: state.dispatcher.deliveries(filterOf(query)) }),
  },
  {
    method: 'POST',
    path: SANDBOX_PATHS.resendCallback,
    run: async (state, { notifyId }) => {
      const attempt = await state.dispatcher.resend(notifyId ?? '');
      return attempt ? ok({ attempt }) : notFound(`no callback has notifyId ${notifyId}`);
    },
  },
  {
    method: 'POST',
    path: SANDBOX_PATHS.replayCallback,
    run: async (state, { notifyId }) => {
      const attempt = await state.dispatcher.replay(notifyId ?? '');
      if (attempt === undefined) return notFound(`no callback has notifyId ${notifyId}`);
      if (attempt === null) return { status: 409, body: { message: `callback ${notifyId} was never sent: there is nothing to replay (resend it instead)` } };
      return ok({ attempt });
    },
  },
  {
    method: 'GET',
    path: SANDBOX_PATHS.notifications,
    run: (state, _, __, query) => ok({ notifications: state.outbox.list(filterOf(query)) }),
  },
  {
    method: 'POST',
    path: SANDBOX_PATHS.faults,
    run: (state, _, body) => {
      const checked = validate<{ kind: FaultKind; count: number; delayMs?: number }>(FAULT_BODY, body ?? {});
      if (!checked.ok) return badRequest(checked.violations);
      state.faults.add(checked.value.kind, checked.value.count, checked.value.delayMs);
      return ok({ faults: state.faults.list() });
    },
  },
  { method: 'GET', path: SANDBOX_PATHS.faults, run: (state) => ok({ faults: state.faults.list() }) },
  {
    method: 'DELETE',
    path: SANDBOX_PATHS.faults,
    run: (state) => {
      state.faults.clear();
      return ok({ faults: [] });
    },
  },
  {
    method: 'DELETE',
    path: SANDBOX_PATHS.fault,
    run: (state, { id }) => (state.faults.remove(id ?? '') ? ok({ faults: state.faults.list() }) : notFound(`no queued fault ${id}`)),
  },
  {
    method: 'POST',
    path: SANDBOX_PATHS.deliveryFaults,
    run: (state, _, body) => {
      const checked = checkDeliveryFault(body ?? {});
      if (!checked.ok) return badRequest(checked.violations);
      const unknown = unknownMerchant(state, checked.value.merchantId);
      if (unknown) return badRequest([unknown]);
      const fault = state.deliveryFaults.add(checked.value);
      return ok({ fault, deliveryFaults: state.deliveryFaults.list() });
    },
  },
  { method: 'GET', path: SANDBOX_PATHS.deliveryFaults, run: (state) => ok({ deliveryFaults: state.deliveryFaults.list() }) },
  {
    method: 'DELETE',
    path: SANDBOX_PATHS.deliveryFaults,
    run: (state) => {
      state.deliveryFaults.clear();
      return ok({ deliveryFaults: [] });
    },
  },
  {
    method: 'DELETE',
    path: SANDBOX_PATHS.deliveryFault,
    run: (state, { id }) =>
      state.deliveryFaults.remove(id ?? '') ? ok({ deliveryFaults: state.deliveryFaults.list() }) : notFound(`no queued delivery fault ${id}`),
  },
  {
    method: 'POST',
    path: SANDBOX_PATHS.expectations,
    run: (state, _, body) => {
      const checked = checkExpectation(body ?? {});
      if (!checked.ok) return badRequest(checked.violations);
      const input = checked.value;
      const unknown = unknownMerchant(state, input.merchantId);
      if (unknown) return badRequest([unknown]);
      const expectation = state.expectations.add(input);
      // Told after the create: it applies to that order or refund at once.
      const now = state.clock.now();
      let refusal: string | undefined;
      let order: Order | undefined;
      if (input.target === 'payment') {
        order = ownersOf(state, input.merchantId)
          .map((merchantId) => state.book.find(merchantId, { reference: input.reference }))
          .find((found) => found !== undefined);
        if (order) refusal = applyToOrder(expectation, order, state.book, state.expectations, now);
      } else {
        const refund = state.book.refundsWithReference(input.reference).find((found) => input.merchantId === undefined || found.merchantId === input.merchantId);
        if (refund) refusal = applyToRefund(expectation, refund, state.book, state.expectations, now);
      }
      if (refusal) {
        state.expectations.remove(expectation.id);
        return { status: 409, body: { message: refusal, ...(order ? { order: orderView(order) } : {}) } };
      }
      return ok({ expectation: state.expectations.list().find((item) => item.id === expectation.id), expectations: state.expectations.list() });
    },
  },
  { method: 'GET', path: SANDBOX_PATHS.expectations, run: (state) => ok({ expectations: state.expectations.list() }) },
  {
    method: 'DELETE',
    path: SANDBOX_PATHS.expectations,
    run: (state) => {
      for (const order of state.book.list()) if (order.plan && order.status === 'PENDING') state.book.plan(order, undefined, `expectation ${order.plan.expectationId} removed`);
      state.expectations.clear();
      return ok({ expectations: [] });
    },
  },
  {
    method: 'DELETE',
    path: SANDBOX_PATHS.expectation,
    run: (state, { id }) => {
      if (!state.expectations.remove(id ?? '')) return notFound(`no expectation ${id}`);
      // An order it was applied to goes back to what its test values say.
      for (const order of state.book.list()) {
        if (order.plan?.expectationId === id && order.status === 'PENDING') state.book.plan(order, undefined, `expectation ${id} removed`);
      }
      return ok({ expectations: state.expectations.list() });
    },
  },
  { method: 'GET', path: SANDBOX_PATHS.refunds, run: (state) => ok({ refunds: state.book.refunds().map(refundView) }) },
  { method: 'GET', path: SANDBOX_PATHS.state, run: (state) => ok(snapshot(state)) },
  { method: 'GET', path: SANDBOX_PATHS.scenarios, run: (state) => ok({ scenarios: state.scenarios, vocabulary: vocabulary() }) },
  {
    method: 'POST',
    path: SANDBOX_PATHS.reset,
    run: (state) => {
      state.book.clear();
      state.dispatcher.clear();
      state.outbox.clear();
      state.faults.clear();
      state.deliveryFaults.clear();
      state.expectations.clear();
      state.links.clear();
      state.clock.reset();
      state.events.publish('reset', () => snapshot(state));
      return ok({ reset: true });
    },
  },
];

function unknownMerchant(state: SandboxWorld, merchantId: string | undefined): Violation | undefined {
  if (merchantId === undefined || state.merchants.has(merchantId)) return undefined;
  return { field: 'merchantId', rule: 'unknown', message: `merchantId ${merchantId} is not a merchant of this sandbox` };
}

function ownersOf(state: SandboxWorld, merchantId: string | undefined): string[] {
  return merchantId === undefined ? [...state.merchants.keys()] : [merchantId];
}

function filterOf(query: URLSearchParams): { orderNo?: string } {
  const orderNo = query.get('orderNo');
  return orderNo ? { orderNo } : {};
}

/** Answers a control call, or returns undefined when the path is not the control API's. */
export async function handleControl(state: SandboxWorld, method: string, url: URL, body: unknown): Promise<ControlAnswer | undefined> {
  const matches = ROUTES.map((route) => ({ route, params: matchPath(route.path, url.pathname) })).filter(
    (candidate): candidate is { route: Route; params: Record<string, string> } => candidate.params !== undefined,
  );
  if (matches.length === 0) return undefined;
  const match = matches.find((candidate) => candidate.route.method === method);
  if (!match) {
    return { status: 405, body: { message: `use ${matches.map((candidate) => candidate.route.method).join(' or ')}` } };
  }
  state.tick();
  const answer = await match.route.run(state, match.params, body, url.searchParams);
  state.tick();
  return answer;
}
