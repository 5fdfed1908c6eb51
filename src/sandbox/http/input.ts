/**
 * Reading the bodies of the control API's newer calls: every field checked by a format of src/core, every
 * problem a violation naming its field, and fields the call does not know refused (a misspelt `afterMinute`
 * must not pass for "no delay").
 */
import type { Format, Violation } from '../../core/index.js';

export function unknownFields(body: Record<string, unknown>, known: readonly string[]): Violation[] {
  return Object.keys(body)
    .filter((key) => !known.includes(key))
    .map((key) => ({ field: key, rule: 'unknown', message: `${key} is not a field of this call; its fields are ${known.join(', ')}` }));
}

/** Reads optional fields of `body`, collecting each problem into `violations`. */
export function fieldReader(body: Record<string, unknown>, violations: Violation[]) {
  return <T>(name: string, format: Format): T | undefined => {
    const value = body[name];
    if (value === undefined || value === null) return undefined;
    const checked = format(value, name);
    if (checked.ok) return checked.value as T;
    violations.push({ field: name, rule: checked.rule, message: checked.message });
    return undefined;
  };
}

/** A format accepting one of `values`; `none` is the message when no value applies. */
export function choice(values: readonly string[], none = 'does not apply here'): Format {
  return (value, field) =>
    typeof value === 'string' && values.includes(value)
      ? { ok: true, value }
      : { ok: false, rule: 'enum', message: values.length === 0 ? `${field} ${none}` : `${field} must be one of ${values.join(', ')}` };
}

/** Minutes from 0 to ten years. */
export const minutesFormat: Format = (value, field) =>
  typeof value === 'number' && Number.isFinite(value) && value >= 0 && value <= 5_256_000
    ? { ok: true, value }
    : { ok: false, rule: 'range', message: `${field} must be a number of minutes from 0 to 5256000 (ten years)` };
