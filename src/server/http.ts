/**
 * The HTTP side of the merchant kit's handler: bodies read within a limit, envelope and problem answers, and
 * what may be written to a log (never a key or a signature; a value from a request only escaped and cut).
 */
import { parseJson, type Envelope } from '../core/index.js';
import { decodeUtf8 } from './signature.js';

export const JSON_TYPE = /^(?:application\/(?:[\w.+-]+\+)?json|text\/json)\s*(?:;|$)/i;

const COMMON_HEADERS = {
  'Content-Type': 'application/json; charset=utf-8',
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
};

/** A business outcome: always HTTP 200 with the envelope (DESIGN.md §3). */
export function envelope(body: Envelope, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status: 200, headers: { ...COMMON_HEADERS, ...headers } });
}

/** A transport problem: a status other than 200, and a JSON body that says what went wrong. */
export function problem(status: number, message: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ message, ...extra }), { status, headers: { ...COMMON_HEADERS, ...headers } });
}

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
  const body = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}

/** The body as JSON, or a 415 answer. */
export async function withJson(body: Uint8Array, next: (value: unknown) => Promise<Response>): Promise<Response> {
  const text = decodeUtf8(body);
  const parsed = text === undefined ? undefined : parseJson(text);
  if (!parsed?.ok) return problem(415, 'the body is not JSON');
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
