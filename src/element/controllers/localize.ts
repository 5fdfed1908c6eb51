/**
 * Which language an element speaks, and its terms. The locale comes from the element's `locale` attribute,
 * else the nearest `lang` above it (across shadow roots), else the document's, else English. Each element
 * has its own: a widget embedded in someone else's app must not change the page's language, or follow a
 * global one set for another widget.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { ARABIC_LATIN_DIGITS, formatMinorUnits } from '../../core/index.js';
import { FALLBACK_LOCALE, onTranslationsChanged, resolveTranslation, translationLoading } from '../i18n/registry.js';
import type { PartialTranslation, Translation } from '../i18n/translation.js';

export interface LocalizedHost extends ReactiveControllerHost, HTMLElement {
  /** The `locale` attribute. */
  locale?: string | undefined;
  /** This element's own overrides of terms. */
  strings?: Omit<PartialTranslation, '$code'> | undefined;
}

const hosts = new Set<LocalizeController>();
let observer: MutationObserver | undefined;

/** One observer for the whole document: any `lang` change may concern any element. */
function observeLangChanges(): void {
  if (observer || typeof MutationObserver === 'undefined') return;
  observer = new MutationObserver(() => {
    for (const controller of hosts) controller.refresh();
  });
  observer.observe(document.documentElement, { attributes: true, attributeFilter: ['lang'], subtree: true });
}

export class LocalizeController implements ReactiveController {
  #cache?: { locale: string; strings: LocalizedHost['strings']; translation: Translation };
  #unsubscribe?: () => void;
  #lastLocale = '';

  constructor(private readonly host: LocalizedHost) {
    host.addController(this);
  }

  hostConnected(): void {
    hosts.add(this);
    observeLangChanges();
    this.#unsubscribe = onTranslationsChanged(() => {
      this.#cache = undefined;
      this.host.requestUpdate();
    });
    this.#lastLocale = this.locale;
  }

  hostDisconnected(): void {
    hosts.delete(this);
    this.#unsubscribe?.();
    if (hosts.size === 0) {
      observer?.disconnect();
      observer = undefined;
    }
  }

  /** Called when some `lang` in the document changed. */
  refresh(): void {
    const locale = this.locale;
    if (locale !== this.#lastLocale) {
      this.#lastLocale = locale;
      this.host.requestUpdate();
    }
  }

  /** The locale asked for, before any fallback. */
  get locale(): string {
    const own = this.host.locale?.trim();
    if (own) return own;
    let node: Node | null = this.host;
    while (node) {
      if (node instanceof Element) {
        const lang = node.closest('[lang]')?.getAttribute('lang')?.trim();
        if (lang) return lang;
      }
      const root: Node = node.getRootNode();
      node = root instanceof ShadowRoot ? root.host : null;
    }
    return document.documentElement.lang?.trim() || FALLBACK_LOCALE;
  }

  /** While the catalog of this element's language is being fetched (Arabic ships in a chunk of its own). */
  get loading(): Promise<unknown> | undefined {
    return translationLoading(this.locale);
  }

  /** The terms, with fallback and the element's overrides (re-read when `strings` is set anew). */
  get term(): Translation {
    const locale = this.locale;
    const strings = this.host.strings;
    if (this.#cache?.locale !== locale || this.#cache.strings !== strings) {
      this.#cache = { locale, strings, translation: resolveTranslation(locale, strings) };
    }
    return this.#cache.translation;
  }

  get dir(): 'ltr' | 'rtl' {
    return this.term.$dir;
  }

  /**
   * The locale numbers and dates are written in: the one asked for when its language is the catalog's
   * (ar-EG formats as Egypt does), else the catalog's, so that digits match the words around them. A tag that is
   * not well formed falls back to the catalog's. Whether the browser knows the region is left to Intl, which falls
   * back within the language itself: `supportedLocalesOf` would say the same, at the cost of 20–30 ms in a fresh
   * page (it loads every locale ICU has), paid before the first frame. Arabic without a region is asked for in
   * Latin digits by name (README, Languages): every engine then writes what CLDR 48 writes.
   */
  get formatLocale(): string {
    const locale = this.#formatLocale();
    return locale === 'ar' ? ARABIC_LATIN_DIGITS : locale;
  }

  #formatLocale(): string {
    const asked = this.locale;
    const catalog = this.term.$code;
    const sameLanguage = asked.toLowerCase().split('-')[0] === catalog.toLowerCase().split('-')[0];
    if (!sameLanguage) return catalog;
    try {
      return Intl.getCanonicalLocales(asked)[0] ?? catalog;
    } catch {
      return catalog;
    }
  }

  money(total: number, currency: string): string {
    return formatMinorUnits(total, currency, this.formatLocale);
  }
}
