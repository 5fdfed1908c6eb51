import { describe, expect, it } from 'vitest';
import {
  envelopeForViolations,
  OTP_REQUEST,
  REFERENCE_CODE,
  STATUS_REQUEST,
  validate,
  validateCreateRequest,
  type Violation,
} from '../../src/core/index.js';
import { bankAccountRequest, posRequest, referenceCodeRequest } from './fixtures.js';

const now = new Date('2026-11-22T10:00:00Z');

function violationsOf(input: unknown): Violation[] {
  const result = validateCreateRequest(input, { now });
  return result.ok ? [] : result.violations;
}

/** The normalised value of a valid request, loosely typed for reading fields of any method. */
function valueOf(input: unknown): Record<string, any> {
  const result = validateCreateRequest(input, { now });
  if (!result.ok) throw new Error(`expected valid, got ${JSON.stringify(result.violations)}`);
  return result.value;
}

function fieldsOf(input: unknown): string[] {
  return violationsOf(input).map((violation) => violation.field);
}

function ruleFor(input: unknown, field: string): string | undefined {
  return violationsOf(input).find((violation) => violation.field === field)?.rule;
}

describe('validateCreateRequest', () => {
  it('accepts a valid request of each method', () => {
    for (const request of [posRequest(), bankAccountRequest(), referenceCodeRequest()]) {
      expect(violationsOf(request)).toEqual([]);
    }
  });

  it('reports every missing required field of each method at once, by name', () => {
    expect(fieldsOf({ payMethod: 'Pos' }).sort()).toEqual(
      ['amount.currency', 'amount.total', 'product.name', 'reference', 'sn'].sort(),
    );
    expect(fieldsOf({ payMethod: 'BankAccount' }).sort()).toEqual(
      [
        'amount.currency',
        'amount.total',
        'bankAccountNumber',
        'bankCode',
        'dobDay',
        'dobMonth',
        'dobYear',
        'product.name',
        'reference',
        'returnUrl',
      ].sort(),
    );
    expect(fieldsOf({ payMethod: 'ReferenceCode' }).sort()).toEqual(
      [
        'amount.currency',
        'amount.total',
        'country',
        'notify.notifyLanguage',
        'notify.notifyUserEmail',
        'notify.notifyUserMobile',
        'notify.notifyUserName',
        'product.description',
        'product.name',
        'reference',
      ].sort(),
    );
  });

  it('gives every violation a field, a rule and a message that names the field', () => {
    for (const violation of violationsOf({ payMethod: 'ReferenceCode', amount: { total: -1, currency: 'egp' } })) {
      expect(violation.rule).toMatch(/^[a-zA-Z]+$/);
      expect(violation.message).toContain(violation.field);
    }
  });

  it('requires a payMethod and refuses one it does not know, with a rule that becomes 02003', () => {
    expect(violationsOf({ ...posRequest(), payMethod: undefined })).toEqual([
      { field: 'payMethod', rule: 'required', message: 'payMethod is required' },
    ]);
    for (const method of ['pos', 'POS', 'Card', 'Bankaccount', 'referenceCode']) {
      const violations = violationsOf(posRequest({ payMethod: method }));
      expect(violations).toHaveLength(1);
      expect(violations[0]).toMatchObject({ field: 'payMethod', rule: 'unsupported' });
      expect(envelopeForViolations(violations).code).toBe('02003');
    }
    expect(ruleFor(posRequest({ payMethod: 7 }), 'payMethod')).toBe('type');
    expect(envelopeForViolations(violationsOf(posRequest({ payMethod: 7 }))).code).toBe('02001');
  });

  it('takes amounts as whole minor units greater than zero', () => {
    const amount = (total: unknown) => posRequest({ amount: { total, currency: 'EGP' } });
    expect(ruleFor(amount(0), 'amount.total')).toBe('positive');
    expect(ruleFor(amount(-5), 'amount.total')).toBe('positive');
    expect(ruleFor(amount(12.5), 'amount.total')).toBe('integer');
    expect(ruleFor(amount(2 ** 53), 'amount.total')).toBe('integer');
    expect(ruleFor(amount('1250'), 'amount.total')).toBe('type');
    expect(ruleFor(amount(Number.NaN), 'amount.total')).toBe('type');
    expect(violationsOf(amount(1))).toEqual([]);
  });

  it('takes currency as three and country as two uppercase letters', () => {
    const currencies = { egp: 'format', EG: 'format', EGPP: 'maxLength', E1P: 'format' };
    for (const [currency, rule] of Object.entries(currencies)) {
      expect(ruleFor(posRequest({ amount: { total: 1, currency } }), 'amount.currency'), currency).toBe(rule);
    }
    const countries = { eg: 'format', EGY: 'maxLength', E: 'format', '12': 'format' };
    for (const [country, rule] of Object.entries(countries)) {
      expect(ruleFor(posRequest({ country }), 'country'), country).toBe(rule);
    }
  });

  it('takes expireAt as positive whole minutes and defaults it to 30', () => {
    const result = validateCreateRequest(posRequest(), { now });
    expect(result.ok && result.value.expireAt).toBe(30);
    expect(ruleFor(posRequest({ expireAt: 0 }), 'expireAt')).toBe('positive');
    expect(ruleFor(posRequest({ expireAt: 2.5 }), 'expireAt')).toBe('integer');
    expect(ruleFor(posRequest({ expireAt: 43_201 }), 'expireAt')).toBe('max');
    expect(ruleFor(posRequest({ expireAt: '45' }), 'expireAt')).toBe('type');
  });

  it('accepts ReferenceCode amount.total and expireAt as numbers or digit strings, and normalises to numbers', () => {
    const fromStrings = validateCreateRequest(referenceCodeRequest({ amount: { total: '12500', currency: 'EGP' }, expireAt: '60' }), { now });
    const fromNumbers = validateCreateRequest(referenceCodeRequest(), { now });
    expect(fromStrings.ok && fromNumbers.ok).toBe(true);
    if (fromStrings.ok && fromNumbers.ok) {
      expect(fromStrings.value).toEqual(fromNumbers.value);
      expect(fromStrings.value.amount.total).toBe(12_500);
      expect(fromStrings.value.expireAt).toBe(60);
    }
    expect(ruleFor(referenceCodeRequest({ amount: { total: '12.50', currency: 'EGP' } }), 'amount.total')).toBe('integer');
    expect(ruleFor(referenceCodeRequest({ amount: { total: '0', currency: 'EGP' } }), 'amount.total')).toBe('positive');
    expect(ruleFor(referenceCodeRequest({ expireAt: 'soon' }), 'expireAt')).toBe('integer');
  });

  it('takes a date of birth that is a real calendar date in the past, padded to two digits', () => {
    const dob = (dobDay: string, dobMonth: string, dobYear: string) => bankAccountRequest({ dobDay, dobMonth, dobYear });
    expect(ruleFor(dob('30', '02', '1990'), 'dobDay')).toBe('date');
    expect(ruleFor(dob('29', '02', '1990'), 'dobDay')).toBe('date');
    expect(violationsOf(dob('29', '02', '1992'))).toEqual([]);
    expect(ruleFor(dob('01', '13', '1990'), 'dobMonth')).toBe('date');
    expect(ruleFor(dob('00', '01', '1990'), 'dobDay')).toBe('date');
    expect(ruleFor(dob('22', '11', '2026'), 'dobYear')).toBe('past');
    expect(ruleFor(dob('01', '01', '2030'), 'dobYear')).toBe('past');
    expect(violationsOf(dob('21', '11', '2026'))).toEqual([]);
    expect(ruleFor(dob('01', '01', '1850'), 'dobYear')).toBe('min');
    expect(ruleFor(dob('1', '1', '90'), 'dobYear')).toBe('format');
    expect(ruleFor(dob('x', '01', '1990'), 'dobDay')).toBe('format');
    const value = valueOf(dob('5', '1', '1990'));
    expect([value['dobDay'], value['dobMonth']]).toEqual(['05', '01']);
  });

  it('requires notifyLanguage to be English or Arabic and notifyMethod one of BOTH, EMAIL, SMS (default BOTH)', () => {
    expect(ruleFor(referenceCodeRequest({}, { notifyLanguage: 'French' }), 'notify.notifyLanguage')).toBe('enum');
    expect(ruleFor(referenceCodeRequest({}, { notifyLanguage: 'arabic' }), 'notify.notifyLanguage')).toBe('enum');
    expect(ruleFor(referenceCodeRequest({}, { notifyMethod: 'PUSH' }), 'notify.notifyMethod')).toBe('enum');
    expect(valueOf(referenceCodeRequest({}, { notifyMethod: undefined }))['notify'].notifyMethod).toBe('BOTH');
  });

  it('requires email for BOTH and EMAIL, and mobile for BOTH and SMS', () => {
    const without = (method: string | undefined, missing: 'notifyUserEmail' | 'notifyUserMobile') =>
      fieldsOf(referenceCodeRequest({}, { notifyMethod: method, [missing]: undefined }));
    expect(without('BOTH', 'notifyUserEmail')).toEqual(['notify.notifyUserEmail']);
    expect(without(undefined, 'notifyUserEmail')).toEqual(['notify.notifyUserEmail']);
    expect(without('EMAIL', 'notifyUserEmail')).toEqual(['notify.notifyUserEmail']);
    expect(without('SMS', 'notifyUserEmail')).toEqual([]);
    expect(without('BOTH', 'notifyUserMobile')).toEqual(['notify.notifyUserMobile']);
    expect(without('SMS', 'notifyUserMobile')).toEqual(['notify.notifyUserMobile']);
    expect(without('EMAIL', 'notifyUserMobile')).toEqual([]);
    expect(ruleFor(referenceCodeRequest({}, { notifyUserEmail: 'mona-at-example' }), 'notify.notifyUserEmail')).toBe('format');
    expect(ruleFor(referenceCodeRequest({}, { notifyUserMobile: '12' }), 'notify.notifyUserMobile')).toBe('format');
  });

  it('keeps only the fields of the table, so unknown and prototype keys never travel', () => {
    const hostile = JSON.parse('{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}},"extra":1}');
    const result = validateCreateRequest({ ...posRequest(), ...hostile }, { now });
    expect(result.ok).toBe(true);
    if (result.ok) {
      expect(Object.keys(result.value).sort()).toEqual(['amount', 'country', 'expireAt', 'payMethod', 'product', 'reference', 'sn']);
      expect(Object.getPrototypeOf(result.value)).toBe(Object.prototype);
    }
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('reports a nested object that is not an object once, at its own name', () => {
    expect(violationsOf(posRequest({ amount: 'EGP 125' }))).toEqual([
      { field: 'amount', rule: 'type', message: 'amount must be an object' },
    ]);
  });

  it('treats blank optional strings as absent and trims the others', () => {
    const value = valueOf(posRequest({ callbackUrl: '  ', customerName: '  Mona  ' }));
    expect(value).not.toHaveProperty('callbackUrl');
    expect(value['customerName']).toBe('Mona');
  });

  it('takes only absolute http(s) URLs for callbackUrl and returnUrl', () => {
    expect(ruleFor(posRequest({ callbackUrl: 'javascript:alert(1)' }), 'callbackUrl')).toBe('url');
    expect(ruleFor(bankAccountRequest({ returnUrl: 'https://shop.example/a\nSet-Cookie: x=1' }), 'returnUrl')).toBe('url');
    expect(ruleFor(bankAccountRequest({ returnUrl: 'https://shop.example/a\tb' }), 'returnUrl')).toBe('url');
    expect(ruleFor(bankAccountRequest({ returnUrl: '/relative' }), 'returnUrl')).toBe('url');
    expect(violationsOf(posRequest({ callbackUrl: 'http://127.0.0.1:8080/callbacks' }))).toEqual([]);
  });

  it('refuses a body that is not an object', () => {
    for (const body of [null, [], 'text', 42]) {
      expect(violationsOf(body)).toEqual([{ field: 'body', rule: 'type', message: 'the request body must be a JSON object' }]);
    }
  });
});

describe('validate with the other tables', () => {
  it('takes a reference code of exactly 9 digits', () => {
    expect(validate(REFERENCE_CODE, { referenceCode: '123456789' }).ok).toBe(true);
    for (const code of ['12345678', '1234567890', '12345678a', '123 456 789']) {
      const result = validate(REFERENCE_CODE, { referenceCode: code });
      expect(result.ok).toBe(false);
    }
  });

  it('needs orderNo or reference on the action and status bodies', () => {
    const result = validate(OTP_REQUEST, { country: 'EG', otp: '11315632' });
    expect(result.ok ? [] : result.violations).toEqual([
      { field: 'orderNo', rule: 'required', message: 'orderNo or reference is required' },
    ]);
    expect(validate(OTP_REQUEST, { country: 'EG', reference: 'order-1', otp: '11315632' }).ok).toBe(true);
    expect(validate(STATUS_REQUEST, { country: 'EG', reference: 'order-1' }).ok).toBe(true);
  });
});
