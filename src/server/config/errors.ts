/**
 * The one error of a kit's option that cannot work, thrown where the kit (or its Redis adapter, or a service client)
 * is made, never at the first payment. Every message names the option, says what it must be, and what was given —
 * but never a secret's value.
 */
export class ServiceConfigError extends Error {
  override readonly name = 'ServiceConfigError';
}

/** A value as a message shows it: short, one line, and nothing of a secret. */
export function shown(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (typeof value === 'string') return value.length > 60 ? `"${value.slice(0, 57)}…"` : JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (typeof value === 'function') return 'a function';
  if (Array.isArray(value)) return 'a list';
  return `a ${typeof value}`;
}

/**
 * `<option> must be <expected>, not <given>` (or `, and none was given`); `secret`: what was given is not shown. A
 * `why` follows after a colon: what the option guards, or what to do instead.
 */
export function optionError(option: string, expected: string, given: unknown, how: { secret?: boolean; why?: string } = {}): ServiceConfigError {
  const got = given === undefined ? ', and none was given' : how.secret ? '' : `, not ${shown(given)}`;
  return new ServiceConfigError(`${option} must be ${expected}${got}${how.why ? `: ${how.why}` : ''}`);
}

/**
 * Runs a resolution in which a value given in the wrong place may be the private key (a key passed as `callbackUrl`):
 * its errors never show it.
 */
export function withoutSecrets<T>(privateKey: string, resolve: () => T): T {
  try {
    return resolve();
  } catch (error) {
    if (!(error instanceof ServiceConfigError) || !privateKey || !error.message.includes(privateKey)) throw error;
    throw new ServiceConfigError(error.message.split(privateKey).join('[private key]'));
  }
}
