/**
 * The HTTP side of the merchant kit's handler: bodies read within a limit, envelope and problem answers, and
 * what may be written to a log (never a key or a signature; a value from a request only escaped and cut).
 */
import { parseJson, type Envelope } from '../../core/index.js';
import { decodeUtf8 } from '../runtime/signature.js';
import type { AbortSignalLike } from '../service/transport.js';

export const JSON_TYPE = /^(?:application\/(?:[\w.+-]+\+)?json|text\/json)\s*(?:;|$)/i;

const COMMON_HEADERS = {
  'Content-Type': 'application/json; charset=utf-8',
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
};

/**
 * An answer before it is a Web `Response`: the Web handler wraps it in one, the Node adapter writes it as it is
 * (building a Response per request costs more than the rest of a status query).
 */
export interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Any JSON answer of the kit's, never cached nor sniffed. */
export function jsonAnswer(status: number, body: unknown, headers: Record<string, string> = {}): Answer {
  return { status, headers: { ...COMMON_HEADERS, ...headers }, body: JSON.stringify(body) };
}

/** A business outcome: always HTTP 200 with the envelope (DESIGN.md §3). */
export function envelopeAnswer(body: Envelope, headers: Record<string, string> = {}): Answer {
  return jsonAnswer(200, body, headers);
}

/** A transport problem: a status other than 200, and a JSON body that says what went wrong. */
export function problemAnswer(status: number, message: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}): Answer {
  return jsonAnswer(status, { message, ...extra }, headers);
}

export function toResponse(answer: Answer): Response {
  return new Response(answer.body, { status: answer.status, headers: answer.headers });
}

/** `envelopeAnswer` as a Web Response. */
export function envelope(body: Envelope, headers: Record<string, string> = {}): Response {
  return toResponse(envelopeAnswer(body, headers));
}

/** `problemAnswer` as a Web Response. */
export function problem(status: number, message: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}): Response {
  return toResponse(problemAnswer(status, message, extra, headers));
}

/**
 * What the element's routes read of a request: its URL, its headers and the signal that aborts when the client
 * goes away. A Web `Request` is one. The Node adapter passes a view of Node's own request instead, with a light
 * signal, which makes a Web `Request` only when a merchant's hook asks for one (`webRequestOf`).
 */
export interface KitRequest {
  readonly url: string;
  readonly headers: { get(name: string): string | null };
  readonly signal: AbortSignalLike;
}

/** The method by which a request view makes the Web `Request` the merchant's hooks receive. */
export const AS_WEB_REQUEST = Symbol('svc-checkout.asWebRequest');

/** The Web `Request` for a merchant's hook (`authorize`, `authorizeAction`, `clientAddress`). */
export function webRequestOf(request: KitRequest): Request {
  const view = request as KitRequest & { [AS_WEB_REQUEST]?: () => Request };
  return view[AS_WEB_REQUEST]?.() ?? (request as Request);
}

/**
 * What `createMerchantHandler` hands `toNodeListener` besides the Web handler: the element's calls, which take
 * a request view and the body's bytes and give an `Answer`, so that the hot path under Node builds no Web
 * Request, Response or stream. Everything else (callbacks, the return page, 404, 405) goes the Web way.
 */
export interface NodeFastPath {
  maxBodyBytes: number;
  /** The element's call at this path, or undefined. Never rejects: a failure is logged and answered 500. */
  route(pathname: string): ((request: KitRequest, body: Uint8Array) => Promise<Answer>) | undefined;
  /** The same, for a request target that is exactly a call's path (no URL to parse); else undefined. */
  exact(target: string): ((request: KitRequest, body: Uint8Array) => Promise<Answer>) | undefined;
  /** Logs what went wrong before a call could run (the body could not be read), as the Web handler does: 500. */
  failed(error: unknown): Answer;
  /** The answer to a method fetch cannot carry (TRACE) at this path: its route's 405 and `Allow`, or 404. */
  refuse(pathname: string): Response;
}

export const NODE_FAST_PATH = Symbol('svc-checkout.nodeFastPath');

/** Reads at most `limit` bytes; stops reading as soon as the body proves larger. */
export async function readBody(request: Request, limit: number): Promise<Uint8Array | 'too-large'> {
  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  if (declared > limit) return 'too-large';
  if (!request.body) return new Uint8Array();
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      return 'too-large';
    }
    chunks.push(value);
  }
  return concatBytes(chunks, size);
}

/** Chunks of a body read, `size` bytes in all, as one array (the Web handler's reader and the Node fast path's). */
export function concatBytes(chunks: readonly Uint8Array[], size: number): Uint8Array {
  const body = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}

/** The body as JSON, or a 415 answer. (Not async itself: `next` is, and a hot path need not wait twice.) */
export function withJson(body: Uint8Array, next: (value: unknown) => Promise<Answer>): Promise<Answer> {
  const text = decodeUtf8(body);
  const parsed = text === undefined ? undefined : parseJson(text);
  if (!parsed?.ok) return Promise.resolve(problemAnswer(415, 'the body is not JSON'));
  return next(parsed.value);
}

export type Logger = Pick<Console, 'warn' | 'error'>;

/** `text` without the private key, nor anything shaped like a signature. */
export function redactor(privateKey: string): (text: string) => string {
  return (text) => text.split(privateKey).join('[redacted]').replace(/[0-9a-f]{128}/gi, '[redacted]');
}

/** A logger that never prints the private key, nor anything shaped like a signature. */
export function redacting(logger: Logger, clean: (text: string) => string): Logger {
  return {
    warn: (line: string) => logger.warn(clean(line)),
    error: (line: string) => logger.error(clean(line)),
  };
}

const LOGGED_VALUE_LENGTH = 80;

/**
 * A value that came from a request, fit for one log line: every character outside printable ASCII escaped
 * (`\n`, `\u202e`, …), so that nobody can start a fake log line or turn one around, and cut to 80 characters.
 * Quoted, so that where it starts and ends is plain.
 */
export function logValue(value: unknown): string {
  const text = typeof value === 'string' ? value : value === undefined ? 'undefined' : JSON.stringify(value) ?? String(value);
  return `"${printable(text).replace(/"/g, '\\"')}"`;
}

/** Printable ASCII only (anything else as `\uXXXX`), at most 80 characters: for a log line, unquoted. */
export function printable(text: string, max = LOGGED_VALUE_LENGTH): string {
  const cut = text.length > max ? `${text.slice(0, max)}...(${text.length} chars)` : text;
  return cut.replace(/[^\x20-\x7e]|\\/g, (char) => (char === '\\' ? '\\\\' : `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`));
}

/** The browser gave up on the request (its signal aborted the call to the service). */
export function isAbort(error: unknown): boolean {
  return error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError');
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : 'unknown error';
}
