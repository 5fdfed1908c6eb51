/**
 * Expectations by reference: "the order with reference R will ask for a PIN, then fail with
 * INSUFFICIENT_FUNDS 20 sandbox minutes after create". Told before the create (it waits for the first order
 * or refund with that reference) or after it (it applies to the order or refund at once), each happens once.
 * An expectation wins over the test values of test-values.ts in what it names; the control API's own calls
 * (complete, a declined 3-D Secure check, a failed swipe, wrong codes) and the order's expiry still do what
 * they say.
 */
import { isPlainObject, ORDER_FORMATS, text, type Violation } from '../../core/index.js';
import { MINUTE, type SandboxClock } from '../world/clock.js';
import { ConsumableQueue, type QueueData } from '../world/consumable-queue.js';
import { choice, fieldReader, minutesFormat, unknownFields } from '../http/input.js';
import type { Order, OrderBook, OrderPlan, Refund, TerminalStatus } from '../world/orders.js';
import { FAILURES, REFUND_FAILURE, type BankAccountScenario, type Failure } from './test-values.js';

/** What an expectation may say, per kind of target. Decided here once: validation, README and dashboard follow it. */
export const EXPECTATION_TARGETS = {
  payment: {
    outcomes: ['SUCCESS', 'FAIL', 'CLOSE'],
    /** Bank account orders only: what the payer is asked for after create. */
    nextActions: ['INPUT_OTP', 'INPUT_PIN', 'REDIRECT_3DS'],
    failures: { FAIL: FAILURES.failedByTest, CLOSE: FAILURES.closedByTest } as Record<string, Failure>,
  },
  refund: {
    outcomes: ['SUCCESS', 'FAIL'],
    nextActions: [],
    failures: { FAIL: { failureCode: REFUND_FAILURE.errorCode, failureReason: REFUND_FAILURE.errorMsg } } as Record<string, Failure>,
  },
} as const;

export type ExpectationTarget = keyof typeof EXPECTATION_TARGETS;
export const EXPECTATION_FIELDS = ['target', 'reference', 'merchantId', 'nextAction', 'outcome', 'failureCode', 'failureReason', 'afterMinutes'] as const;

export interface ExpectationInput {
  target: ExpectationTarget;
  reference: string;
  merchantId?: string;
  nextAction?: 'INPUT_OTP' | 'INPUT_PIN' | 'REDIRECT_3DS';
  outcome?: TerminalStatus;
  failureCode?: string;
  failureReason?: string;
  /** Sandbox minutes after create (told before it) or after now (told after): the order settles on its own. */
  afterMinutes?: number;
}

export interface Expectation extends ExpectationInput {
  id: string;
  /** `waiting` for its order, `applied` to it, `done` once that order or refund ended. */
  state: 'waiting' | 'applied' | 'done';
  orderNo?: string;
  createdAt: number;
  appliedAt?: number;
  doneAt?: number;
  /** What became of it, in words. */
  note?: string;
}

const failureCode = text({ max: 64 });
const failureReason = text({ max: 256 });

/** Checks a control call's body; every problem names its field. */
export function checkExpectation(body: unknown): { ok: true; value: ExpectationInput } | { ok: false; violations: Violation[] } {
  if (!isPlainObject(body)) return { ok: false, violations: [{ field: 'body', rule: 'type', message: 'the body must be a JSON object' }] };
  const violations = unknownFields(body, EXPECTATION_FIELDS);
  const field = fieldReader(body, violations);
  const target = field<ExpectationTarget>('target', choice(Object.keys(EXPECTATION_TARGETS))) ?? 'payment';
  const table = EXPECTATION_TARGETS[target];
  const reference = field<string>('reference', ORDER_FORMATS.reference);
  if (body['reference'] === undefined || body['reference'] === null) violations.push({ field: 'reference', rule: 'required', message: 'reference is required' });
  const merchantId = field<string>('merchantId', ORDER_FORMATS.merchantId);
  const nextAction = field<ExpectationInput['nextAction']>('nextAction', choice(table.nextActions, `does not apply to a ${target}`));
  const outcome = field<TerminalStatus>('outcome', choice(table.outcomes));
  const code = field<string>('failureCode', failureCode);
  const reason = field<string>('failureReason', failureReason);
  const after = field<number>('afterMinutes', minutesFormat);
  const given = (name: string) => body[name] !== undefined && body[name] !== null;
  if (!given('outcome') && given('afterMinutes')) {
    violations.push({ field: 'outcome', rule: 'required', message: 'outcome is required when afterMinutes is given: say what happens then' });
  } else if (!given('outcome') && !given('nextAction')) {
    violations.push({ field: 'outcome', rule: 'required', message: 'name an outcome or a nextAction: an expectation of nothing does nothing' });
  }
  for (const [name, value] of [['failureCode', code], ['failureReason', reason]] as const) {
    if (value !== undefined && (outcome === 'SUCCESS' || !given('outcome'))) {
      violations.push({ field: name, rule: 'state', message: `${name} is only for an outcome of FAIL or CLOSE` });
    }
  }
  if (violations.length > 0) return { ok: false, violations };
  return {
    ok: true,
    value: {
      target,
      reference: reference as string,
      ...(merchantId !== undefined ? { merchantId } : {}),
      ...(nextAction !== undefined ? { nextAction } : {}),
      ...(outcome !== undefined ? { outcome } : {}),
      ...(code !== undefined ? { failureCode: code } : {}),
      ...(reason !== undefined ? { failureReason: reason } : {}),
      ...(after !== undefined ? { afterMinutes: after } : {}),
    },
  };
}

/** The failure an expectation ends its order or refund with, each part defaulting to its target's. */
export function failureOf(expectation: ExpectationInput): Failure | undefined {
  if (!expectation.outcome || expectation.outcome === 'SUCCESS') return undefined;
  const fallback = EXPECTATION_TARGETS[expectation.target].failures[expectation.outcome] ?? FAILURES.failedByTest;
  return { failureCode: expectation.failureCode ?? fallback.failureCode, failureReason: expectation.failureReason ?? fallback.failureReason };
}

export type ExpectationData = QueueData<Expectation, 'expectations'>;

/** Expectations oldest first; each kept once applied, as a record of what became of it. */
export class ExpectationBook extends ConsumableQueue<Expectation, 'expectations'> {
  constructor(private readonly clock: SandboxClock) {
    super('e', 'expectations');
  }

  add(input: ExpectationInput): Expectation {
    return this.push((id) => ({ ...input, id, state: 'waiting', createdAt: this.clock.now() }));
  }

  /** The first waiting expectation for an order or refund being created, now applied to it. */
  take(target: ExpectationTarget, merchantId: string, reference: string, orderNo: string): Expectation | undefined {
    return this.consume(
      (item) => item.state === 'waiting' && item.target === target && item.reference === reference && (item.merchantId ?? merchantId) === merchantId,
      (item) => {
        this.#apply(item, orderNo);
        return false;
      },
    );
  }

  applied(expectation: Expectation, orderNo: string, note?: string): void {
    this.update(expectation.id, (item) => {
      this.#apply(item, orderNo, note);
      return true;
    });
  }

  done(id: string, note: string): void {
    this.update(id, (item) => {
      if (item.state === 'done') return false;
      item.state = 'done';
      item.doneAt = this.clock.now();
      item.note = item.note ? `${item.note}; ${note}` : note;
      return true;
    });
  }

  #apply(item: Expectation, orderNo: string, note?: string): void {
    item.state = 'applied';
    item.orderNo = orderNo;
    item.appliedAt = this.clock.now();
    if (note) item.note = note;
  }
}

/**
 * The bank account behaviour an expectation gives an order: asked for its `nextAction`, and never failing at
 * create when it names a step or an outcome (the expectation decides how the order ends).
 */
export function withExpectation(scenario: BankAccountScenario, expectation: Expectation | undefined): BankAccountScenario {
  if (!expectation?.nextAction && !expectation?.outcome) return scenario;
  const { failsAtCreate: _failsAtCreate, ...rest } = scenario;
  return { ...rest, ...(expectation.nextAction ? { nextAction: expectation.nextAction } : {}) };
}

/** The plan an expectation gives an order; `from` is when its `afterMinutes` start (create, or now). */
export function planOf(expectation: Expectation, from: number): OrderPlan | undefined {
  if (!expectation.outcome) return undefined;
  const failure = failureOf(expectation);
  return {
    status: expectation.outcome,
    ...(failure ? { failure } : {}),
    ...(expectation.afterMinutes !== undefined ? { at: from + expectation.afterMinutes * MINUTE } : {}),
    expectationId: expectation.id,
  };
}

/** Describes a plan for an order's life. */
export function describePlan(plan: OrderPlan): string {
  const when = plan.at === undefined ? 'when the payer completes the step' : `at ${new Date(plan.at).toISOString()}`;
  return `expectation ${plan.expectationId}: ${plan.status}${plan.failure ? ` (${plan.failure.failureCode})` : ''} ${when}`;
}

/** Applies an expectation told after the create to its order. Returns why not, when it cannot. */
export function applyToOrder(expectation: Expectation, order: Order, book: OrderBook, expectations: ExpectationBook, now: number): string | undefined {
  if (order.status !== 'PENDING') return `order ${order.orderNo} is already ${order.status}`;
  if (expectation.nextAction) return `order ${order.orderNo} was created already: its next action was decided then (nextAction)`;
  const plan = planOf(expectation, now);
  expectations.applied(expectation, order.orderNo);
  if (plan) book.plan(order, plan, describePlan(plan));
  book.settleDue();
  return undefined;
}

/** Applies an expectation to a refund that has not ended. Returns why not, when it cannot. */
export function applyToRefund(expectation: Expectation, refund: Refund, book: OrderBook, expectations: ExpectationBook, now: number): string | undefined {
  if (refund.orderStatus === 'SUCCESS' || refund.orderStatus === 'FAIL') return `refund ${refund.reference} is already ${refund.orderStatus}`;
  const failure = failureOf(expectation);
  const outcome: Refund['outcome'] =
    expectation.outcome === 'FAIL' && failure ? { outcome: 'FAIL', errorCode: failure.failureCode, errorMsg: failure.failureReason } : { outcome: 'SUCCESS' };
  expectations.applied(expectation, refund.orderNo);
  const settlesAt = expectation.afterMinutes === undefined ? refund.settlesAt : now + expectation.afterMinutes * MINUTE;
  book.replanRefund(refund, expectation.outcome ? outcome : refund.outcome, settlesAt, expectation.id);
  return undefined;
}
