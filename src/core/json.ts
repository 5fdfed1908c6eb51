/**
 * JSON as this package writes and reads it. Requests are serialised once, with keys in sorted order and no
 * whitespace, and those exact bytes are signed and sent. Bodies are read without the keys that could reach an
 * object's prototype.
 */

/** Keys dropped while parsing: an own `__proto__` becomes the prototype when such an object is copied. */
const UNSAFE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * JSON text with object keys sorted (by UTF-16 code units) at every depth and no whitespace. Written by hand
 * rather than through `JSON.stringify` on a sorted copy, because engines enumerate integer-like keys ("2",
 * "10") before all others whatever order they were added in. Members that JSON.stringify leaves out
 * (`undefined`, functions, symbols) are left out here too; a non-finite number or a bigint is an error rather
 * than a silent `null`.
 */
export function canonicalJson(value: unknown): string {
  const text = serialize(value);
  if (text === undefined) throw new TypeError('canonicalJson: the value has no JSON form');
  return text;
}

function serialize(value: unknown): string | undefined {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError('canonicalJson: numbers must be finite');
      return JSON.stringify(value);
    case 'bigint':
      throw new TypeError('canonicalJson: bigint has no JSON form');
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined;
  }
  if (value === null) return 'null';
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return serialize((value as { toJSON: () => unknown }).toJSON());
  if (Array.isArray(value)) return `[${value.map((item) => serialize(item) ?? 'null').join(',')}]`;
  const object = value as Record<string, unknown>;
  const keys = Object.keys(object);
  if (keys.length > 1) keys.sort();
  let text = '{';
  for (const key of keys) {
    const member = serialize(object[key]);
    if (member === undefined) continue;
    text += `${text.length > 1 ? ',' : ''}${quotedKey(key)}:${member}`;
  }
  return `${text}}`;
}

/** Keys as JSON strings; the few a payment body has are quoted once. */
const QUOTED_KEYS = new Map<string, string>();
function quotedKey(key: string): string {
  let quoted = QUOTED_KEYS.get(key);
  if (quoted === undefined) {
    quoted = JSON.stringify(key);
    if (QUOTED_KEYS.size < 512) QUOTED_KEYS.set(key, quoted);
  }
  return quoted;
}

export type ParsedJson = { ok: true; value: unknown } | { ok: false; message: string };

/**
 * Parses JSON text, dropping `__proto__`, `constructor` and `prototype` members at every depth. The members are
 * removed after parsing, with a list rather than a reviver: JSON.parse takes any depth, but a reviver is called
 * recursively and overflows the stack a few thousand levels down, which would call valid JSON "not JSON".
 */
export function parseJson(text: string): ParsedJson {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : 'not JSON' };
  }
  // Only a text that spells one of the keys, or escapes a character (`\u005f_proto__`), can hold one: most
  // bodies and answers do neither, and skip the walk.
  if (MAY_HOLD_UNSAFE_KEY.test(text)) dropUnsafeKeys(value);
  return { ok: true, value };
}

const MAY_HOLD_UNSAFE_KEY = /proto|constructor|\\u/;

function dropUnsafeKeys(root: unknown): void {
  const pending: unknown[] = [root];
  while (pending.length > 0) {
    const current = pending.pop();
    if (typeof current !== 'object' || current === null) continue;
    if (Array.isArray(current)) {
      for (const item of current) pending.push(item);
      continue;
    }
    const object = current as Record<string, unknown>;
    // JSON.parse made these own data properties; deleting them touches no prototype.
    for (const key of Object.keys(object)) {
      if (UNSAFE_KEYS.has(key)) delete object[key];
      else pending.push(object[key]);
    }
  }
}
