// Generated bad input for the one validator and its rule tables: it never throws, refuses what README.md's
// rules refuse (naming the field, a known rule and a message), accepts only what they accept, and leaves
// Object.prototype alone.
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import {
  BANK_ACCOUNT_DETAILS,
  CREATE_RULES,
  envelopeForViolations,
  isPlainObject,
  validate,
  validateCreateRequest,
  type RuleTable,
  type Validation,
} from '../../src/core/index.js';
import {
  ACCEPTS,
  candidates,
  fieldPaths,
  isAbsent,
  README_LENGTHS,
  resized,
  shapeNamed,
  SHAPES,
  VALIDATOR_RULES,
  withField,
  wrongType,
  type Shape,
} from './requests.js';
import { expectPrototypesClean, hostileKey, hostileString, hugeString, jsonText, jsonTree, numberish, tally, withMembers } from './support.js';

/** The date of birth's three fields: its group rule's (src/core/rules.ts). */
const DATE_PARTS: string[] = BANK_ACCOUNT_DETAILS.groups!.flatMap((group) => group.fields);

const now = new Date('2026-11-22T10:00:00Z');
const runs = 1_000;
const cases = tally('property suite: validator');
afterAll(() => {
  console.log(cases.report());
  expectPrototypesClean();
});

function check(name: string, input: unknown): Validation<Record<string, unknown>> {
  const shape = shapeNamed(name);
  return (shape.create ? validateCreateRequest(input, { now }) : validate(shape.table, input, { now })) as Validation<Record<string, unknown>>;
}

const createPaths = new Set(Object.values(CREATE_RULES).flatMap((table) => [...fieldPaths(table)]));
const pathsOf = (shape: Shape) => (shape.create ? createPaths : fieldPaths(shape.table));

/** Every violation names a real field, a known rule and says something. */
function expectWellFormed(name: string, result: Validation<unknown>): void {
  if (result.ok) return;
  const shape = shapeNamed(name);
  expect(result.violations.length).toBeGreaterThan(0);
  for (const violation of result.violations) {
    expect(pathsOf(shape), `field of ${JSON.stringify(violation)}`).toContain(violation.field);
    expect(VALIDATOR_RULES, `rule of ${JSON.stringify(violation)}`).toContain(violation.rule);
    expect(typeof violation.message).toBe('string');
    expect(violation.message.trim()).not.toBe('');
  }
}

/** An accepted value holds the table's fields only, and is accepted again unchanged. */
function expectCleanValue(name: string, value: Record<string, unknown>): void {
  const shape = shapeNamed(name);
  const table: RuleTable = shape.create ? CREATE_RULES[value['payMethod'] as keyof typeof CREATE_RULES] : shape.table;
  const paths = fieldPaths(table);
  const walk = (object: Record<string, unknown>, prefix: string) => {
    expect(Object.getPrototypeOf(object)).toBe(Object.prototype);
    for (const [key, member] of Object.entries(object)) {
      const path = prefix ? `${prefix}.${key}` : key;
      if (Object.hasOwn(table.fields, path)) continue;
      // Anything else must be a parent of fields, such as amount or notify.
      expect(paths.has(path) && isPlainObject(member), `${path} is not a field of ${name}`).toBe(true);
      walk(member as Record<string, unknown>, path);
    }
  };
  walk(value, '');
  const again = check(name, value);
  expect(again).toEqual({ ok: true, value, violations: [] });
}

function namesField(result: Validation<unknown>, field: string): boolean {
  return !result.ok && result.violations.some((violation) => violation.field === field);
}

// Cases carry the shape's name, not the shape, so that a counterexample prints short.
const anyShape = fc.constantFrom(...SHAPES.map((shape) => shape.name));
const shapeAndValid = anyShape.chain((shape) => shapeNamed(shape).valid.map((request) => ({ shape, request })));
const shapeAndField = anyShape.chain((shape) =>
  fc.tuple(shapeNamed(shape).valid, fc.constantFrom(...Object.keys(shapeNamed(shape).fields))).map(([request, field]) => ({ shape, request, field })),
);

/** A value `depth` levels deep, arrays or objects, built without recursion. */
function nested(depth: number, objects: boolean): unknown {
  let value: unknown = objects ? { leaf: 'x' } : ['x'];
  for (let level = 1; level < depth; level++) value = objects ? { inner: value } : [value];
  return value;
}

describe('property: the validator', () => {
  it(`accepts every generated valid request of every shape, keeps only the table's fields, and is stable (${runs} cases)`, async () => {
    await cases.check('valid requests are accepted', shapeAndValid, ({ shape, request }) => {
      const result = check(shape, request);
      expect(result.ok ? [] : result.violations).toEqual([]);
      if (result.ok) expectCleanValue(shape, result.value);
    }, runs);
  });

  it(`never throws on arbitrary JSON or JavaScript values, and every answer is well formed (${runs * 2} cases)`, async () => {
    const json = fc.tuple(anyShape, jsonTree).map(([shape, tree]) => ({ shape, input: JSON.parse(jsonText(tree)) as unknown }));
    const javascript = fc.tuple(
      anyShape,
      fc.anything({ key: hostileKey, maxDepth: 4, withBoxedValues: true, withMap: true, withSet: true, withNullPrototype: true, withBigInt: true, withDate: true, withTypedArray: true, withSparseArray: true }),
    ).map(([shape, input]) => ({ shape, input }));
    const property = ({ shape, input }: { shape: string; input: unknown }) => {
      const result = check(shape, input);
      expectWellFormed(shape, result);
      if (result.ok) expectCleanValue(shape, result.value);
      expectPrototypesClean();
    };
    await cases.check('arbitrary JSON never throws', json, property, runs);
    await cases.check('arbitrary JavaScript values never throw', javascript, property, runs);
  });

  it(`refuses a field of the wrong type, naming that field (${runs} cases)`, async () => {
    const arbitrary = shapeAndField.chain(({ shape, request, field }) =>
      wrongType(shapeNamed(shape).fields[field]!.kind).map((value) => ({ shape, field, input: withField(request, field, value) })),
    );
    await cases.check('a wrong type is refused at its field', arbitrary, ({ shape, field, input }) => {
      const result = check(shape, input);
      expectWellFormed(shape, result);
      expect(namesField(result, field), `${shape}: ${field} = ${JSON.stringify(fieldValue(input, field))}`).toBe(true);
    }, runs);
  });

  it(`refuses a parent (amount, product, notify) that is not an object, at the parent (${runs} cases)`, async () => {
    const withParents = SHAPES.filter((shape) => Object.keys(shape.table.fields).some((field) => field.includes('.')));
    const arbitrary = fc.constantFrom(...withParents.map((shape) => shape.name)).chain((shape) => {
      const fields = Object.keys(shapeNamed(shape).table.fields);
      const parents = [...new Set(fields.filter((field) => field.includes('.')).map((field) => field.split('.')[0]!))];
      return fc
        .tuple(shapeNamed(shape).valid, fc.constantFrom(...parents), fc.oneof(hostileString, numberish, fc.boolean(), fc.array(fc.jsonValue(), { maxLength: 3 })))
        .filter(([, , value]) => !isAbsent(value))
        .map(([request, parent, value]) => ({ shape, parent, input: { ...request, [parent]: value } }));
    });
    await cases.check('a broken parent is refused once, at the parent', arbitrary, ({ shape, parent, input }) => {
      const result = check(shape, input);
      expectWellFormed(shape, result);
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.violations.filter((violation) => violation.field === parent)).toEqual([expect.objectContaining({ rule: 'type' })]);
    }, runs);
  });

  it(`refuses a huge string in any field, naming that field (${runs / 2} cases)`, async () => {
    const arbitrary = shapeAndField.chain(({ shape, request, field }) => hugeString.map((value) => ({ shape, field, input: withField(request, field, value) })));
    await cases.check('a huge string is refused at its field', arbitrary, ({ shape, field, input }) => {
      const result = check(shape, input);
      expectWellFormed(shape, result);
      expect(namesField(result, field), `${shape}: ${field}`).toBe(true);
    }, runs / 2);
  });

  it(`refuses deep nesting in a field and ignores it beside the fields (${runs / 2} cases)`, async () => {
    const arbitrary = fc.tuple(shapeAndField, fc.integer({ min: 1, max: 20_000 }), fc.boolean(), fc.boolean());
    await cases.check('deep nesting', arbitrary, ([{ shape, request, field }, depth, objects, inField]) => {
      const deep = nested(depth, objects);
      if (inField) {
        const result = check(shape, withField(request, field, deep));
        expectWellFormed(shape, result);
        expect(namesField(result, field), `${shape}: ${field} nested ${depth} deep`).toBe(true);
      } else {
        const result = check(shape, { ...request, deep });
        expect(result.ok ? [] : result.violations).toEqual([]);
        if (result.ok) expect(result.value).not.toHaveProperty('deep');
      }
    }, runs / 2);
  });

  it(`reads only own fields: __proto__, constructor and prototype keys never reach the value or Object.prototype (${runs} cases)`, async () => {
    const unsafe = fc.constantFrom('__proto__', 'constructor', 'prototype');
    const member = fc.tuple(unsafe, jsonTree);
    const arbitrary = fc.tuple(shapeAndValid, fc.array(member, { minLength: 1, maxLength: 3 }), fc.array(member, { maxLength: 2 }), fc.boolean());
    await cases.check('unsafe keys are dropped or ignored', arbitrary, ([{ shape, request }, top, inner, inherited]) => {
      if (inherited) {
        // Fields found only on the prototype are not the request's.
        const result = check(shape, Object.create(request) as unknown);
        expect(result.ok).toBe(false);
        expectWellFormed(shape, result);
      }
      const nestedKey = Object.keys(request).find((key) => isPlainObject(request[key]));
      const spliced = nestedKey === undefined ? request : { ...request, [nestedKey]: JSON.parse(withMembers(request[nestedKey], inner)) as unknown };
      const input = JSON.parse(withMembers(spliced, top)) as unknown;
      const result = check(shape, input);
      expect(result.ok ? [] : result.violations).toEqual([]);
      if (result.ok) expectCleanValue(shape, result.value);
      expectPrototypesClean();
    }, runs);
  });

  const perField = 80;
  it(`accepts exactly what README.md's rule for each field accepts (${perField} cases per field)`, async () => {
    // notifyMethod decides which contacts are required: it has its own property below, and here it is BOTH.
    const pairs = SHAPES.flatMap((shape) =>
      Object.entries(shape.fields)
        .filter(([field, spec]) => spec.accepts && field !== 'notify.notifyMethod')
        .map(([field]) => ({ shape: shape.name, field })),
    );
    // Each field once (a rule shared by several shapes is the same rule), and each with its own runs.
    const distinct = [...new Map(pairs.map((pair) => [pair.field, pair])).values()];
    for (const { shape, field } of distinct) {
      const arbitrary = fc.tuple(shapeNamed(shape).valid, candidates(shapeNamed(shape).fields[field]!)).map(([request, value]) => {
        return { value, input: withField(field.startsWith('notify.') ? withBothChannels(request) : request, field, value) };
      });
      await cases.check(`each field follows its README rule (${distinct.length} fields)`, arbitrary, ({ value, input }) => {
        const spec = shapeNamed(shape);
        const table: RuleTable = spec.create ? CREATE_RULES[(input as { payMethod: keyof typeof CREATE_RULES }).payMethod] : spec.table;
        const rule = table.fields[field]!;
        const required = rule.required === true || (typeof rule.required === 'object' && rule.required.in.includes('BOTH'));
        const expected = isAbsent(value) ? !required || rule.default !== undefined : spec.fields[field]!.accepts!(value);
        const result = check(shape, input);
        expectWellFormed(shape, result);
        const described = `${shape}: ${field} = ${JSON.stringify(value)?.slice(0, 200)}`;
        if (expected) expect(result.ok ? [] : result.violations, described).toEqual([]);
        else expect(namesField(result, field), described).toBe(true);
        return expected ? 'accepted' : 'refused';
      }, perField);
    }
  });

  const perFieldValues = 20;
  it(`puts each field's length limits where README.md does: valid values cut or grown to every length it names (${perFieldValues} values per field)`, async () => {
    const textFields = SHAPES.flatMap((shape) =>
      Object.entries(shape.fields)
        .filter(([field, spec]) => spec.accepts && spec.kind === 'text' && field !== 'notify.notifyMethod')
        .map(([field]) => ({ shape: shape.name, field })),
    );
    const distinct = [...new Map(textFields.map((pair) => [pair.field, pair])).values()];
    for (const { shape, field } of distinct) {
      const spec = shapeNamed(shape);
      const valid = fc.tuple(spec.valid, spec.fields[field]!.valid.filter((value): value is string => typeof value === 'string' && value.trim().length > 0));
      await cases.check(`length limits (${distinct.length} fields × ${README_LENGTHS.length} lengths)`, valid, ([request, seed]) => {
        const base = field.startsWith('notify.') ? withBothChannels(request) : request;
        for (const length of README_LENGTHS) {
          const value = resized(seed.trim(), length);
          const expected = spec.fields[field]!.accepts!(value);
          const result = check(shape, withField(base, field, value));
          const described = `${shape}: ${field} = ${JSON.stringify(value).slice(0, 120)} (${length} characters)`;
          if (expected) expect(result.ok ? [] : result.violations, described).toEqual([]);
          else expect(namesField(result, field), described).toBe(true);
        }
      }, perFieldValues);
    }
  });

  it(`accepts a date of birth only when it is a real date from 1900 to yesterday (${runs} cases)`, async () => {
    const part = (digits: number) =>
      fc.oneof(
        fc.integer({ min: -1, max: digits === 4 ? 3_000 : 40 }),
        fc.integer({ min: 0, max: digits === 4 ? 3_000 : 40 }).map(String),
        fc.integer({ min: 0, max: digits === 4 ? 3_000 : 40 }).map((value) => String(value).padStart(digits, '0')),
        fc.constantFrom('', ' 7 ', '007', '1e1', '٥', 5.5, null, '0x1', '19 90', '+5'),
      );
    const arbitrary = fc.tuple(shapeNamed('BankAccount create').valid, part(2), part(2), part(4));
    await cases.check('dates of birth follow README', arbitrary, ([request, dobDay, dobMonth, dobYear]) => {
      const input = { ...request, dobDay, dobMonth, dobYear };
      const result = validateCreateRequest(input, { now });
      expectWellFormed('BankAccount create', result);
      const expected = isRealPastDate(dobDay, dobMonth, dobYear);
      const described = JSON.stringify({ dobDay, dobMonth, dobYear });
      if (expected) {
        expect(result.ok ? [] : result.violations, described).toEqual([]);
      } else {
        expect(result.ok, described).toBe(false);
        if (!result.ok) expect(result.violations.some((violation) => DATE_PARTS.includes(violation.field)), described).toBe(true);
      }
    }, runs);
  });

  it(`requires the email and mobile that notifyMethod needs (${runs} cases)`, async () => {
    const contact = (valid: string) => fc.constantFrom(undefined, valid, 'not a contact', '', 42);
    const arbitrary = fc.tuple(
      shapeNamed('ReferenceCode create').valid,
      fc.constantFrom(undefined, 'BOTH', 'EMAIL', 'SMS', 'both', 'FAX', 1, ' SMS'),
      contact('mona@example.com'),
      contact('+20 100 123 4567'),
    );
    await cases.check('notify channels follow README', arbitrary, ([request, method, email, mobile]) => {
      const notify = { ...(request['notify'] as Record<string, unknown>), notifyMethod: method, notifyUserEmail: email, notifyUserMobile: mobile };
      const result = validateCreateRequest({ ...request, notify }, { now });
      expectWellFormed('ReferenceCode create', result);
      const channel = method === undefined ? 'BOTH' : method;
      const methodOk = ACCEPTS.notifyMethod(channel);
      const emailOk = isAbsent(email) ? !(channel === 'BOTH' || channel === 'EMAIL') : ACCEPTS.email(email);
      const mobileOk = isAbsent(mobile) ? !(channel === 'BOTH' || channel === 'SMS') : ACCEPTS.mobile(mobile);
      const described = JSON.stringify({ method, email, mobile });
      if (methodOk && emailOk && mobileOk) expect(result.ok ? [] : result.violations, described).toEqual([]);
      else {
        expect(result.ok, described).toBe(false);
        if (!result.ok) expect(result.violations.every((violation) => violation.field.startsWith('notify.')), described).toBe(true);
      }
    }, runs);
  });

  it(`reports any other payMethod alone: a string is unsupported (02003), anything else a type error (02001) (${runs} cases)`, async () => {
    const method = fc.oneof(
      hostileString.filter((text) => text.trim() !== '' && !['Pos', 'BankAccount', 'ReferenceCode'].includes(text)),
      fc.constantFrom('pos', 'POS', ' Pos', 'Pos ', 'Bankaccount', 'referenceCode', '__proto__', 'constructor', 'toString'),
      fc.oneof(numberish.filter((value) => typeof value === 'number'), fc.boolean(), fc.constantFrom([], ['Pos'], { Pos: true })),
    );
    const createRequest = fc.oneof(...SHAPES.filter((shape) => shape.create).map((shape) => shape.valid));
    const arbitrary = fc.tuple(createRequest, method);
    await cases.check('unknown payMethods', arbitrary, ([request, payMethod]) => {
      const result = validateCreateRequest({ ...request, payMethod }, { now });
      expect(result.ok).toBe(false);
      if (result.ok) return;
      const rule = typeof payMethod === 'string' ? 'unsupported' : 'type';
      expect(result.violations).toEqual([{ field: 'payMethod', rule, message: expect.stringContaining('payMethod') }]);
      expect(envelopeForViolations(result.violations).code).toBe(typeof payMethod === 'string' ? '02003' : '02001');
    }, runs);
  });
});

/** A ReferenceCode request notified by SMS and email, so that changing one contact decides the outcome alone. */
function withBothChannels(request: Record<string, unknown>): Record<string, unknown> {
  const notify = { ...(request['notify'] as object), notifyMethod: 'BOTH', notifyUserEmail: 'mona@example.com', notifyUserMobile: '+201001234567' };
  return { ...request, notify };
}

function fieldValue(input: Record<string, unknown>, field: string): unknown {
  return field.split('.').reduce<unknown>((value, segment) => (isPlainObject(value) ? value[segment] : undefined), input);
}

/** README: digits, sent zero-padded; together a real calendar date, from 1900, before today (UTC). */
function isRealPastDate(day: unknown, month: unknown, year: unknown): boolean {
  const digits = (value: unknown, most: number, exact: boolean) => {
    const text = typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : typeof value === 'string' ? value.trim() : undefined;
    if (text === undefined || !/^\d+$/.test(text) || text.length > most || (exact && text.length !== most)) return undefined;
    return Number(text);
  };
  const d = digits(day, 2, false);
  const m = digits(month, 2, false);
  const y = digits(year, 4, true);
  if (d === undefined || m === undefined || y === undefined) return false;
  if (m < 1 || m > 12 || d < 1 || y < 1900) return false;
  const date = new Date(Date.UTC(y, m - 1, d));
  if (date.getUTCDate() !== d || date.getUTCMonth() !== m - 1) return false;
  return date.getTime() < Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
}
