/** Valid requests of each method, as the element sends them; tests change one thing at a time. */
export function posRequest(overrides: Record<string, unknown> = {}) {
  return {
    reference: 'order-1001',
    amount: { total: 12_500, currency: 'EGP' },
    product: { name: 'Espresso beans', description: '1 kg bag' },
    payMethod: 'Pos',
    sn: 'N78101818218',
    country: 'EG',
    ...overrides,
  };
}

export function bankAccountRequest(overrides: Record<string, unknown> = {}) {
  return {
    reference: 'order-1002',
    amount: { total: 12_500, currency: 'EGP' },
    product: { name: 'Espresso beans' },
    payMethod: 'BankAccount',
    bankAccountNumber: '2215381176',
    bankCode: '033',
    returnUrl: 'https://shop.example/checkout/return',
    dobDay: '05',
    dobMonth: '01',
    dobYear: '1990',
    country: 'EG',
    ...overrides,
  };
}

export function referenceCodeRequest(overrides: Record<string, unknown> = {}, notify: Record<string, unknown> = {}) {
  return {
    reference: 'order-1003',
    amount: { total: 12_500, currency: 'EGP' },
    product: { name: 'Espresso beans', description: '1 kg bag' },
    payMethod: 'ReferenceCode',
    country: 'EG',
    expireAt: 60,
    notify: {
      notifyUserName: 'Mona Hassan',
      notifyLanguage: 'English',
      notifyUserEmail: 'mona@example.com',
      notifyUserMobile: '+201001234567',
      notifyMethod: 'BOTH',
      ...notify,
    },
    ...overrides,
  };
}

/** Amounts in minor units around every place a digit group or the decimal point begins, up to the largest safe one. */
export const POUND_TOTALS: readonly number[] = [
  ...[0, 1, 9, 10, 99, 100, 999, 1_000, 12_500, 99_999, 100_000, 123_456, 999_999, 1_000_000, 12_345_678, 100_000_000],
  ...[123_456_789_012, 1_000_000_000_000_000, Number.MAX_SAFE_INTEGER],
];
