/**
 * The control API under /sandbox/v1/: what the payer, the bank and time would do, on demand, for tests, the
 * demo and merchants. Answers are plain JSON with HTTP statuses (this API is the sandbox's own, not the
 * service's): 400 names the fields, 404 and 409 say what is missing or already settled.
 */
import {
  integer,
  matchPath,
  oneOf,
  REFERENCE_CODE,
  TERMINAL_PAYMENT_STATUSES,
  text,
  validate,
  type Format,
  type RuleTable,
  type Violation,
} from '../core/index.js';
import { SANDBOX_PATHS } from './paths.js';
import type { CallbackDispatcher } from './callbacks.js';
import { LATEST_TIME, MINUTE, type SandboxClock } from './clock.js';
import type { ResolvedMerchant } from './config.js';
import { FAULT_KINDS, type FaultKind, type FaultQueue } from './faults.js';
import type { Outbox } from './notifications.js';
import type { Order, OrderBook } from './orders.js';
import { FAILURES } from './scenarios.js';

export interface SandboxState {
  book: OrderBook;
  dispatcher: CallbackDispatcher;
  outbox: Outbox;
  faults: FaultQueue;
  clock: SandboxClock;
  merchants: ReadonlyMap<string, ResolvedMerchant>;
  /** Applies everything due on the sandbox clock: expiries, refunds, callbacks. */
  tick(): void;
}

export interface ControlAnswer {
  status: number;
  body: unknown;
}

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
    createdAt: new Date(order.createdAt).toISOString(),
    expiresAt: new Date(order.expiresAt).toISOString(),
    updatedAt: new Date(order.updatedAt).toISOString(),
    nextAction: order.nextAction ?? null,
    referenceCode: order.referenceCode ?? null,
    sn: order.sn ?? null,
    accountLast4: order.bank?.accountLast4 ?? null,
    callbackUrl: order.callbackUrl ?? null,
    failureCode: order.failureCode ?? null,
    failureReason: order.failureReason ?? null,
  };
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

const badRequest = (violations: Violation[]): ControlAnswer => ({
  status: 400,
  body: { message: violations.map((violation) => violation.message).join('; '), errors: violations },
});
const notFound = (message: string): ControlAnswer => ({ status: 404, body: { message } });
const conflict = (message: string, order: Order): ControlAnswer => ({ status: 409, body: { message, order: orderView(order) } });

type Route = {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  run(state: SandboxState, params: Record<string, string>, body: unknown, query: URLSearchParams): ControlAnswer;
};

const ROUTES: Route[] = [
  {
    method: 'GET',
    path: SANDBOX_PATHS.orders,
    run: (state) => ({ status: 200, body: { orders: state.book.list().map(orderView) } }),
  },
  {
    method: 'GET',
    path: SANDBOX_PATHS.order,
    run: (state, { orderNo }) => {
      const order = state.book.get(orderNo ?? '');
      return order ? { status: 200, body: orderView(order) } : notFound(`no order ${orderNo}`);
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
      if (!state.book.complete(order, status, status === 'SUCCESS' ? undefined : given)) {
        return conflict(`order ${order.orderNo} is already ${order.status}`, order);
      }
      return { status: 200, body: orderView(order) };
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
      if (!state.book.complete(order, 'SUCCESS')) return conflict(`reference code ${code} is ${order.status}, it cannot be paid`, order);
      return { status: 200, body: orderView(order) };
    },
  },
  {
    method: 'POST',
    path: SANDBOX_PATHS.swipe,
    run: (state, { sn }, body) => {
      const checked = validate<{ outcome: 'success' | 'fail' }>(SWIPE_BODY, body ?? {});
      if (!checked.ok) return badRequest(checked.violations);
      state.book.expireDue();
      const order = state.book.pendingAtTerminal(sn ?? '');
      if (!order) return notFound(`no pending order waits at terminal ${sn}`);
      if (checked.value.outcome === 'success') state.book.complete(order, 'SUCCESS');
      else state.book.complete(order, 'FAIL', FAILURES.cardDeclined);
      return { status: 200, body: orderView(order) };
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
      state.tick();
      return { status: 200, body: clockView(state.clock) };
    },
  },
  { method: 'GET', path: SANDBOX_PATHS.clock, run: (state) => ({ status: 200, body: clockView(state.clock) }) },
  {
    method: 'GET',
    path: SANDBOX_PATHS.callbacks,
    run: (state, _, __, query) => ({ status: 200, body: { callbacks: state.dispatcher.attempts(filterOf(query)) } }),
  },
  {
    method: 'GET',
    path: SANDBOX_PATHS.notifications,
    run: (state, _, __, query) => ({ status: 200, body: { notifications: state.outbox.list(filterOf(query)) } }),
  },
  {
    method: 'POST',
    path: SANDBOX_PATHS.faults,
    run: (state, _, body) => {
      const checked = validate<{ kind: FaultKind; count: number; delayMs?: number }>(FAULT_BODY, body ?? {});
      if (!checked.ok) return badRequest(checked.violations);
      state.faults.add(checked.value.kind, checked.value.count, checked.value.delayMs);
      return { status: 200, body: { faults: state.faults.list() } };
    },
  },
  { method: 'GET', path: SANDBOX_PATHS.faults, run: (state) => ({ status: 200, body: { faults: state.faults.list() } }) },
  {
    method: 'DELETE',
    path: SANDBOX_PATHS.faults,
    run: (state) => {
      state.faults.clear();
      return { status: 200, body: { faults: [] } };
    },
  },
  {
    method: 'POST',
    path: SANDBOX_PATHS.reset,
    run: (state) => {
      state.book.clear();
      state.dispatcher.clear();
      state.outbox.clear();
      state.faults.clear();
      state.clock.reset();
      return { status: 200, body: { reset: true } };
    },
  },
];

function clockView(clock: SandboxClock) {
  return { now: new Date(clock.now()).toISOString(), nowMs: clock.now(), offsetMs: clock.offsetMs };
}

function filterOf(query: URLSearchParams): { orderNo?: string } {
  const orderNo = query.get('orderNo');
  return orderNo ? { orderNo } : {};
}

/** Answers a control call, or returns undefined when the path is not the control API's. */
export function handleControl(state: SandboxState, method: string, url: URL, body: unknown): ControlAnswer | undefined {
  const matches = ROUTES.map((route) => ({ route, params: matchPath(route.path, url.pathname) })).filter(
    (candidate): candidate is { route: Route; params: Record<string, string> } => candidate.params !== undefined,
  );
  if (matches.length === 0) return undefined;
  const match = matches.find((candidate) => candidate.route.method === method);
  if (!match) {
    return { status: 405, body: { message: `use ${matches.map((candidate) => candidate.route.method).join(' or ')}` } };
  }
  state.tick();
  const answer = match.route.run(state, match.params, body, url.searchParams);
  state.tick();
  return answer;
}
