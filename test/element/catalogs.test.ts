// English ships in four pieces (the first frame's words, each lazy form's, the steps'), Arabic whole: together the
// English pieces are the whole catalog, and a merchant's words registered before a piece came stay on top of it.
import { describe, expect, it } from 'vitest';
import ar from '../../src/element/i18n/ar.js';
import en from '../../src/element/i18n/en.js';
import enBankAccount from '../../src/element/i18n/en-bank-account.js';
import enReferenceCode from '../../src/element/i18n/en-reference-code.js';
import enSteps from '../../src/element/i18n/en-steps.js';
import { addShippedTerms, registerTranslation, resolveTranslation } from '../../src/element/i18n/registry.js';

/** Every term's path (`label.sn`, `pay`), deep. */
function paths(catalog: object, prefix = ''): string[] {
  return Object.entries(catalog).flatMap(([key, value]) =>
    typeof value === 'object' && value !== null ? paths(value as object, `${prefix}${key}.`) : [`${prefix}${key}`],
  );
}

describe('the English catalog in pieces', () => {
  const pieces = { en, enBankAccount, enReferenceCode, enSteps };

  it('has every term of the whole Arabic catalog, each in one piece only', () => {
    const all = Object.values(pieces).flatMap((piece) => paths(piece));
    expect(all.length).toBe(new Set(all).size);
    expect(new Set(all)).toEqual(new Set(paths(ar)));
  });

  it('keeps the first frame to the shell, the choice of method and the POS form', () => {
    expect(paths(en).filter((path) => path.startsWith('label.') || path.startsWith('hint.'))).toEqual(['label.sn', 'hint.sn']);
    expect(paths(en)).not.toContain('fieldError.required');
  });

  it('puts a piece that comes later under the words a merchant registered before it', () => {
    registerTranslation({ $code: 'en', label: { bankCode: 'Sort code' } });
    addShippedTerms('en', enBankAccount);
    const terms = resolveTranslation('en');
    expect(terms.label.bankCode).toBe('Sort code');
    expect(terms.label.bankAccountNumber).toBe('Account number');
    expect(terms.label.sn).toBe('Terminal serial number');
    expect(terms.pay('EGP 1.00')).toBe('Pay EGP 1.00');
  });
});
