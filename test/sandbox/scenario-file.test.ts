// Scenarios as data: merchants, test values and VAT rates from a JSON file, checked with errors that name the
// key and the line; a sandbox that runs on them.
import { afterEach, describe, expect, it } from 'vitest';
import { ServiceClient } from '../../src/server/index.js';
import { createSandbox, DEFAULT_SCENARIOS, parseSandboxFile, SandboxConfigError, SandboxControl, type Sandbox } from '../../src/sandbox/index.js';
import { parseLocatedJson } from '../../src/sandbox/scenarios/json-locations.js';
import { bankAccountRequest, posRequest } from '../core/fixtures.js';

let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

function errorOf(text: string): string {
  try {
    parseSandboxFile(text, 'scenarios.json');
  } catch (error) {
    expect(error).toBeInstanceOf(SandboxConfigError);
    return (error as Error).message;
  }
  throw new Error('the file was accepted');
}

describe('a scenarios file', () => {
  it('changes the defaults key by key: added, replaced, or removed with null', () => {
    const { scenarios, merchants } = parseSandboxFile(
      JSON.stringify({
        otp: '246810',
        dateOfBirth: '1985-12-31',
        vatRates: { KE: 16, NG: null },
        bankAccounts: {
          '0001112223': { nextAction: 'INPUT_PIN', outcome: 'FAIL', failureCode: 'DO_NOT_HONOUR' },
          '2215381207': null,
          '0001112224': { failsAtCreate: true },
        },
        refundAmounts: { '999': { outcome: 'FAIL', errorCode: 'TOO_LATE', afterMinutes: 30 } },
      }),
      'scenarios.json',
    );
    expect(merchants).toBeUndefined();
    expect(scenarios.otp).toBe('246810');
    expect(scenarios.pin).toBe(DEFAULT_SCENARIOS.pin);
    expect(scenarios.dateOfBirth).toEqual({ dobYear: '1985', dobMonth: '12', dobDay: '31' });
    expect(scenarios.vatRates).toEqual({ EG: 14, SA: 15, AE: 5, KE: 16 });
    expect(scenarios.bankAccounts['2215381207']).toBeUndefined();
    expect(scenarios.bankAccounts['2215381176']).toEqual(DEFAULT_SCENARIOS.bankAccounts['2215381176']);
    expect(scenarios.bankAccounts['0001112223']).toEqual({
      nextAction: 'INPUT_PIN',
      outcome: { failureCode: 'DO_NOT_HONOUR', failureReason: 'The payment failed.' },
      checksDateOfBirth: true,
    });
    expect(scenarios.bankAccounts['0001112224']).toMatchObject({ failsAtCreate: { failureCode: 'ACCOUNT_BLOCKED' } });
    expect(scenarios.refundAmounts['999']).toEqual({ outcome: 'FAIL', errorCode: 'TOO_LATE', errorMsg: 'The refund was rejected by the bank.', afterMinutes: 30 });
    expect(scenarios.refundAmounts['4040']).toEqual({ outcome: 'FAIL', errorCode: 'REFUND_REJECTED', errorMsg: 'The refund was rejected by the bank.' });
  });

  it('names the line, column and key of a wrong value', () => {
    const text = ['{', '  "vatRates": { "EG": 14 },', '  "bankAccounts": {', '    "0001112223": { "nextAction": "SWIPE_CARD" }', '  }', '}'].join('\n');
    expect(errorOf(text)).toBe('scenarios.json:4:21: bankAccounts.0001112223.nextAction must be one of INPUT_OTP, INPUT_PIN, REDIRECT_3DS');
  });

  it.each([
    [{ otp: '12' }, /:1:2: otp must be at least 4 characters/],
    [{ dateOfBirth: '1990-02-30' }, /dateOfBirth must be a date written YYYY-MM-DD/],
    [{ vatRates: { EGY: 14 } }, /vatRates\.EGY/],
    [{ vatRates: { EG: 140 } }, /vatRates\.EG must be a percentage from 0 to under 100/],
    [{ bankAccounts: { '12': {} } }, /bankAccounts\.12 must be at least 6 characters/],
    [{ bankAccounts: { '0001112223': { outcome: 'SUCCESS', failureCode: 'X' } } }, /bankAccounts\.0001112223\.failureCode is only for an account whose outcome is FAIL/],
    [{ bankAcounts: {} }, /:1:2: unknown key "bankAcounts"; known keys: merchants, otp/],
    [{ bankAccounts: { '0001112223': { nextActon: 'INPUT_PIN' } } }, /unknown key "nextActon" in bankAccounts\.0001112223/],
    [{ refundAmounts: { '0': { outcome: 'FAIL' } } }, /refundAmounts\.0 must be an amount in minor units/],
    [{ refundAmounts: { '100': { outcome: 'SUCCESS', errorCode: 'X' } } }, /refundAmounts\.100\.errorCode is only for a refund whose outcome is FAIL/],
    [{ merchants: [] }, /merchants must be a non-empty list/],
    [{ merchants: [{ merchantId: '1', privateKey: 'k', methods: ['Cash'] }] }, /merchants\[0\]\.methods must list some of Pos, BankAccount, ReferenceCode/],
    [{ merchants: [{ merchantId: '1', privateKey: 'k', colour: 'red' }] }, /unknown key "colour" in merchants\[0\]/],
    [{ merchants: [{ merchantId: '1', privateKey: 'k' }, { merchantId: '1', privateKey: 'j' }] }, /merchants\[1\]\.merchantId 1 is already the merchantId of merchants\[0\]/],
  ])('refuses %j, naming the key', (document, message) => {
    expect(errorOf(JSON.stringify(document))).toMatch(message);
  });

  it('names the line and column of a syntax error', () => {
    expect(errorOf('{\n  "otp": "123456",\n  "pin": 1234,,\n}')).toBe('scenarios.json:3:15: not JSON: expected a key in double quotes, found ","');
    expect(errorOf('{"otp": "123456"')).toMatch(/^scenarios\.json:1:17: not JSON: expected "," or "}" after the value of "otp", found the end of the file/);
    expect(errorOf('{"otp": "1", "otp": "2"}')).toMatch(/:1:14: not JSON: the key "otp" appears twice/);
    expect(errorOf('')).toMatch(/:1:1: not JSON: expected a value, found the end of the file/);
  });

  it('still reads the --config file of merchants, as an object or a bare list', () => {
    const merchant = { merchantId: '100', privateKey: 'k-100' };
    expect(parseSandboxFile(JSON.stringify({ merchants: [merchant] }), 'config.json').merchants).toMatchObject([merchant]);
    expect(parseSandboxFile(JSON.stringify([merchant]), 'config.json').merchants).toMatchObject([merchant]);
  });
});

describe('a sandbox on a scenarios file', () => {
  it('uses its merchants, its OTP, its accounts, its date of birth and its VAT rates', async () => {
    sandbox = await createSandbox({
      tickMs: 20,
      scenarios: {
        merchants: [{ merchantId: '300', privateKey: 'k-300' }],
        otp: '246810',
        dateOfBirth: '1985-12-31',
        vatRates: { EG: 10 },
        bankAccounts: { '0001112223': { nextAction: 'INPUT_OTP', outcome: 'FAIL', failureCode: 'DO_NOT_HONOUR' } },
      },
    });
    expect(sandbox.merchants.map((merchant) => merchant.merchantId)).toEqual(['300']);
    const client = new ServiceClient({ merchantId: '300', privateKey: 'k-300', environment: { baseUrl: sandbox.url } });
    const pos = await client.createPayment(posRequest({ reference: 'vat-1', amount: { total: 11_000, currency: 'EGP' } }) as never);
    expect(pos.data).toMatchObject({ vat: { total: 1000 } });
    const wrongBirth = await client.createPayment(bankAccountRequest({ reference: 'dob-1', bankAccountNumber: '0001112223' }) as never);
    expect(wrongBirth.data).toMatchObject({ errors: [{ field: 'dobDay', rule: 'mismatch' }] });
    const created = await client.createPayment(
      bankAccountRequest({ reference: 'dob-2', bankAccountNumber: '0001112223', dobDay: '31', dobMonth: '12', dobYear: '1985' }) as never,
    );
    const orderNo = (created.data as { orderNo: string }).orderNo;
    const messages = await new SandboxControl(sandbox.url).notifications({ orderNo });
    expect(messages[0]!.text).toContain('246810');
    const otp = await client.send('inputOtp', { country: 'EG', orderNo, otp: '246810' });
    expect(otp.data).toMatchObject({ status: 'FAIL', failureCode: 'DO_NOT_HONOUR' });
    expect((await new SandboxControl(sandbox.url).scenarios()).scenarios.otp).toBe('246810');
  });

  it('refuses bad scenarios given in code, naming the key', async () => {
    await expect(createSandbox({ scenarios: { pin: 'abcd' } as never })).rejects.toThrow(/^scenarios: pin must be 4 to 6 digits/);
  });
});

describe('the located JSON reader', () => {
  it('reads what JSON.parse reads, keeps "__proto__" an own key, and locates every value', () => {
    const text = '{"a": [1, {"b": "\\u00e9"}], "__proto__": {"x": 1}, "n": -1.5e3, "t": true, "z": null}';
    const located = parseLocatedJson(text);
    expect(located.value).toEqual(JSON.parse(text));
    expect(Object.getPrototypeOf(located.value)).toBe(Object.prototype);
    expect(Object.hasOwn(located.value as object, '__proto__')).toBe(true);
    expect(located.locate(['a', 1, 'b'])).toEqual({ line: 1, column: 12 });
    expect(located.locate(['nowhere', 'deep'])).toEqual({ line: 1, column: 1 });
  });
});
