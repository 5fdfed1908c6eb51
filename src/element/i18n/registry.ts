/**
 * The catalogs every `<svc-checkout>` can speak, shared by all instances on the page. English and Arabic ship:
 * English with the element (the words of its steps with the session, a form's with the form), Arabic in its own
 * chunk, fetched when an element speaks it. A merchant adds a locale or overrides terms with `registerTranslation`,
 * and one element's terms with its `strings` property.
 */
import { lazy } from '../lazy.js';
import en from './en.js';
import type { PartialTranslation, ShippedTerms, Translation } from './translation.js';

// English's words of the first frame; its words of the steps come with the session (addShippedTerms).
const catalogs = new Map<string, PartialTranslation>([['en', en]]);
/** Catalogs that ship in a chunk of their own, by language: each is registered once fetched. */
const SHIPPED: Readonly<Record<string, () => Promise<void>>> = {
  ar: lazy(() => import('./ar.js').then((module) => addShippedTerms('ar', module.default))),
};
const shipped = new Set<string>();
/** Shipped catalogs whose chunk could not be fetched: the page speaks English until it is reloaded. */
const failed = new Set<string>();
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

/** Whether some catalog speaks this locale or its language (loaded or not). */
export function hasTranslation(locale: string): boolean {
  const code = locale.toLowerCase();
  const language = code.split('-')[0] ?? code;
  return catalogs.has(code) || catalogs.has(language) || Object.hasOwn(SHIPPED, language);
}

/**
 * The shipped catalog of a locale's language still to load: a promise that settles once it is registered (the
 * terms of a merchant registered before it stay on top), to undefined, or to the reason its chunk could not be
 * fetched (never a rejection); undefined when there is nothing to wait for.
 */
export function translationLoading(locale: string): Promise<unknown> | undefined {
  const language = locale.toLowerCase().split('-')[0] ?? '';
  const load = Object.hasOwn(SHIPPED, language) ? SHIPPED[language] : undefined;
  if (!load || shipped.has(language) || failed.has(language)) return undefined;
  // Asked again at every update, a failure tried again would hold the element's paint for ever.
  return load().catch((reason: unknown) => {
    failed.add(language);
    return reason;
  });
}

/**
 * A shipped catalog, or shipped terms of one (English's words of the steps come with the session's chunk), under
 * the terms already there: the first frame's and those a merchant registered before it came.
 */
export function addShippedTerms(language: string, catalog: ShippedTerms): void {
  shipped.add(language);
  const own = catalogs.get(language);
  catalogs.set(language, merge({ $code: language, ...catalog }, own ?? {}));
  for (const listener of listeners) listener();
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
