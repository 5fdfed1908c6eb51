import { describe, expect, it } from 'vitest';
import {
  codesOf,
  envelopeForViolations,
  errorEnvelope,
  fillPath,
  isRetryable,
  matchPath,
  normalizeNextActionType,
  RESULT_CODES,
  SERVICE_PATHS,
  successEnvelope,
  violationsOf,
} from '../../src/core/index.js';

describe('result codes', () => {
  it('carries the specification messages word for word', () => {
    expect(RESULT_CODES['02000'].message).toBe('authentication failed.');
    expect(RESULT_CODES['02004'].message).toBe('the payment reference already exists.');
    expect(RESULT_CODES['50003'].message).toBe('service not available, please try again.');
    expect(RESULT_CODES['20000'].message).toBe('Duplicate merchant order number.');
    expect(RESULT_CODES['09'].message).toBe('Time out.');
  });

  it('groups codes by the table they appear in', () => {
    expect(codesOf('payment')).toEqual(['02000', '02001', '02002', '02003', '02004', '02007', '50003']);
    expect(codesOf('referenceCode')).toEqual(['09', '90', '91', '96', '97', '98', '99', '20000']);
    expect(codesOf('refund')).toEqual(['02000', '02001', '02002', '02006', '02007', '50003']);
  });

  it('builds envelopes and reads violations back', () => {
    expect(successEnvelope({ a: 1 })).toEqual({ code: '00000', message: 'SUCCESSFUL', data: { a: 1 } });
    expect(errorEnvelope('02006', { message: 'payment not found.' })).toEqual({
      code: '02006',
      message: 'payment not found.',
      data: null,
    });
    const violations = [{ field: 'sn', rule: 'required', message: 'sn is required' }];
    expect(violationsOf(envelopeForViolations(violations))).toEqual(violations);
    expect(isRetryable('50003')).toBe(true);
    expect(isRetryable('02001')).toBe(false);
    expect(isRetryable('not-a-code')).toBe(false);
  });
});

describe('paths', () => {
  it('fills and matches templates, encoding values', () => {
    expect(fillPath('/sandbox/v1/pos/{sn}/swipe', { sn: 'N7/8' })).toBe('/sandbox/v1/pos/N7%2F8/swipe');
    expect(matchPath('/sandbox/v1/pos/{sn}/swipe', '/sandbox/v1/pos/N7%2F8/swipe')).toEqual({ sn: 'N7/8' });
    expect(matchPath('/sandbox/v1/pos/{sn}/swipe', '/sandbox/v1/pos/a/b/swipe')).toBeUndefined();
    expect(matchPath('/sandbox/v1/pos/{sn}/swipe', '/sandbox/v1/pos/%E0%A4%A/swipe')).toBeUndefined();
  });

  it('targets the service paths of the design', () => {
    expect(SERVICE_PATHS.create).toBe('/api/v1/international/payment/create');
    expect(SERVICE_PATHS.status).toBe('/api/v1/international/cashier/status');
  });
});

describe('next action types', () => {
  it('maps the spellings seen to the canonical values', () => {
    expect(normalizeNextActionType('INPUT_OTP')).toBe('INPUT_OTP');
    expect(normalizeNextActionType('input_otp')).toBe('INPUT_OTP');
    expect(normalizeNextActionType('INPUT_OPT')).toBe('INPUT_OTP');
    expect(normalizeNextActionType('REDIRECT_3DS')).toBe('REDIRECT_3DS');
    expect(normalizeNextActionType('SOMETHING')).toBeUndefined();
    expect(normalizeNextActionType(undefined)).toBeUndefined();
  });
});
