/**
 * The running page, as the checkout reads it: apart from the rest of the environment (environment.ts), because the
 * element's first frame reads the page's storage and address, and nothing else of it.
 */
/** A `Storage` (sessionStorage) or anything with its three methods. */
export interface KeyValueStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

/** The few browser objects the defaults use, described structurally (no DOM types in this folder). */
export interface PageGlobals {
  fetch?: typeof fetch;
  document?: { visibilityState?: string; addEventListener(type: string, listener: () => void): void; removeEventListener(type: string, listener: () => void): void };
  addEventListener?(type: string, listener: () => void): void;
  removeEventListener?(type: string, listener: () => void): void;
  sessionStorage?: KeyValueStorage;
  location?: { href: string; assign(url: string): void };
  open?(url: string, target: string): { opener: unknown; location: { replace(url: string): void } } | null;
  BroadcastChannel?: new (name: string) => { onmessage: ((event: { data: unknown }) => void) | null; close(): void };
}

export const page = globalThis as unknown as PageGlobals;

/** The page's sessionStorage, where there is one. */
export function pageStorage(): KeyValueStorage | undefined {
  try {
    return page.sessionStorage;
  } catch {
    return undefined; // storage disabled (a sandboxed frame)
  }
}

/** The page's address (a page-less runtime: localhost). */
export function pageUrl(): string {
  return page.location?.href ?? 'http://localhost/';
}
