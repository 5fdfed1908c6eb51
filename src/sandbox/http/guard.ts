/**
 * What keeps a sandbox on a developer's machine from being driven by the web pages that developer visits. The
 * control API and the 3-D Secure pages answer only requests addressed to this machine by name (`Host`), so a
 * page whose DNS name was rebound to 127.0.0.1 gets nothing; changes need `Content-Type: application/json`,
 * which no cross-site form or `text/plain` post can send without the browser asking first, and an `Origin` of
 * this machine; the 3-D Secure decision carries a token only the page the sandbox served knows.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { isLoopbackHost } from '../../core/addresses.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const JSON_TYPE = /^application\/json\s*(?:;|$)/i;

export interface Refusal {
  status: number;
  message: string;
}

export class DevelopmentGuard {
  /** New at every start: a form token is good for this sandbox process only. */
  readonly #secret = randomBytes(32);

  /** Refuses a request to the control API or a page that does not come from this machine's own pages. */
  check(request: IncomingMessage, method: string, publicUrl: string): Refusal | undefined {
    const host = hostOf(request.headers.host);
    if (!host || !this.#isOwnHost(host, publicUrl)) {
      return { status: 403, message: 'the sandbox answers only requests addressed to this machine (Host), or to its --public-url' };
    }
    if (SAFE_METHODS.has(method)) return undefined;
    const origin = request.headers.origin;
    if (origin !== undefined && !this.#isOwnOrigin(origin, publicUrl)) {
      return { status: 403, message: 'the sandbox takes changes only from pages on this machine (Origin)' };
    }
    const path = (request.url ?? '').split('?')[0] ?? '';
    if (path.startsWith('/sandbox/v1/') && !JSON_TYPE.test(request.headers['content-type'] ?? '')) {
      return { status: 415, message: 'control calls must be sent as Content-Type: application/json' };
    }
    return undefined;
  }

  /** CORS for this machine's pages only; any other origin gets no CORS headers, so its scripts read nothing. */
  corsHeaders(request: IncomingMessage, publicUrl: string): Record<string, string> {
    const origin = request.headers.origin;
    if (!origin || !this.#isOwnOrigin(origin, publicUrl)) return { Vary: 'Origin' };
    return {
      'Access-Control-Allow-Origin': origin,
      'Access-Control-Allow-Methods': 'GET, POST, DELETE, OPTIONS',
      'Access-Control-Allow-Headers': 'Content-Type',
      Vary: 'Origin',
    };
  }

  formToken(orderNo: string): string {
    return createHmac('sha256', this.#secret).update(`3ds:${orderNo}`).digest('hex');
  }

  checkFormToken(orderNo: string, given: string | null): boolean {
    const expected = Buffer.from(this.formToken(orderNo));
    const actual = Buffer.from(given ?? '');
    return actual.length === expected.length && timingSafeEqual(actual, expected);
  }

  #isOwnHost(host: string, publicUrl: string): boolean {
    return isLoopbackHost(host) || host === hostOf(safeUrl(publicUrl)?.host);
  }

  #isOwnOrigin(origin: string, publicUrl: string): boolean {
    const url = safeUrl(origin);
    if (!url || url.origin !== origin) return false;
    return isLoopbackHost(url.hostname) || url.origin === safeUrl(publicUrl)?.origin;
  }
}

/** The host name of a `Host` header (without its port), lowercased. */
function hostOf(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const url = safeUrl(`http://${header}`);
  return url && url.host.toLowerCase() === header.toLowerCase() ? url.hostname.toLowerCase() : undefined;
}

function safeUrl(text: string | undefined): URL | undefined {
  if (!text) return undefined;
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

/**
 * Who may frame the 3-D Secure page and the dashboard: this machine's pages (the tests and the demo do), and
 * nobody else. Browsers take no IPv6 address in a source expression, so `[::1]` pages cannot be named here.
 */
export function framingSources(publicUrl: string): string {
  const own = safeUrl(publicUrl)?.origin;
  return ["'self'", 'http://localhost:*', 'http://127.0.0.1:*', ...(own && !own.includes('[') ? [own] : [])].join(' ');
}
