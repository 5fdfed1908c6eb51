import { describe, expect, it } from 'vitest';
import { canonicalJson, parseJson } from '../../src/core/index.js';

describe('canonicalJson', () => {
  it('sorts keys at every depth and writes no whitespace', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: 'x' } })).toBe('{"a":{"c":"x","d":[3,{"y":2,"z":1}]},"b":1}');
  });

  it('sorts integer-like keys as text, which JSON.stringify of a sorted copy would not', () => {
    expect(canonicalJson({ 10: 'a', 2: 'b', a: 'c' })).toBe('{"10":"a","2":"b","a":"c"}');
  });

  it('leaves out undefined members like JSON.stringify, and writes null in arrays', () => {
    expect(canonicalJson({ a: undefined, b: [undefined, 1] })).toBe('{"b":[null,1]}');
  });

  it('refuses values with no exact JSON form', () => {
    expect(() => canonicalJson({ total: Number.NaN })).toThrow(/finite/);
    expect(() => canonicalJson({ total: 1n })).toThrow(/bigint/);
    expect(() => canonicalJson(undefined)).toThrow();
  });

  it('round-trips through JSON.parse for non-ASCII text', () => {
    const value = { name: 'منى حسن', note: 'emoji 💳 and "quotes"\n' };
    expect(JSON.parse(canonicalJson(value))).toEqual(value);
  });
});

describe('parseJson', () => {
  it('drops the members when their names are spelled with escapes, too', () => {
    const parsed = parseJson('{"a":{"\\u005f_proto__":{"x":1},"c\\u006fnstructor":1,"pr\\u006ftotype":2,"kept":3}}');
    expect(parsed.ok).toBe(true);
    const a = (parsed as { value: { a: Record<string, unknown> } }).value.a;
    expect(Object.keys(a)).toEqual(['kept']);
  });

  it('drops __proto__, constructor and prototype members at every depth', () => {
    const parsed = parseJson('{"a":{"__proto__":{"x":1},"constructor":{"prototype":{"y":2}}},"__proto__":{"z":3}}');
    expect(parsed).toEqual({ ok: true, value: { a: {} } });
    const target = Object.assign({}, parsed.ok ? parsed.value : {});
    expect(Object.getPrototypeOf(target)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>)['z']).toBeUndefined();
  });

  it('parses JSON nested deeper than a reviver could go, still dropping unsafe members down there', () => {
    const depth = 100_000;
    const parsed = parseJson(`{"reference":"r-1","deep":${'['.repeat(depth)}{"__proto__":{"x":1},"kept":1}${']'.repeat(depth)}}`);
    if (!parsed.ok) throw new Error(`not parsed: ${parsed.message}`);
    const { reference, deep } = parsed.value as { reference: string; deep: unknown };
    expect(reference).toBe('r-1');
    let level = deep;
    for (let index = 0; index < depth; index++) level = (level as unknown[])[0];
    expect(level).toEqual({ kept: 1 });
    expect(Object.hasOwn(level as object, '__proto__')).toBe(false);
  });

  it('reports text that is not JSON instead of throwing', () => {
    expect(parseJson('{"a":').ok).toBe(false);
    expect(parseJson('').ok).toBe(false);
  });
});
