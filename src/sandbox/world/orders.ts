/**
 * The sandbox's state: orders, refunds and reference codes, and the one place where an order's status
 * changes (DESIGN.md §5). `PENDING -> SUCCESS | FAIL | CLOSE`; a terminal order never changes again; every
 * status change is reported to the change listeners, which send the callback. Each order and refund keeps its
 * life: what happened to it, when, on the sandbox clock.
 */
import { isTerminalStatus, type Amount, type NextActionType, type PayMethod, type PaymentStatus, type RefundStatusData, type RefundWay } from '../../core/index.js';
import type { SandboxClock } from './clock.js';
import { DueQueue } from './due-queue.js';
import {
  DEFAULT_SCENARIOS,
  FAILURES,
  vatOf,
  type BankAccountScenario,
  type Failure,
  type RefundScenario,
  type Scenarios,
} from '../scenarios/test-values.js';

export type TerminalStatus = Exclude<PaymentStatus, 'INITIAL' | 'PENDING'>;

/** One step of an order's or a refund's life. */
export interface LifeEntry {
  /** Sandbox time, milliseconds. */
  at: number;
  /** The status after this step, when it changed. */
  status?: string;
  what: string;
}

/** How an order will end, as an expectation said (scenarios/expectations.ts). */
export interface OrderPlan {
  status: TerminalStatus;
  failure?: Failure;
  /** When the order settles on its own (sandbox time); without it, the outcome of the payer's step. */
  at?: number;
  expectationId: string;
}

export interface Order {
  merchantId: string;
  orderNo: string;
  reference: string;
  payMethod: PayMethod;
  status: PaymentStatus;
  amount: Amount;
  vat: { total: number; currency: string; rate: number };
  country: string;
  createdAt: number;
  expiresAt: number;
  updatedAt: number;
  callbackUrl?: string;
  nextAction?: NextActionType;
  failureCode?: string;
  failureReason?: string;
  /** Pos */
  sn?: string;
  /** BankAccount */
  bank?: { scenario: BankAccountScenario; bankCode: string; accountLast4: string; returnUrl: string };
  codeAttempts: number;
  otpResends: number;
  /** ReferenceCode */
  referenceCode?: string;
  productName: string;
  refundedTotal: number;
  plan?: OrderPlan;
  life: LifeEntry[];
}

/** A refund as the sandbox keeps it: the service's refund status, and what the sandbox needs besides. */
export interface Refund extends RefundStatusData {
  merchantId: string;
  refundWay: RefundWay;
  createdAt: number;
  /** When it becomes PENDING, and when it ends (sandbox time). */
  pendingAt: number;
  settlesAt: number;
  /** How it ends: from its amount (scenarios/test-values.ts), or an expectation. */
  outcome: Pick<RefundScenario, 'outcome' | 'errorCode' | 'errorMsg'>;
  expectationId?: string;
  updatedAt: number;
  life: LifeEntry[];
}

export type OrderListener = (order: Order) => void;
export type RefundListener = (refund: Refund) => void;

/** What the book keeps, as plain data (persistence.ts writes it to the data file). */
export interface BookData {
  orders: Order[];
  refunds: Refund[];
  sequence: number;
  codeState: number;
}

export class OrderBook {
  readonly #orders = new Map<string, Order>();
  readonly #byReference = new Map<string, string>();
  readonly #byReferenceCode = new Map<string, string>();
  /** Pending POS orders by their terminal's serial number, oldest first: a swipe looks at one terminal's only. */
  readonly #pendingByTerminal = new Map<string, Set<Order>>();
  readonly #refunds = new Map<string, Refund>();
  /** Pending orders by their deadlines (expiry, a planned settlement); an order may be queued more than once. */
  readonly #due = new DueQueue<Order>();
  /** Refunds that have not ended, in the order they were made. */
  readonly #openRefunds = new Set<Refund>();
  readonly #changeListeners: OrderListener[] = [];
  readonly #updateListeners: OrderListener[] = [];
  readonly #refundListeners: RefundListener[] = [];
  #sequence = 0;
  #codeState = 0;

  constructor(
    private readonly clock: SandboxClock,
    private readonly scenarios: Scenarios = DEFAULT_SCENARIOS,
  ) {}

  /** Called once per status change: the callback's cue. */
  onChange(listener: OrderListener): void {
    this.#changeListeners.push(listener);
  }

  /** Called for every visible change of an order, its creation included. */
  onUpdate(listener: OrderListener): void {
    this.#updateListeners.push(listener);
  }

  onRefund(listener: RefundListener): void {
    this.#refundListeners.push(listener);
  }

  /** A new order number: the sandbox date (YYMMDD) and a sequence, 14 digits. */
  nextOrderNo(): string {
    const date = new Date(this.clock.now()).toISOString().slice(2, 10).replaceAll('-', '');
    this.#sequence += 1;
    return `${date}${String(this.#sequence).padStart(8, '0')}`;
  }

  /**
   * A nine-digit reference code no order has had: a fixed permutation of a counter, so that codes look
   * scattered, never repeat within 900 million, and come out the same on every sandbox start.
   */
  nextReferenceCode(): string {
    for (;;) {
      this.#codeState += 1;
      const code = String(100_000_000 + Number((BigInt(this.#codeState) * 282_475_249n) % 900_000_000n));
      if (!this.#byReferenceCode.has(code)) return code;
    }
  }

  hasReference(merchantId: string, reference: string): boolean {
    return this.#byReference.has(`${merchantId}:${reference}`);
  }

  /** Adds an order; the caller has checked that its reference is new (nothing awaits in between). */
  add(order: Omit<Order, 'updatedAt' | 'codeAttempts' | 'otpResends' | 'refundedTotal' | 'vat' | 'life'>, what = 'created'): Order {
    const vat = vatOf(order.amount.total, order.country, this.scenarios.vatRates);
    const stored: Order = {
      ...order,
      vat: { total: vat.total, currency: order.amount.currency, rate: vat.rate },
      updatedAt: order.createdAt,
      codeAttempts: 0,
      otpResends: 0,
      refundedTotal: 0,
      life: [{ at: order.createdAt, status: order.status, what }],
    };
    this.#index(stored);
    this.#updated(stored);
    return stored;
  }

  #index(order: Order): void {
    this.#orders.set(order.orderNo, order);
    this.#byReference.set(`${order.merchantId}:${order.reference}`, order.orderNo);
    if (order.referenceCode) this.#byReferenceCode.set(order.referenceCode, order.orderNo);
    if (order.status === 'PENDING') {
      if (order.payMethod === 'Pos' && order.sn !== undefined) {
        const waiting = this.#pendingByTerminal.get(order.sn) ?? new Set<Order>();
        this.#pendingByTerminal.set(order.sn, waiting.add(order));
      }
      this.#due.push(order.expiresAt, order);
      if (order.plan?.at !== undefined) this.#due.push(order.plan.at, order);
    }
  }

  /** Adds a step to an order's life that does not change its status (a message sent, a wrong code). */
  note(order: Order, what: string): void {
    order.life.push({ at: this.clock.now(), what });
    this.#updated(order);
  }

  /** Changes an order's plan (or removes it) and says so in its life. */
  plan(order: Order, plan: OrderPlan | undefined, what: string): void {
    if (plan) order.plan = plan;
    else delete order.plan;
    if (plan?.at !== undefined && order.status === 'PENDING') this.#due.push(plan.at, order);
    this.note(order, what);
  }

  get(orderNo: string): Order | undefined {
    return this.#orders.get(orderNo);
  }

  find(merchantId: string, key: { orderNo?: string; reference?: string }): Order | undefined {
    const orderNo = key.orderNo ?? this.#byReference.get(`${merchantId}:${key.reference ?? ''}`);
    const order = orderNo === undefined ? undefined : this.#orders.get(orderNo);
    return order?.merchantId === merchantId ? order : undefined;
  }

  byReferenceCode(code: string): Order | undefined {
    const orderNo = this.#byReferenceCode.get(code);
    return orderNo === undefined ? undefined : this.#orders.get(orderNo);
  }

  /** The most recent pending order waiting at a POS terminal. */
  pendingAtTerminal(sn: string): Order | undefined {
    let found: Order | undefined;
    for (const order of this.#pendingByTerminal.get(sn) ?? []) found = order;
    return found;
  }

  list(): Order[] {
    return [...this.#orders.values()].reverse();
  }

  /**
   * Moves a pending order to a terminal status; `FAIL` and `CLOSE` take the failure given, each part of it
   * defaulting to the generic one. Returns false (and changes nothing) if the order was not pending.
   */
  complete(order: Order, status: TerminalStatus, failure?: Partial<Failure>, why = 'settled'): boolean {
    this.settleDue();
    if (isTerminalStatus(order.status)) return false;
    this.#settle(order, status, failure, why, this.clock.now());
    return true;
  }

  /**
   * Settles an order whose payer completed the step: as its plan says when an expectation gave it one,
   * otherwise with `outcome` (the test values' answer).
   */
  completeStep(order: Order, outcome: 'success' | Failure, why: string): boolean {
    const plan = order.plan;
    if (plan) return this.complete(order, plan.status, plan.failure, `${why}; outcome from expectation ${plan.expectationId}`);
    return outcome === 'success' ? this.complete(order, 'SUCCESS', undefined, why) : this.complete(order, 'FAIL', outcome, why);
  }

  #settle(order: Order, status: TerminalStatus, failure: Partial<Failure> | undefined, why: string, at: number): void {
    order.status = status;
    const waiting = order.sn === undefined ? undefined : this.#pendingByTerminal.get(order.sn);
    if (waiting?.delete(order) && waiting.size === 0) this.#pendingByTerminal.delete(order.sn!);
    order.updatedAt = at;
    delete order.nextAction;
    if (status !== 'SUCCESS') {
      const fallback = status === 'CLOSE' ? FAILURES.closedByTest : FAILURES.failedByTest;
      order.failureCode = failure?.failureCode ?? fallback.failureCode;
      order.failureReason = failure?.failureReason ?? fallback.failureReason;
    }
    order.life.push({ at, status, what: why });
    for (const listener of this.#changeListeners) listener(order);
    this.#updated(order);
  }

  /**
   * Applies everything due on the sandbox clock, in the order it fell due: an order settles on its plan's
   * time or closes at its expiry, whichever came first; refunds move on. Only what is due is looked at.
   */
  settleDue(): void {
    const now = this.clock.now();
    for (let due = this.#due.takeDue(now); due; due = this.#due.takeDue(now)) {
      const order = due.item;
      if (order.status !== 'PENDING') continue;
      const planned = order.plan?.at;
      if (planned !== undefined && planned <= now && planned < order.expiresAt) {
        const plan = order.plan as OrderPlan;
        this.#settle(order, plan.status, plan.failure, `settled by expectation ${plan.expectationId}`, planned);
      } else if (order.expiresAt <= now) {
        this.#settle(order, 'CLOSE', FAILURES.expired, `expired (expireAt)`, order.expiresAt);
      }
      // Otherwise the deadline of a plan since changed or removed: the order's own are queued as well.
    }
    this.settleRefunds();
  }

  /** Kept for the callers that only mean expiry; it applies everything due. */
  expireDue(): void {
    this.settleDue();
  }

  hasRefund(merchantId: string, reference: string): boolean {
    return this.#refunds.has(`${merchantId}:${reference}`);
  }

  addRefund(refund: Omit<Refund, 'life' | 'updatedAt'>, what = 'created'): Refund {
    const stored: Refund = { ...refund, updatedAt: refund.createdAt, life: [{ at: refund.createdAt, status: refund.orderStatus, what }] };
    this.#refunds.set(`${stored.merchantId}:${stored.reference}`, stored);
    this.#openRefunds.add(stored);
    this.#refundUpdated(stored);
    this.settleRefunds();
    return stored;
  }

  findRefund(merchantId: string, reference: string): Refund | undefined {
    this.settleRefunds();
    return this.#refunds.get(`${merchantId}:${reference}`);
  }

  /** Refunds of any merchant with this reference, the newest first. */
  refundsWithReference(reference: string): Refund[] {
    return [...this.#refunds.values()].filter((refund) => refund.reference === reference).reverse();
  }

  refunds(): Refund[] {
    return [...this.#refunds.values()].reverse();
  }

  /** Changes how and when a refund that has not ended will end. */
  replanRefund(refund: Refund, outcome: Refund['outcome'], settlesAt: number, expectationId: string): void {
    refund.outcome = outcome;
    refund.settlesAt = settlesAt;
    refund.expectationId = expectationId;
    refund.life.push({ at: this.clock.now(), what: `expectation ${expectationId}: ${outcome.outcome} at ${new Date(settlesAt).toISOString()}` });
    this.#refundUpdated(refund);
    this.settleRefunds();
  }

  /** `INITIAL -> PENDING -> SUCCESS | FAIL`, each step stamped with the time it fell due. */
  settleRefunds(): void {
    const now = this.clock.now();
    for (const refund of this.#openRefunds) {
      let changed = false;
      if (refund.orderStatus === 'INITIAL' && Math.min(refund.pendingAt, refund.settlesAt) <= now) {
        refund.orderStatus = 'PENDING';
        refund.updatedAt = Math.min(refund.pendingAt, refund.settlesAt);
        refund.life.push({ at: refund.updatedAt, status: 'PENDING', what: 'taken by the bank' });
        changed = true;
      }
      if (refund.settlesAt <= now) {
        refund.updatedAt = refund.settlesAt;
        const why = refund.expectationId ? `settled by expectation ${refund.expectationId}` : 'settled';
        if (refund.outcome.outcome === 'FAIL') {
          refund.orderStatus = 'FAIL';
          refund.errorCode = refund.outcome.errorCode ?? 'REFUND_REJECTED';
          refund.errorMsg = refund.outcome.errorMsg ?? 'The refund was rejected by the bank.';
          // A failed refund gives back what it had reserved of the original order.
          const original = this.#orders.get(refund.originalOrderNo);
          if (original) original.refundedTotal -= refund.amount.total;
        } else {
          refund.orderStatus = 'SUCCESS';
        }
        refund.life.push({ at: refund.updatedAt, status: refund.orderStatus, what: why });
        this.#openRefunds.delete(refund);
        changed = true;
      }
      if (changed) this.#refundUpdated(refund);
    }
  }

  clear(): void {
    this.#orders.clear();
    this.#byReference.clear();
    this.#byReferenceCode.clear();
    this.#pendingByTerminal.clear();
    this.#refunds.clear();
    this.#due.clear();
    this.#openRefunds.clear();
  }

  toData(): BookData {
    return { orders: [...this.#orders.values()], refunds: [...this.#refunds.values()], sequence: this.#sequence, codeState: this.#codeState };
  }

  restore(data: BookData): void {
    this.clear();
    for (const order of data.orders) this.#index(order);
    for (const refund of data.refunds) {
      this.#refunds.set(`${refund.merchantId}:${refund.reference}`, refund);
      if (refund.orderStatus !== 'SUCCESS' && refund.orderStatus !== 'FAIL') this.#openRefunds.add(refund);
    }
    this.#sequence = data.sequence;
    this.#codeState = data.codeState;
  }

  #updated(order: Order): void {
    for (const listener of this.#updateListeners) listener(order);
  }

  #refundUpdated(refund: Refund): void {
    for (const listener of this.#refundListeners) listener(refund);
  }
}

