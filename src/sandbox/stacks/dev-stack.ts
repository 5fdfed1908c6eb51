/**
 * A whole payment backend for a development server: a sandbox, and the merchant kit's handler in front of
 * it, as one Connect-style middleware. The kit is mounted at `basePath` (where `<svc-checkout endpoint>`
 * points), and the sandbox's pages and control API are passed through under `/sandbox/`, so that a page on
 * the dev server reaches all of it on its own origin. The demo's Vite plugin and the browser tests use it;
 * so can a merchant's own dev server. Kit and sandbox are wired by `startStack` (stack.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CallbackEvent, CheckoutOrder, IssueCheckoutTokenOptions, MerchantHandler, MerchantHandlerOptions } from '../../server/index.js';
import type { Sandbox, SandboxOptions } from '../server.js';
import { startStack, type Stack } from './stack.js';

export type Middleware = (request: IncomingMessage, response: ServerResponse, next: (error?: unknown) => void) => void;

export interface DevStackOptions {
  /** The origin (and any path prefix) the dev server serves this middleware at, e.g. http://localhost:5173. */
  publicUrl: string;
  /** Where the merchant kit is mounted. Default `/api/checkout`. */
  basePath?: string;
  sandbox?: Omit<SandboxOptions, 'publicUrl'>;
  /** Options of the kit's handler; the merchant, key and environment come from the sandbox. */
  handler?: Partial<MerchantHandlerOptions>;
}

export interface DevStack {
  sandbox: Sandbox;
  basePath: string;
  middleware: Middleware;
  /** Every verified callback the kit received, oldest first. */
  callbacks: CallbackEvent[];
  /** Called with each verified callback as it arrives. */
  onCallback(listener: (event: CallbackEvent) => void): () => void;
  /** A checkout token for an order, as the shop's server would render it into its page. */
  checkoutToken(order: CheckoutOrder, options?: IssueCheckoutTokenOptions): Promise<string>;
  /** A cart's checkout as the shop's page renders it (the kit's `openCheckout`). */
  openCheckout: MerchantHandler['openCheckout'];
  /** A payment link, at the dev server's address, listed on the sandbox's dashboard (stack.ts). */
  paymentLink: Stack['paymentLink'];
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'host', 'content-length']);

export async function startDevStack(options: DevStackOptions): Promise<DevStack> {
  const publicUrl = options.publicUrl.replace(/\/+$/, '');
  const stack = await startStack({
    sandbox: { ...options.sandbox, publicUrl },
    basePath: options.basePath ?? '/api/checkout',
    publicUrl,
    ...(options.handler ? { handler: options.handler } : {}),
  });
  const { sandbox, basePath, listener: kit } = stack;

  const middleware: Middleware = (request, response, next) => {
    const path = (request.url ?? '/').split('?')[0] ?? '/';
    if (path === basePath || path.startsWith(`${basePath}/`)) {
      kit(request, response, next);
      return;
    }
    if (path.startsWith('/sandbox/')) {
      void proxy(sandbox.url, request, response).catch(next);
      return;
    }
    next();
  };

  return {
    sandbox,
    basePath,
    middleware,
    callbacks: stack.callbacks,
    onCallback: stack.onCallback,
    checkoutToken: stack.checkoutToken,
    openCheckout: stack.handler.openCheckout,
    paymentLink: stack.paymentLink,
    close: () => stack.close(),
  };
}

/**
 * Passes one request to the sandbox and its answer back as it comes, redirects included (the 3-D Secure page's
 * 303), and the event stream too: it is never over until one side hangs up.
 */
async function proxy(target: string, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (typeof value === 'string' && !HOP_BY_HOP.has(name)) headers[name] = value;
  }
  const method = request.method ?? 'GET';
  const hangUp = new AbortController();
  response.once('close', () => hangUp.abort());
  let answer: Response;
  try {
    answer = await fetch(`${target}${request.url ?? '/'}`, {
      method,
      headers,
      body: method === 'GET' || method === 'HEAD' ? undefined : Buffer.concat(chunks),
      redirect: 'manual',
      signal: hangUp.signal,
    });
  } catch (error) {
    if (hangUp.signal.aborted) return;
    throw error;
  }
  const outgoing: Record<string, string> = {};
  answer.headers.forEach((value, name) => {
    if (!HOP_BY_HOP.has(name) && name !== 'content-encoding') outgoing[name] = value;
  });
  response.writeHead(answer.status, outgoing);
  if (answer.headers.get('content-type')?.startsWith('text/event-stream')) response.flushHeaders();
  try {
    for await (const chunk of answer.body ?? []) {
      if (response.destroyed) break;
      if (!response.write(chunk)) await new Promise((resolve) => response.once('drain', resolve).once('close', resolve));
    }
    response.end();
  } catch {
    // The browser went away (the stream is aborted) or the sandbox did: nothing more to pass on.
    response.destroy();
  }
}
