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

  it('has no term the element never reads: every word a catalog ships is bytes of its scripts (issue 49 point 5)', async () => {
    const { readdir, readFile } = await import('node:fs/promises');
    const files = (await readdir('src/element', { recursive: true })).filter((file) => file.endsWith('.ts') && !file.startsWith('i18n'));
    const code = (await Promise.all(files.map((file) => readFile(`src/element/${file}`, 'utf8')))).join('\n');
    // Top-level terms (a group's own keys are read through their group: `t.failure[code]`, `t.status[status]`);
    // the `$` keys are the registry's (the catalog's code, name and direction); a table may name a term ('networkError').
    const unread = Object.keys(ar).filter((term) => !term.startsWith('$') && !new RegExp(`\\.${term}\\b|'${term}'`).test(code));
    expect(unread).toEqual([]);
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

describe('a wait, as a payer would say it', () => {
  const format = (n: number) => new Intl.NumberFormat('en').format(n);
  const arabic = (n: number) => new Intl.NumberFormat('ar-EG').format(n);

  it('says seconds up to a minute, then about so many minutes, then hours, in English', () => {
    expect(enSteps.tooMany!(1, format)).toBe('Too many attempts. Try again in 1 second.');
    expect(enSteps.tooMany!(42, format)).toBe('Too many attempts. Try again in 42 seconds.');
    expect(enSteps.tooMany!(60, format)).toBe('Too many attempts. Try again in 60 seconds.');
    expect(enSteps.tooMany!(61, format)).toBe('Too many attempts. Try again in about 1 minute.');
    expect(enSteps.tooMany!(3_443, format)).toBe('Too many attempts. Try again in about 57 minutes.');
    expect(enSteps.tooMany!(3_599, format)).toBe('Too many attempts. Try again in about 1 hour.');
    expect(enSteps.tooMany!(9_000, format)).toBe('Too many attempts. Try again in about 3 hours.');
  });

  it('says the same in Arabic, each noun in its counted form after بعد', () => {
    expect(ar.tooMany(42, arabic)).toBe('محاولات كثيرة. حاول مرة أخرى بعد ٤٢ ثانية.');
    expect(ar.tooMany(3_443, arabic)).toBe('محاولات كثيرة. حاول مرة أخرى بعد نحو ٥٧ دقيقة.');
    expect(ar.tooMany(120, arabic)).toBe('محاولات كثيرة. حاول مرة أخرى بعد نحو دقيقتين.');
    expect(ar.tooMany(300, arabic)).toBe('محاولات كثيرة. حاول مرة أخرى بعد نحو ٥ دقائق.');
    expect(ar.tooMany(3_600, arabic)).toBe('محاولات كثيرة. حاول مرة أخرى بعد نحو ساعة واحدة.');
    expect(ar.tooMany(7_200, arabic)).toBe('محاولات كثيرة. حاول مرة أخرى بعد نحو ساعتين.');
  });
});
