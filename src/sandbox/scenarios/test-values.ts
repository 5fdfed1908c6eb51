/**
 * The sandbox's test values: which input leads to which outcome. Deterministic, and listed in README.md
 * ("Sandbox test values"). The real service's published test data is honoured: bank code 033 with account
 * 2215381176 succeeds and 2215381190 fails, OTP 11315632, date of birth 05-01-1990, POS terminal N78101818218.
 * These are the defaults (`DEFAULT_SCENARIOS`); a scenarios file changes them per sandbox (scenario-file.ts),
 * and an expectation overrides them for one order (expectations.ts).
 */
import { codesOf, isErrorCode, type ErrorCode, type ErrorFamily, type NextActionType } from '../../core/index.js';

export const TEST_OTP = '11315632';
export const TEST_PIN = '1234';
export const TEST_DATE_OF_BIRTH = { dobDay: '05', dobMonth: '01', dobYear: '1990' } as const;
export const TEST_POS_SERIAL = 'N78101818218';
export const TEST_BANK_CODE = '033';

/** Wrong codes allowed before the order fails. */
export const MAX_CODE_ATTEMPTS = 3;
/** OTP re-sends allowed per order. */
export const MAX_OTP_RESENDS = 3;

export interface Failure {
  failureCode: string;
  failureReason: string;
}

/** Failure codes the sandbox uses; the specification lists none for orders. */
export const FAILURES = {
  cardDeclined: { failureCode: 'CARD_DECLINED', failureReason: 'The card was declined by its issuer.' },
  insufficientFunds: { failureCode: 'INSUFFICIENT_FUNDS', failureReason: 'The account does not have enough funds.' },
  accountBlocked: { failureCode: 'ACCOUNT_BLOCKED', failureReason: 'The account cannot make payments.' },
  codeAttempts: { failureCode: 'AUTH_ATTEMPTS_EXCEEDED', failureReason: 'Too many wrong codes were entered.' },
  threeDsDeclined: { failureCode: '3DS_DECLINED', failureReason: 'The payer declined the 3-D Secure check.' },
  expired: { failureCode: 'ORDER_EXPIRED', failureReason: 'The order expired before it was paid.' },
  closedByTest: { failureCode: 'ORDER_CLOSED', failureReason: 'The order was closed.' },
  failedByTest: { failureCode: 'PAYMENT_FAILED', failureReason: 'The payment failed.' },
} as const satisfies Record<string, Failure>;

export interface BankAccountScenario {
  /** What the payer is asked for after create. */
  nextAction: Exclude<NextActionType, 'SWIPE_CARD'>;
  /** How the order ends once the payer completes the step. */
  outcome: 'success' | Failure;
  /** The published test accounts check the date of birth; any other account takes any date. */
  checksDateOfBirth: boolean;
  /** Fails at create, with no step at all. */
  failsAtCreate?: Failure;
}

/** Bank accounts under bank code 033. Any other account, under any bank code, behaves like the default. */
export const BANK_ACCOUNTS: Readonly<Record<string, BankAccountScenario>> = {
  '2215381176': { nextAction: 'INPUT_OTP', outcome: 'success', checksDateOfBirth: true },
  '2215381190': { nextAction: 'INPUT_OTP', outcome: FAILURES.insufficientFunds, checksDateOfBirth: true },
  '2215381183': { nextAction: 'INPUT_PIN', outcome: 'success', checksDateOfBirth: true },
  '2215381197': { nextAction: 'INPUT_PIN', outcome: FAILURES.insufficientFunds, checksDateOfBirth: true },
  '2215381200': { nextAction: 'REDIRECT_3DS', outcome: 'success', checksDateOfBirth: true },
  '2215381207': {
    nextAction: 'INPUT_OTP',
    outcome: 'success',
    checksDateOfBirth: true,
    failsAtCreate: FAILURES.accountBlocked,
  },
};

export const DEFAULT_BANK_ACCOUNT: BankAccountScenario = { nextAction: 'INPUT_OTP', outcome: 'success', checksDateOfBirth: false };

export function bankAccountScenario(bankCode: string, accountNumber: string, scenarios: Scenarios = DEFAULT_SCENARIOS): BankAccountScenario {
  if (bankCode === scenarios.bankCode && Object.hasOwn(scenarios.bankAccounts, accountNumber)) {
    return scenarios.bankAccounts[accountNumber] as BankAccountScenario;
  }
  return DEFAULT_BANK_ACCOUNT;
}

/**
 * As the real service does in test mode, an `amount.total` equal to the number of one of the codes its call can
 * answer (50003, 2004 for 02004, 9 for 09) makes the call answer that code.
 */
export function errorForAmount(total: unknown, family: ErrorFamily): ErrorCode | undefined {
  const amount = typeof total === 'string' && /^\d+$/.test(total) ? Number(total) : total;
  if (typeof amount !== 'number') return undefined;
  const code = codesOf(family).find((candidate) => Number(candidate) === amount);
  return code !== undefined && isErrorCode(code) ? code : undefined;
}

/** How a refund with a given amount ends, and when (sandbox minutes after it was created). */
export interface RefundScenario {
  outcome: 'SUCCESS' | 'FAIL';
  errorCode?: string;
  errorMsg?: string;
  afterMinutes?: number;
}

/**
 * A refund's life (the specification lists its statuses, not its transitions): `INITIAL` when created,
 * `PENDING` a sandbox minute later (the bank has it), `SUCCESS` or `FAIL` two sandbox minutes after create,
 * unless its amount or an expectation says otherwise.
 */
export const REFUND_PENDING_MINUTES = 1;
export const REFUND_SETTLE_MINUTES = 2;
export const REFUND_FAILURE = { errorCode: 'REFUND_REJECTED', errorMsg: 'The refund was rejected by the bank.' } as const;
/** A refund of this amount fails; see REFUND_AMOUNTS for the others. */
export const FAILING_REFUND_AMOUNT = 4040;

/** Refund amounts (minor units) with an outcome of their own; every other refund succeeds. */
export const REFUND_AMOUNTS: Readonly<Record<string, RefundScenario>> = {
  [String(FAILING_REFUND_AMOUNT)]: { outcome: 'FAIL', ...REFUND_FAILURE },
  '4041': { outcome: 'FAIL', errorCode: 'ACCOUNT_CLOSED', errorMsg: "The payer's account is closed." },
  '4042': { outcome: 'SUCCESS', afterMinutes: 3 * 24 * 60 },
};

/** VAT is included in the amount, at the rate of the order's country (percent); other countries 0. */
export const VAT_RATES: Readonly<Record<string, number>> = { EG: 14, SA: 15, AE: 5, NG: 7.5 };

/**
 * Every test value a sandbox uses, as one object: the defaults below, or the defaults changed by a scenarios
 * file (`--scenarios`, scenario-file.ts). Each sandbox keeps its own.
 */
export interface Scenarios {
  otp: string;
  pin: string;
  dateOfBirth: { dobDay: string; dobMonth: string; dobYear: string };
  bankCode: string;
  bankAccounts: Readonly<Record<string, BankAccountScenario>>;
  vatRates: Readonly<Record<string, number>>;
  refundAmounts: Readonly<Record<string, RefundScenario>>;
}

export const DEFAULT_SCENARIOS: Scenarios = {
  otp: TEST_OTP,
  pin: TEST_PIN,
  dateOfBirth: TEST_DATE_OF_BIRTH,
  bankCode: TEST_BANK_CODE,
  bankAccounts: BANK_ACCOUNTS,
  vatRates: VAT_RATES,
  refundAmounts: REFUND_AMOUNTS,
};

export function vatOf(total: number, country: string, rates: Readonly<Record<string, number>> = VAT_RATES): { total: number; rate: number } {
  const rate = Object.hasOwn(rates, country) ? (rates[country] as number) : 0;
  return { total: Math.round((total * rate) / (100 + rate)), rate };
}

export function refundScenario(total: number, scenarios: Scenarios = DEFAULT_SCENARIOS): RefundScenario {
  const key = String(total);
  return Object.hasOwn(scenarios.refundAmounts, key) ? (scenarios.refundAmounts[key] as RefundScenario) : { outcome: 'SUCCESS' };
}
