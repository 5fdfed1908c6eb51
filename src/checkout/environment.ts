/**
 * What a checkout session needs from where it runs, injected so that the payment life runs — and is tested —
 * anywhere: the clock and timers, the network, the page's visibility and connectivity, storage that survives a
 * reload, and leaving for the bank. `defaultEnvironment()` finds each in the running page when it is there.
 */
import { RETURN_CHANNEL, RETURN_MESSAGE } from '../core/return-channel.js';
import { page, pageStorage, pageUrl, type KeyValueStorage, type PageGlobals } from './page.js';
import type { Timers } from '../core/schedule.js';

export type { KeyValueStorage } from './page.js';

export type { Timers } from '../core/schedule.js';

export interface CheckoutEnvironment {
  fetch: typeof fetch;
  /** Epoch milliseconds. */
  now(): number;
  timers: Timers;
  /** Whether the page is hidden (polling pauses); `subscribe` calls back on every change. */
  visibility: { hidden(): boolean; subscribe(listener: () => void): () => void };
  /** Calls back when the device is back online (a check is made at once). */
  online: { subscribe(listener: () => void): () => void };
  /** Where the checkout is kept across reloads and the 3-D Secure round trip; none: it is not resumed. */
  storage: KeyValueStorage | undefined;
  /** The page's address: the storage key's default scope and the default 3-D Secure return address. */
  pageUrl(): string;
  /** Leaves this page for the bank's (a same-window 3-D Secure). */
  navigate(url: string): void;
  /** Opens the bank's page in a new window cut off from this one; false when the browser blocked it. */
  openWindow(url: string): boolean;
  /** Calls back when the bank's window is done with (the kit's return page says so); optional. */
  onReturn?(listener: () => void): () => void;
  /** A few random characters, for a reference of the page's own when the shop gave none. */
  random(): string;
  /** Where the checkout's configuration errors are written for the page's developer (the console by default). */
  log(message: string): void;
}

/** The running page's parts, where they exist; a part that is missing works as a page always in view. */
export function defaultEnvironment(overrides: Partial<CheckoutEnvironment> = {}): CheckoutEnvironment {
  return {
    fetch: (input, init) => (page.fetch as typeof fetch)(input, init),
    now: () => Date.now(),
    timers: { setTimeout: (callback, ms) => setTimeout(callback, ms), clearTimeout: (handle) => clearTimeout(handle as Parameters<typeof clearTimeout>[0]) },
    visibility: {
      hidden: () => page.document?.visibilityState === 'hidden',
      subscribe(listener) {
        page.document?.addEventListener('visibilitychange', listener);
        return () => page.document?.removeEventListener('visibilitychange', listener);
      },
    },
    online: {
      subscribe(listener) {
        page.addEventListener?.('online', listener);
        return () => page.removeEventListener?.('online', listener);
      },
    },
    storage: pageStorage(),
    pageUrl,
    navigate: (url) => page.location?.assign(url),
    openWindow: (url) => openDetached(url),
    onReturn: page.BroadcastChannel ? (listener) => listenForReturn(listener) : undefined,
    random: () => Array.from(crypto.getRandomValues(new Uint32Array(2)), (n) => n.toString(36)).join(''),
    log: (message) => console.error(message),
    ...overrides,
  };
}

/**
 * Opens `url` in a new window that has no way back to this tab (reverse tabnabbing: the bank's page, or anything
 * it redirects to, could otherwise send the shop's tab to a look-alike). The window is opened empty first: a
 * `noopener` open always returns null, and the payer must still be told when the browser blocked the pop-up.
 */
function openDetached(url: string): boolean {
  const popup = page.open?.('', '_blank');
  if (!popup) return false;
  popup.opener = null;
  popup.location.replace(url);
  return true;
}

/** The kit's return page posts to this channel when the bank's window is done with. */
function listenForReturn(listener: () => void): () => void {
  const channel = new (page.BroadcastChannel as NonNullable<PageGlobals['BroadcastChannel']>)(RETURN_CHANNEL);
  channel.onmessage = (event) => {
    if ((event.data as { type?: unknown } | null)?.type === RETURN_MESSAGE) listener();
  };
  return () => channel.close();
}
