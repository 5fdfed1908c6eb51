// The payer's fields (src/checkout/fields.ts) are one table: the first frame's prefill, the kit's list of what it
// takes from the browser, and the create body agree with its rows.
import { describe, expect, it } from 'vitest';
import { fieldsOf, resolveConfig, type CheckoutState, type FieldSpec } from '../../src/checkout/index.js';
import { prefilled } from '../../src/checkout/fields.js';
import { IDLE_STATE } from '../../src/checkout/first-frame.js';
import { PAY_METHODS, PAYER_FIELDS, type UserInfo } from '../../src/core/index.js';

const USER_INFO: Required<UserInfo> = { userId: 'u1', userName: 'Mona Hassan', userMobile: '+201001234567', userEmail: 'mona@example.com' };
const EMPTY: CheckoutState = { ...IDLE_STATE, values: { Pos: {}, BankAccount: {}, ReferenceCode: {} } };
const { config } = resolveConfig({ endpoint: '/checkout', merchantId: '1', countryCode: 'EG' }, undefined, USER_INFO, () => undefined);

describe('the payer fields table', () => {
  it("fills each row of what the shop knows (its userInfo, the language setting), and each choice with its first", () => {
    for (const language of [undefined, 'Arabic'] as const) {
      const known: Record<string, string | undefined> = { ...USER_INFO, language };
      for (const method of PAY_METHODS) {
        const values = prefilled(config, { language }, EMPTY).values[method];
        for (const field of fieldsOf(method)) {
          const expected = (field.prefill && known[field.prefill]) ?? field.choices?.[0] ?? (field.prefill ? '' : undefined);
          expect(values[field.name], `${method} ${field.name}`).toBe(expected);
        }
      }
    }
  });

  it('reads what it fills from the rows: a row that names another detail fills that one, a row without one nothing', () => {
    const row = fieldsOf('ReferenceCode').find((field) => field.name === 'notifyUserName') as FieldSpec & { prefill?: FieldSpec['prefill'] };
    const kept = row.prefill;
    try {
      row.prefill = 'userEmail';
      expect(prefilled(config, {}, EMPTY).values.ReferenceCode.notifyUserName).toBe('mona@example.com');
      delete row.prefill;
      expect(prefilled(config, {}, EMPTY).values.ReferenceCode).not.toHaveProperty('notifyUserName');
    } finally {
      row.prefill = kept;
    }
  });

  it('keeps what the payer typed, and fills only what is empty', () => {
    const typed: CheckoutState = { ...EMPTY, values: { ...EMPTY.values, ReferenceCode: { notifyUserName: 'Ali', notifyUserEmail: '' } } };
    expect(prefilled(config, {}, typed).values.ReferenceCode).toMatchObject({ notifyUserName: 'Ali', notifyUserEmail: 'mona@example.com' });
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
