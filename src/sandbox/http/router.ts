/**
 * What every request to the sandbox goes through before the routes of its job answer it: its URL, the guard
 * (everything but the signed service API answers this machine's pages only), CORS, its body within the limit,
 * and one log line per answer. The routes of each job take it as an `Exchange` and say whether it was theirs;
 * a request no route takes is 404.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { operationAt, type ServiceOperation } from '../../core/index.js';
import { readBody } from './body.js';
import type { DevelopmentGuard } from './guard.js';
import { sendJson } from './json-answer.js';
import { printable } from './printable.js';

export interface Exchange {
  readonly request: IncomingMessage;
  readonly response: ServerResponse;
  readonly method: string;
  readonly url: URL;
  /** The service's operation at this path, when it is one of the service's. */
  readonly operation: ServiceOperation | undefined;
  /** The path, fit for a log line. */
  readonly path: string;
  /** The body's bytes; none for GET and HEAD. */
  readonly raw: Uint8Array;
  /** CORS for this machine's pages (none for any other origin). */
  readonly cors: Record<string, string>;
  /** When the request came, for the log line (Date.now()). */
  readonly started: number;
  log(line: string): void;
  /** Answers JSON, and logs it. */
  finish(status: number, body: unknown, headers?: Record<string, string>): void;
}

/** Serves the exchange and returns true, or returns false: not this route's. */
export type Route = (exchange: Exchange) => boolean | Promise<boolean>;

export interface RouterOptions {
  /** The service's clock (the sandbox's, moved or not): its answers are dated by it. */
  clock: { now(): number };
  guard: DevelopmentGuard;
  publicUrl: string;
  maxBodyBytes: number;
  log: (line: string) => void;
  /** Asked in turn. */
  routes: readonly Route[];
}

export function createRouter(options: RouterOptions): (request: IncomingMessage, response: ServerResponse) => Promise<void> {
  const { clock, guard, publicUrl, maxBodyBytes, log, routes } = options;
  return async (request, response) => {
    const started = Date.now();
    const method = request.method ?? 'GET';
    const target = request.url ?? '/';
    const url = URL.canParse(target, 'http://sandbox.invalid') ? new URL(target, 'http://sandbox.invalid') : undefined;
    if (!url) {
      // An absolute-form request target that is not a URL (`http://[/x`) names no path of ours.
      log(`${method} (not a URL) 404`);
      sendJson(response, 404, { message: 'the request target is not a URL' });
      return;
    }
    const operation = operationAt(url.pathname);
    const path = printable(url.pathname);
    const finish = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      const code = (body as { code?: unknown } | null)?.code;
      log(`${method} ${path} ${status}${typeof code === 'string' ? ` ${printable(code)}` : ''} ${Date.now() - started}ms`);
      // The service's answers are dated by its own clock (a moved sandbox clock included), as an HTTP server
      // dates its answers: the merchant kit reads the service's time from them (README, "Deadlines").
      sendJson(response, status, body, operation ? { ...headers, Date: new Date(clock.now()).toUTCString() } : headers);
    };

    // The service's API is signed; everything else (control API, pages) is for this machine's own pages only.
    if (!operation) {
      const refusal = guard.check(request, method, publicUrl);
      if (refusal) return finish(refusal.status, { message: refusal.message });
    }
    const cors = guard.corsHeaders(request, publicUrl);
    if (method === 'OPTIONS' && url.pathname.startsWith('/sandbox/')) {
      response.writeHead(204, cors).end();
      return;
    }
    const raw = method === 'GET' || method === 'HEAD' ? new Uint8Array() : await readBody(request, maxBodyBytes);
    if (raw === 'too-large') {
      finish(413, { message: `the body is larger than ${maxBodyBytes} bytes` }, { Connection: 'close' });
      return;
    }

    const exchange: Exchange = { request, response, method, url, operation, path, raw, cors, started, log, finish };
    for (const route of routes) if (await route(exchange)) return;
    finish(404, { message: `no such path: ${url.pathname}` });
  };
}
