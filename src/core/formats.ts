/**
 * The value formats the field tables (rules.ts) are made of. Making one has no effect (`@__NO_SIDE_EFFECTS__`), so
 * that a bundle that uses a few rows of a table carries those rows' formats only (the isolated frame). Each format checks one value and returns it
 * normalised (trimmed, numbers from digit strings where the specification allows them), or the rule it broke.
 * Messages name the field and say what is expected; the element shows its own localised text per rule.
 */

export type Checked = { ok: true; value: unknown } | { ok: false; rule: string; message: string };

/** A format: checks a present value of the field named `field`. */
export type Format = (value: unknown, field: string) => Checked;

const ok = (value: unknown): Checked => ({ ok: true, value });
const broken = (rule: string, message: string): Checked => ({ ok: false, rule, message });

export interface TextOptions {
  max: number;
  min?: number;
  pattern?: RegExp;
  /** Completes "<field> must be …" when the pattern fails. */
  expected?: string;
  /** Characters removed before checking (e.g. spaces in a phone number). */
  strip?: RegExp;
  /**
   * Whether control characters, line breaks and bidirectional overrides are refused. Default true: every
   * text field of a request is one line that may end up in an SMS, an email, a log or a bank's page, where a
   * hidden line break or a right-to-left override changes what the reader sees. Only text the service signs
   * and sends us (callbacks) is taken as it is.
   */
  singleLine?: boolean;
}

/**
 * C0 and C1 controls, DEL, the line and paragraph separators, and the bidirectional embeddings, overrides and
 * isolates (U+202A–U+202E, U+2066–U+2069). The bidi marks (U+200E, U+200F, U+061C) stay: Arabic text uses them.
 */
const UNSAFE_IN_A_LINE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

export function hasUnsafeCharacters(value: string): boolean {
  return UNSAFE_IN_A_LINE.test(value);
}

/** A string, trimmed, of `min`..`max` characters, optionally matching a pattern. */
/* @__NO_SIDE_EFFECTS__ */ export function text(options: TextOptions): Format {
  const min = options.min ?? 1;
  return (value, field) => {
    if (typeof value !== 'string') return broken('type', `${field} must be a string`);
    let normalized = value.trim();
    if (options.singleLine !== false && UNSAFE_IN_A_LINE.test(normalized)) {
      return broken('characters', `${field} must not contain control characters, line breaks or bidirectional overrides`);
    }
    if (options.strip) normalized = normalized.replace(options.strip, '');
    if (normalized.length < min) {
      return min <= 1
        ? broken('required', `${field} is required`)
        : broken('minLength', `${field} must be at least ${min} characters`);
    }
    if (normalized.length > options.max) return broken('maxLength', `${field} must be at most ${options.max} characters`);
    if (options.pattern && !options.pattern.test(normalized)) {
      return broken('format', `${field} must be ${options.expected ?? `in the format ${options.pattern.source}`}`);
    }
    return ok(normalized);
  };
}

/** One of a closed list of strings, compared exactly (case matters). */
/* @__NO_SIDE_EFFECTS__ */ export function oneOf(values: readonly string[], rule = 'enum'): Format {
  return (value, field) => {
    if (typeof value === 'string' && values.includes(value)) return ok(value);
    return broken(rule, `${field} must be one of ${values.join(', ')}`);
  };
}

export interface IntegerOptions {
  min: number;
  max: number;
  /** Accept a string of ASCII digits and turn it into a number (see README: ReferenceCode amounts). */
  acceptDigitString?: boolean;
  /** Completes "<field> must be …". */
  expected: string;
}

/** A whole number in a range; a digit string too when the specification's tables and samples disagree. */
/* @__NO_SIDE_EFFECTS__ */ export function integer(options: IntegerOptions): Format {
  return (value, field) => {
    let candidate = value;
    if (options.acceptDigitString && typeof value === 'string') {
      const trimmed = value.trim();
      if (!/^\d{1,16}$/.test(trimmed)) return broken('integer', `${field} must be ${options.expected}`);
      candidate = Number(trimmed);
    }
    if (typeof candidate !== 'number' || !Number.isFinite(candidate)) {
      return broken('type', `${field} must be ${options.expected}`);
    }
    if (!Number.isSafeInteger(candidate)) return broken('integer', `${field} must be ${options.expected}`);
    if (candidate < options.min) return broken(options.min === 1 ? 'positive' : 'min', `${field} must be ${options.expected}`);
    if (candidate > options.max) return broken('max', `${field} must be ${options.expected}`);
    return ok(candidate);
  };
}

/** An absolute http: or https: URL. */
/* @__NO_SIDE_EFFECTS__ */ export function httpUrl(max = 2048): Format {
  return (value, field) => {
    if (typeof value !== 'string') return broken('type', `${field} must be a string`);
    const trimmed = value.trim();
    if (trimmed.length === 0) return broken('required', `${field} is required`);
    if (trimmed.length > max) return broken('maxLength', `${field} must be at most ${max} characters`);
    // new URL() silently drops tabs and line breaks; a URL that needs them dropped is not taken as given.
    if (/[\u0000-\u0020\u007f]/.test(trimmed) || !isHttpUrl(trimmed)) {
      return broken('url', `${field} must be an absolute http or https URL`);
    }
    return ok(trimmed);
  };
}

export function isHttpUrl(value: string): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname.length > 0;
}

/** A day, month or year of a date: 1..`digits` ASCII digits, returned zero-padded to `digits`. */
/* @__NO_SIDE_EFFECTS__ */ export function datePart(digits: 2 | 4, name: string): Format {
  const pattern = new RegExp(`^\\d{1,${digits}}$`);
  return (value, field) => {
    const candidate = typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : value;
    if (typeof candidate !== 'string') return broken('type', `${field} must be a string of digits`);
    const trimmed = candidate.trim();
    if (trimmed.length === 0) return broken('required', `${field} is required`);
    if (!pattern.test(trimmed) || (digits === 4 && trimmed.length !== 4)) {
      return broken('format', `${field} must be the ${name} as ${digits === 4 ? 'four' : 'one or two'} digits`);
    }
    return ok(trimmed.padStart(digits, '0'));
  };
}

/** A JSON object (not an array, not null). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A map of string keys to string values (the callback's `extras`). */
/* @__NO_SIDE_EFFECTS__ */ export function stringMap(): Format {
  return (value, field) => {
    if (!isPlainObject(value)) return broken('type', `${field} must be an object of strings`);
    for (const [key, entry] of Object.entries(value)) {
      if (typeof entry !== 'string') return broken('type', `${field}.${key} must be a string`);
    }
    return ok({ ...value });
  };
}
