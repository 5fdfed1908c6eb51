/**
 * One validator for every rule table. It returns every violation at once, and on success a new object that
 * holds only the table's fields, normalised (trimmed, digit strings turned into numbers where the table
 * allows them, defaults filled in). Fields outside the table never reach the output, so nothing the caller
 * did not expect (`__proto__`, `constructor`, …) travels further.
 */
import { isPlainObject } from './formats.js';
import { CREATE_RULES, type FieldRule, type RuleTable } from './rules.js';
import { isPayMethod, PAY_METHODS } from './pay-methods.js';
import type { CreatePaymentRequest, Violation } from './types.js';

export interface ValidateOptions {
  /** The moment "in the past" is measured against; default now. */
  now?: Date;
}

export interface CreateValidateOptions extends ValidateOptions {
  /**
   * Wire fields checked elsewhere (the isolated frame checks the payer's bank details with their own rows): their
   * rows, and the rules over several fields that name one of them, are left out.
   */
  without?: readonly string[];
}

export type Validation<T> = { ok: true; value: T; violations: [] } | { ok: false; violations: Violation[] };

export function validate<T = Record<string, unknown>>(
  table: RuleTable,
  input: unknown,
  options: ValidateOptions = {},
): Validation<T> {
  if (!isPlainObject(input)) {
    return { ok: false, violations: [{ field: 'body', rule: 'type', message: 'the request body must be a JSON object' }] };
  }
  const output: Record<string, unknown> = {};
  const violations: Violation[] = [];
  const brokenParents = new Set<string>();

  const check = (field: string, rule: FieldRule, required: boolean, requiredMessage: string) => {
    const located = locate(input, field);
    if (located.brokenParent) {
      if (!brokenParents.has(located.brokenParent)) {
        brokenParents.add(located.brokenParent);
        violations.push({ field: located.brokenParent, rule: 'type', message: `${located.brokenParent} must be an object` });
      }
      return;
    }
    if (isAbsent(located.value)) {
      if (rule.default !== undefined) writePath(output, field, rule.default);
      else if (required) violations.push({ field, rule: 'required', message: requiredMessage });
      return;
    }
    const result = rule.format(located.value, field);
    if (result.ok) writePath(output, field, result.value);
    else violations.push({ field, rule: result.rule, message: result.message });
  };

  const entries = Object.entries(table.fields);
  // Unconditional rows first, so that a condition reads the normalised (or default) value it depends on.
  for (const [field, rule] of entries) {
    if (typeof rule.required === 'boolean') check(field, rule, rule.required, `${field} is required`);
  }
  for (const [field, rule] of entries) {
    if (typeof rule.required === 'boolean') continue;
    const condition = rule.required;
    const current = readPath(output, condition.when) ?? locate(input, condition.when).value;
    const required = typeof current === 'string' && condition.in.includes(current);
    check(field, rule, required, `${field} is required when ${condition.when} is ${condition.in.join(' or ')}`);
  }
  for (const group of table.groups ?? []) {
    const violation = group.check((field) => readPath(output, field), options.now ?? new Date());
    if (violation) violations.push(violation);
  }
  if (violations.length > 0) return { ok: false, violations };
  return { ok: true, value: output as T, violations: [] };
}

/**
 * Validates a create request against the table of its `payMethod`. An unsupported method is reported alone,
 * with rule `unsupported`, since no table applies to it (`envelopeForViolations` turns it into `02003`).
 */
export function validateCreateRequest(input: unknown, options: CreateValidateOptions = {}): Validation<CreatePaymentRequest> {
  if (!isPlainObject(input)) return validate(CREATE_RULES.Pos, input, options) as Validation<CreatePaymentRequest>;
  const method = input['payMethod'];
  if (isAbsent(method)) {
    return { ok: false, violations: [{ field: 'payMethod', rule: 'required', message: 'payMethod is required' }] };
  }
  if (!isPayMethod(method)) {
    const message = `payMethod must be one of ${PAY_METHODS.join(', ')}`;
    const rule = typeof method === 'string' ? 'unsupported' : 'type';
    return { ok: false, violations: [{ field: 'payMethod', rule, message }] };
  }
  const table = CREATE_RULES[method];
  return validate<CreatePaymentRequest>(options.without?.length ? withoutFields(table, options.without) : table, input, options);
}

/** A table without some of its fields, and without the rules over several fields that name one of them. */
export function withoutFields(table: RuleTable, fields: readonly string[]): RuleTable {
  return {
    fields: Object.fromEntries(Object.entries(table.fields).filter(([field]) => !fields.includes(field))),
    groups: (table.groups ?? []).filter((group) => !group.fields.some((field) => fields.includes(field))),
  };
}

/** Absent, null, and blank strings all count as "not given". */
function isAbsent(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
}

/** A dotted path's segments, split once per path (the tables' paths are few). */
const SEGMENTS = new Map<string, readonly string[]>();
function segmentsOf(path: string): readonly string[] {
  let segments = SEGMENTS.get(path);
  if (!segments) {
    segments = path.split('.');
    if (SEGMENTS.size < 1_024) SEGMENTS.set(path, segments);
  }
  return segments;
}

/** Reads a dotted path through own properties only; reports the first segment that is not an object. */
function locate(input: Record<string, unknown>, path: string): { value?: unknown; brokenParent?: string } {
  if (!path.includes('.')) return { value: Object.hasOwn(input, path) ? input[path] : undefined };
  const segments = segmentsOf(path);
  let current: unknown = input;
  for (let index = 0; index < segments.length; index++) {
    const segment = segments[index] as string;
    if (index > 0 && !isPlainObject(current)) {
      if (current === undefined || current === null) return {};
      return { brokenParent: segments.slice(0, index).join('.') };
    }
    const container = current as Record<string, unknown>;
    current = Object.hasOwn(container, segment) ? container[segment] : undefined;
  }
  return { value: current };
}

/** A dotted path's value (`notify.notifyUserName`), through own properties only. */
export function readPath(output: Record<string, unknown>, path: string): unknown {
  return locate(output, path).value;
}

/** Sets a dotted path's value, making (or replacing with) an object at each segment before the last. */
export function writePath(output: Record<string, unknown>, path: string, value: unknown): void {
  if (!path.includes('.')) {
    output[path] = value;
    return;
  }
  const segments = segmentsOf(path);
  let container = output;
  for (let index = 0; index < segments.length - 1; index++) {
    const segment = segments[index] as string;
    const next = container[segment];
    if (isPlainObject(next)) container = next;
    else {
      const created: Record<string, unknown> = {};
      container[segment] = created;
      container = created;
    }
  }
  container[segments[segments.length - 1] as string] = value;
}
