/**
 * How the service client's bytes reach the service: one POST of a signed body, answered with a status and text.
 * On Node, a keep-alive node:http(s) pool (no Web Request, Response, streams or signals per call); anywhere else,
 * or when the merchant passes their own `fetch`, fetch. Both fail the same ways (`TransportFailure`), and both
 * give up with the caller's own abort reason when the caller's signal aborts.
 */
import { byteLength, nodeHttp, nodeHttps, type NodeIncoming } from '../runtime/modules.js';

/**
 * What the client reads of a caller's signal: an `AbortSignal` is one. The Node adapter passes a lighter one for
 * the payer's request (src/server/runtime/node-fast-path.ts): an AbortSignal costs more to make and to listen to than a status query's own
 * work. Where a Web API needs a real one (fetch), `webSignal` makes it.
 */
export interface AbortSignalLike {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/**
 * An abort signal with the members of an AbortSignal that the kit's own code uses, and `abort()`: for the payer's
 * request (src/server/runtime/node-fast-path.ts) and a status query several requests share (src/server/payments/status-queries.ts). Making an AbortController and
 * listening to it costs about as much as a status query's own work.
 */
export class LightAbort implements AbortSignalLike {
  aborted = false;
  reason: unknown = undefined;
  #listeners: (() => void)[] | undefined;

  addEventListener(type: 'abort', listener: () => void): void {
    if (type === 'abort' && !this.aborted) (this.#listeners ??= []).push(listener);
  }

  removeEventListener(type: 'abort', listener: () => void): void {
    const index = type === 'abort' && this.#listeners ? this.#listeners.indexOf(listener) : -1;
    if (index >= 0) this.#listeners!.splice(index, 1);
  }

  abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    // What AbortController.abort() gives as the reason.
    this.reason = new DOMException('This operation was aborted', 'AbortError');
    const listeners = this.#listeners ?? [];
    this.#listeners = undefined;
    for (const listener of listeners) listener();
  }
}

/** A real AbortSignal that follows `signal`. */
export function webSignal(signal: AbortSignalLike): AbortSignal {
  if (signal instanceof AbortSignal) return signal;
  const controller = new AbortController();
  if (signal.aborted) controller.abort(signal.reason);
  else signal.addEventListener('abort', () => controller.abort(signal.reason), { once: true });
  return controller.signal;
}

export interface Exchange {
  (call: { path: string; headers: Record<string, string>; body: string; timeoutMs: number; signal?: AbortSignalLike | undefined }): Promise<{
    status: number;
    text: string;
    /** The answer's `Date` header: the service's clock, to a second. */
    date?: string | undefined;
  }>;
}

/**
 * A call that produced no answer (`timeout`, `network`), or an answer that was cut off (`status` set). The
 * client turns it into a `ServiceError`; `cause` is the runtime's own error, for its code (ECONNREFUSED…).
 */
export class TransportFailure extends Error {
  override readonly name = 'TransportFailure';
  constructor(
    readonly kind: 'timeout' | 'network',
    cause: unknown,
    readonly status?: number,
  ) {
    super(kind, { cause });
  }
}

/** Aborts when either does: AbortSignal.any, or the same by hand where the runtime lacks it (Vercel's Edge Runtime). */
function eitherSignal(first: AbortSignal, second: AbortSignal): AbortSignal {
  if (typeof AbortSignal.any === 'function') return AbortSignal.any([first, second]);
  const either = new AbortController();
  for (const signal of [first, second]) {
    if (signal.aborted) either.abort(signal.reason);
    else signal.addEventListener('abort', () => either.abort(signal.reason), { once: true });
  }
  return either.signal;
}

export function fetchExchange(baseUrl: string, fetchImpl: typeof fetch): Exchange {
  return async ({ path, headers, body, timeoutMs, signal: given }) => {
    const callerSignal = given && webSignal(given);
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = callerSignal ? eitherSignal(callerSignal, timeout) : timeout;
    let response: Response;
    try {
      // 'manual', not 'error', which workerd refuses outright: a redirect is refused below, as the Node pool does.
      response = await fetchImpl(`${baseUrl}${path}`, { method: 'POST', headers, body, signal, redirect: 'manual' });
    } catch (error) {
      if (timeout.aborted) throw new TransportFailure('timeout', error);
      if (callerSignal?.aborted) throw error;
      throw new TransportFailure('network', error);
    }
    if (response.type === 'opaqueredirect' || REDIRECT.test(String(response.status))) {
      void response.body?.cancel().catch(() => undefined);
      throw new TransportFailure('network', new Error('the service answered with a redirect'));
    }
    try {
      return { status: response.status, text: await response.text(), date: response.headers.get('date') ?? undefined };
    } catch (error) {
      throw new TransportFailure(timeout.aborted ? 'timeout' : 'network', error, response.status);
    }
  };
}

/** Idle connections are closed after this long: before Node's own server closes them (5 s), as undici does. */
const IDLE_MS = 4_000;
/** On a connection: how long it may stay idle (from the server's hint), and whether TCP keep-alive is on. */
const IDLE = Symbol('svc-checkout.idleMs');
const KEPT = Symbol('svc-checkout.keptAlive');

/** A second less than the server's `Keep-Alive: timeout=<seconds>`, at most IDLE_MS; 0: do not keep it. */
function idleFor(hint: string | string[]): number {
  const seconds = Number(/(?:^|[,;\s])timeout=(\d+)/i.exec(String(hint))?.[1]);
  return Number.isFinite(seconds) ? Math.min(IDLE_MS, seconds * 1_000 - 1_000) : IDLE_MS;
}

const REDIRECT = /^3\d\d$/;

/**
 * The Node pool, or undefined where node:http(s) is missing. One keep-alive agent per client: the same few
 * connections carry every call, most recently used first, so that spare ones close when the load falls.
 */
export function nodeExchange(baseUrl: string): Exchange | undefined {
  const base = new URL(baseUrl);
  const http = base.protocol === 'https:' ? nodeHttps : nodeHttp;
  if (!http) return undefined;
  const agent = new http.Agent({ keepAlive: true, scheduling: 'lifo' });
  // What Node's agent does with a connection a call is done with, less what it need not repeat for every call:
  // TCP keep-alive is set once per connection, and so is the idle timeout (a second before the server's own
  // Keep-Alive hint, else IDLE_MS). The agent's `timeout` option would also set and clear a timer on every call.
  agent.keepSocketAlive = (socket) => {
    const idle = (socket[IDLE] as number | undefined) ?? IDLE_MS;
    if (idle <= 0) return false;
    if (!socket[KEPT]) {
      socket.setKeepAlive(true, 1_000);
      socket[KEPT] = true;
    }
    socket.unref();
    if (socket.timeout !== idle) socket.setTimeout(idle);
    return true;
  };
  const hostname = base.hostname.replace(/^\[|\]$/g, '');
  const port = base.port || undefined;
  const prefix = base.pathname.replace(/\/+$/, '');

  return ({ path, headers, body, timeoutMs, signal }) =>
    new Promise((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      let settled = false;
      let timedOut = false;
      let status: number | undefined;
      const settle = (outcome: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        outcome();
      };
      const fail = (error: unknown) =>
        settle(() => {
          if (signal?.aborted && !timedOut) reject(signal.reason);
          else reject(new TransportFailure(timedOut ? 'timeout' : 'network', error, status));
        });
      const outgoing = http.request(
        { protocol: base.protocol, hostname, port, path: `${prefix}${path}`, method: 'POST', agent, headers: { ...headers, 'Content-Length': byteLength(body) } },
        (incoming: NodeIncoming) => {
          status = incoming.statusCode ?? 0;
          const hint = incoming.headers['keep-alive'];
          if (hint !== undefined && incoming.socket) incoming.socket[IDLE] = idleFor(hint);
          const chunks: Uint8Array[] = [];
          incoming.on('data', (chunk) => chunks.push(chunk));
          incoming.on('error', fail);
          incoming.on('close', () => {
            if (!incoming.complete) fail(new Error('the connection closed before the answer ended'));
          });
          incoming.on('end', () =>
            settle(() => {
              // fetch follows no redirect here (redirect: 'manual', refused), and neither does this.
              if (REDIRECT.test(String(status))) reject(new TransportFailure('network', new Error('the service answered with a redirect')));
              else resolve({ status: status ?? 0, text: textOf(chunks), date: String(incoming.headers['date'] ?? '') || undefined });
            }),
          );
        },
      );
      outgoing.on('error', fail);
      const timer = setTimeout(() => {
        timedOut = true;
        outgoing.destroy(new Error(`no answer within ${timeoutMs} ms`));
      }, timeoutMs);
      // The caller (the payer's request) went away: stop waiting for the service.
      const onAbort = () => outgoing.destroy(new Error('the caller went away'));
      signal?.addEventListener('abort', onAbort, { once: true });
      outgoing.end(body);
    });
}

/** As `Response.text()` reads a body: UTF-8, a leading BOM dropped, anything malformed replaced. */
const decoder = new TextDecoder();

function textOf(chunks: Uint8Array[]): string {
  if (chunks.length === 1) return decoder.decode(chunks[0]);
  const body = new Uint8Array(chunks.reduce((size, chunk) => size + chunk.byteLength, 0));
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return decoder.decode(body);
}
