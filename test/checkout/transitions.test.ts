/** Pure functions of the payment life: what a failed call tells the payer. */
import { describe, expect, it } from 'vitest';
import { transportMessageOf } from '../../src/checkout/index.js';
import { knownFromNote, orderFromStatus, waitMessage } from '../../src/checkout/transitions.js';

describe('what a call without a payment answer tells the payer', () => {
  it('keeps "check your connection" for a request that failed, and names the rest apart', () => {
    expect(transportMessageOf({ code: 'NETWORK', status: undefined })).toBe('network');
    expect(transportMessageOf({ code: 'TIMEOUT', status: undefined })).toBe('timeout');
    for (const status of [500, 502, 503, 504]) expect(transportMessageOf({ code: 'HTTP', status })).toBe('shop-error');
    expect(transportMessageOf({ code: 'BAD_RESPONSE', status: 200 })).toBe('shop-error');
    expect(transportMessageOf({ code: 'HTTP', status: 404 })).toBe('not-found');
    expect(transportMessageOf({ code: 'HTTP', status: 405 })).toBe('not-found');
  });
});

describe("what the kit's note of another page's attempt shows", () => {
  const found = { reference: 'cart-1', payMethod: 'Pos' as const, country: 'EG', shownAmount: { total: 12_500, currency: 'EGP' }, token: undefined };
  const status = (payment: unknown, state = 'PENDING') => ({ reference: 'cart-1', orderNo: 'O1', status: state, payment }) as never;

  it("the terminal's step, the voucher's code, or the account's ending; its method over the page's guess", () => {
    expect(orderFromStatus(status({ payMethod: 'Pos', sn: 'N78101818410' }), found, { methodUnknown: true })).toMatchObject({ payMethod: 'Pos', sn: 'N78101818410', actionType: 'SWIPE_CARD' });
    const code = orderFromStatus(status({ payMethod: 'ReferenceCode', referenceCode: '123456789' }), found, { methodUnknown: true });
    expect(code).toMatchObject({ payMethod: 'ReferenceCode', referenceCode: '123456789', actionType: 'REFERENCE_CODE' });
    expect(code.methodUnknown).toBeUndefined();
    const bank = orderFromStatus(status({ payMethod: 'BankAccount', accountEnding: '1176' }), found, {});
    expect(bank).toMatchObject({ payMethod: 'BankAccount', accountEnding: '1176' });
    expect(bank.actionType).toBeUndefined();
    expect(waitMessage(bank, 'in-progress')).toEqual({ kind: 'in-progress', accountEnding: '1176' });
  });

  it('nothing of a note that is not one, or of an attempt no longer pending', () => {
    for (const junk of [undefined, null, 'Pos', { payMethod: 'Pos' }, { payMethod: 'Card', sn: 'N1' }, { payMethod: 'ReferenceCode', referenceCode: 123456789 }]) {
      expect(knownFromNote(junk)).toBeUndefined();
      expect(orderFromStatus(status(junk), found, { methodUnknown: true })).toMatchObject({ payMethod: 'Pos', methodUnknown: true });
    }
    expect(orderFromStatus(status({ payMethod: 'Pos', sn: 'N1' }, 'SUCCESS'), found, {}).sn).toBeUndefined();
    // Read as the kit reads it (attemptNoteOf): a note the kit would never send shows nothing, not its text.
    for (const forged of [{ payMethod: 'Pos', sn: '<img src=x>' }, { payMethod: 'BankAccount', accountEnding: '2215381176' }, { payMethod: 'ReferenceCode', referenceCode: 'call 555' }, { payMethod: ['Pos'], sn: 'N1' }]) {
      expect(knownFromNote(forged)).toBeUndefined();
    }
    expect(waitMessage(orderFromStatus(status(undefined), found, {}), 'in-progress')).toEqual({ kind: 'in-progress' });
  });
});
