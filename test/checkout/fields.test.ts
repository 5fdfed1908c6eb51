// The payer's fields (src/checkout/fields.ts) are one table: the first frame's prefill, the kit's list of what it
// takes from the browser, and the create body agree with its rows.
import { describe, expect, it } from 'vitest';
import { fieldsOf, resolveConfig } from '../../src/checkout/index.js';
import { IDLE_STATE, prefilled } from '../../src/checkout/first-frame.js';
import { PAY_METHODS, PAYER_FIELDS, type UserInfo } from '../../src/core/index.js';

describe('the payer fields table', () => {
  it("fills each row of the shop's userInfo, and each choice with its first, as the first frame does", () => {
    const userInfo: Required<UserInfo> = { userId: 'u1', userName: 'Mona Hassan', userMobile: '+201001234567', userEmail: 'mona@example.com' };
    const { config } = resolveConfig({ endpoint: '/checkout', merchantId: '1', countryCode: 'EG' }, undefined, userInfo, () => undefined);
    for (const method of PAY_METHODS) {
      const values = prefilled(config, {}, { ...IDLE_STATE, values: { Pos: {}, BankAccount: {}, ReferenceCode: {} } }).values[method];
      for (const field of fieldsOf(method)) {
        const expected = field.prefill ? userInfo[field.prefill] : field.choices?.[0];
        expect(values[field.name], `${method} ${field.name}`).toBe(expected);
      }
    }
  });

  it("is taken by the kit from the browser: each row's field is in PAYER_FIELDS (src/core), nothing the rows do not send", () => {
    for (const method of PAY_METHODS) {
      const top = new Set(fieldsOf(method).map((field) => field.wire.split('.')[0]));
      for (const wire of top) expect(PAYER_FIELDS[method] as readonly string[], `${method} ${wire}`).toContain(wire);
    }
  });

  it('names every field once across a method', () => {
    for (const method of PAY_METHODS) {
      const names = fieldsOf(method).map((field) => field.name);
      expect(new Set(names).size, method).toBe(names.length);
    }
  });
});
