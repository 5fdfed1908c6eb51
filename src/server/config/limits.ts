/** The kit's `limits` option (docs/limits.md), resolved: the defaults of the limits table with the shop's changes. */
import { DEFAULT_LIMITS, isOpenLimit, LIMIT_TABLE, type Limit, type LimitName, type ThrottleLimits } from '../limits/table.js';
import { optionError } from './errors.js';

export function resolveLimits(given: Partial<ThrottleLimits> | undefined): ThrottleLimits {
  if (given !== undefined && (typeof given !== 'object' || given === null)) throw optionError('limits', 'an object of limits by name', given);
  for (const name of Object.keys(given ?? {})) {
    if (!Object.hasOwn(LIMIT_TABLE, name)) throw optionError(`limits.${name}`, `one of the limits: ${Object.keys(LIMIT_TABLE).join(', ')}`, name);
  }
  const limits = { ...DEFAULT_LIMITS, ...given } as ThrottleLimits;
  for (const name of Object.keys(LIMIT_TABLE) as LimitName[]) {
    const limit = limits[name];
    if (limit === false) continue;
    const open = isOpenLimit(name);
    const shaped = typeof limit === 'object' && limit !== null && Number.isInteger(limit.limit) && limit.limit >= 1;
    const windowSeconds = shaped ? (limit as Partial<Limit>).windowSeconds : undefined;
    const valid = shaped && (open ? windowSeconds === undefined : typeof windowSeconds === 'number' && Number.isFinite(windowSeconds) && windowSeconds > 0);
    if (!valid) {
      const shape = open ? '{ limit: whole number ≥ 1 } (open at once)' : '{ limit: whole number ≥ 1, windowSeconds: > 0 }';
      throw optionError(`limits.${name}`, `false or ${shape}`, limit);
    }
  }
  return Object.freeze(limits);
}
