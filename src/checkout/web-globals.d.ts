/**
 * The web-platform globals `src/checkout` relies on: `fetch` and its types, abort signals, timers, random
 * values, and the console (where a checkout that is not set up correctly is said to its developer). Browsers,
 * Node and edge runtimes all have them; the session's own type check (src/checkout/tsconfig.json) has no DOM or
 * Node types, so they are declared here, narrowly. What a page may lack (storage, visibility, windows) is reached
 * through `CheckoutEnvironment`, never assumed.
 */
interface AbortSignal {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}
declare var AbortSignal: {
  prototype: AbortSignal;
  timeout(milliseconds: number): AbortSignal;
  any(signals: AbortSignal[]): AbortSignal;
};
declare class AbortController {
  readonly signal: AbortSignal;
  abort(reason?: unknown): void;
}

interface Headers {
  get(name: string): string | null;
}
interface ReadableStreamReadResult<T> {
  done: boolean;
  value?: T;
}
interface ReadableStreamDefaultReader<T> {
  read(): Promise<ReadableStreamReadResult<T>>;
  cancel(reason?: unknown): Promise<void>;
  releaseLock(): void;
}
interface ReadableStream<T> {
  getReader(): ReadableStreamDefaultReader<T>;
}
interface Response {
  readonly status: number;
  readonly ok: boolean;
  readonly headers: Headers;
  readonly body: ReadableStream<Uint8Array> | null;
  json(): Promise<unknown>;
  text(): Promise<string>;
}
type RequestCredentials = 'include' | 'omit' | 'same-origin';
interface RequestInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  credentials?: RequestCredentials;
  signal?: AbortSignal;
  cache?: 'no-store' | 'default';
}
declare function fetch(input: string, init?: RequestInit): Promise<Response>;

declare function setTimeout(handler: () => void, timeout?: number): unknown;
declare function clearTimeout(handle: unknown): void;
declare function queueMicrotask(callback: () => void): void;
declare var crypto: { getRandomValues<T extends Uint32Array | Uint8Array>(array: T): T };

declare var console: { error(...data: unknown[]): void };
