/**
 * The sandbox's state: orders, refunds and reference codes, and the one place where an order's status
 * changes (DESIGN.md §5). `PENDING -> SUCCESS | FAIL | CLOSE`; a terminal order never changes again; every
 * change is reported to the listener, which sends the callback.
 */
import { isTerminalStatus, type Amount, type NextActionType, type PayMethod, type PaymentStatus, type RefundStatusData, type RefundWay } from '../core/index.js';
import { MINUTE, type SandboxClock } from './clock.js';
import { FAILURES, REFUND_SETTLE_MINUTES, vatOf, type BankAccountScenario, type Failure } from './scenarios.js';

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
}

/** A refund as the sandbox keeps it: the service's refund status, and what the sandbox needs besides. */
export interface Refund extends RefundStatusData {
  merchantId: string;
  refundWay: RefundWay;
  createdAt: number;
  /** Set at create for the failing test amount; applied when the refund settles. */
  failsWith?: { errorCode: string; errorMsg: string };
}

export type OrderListener = (order: Order) => void;

export class OrderBook {
  readonly #orders = new Map<string, Order>();
  readonly #byReference = new Map<string, string>();
  readonly #byReferenceCode = new Map<string, string>();
  readonly #refunds = new Map<string, Refund>();
  readonly #listeners: OrderListener[] = [];
  #sequence = 0;
  #codeState = 0;

  constructor(private readonly clock: SandboxClock) {}

  onChange(listener: OrderListener): void {
    this.#listeners.push(listener);
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
  add(order: Omit<Order, 'updatedAt' | 'codeAttempts' | 'otpResends' | 'refundedTotal' | 'vat'>): Order {
    const vat = vatOf(order.amount.total, order.country);
    const stored: Order = {
      ...order,
      vat: { total: vat.total, currency: order.amount.currency, rate: vat.rate },
      updatedAt: order.createdAt,
      codeAttempts: 0,
      otpResends: 0,
      refundedTotal: 0,
    };
    this.#orders.set(stored.orderNo, stored);
    this.#byReference.set(`${stored.merchantId}:${stored.reference}`, stored.orderNo);
    if (stored.referenceCode) this.#byReferenceCode.set(stored.referenceCode, stored.orderNo);
    return stored;
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
    for (const order of this.#orders.values()) {
      if (order.payMethod === 'Pos' && order.sn === sn && order.status === 'PENDING') found = order;
    }
    return found;
  }

  list(): Order[] {
    return [...this.#orders.values()].reverse();
  }

  /**
   * Moves a pending order to a terminal status; `FAIL` and `CLOSE` take the failure given, each part of it
   * defaulting to the generic one. Returns false (and changes nothing) if the order was not pending.
   */
  complete(order: Order, status: Exclude<PaymentStatus, 'INITIAL' | 'PENDING'>, failure?: Partial<Failure>): boolean {
    this.expireDue();
    if (isTerminalStatus(order.status)) return false;
    order.status = status;
    order.updatedAt = this.clock.now();
    delete order.nextAction;
    if (status !== 'SUCCESS') {
      const fallback = status === 'CLOSE' ? FAILURES.closedByTest : FAILURES.failedByTest;
      order.failureCode = failure?.failureCode ?? fallback.failureCode;
      order.failureReason = failure?.failureReason ?? fallback.failureReason;
    }
    for (const listener of this.#listeners) listener(order);
    return true;
  }

  /** Closes every pending order whose expiry has passed on the sandbox clock. */
  expireDue(): void {
    const now = this.clock.now();
    for (const order of this.#orders.values()) {
      if (order.status === 'PENDING' && order.expiresAt <= now) {
        order.status = 'CLOSE';
        order.updatedAt = now;
        delete order.nextAction;
        order.failureCode = FAILURES.expired.failureCode;
        order.failureReason = FAILURES.expired.failureReason;
        for (const listener of this.#listeners) listener(order);
      }
    }
  }

  hasRefund(merchantId: string, reference: string): boolean {
    return this.#refunds.has(`${merchantId}:${reference}`);
  }

  addRefund(refund: Refund): Refund {
    this.#refunds.set(`${refund.merchantId}:${refund.reference}`, refund);
    return refund;
  }

  findRefund(merchantId: string, reference: string): Refund | undefined {
    this.settleRefunds();
    return this.#refunds.get(`${merchantId}:${reference}`);
  }

  /** Refunds settle one sandbox minute after they were created. */
  settleRefunds(): void {
    const now = this.clock.now();
    for (const refund of this.#refunds.values()) {
      if (refund.orderStatus !== 'PENDING' || refund.createdAt + REFUND_SETTLE_MINUTES * MINUTE > now) continue;
      if (refund.failsWith) {
        refund.orderStatus = 'FAIL';
        refund.errorCode = refund.failsWith.errorCode;
        refund.errorMsg = refund.failsWith.errorMsg;
        // A failed refund gives back what it had reserved of the original order.
        const original = this.#orders.get(refund.originalOrderNo);
        if (original) original.refundedTotal -= refund.amount.total;
      } else {
        refund.orderStatus = 'SUCCESS';
      }
    }
  }

  clear(): void {
    this.#orders.clear();
    this.#byReference.clear();
    this.#byReferenceCode.clear();
    this.#refunds.clear();
  }
}
