/**
 * The catalogs every `<svc-checkout>` can speak, shared by all instances on the page. English and Arabic
 * ship; a merchant adds a locale or overrides terms with `registerTranslation`, and one element's terms with
 * its `strings` property.
 */
import ar from './ar.js';
import en from './en.js';
import type { PartialTranslation, Translation } from './translation.js';

const catalogs = new Map<string, PartialTranslation>([
  ['en', en],
  ['ar', ar],
]);
const listeners = new Set<() => void>();

export const FALLBACK_LOCALE = 'en';

/** Adds locales, or terms to existing ones; elements on the page update. */
export function registerTranslation(...translations: PartialTranslation[]): void {
  for (const translation of translations) {
    const code = translation.$code.toLowerCase();
    catalogs.set(code, merge(catalogs.get(code) ?? { $code: code }, translation));
  }
  for (const listener of listeners) listener();
}

export function onTranslationsChanged(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/**
 * The whole catalog for a locale: `xx-YY`, then `xx`, then English fill in what each lacks, and the element's
 * own overrides go on top.
 */
export function resolveTranslation(locale: string, overrides?: Omit<PartialTranslation, '$code'>): Translation {
  const code = locale.toLowerCase();
  const language = code.split('-')[0] ?? code;
  const chain = [catalogs.get(FALLBACK_LOCALE), catalogs.get(language), catalogs.get(code)].filter(
    (entry): entry is PartialTranslation => entry !== undefined,
  );
  let result = chain.reduce<PartialTranslation>((merged, next) => merge(merged, next), { $code: FALLBACK_LOCALE });
  if (overrides) result = merge(result, { ...overrides, $code: result.$code });
  return result as Translation;
}

/** Whether some catalog speaks this locale or its language. */
export function hasTranslation(locale: string): boolean {
  const code = locale.toLowerCase();
  return catalogs.has(code) || catalogs.has(code.split('-')[0] ?? code);
}

function merge<T extends object>(base: T, next: object): T {
  const result: Record<string, unknown> = { ...(base as Record<string, unknown>) };
  for (const [key, value] of Object.entries(next)) {
    if (value === undefined || key === '__proto__' || key === 'constructor') continue;
    const current = result[key];
    const nested = typeof value === 'object' && value !== null && !Array.isArray(value);
    result[key] = nested && typeof current === 'object' && current !== null ? merge(current as object, value) : value;
  }
  return result as T;
}
