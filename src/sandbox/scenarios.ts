/**
 * The sandbox's test values: which input leads to which outcome. Deterministic, and listed in README.md
 * ("Sandbox test values"). The real service's published test data is honoured: bank code 033 with account
 * 2215381176 succeeds and 2215381190 fails, OTP 11315632, date of birth 05-01-1990, POS terminal N78101818218.
 */
import { codesOf, isErrorCode, type ErrorCode, type ErrorFamily, type NextActionType } from '../core/index.js';

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

const DEFAULT_BANK_ACCOUNT: BankAccountScenario = { nextAction: 'INPUT_OTP', outcome: 'success', checksDateOfBirth: false };

export function bankAccountScenario(bankCode: string, accountNumber: string): BankAccountScenario {
  if (bankCode === TEST_BANK_CODE && Object.hasOwn(BANK_ACCOUNTS, accountNumber)) return BANK_ACCOUNTS[accountNumber] as BankAccountScenario;
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

/** A refund of this amount fails; every other refund succeeds one sandbox minute after it was created. */
export const FAILING_REFUND_AMOUNT = 4040;
export const REFUND_SETTLE_MINUTES = 1;
export const REFUND_FAILURE = { errorCode: 'REFUND_REJECTED', errorMsg: 'The refund was rejected by the bank.' } as const;

/** VAT is included in the amount, at the rate of the order's country (percent); other countries 0. */
export const VAT_RATES: Readonly<Record<string, number>> = { EG: 14, SA: 15, AE: 5, NG: 7.5 };

export function vatOf(total: number, country: string): { total: number; rate: number } {
  const rate = Object.hasOwn(VAT_RATES, country) ? (VAT_RATES[country] as number) : 0;
  return { total: Math.round((total * rate) / (100 + rate)), rate };
}
