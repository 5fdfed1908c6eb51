/**
 * The demo's backend inside Vite's dev server: a sandbox and the merchant kit (the dev stack), the shop's
 * orders (`POST /demo/orders`), faults held for the next create (`/demo/faults`), and a live feed of the
 * callbacks the kit verified (and of those it rejected), for the demo page's log.
 */
import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Plugin, ViteDevServer } from 'vite';
import { jsonAnswer } from '../src/server/http/http.js';
import { readNodeBody, writeAnswer } from '../src/server/runtime/node-fast-path.js';
import { DEFAULT_MERCHANT, startDevStack, type DevStack } from '../src/sandbox/index.js';
import { NextCreateFaults } from './next-create-faults.js';
import {
  DEMO_CART,
  DEMO_FAULTS_PATH,
  DEMO_LINKS_PATH,
  DEMO_DEFAULT_EXPIRE_AT,
  DEMO_MERCHANT_NAME,
  DEMO_ORDER_COOKIE,
  DEMO_ORDERS_PATH,
  newDemoReference,
  readOrderRequest,
  type DemoLink,
  type DemoOrder,
} from './orders.js';

export interface DemoBackendOptions {
  /** Where the merchant kit is mounted; the demo's element points its `endpoint` here. */
  basePath?: string;
}

export const CALLBACK_FEED_PATH = '/demo/callbacks';

interface FeedEntry {
  at: string;
  verified: boolean;
  reason?: string;
  notifyId?: string;
  body?: unknown;
}

/** The most a demo call's body may hold: a fault or an order's wishes are a few dozen bytes. */
const MAX_BODY_BYTES = 16 * 1024;

async function jsonBody(request: IncomingMessage): Promise<unknown> {
  const body = await readNodeBody(request, MAX_BODY_BYTES);
  if (body === 'too-large') return undefined;
  try {
    return JSON.parse(new TextDecoder().decode(body) || '{}');
  } catch {
    return undefined;
  }
}

function isJson(request: IncomingMessage): boolean {
  return (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() === 'application/json';
}

function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  writeAnswer(response, jsonAnswer(status, body, headers));
}

function cookieOf(request: IncomingMessage, name: string): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const [key, value] = part.trim().split('=');
    if (key === name && value) return value;
  }
  return undefined;
}

export function demoBackend(options: DemoBackendOptions = {}): Plugin {
  return {
    name: 'svc-checkout-demo-backend',
    configureServer(server: ViteDevServer) {
      const feed: FeedEntry[] = [];
      const listeners = new Set<ServerResponse>();
      const publish = (entry: FeedEntry) => {
        feed.push(entry);
        for (const response of listeners) response.write(`data: ${JSON.stringify(entry)}\n\n`);
      };

      const nextCreateFaults = new NextCreateFaults();
      const stack = new Promise<DevStack>((resolve, reject) => {
        server.httpServer?.once('listening', () => {
          const address = server.httpServer?.address() as AddressInfo;
          const publicUrl = server.resolvedUrls?.local[0] ?? `http://localhost:${address.port}/`;
          startDevStack({
            publicUrl,
            ...(options.basePath ? { basePath: options.basePath } : {}),
            sandbox: {
              // The shop's own name on the sandbox's pages (3-D Secure), with the sandbox's test credentials.
              merchants: [{ ...DEFAULT_MERCHANT, name: DEMO_MERCHANT_NAME }],
              log: (line) => server.config.logger.info(`[sandbox] ${line}`, { timestamp: true }),
            },
            handler: {
              fetch: nextCreateFaults.fetch,
              // The CDN build's files, the isolated fields' page among them (the kit here runs from src/, which has
              // none): `npm ci` builds dist/, and `npm run build` again after a change to src/isolated-fields.
              elementFiles: new URL('../dist/cdn/', import.meta.url),
              // The kit logs rejected callbacks here; the demo shows them next to the verified ones.
              logger: {
                warn: (line: string) => {
                  const rejected = /callback rejected: (.+)$/.exec(line);
                  if (rejected) publish({ at: new Date().toISOString(), verified: false, reason: rejected[1] ?? '' });
                  server.config.logger.warn(line, { timestamp: true });
                },
                error: (line: string) => server.config.logger.error(line, { timestamp: true }),
              },
            },
          }).then((started) => {
            nextCreateFaults.attach(started.sandbox.url);
            started.onCallback((event) =>
              publish({ at: new Date().toISOString(), verified: true, notifyId: event.notifyId, body: event.body }),
            );
            server.config.logger.info(
              `  svc-checkout: sandbox at ${started.sandbox.url}, merchant kit at ${publicUrl.replace(/\/$/, '')}${started.basePath}`,
            );
            resolve(started);
          }, reject);
        });
      });
      server.httpServer?.once('close', () => {
        void stack.then((started) => started.close());
      });

      // The shop's own orders: references it made, each with its expiry and the token it renders into its page.
      // Asked for another expiry, the shop starts a new order: an order the service already has keeps its own.
      const orders = new Map<string, number>();
      const orderFor = async (wanted: { reference?: string; expireAt?: number }, request: IncomingMessage): Promise<DemoOrder> => {
        const known = wanted.reference !== undefined && wanted.expireAt === undefined && orders.has(wanted.reference);
        const reference = known ? wanted.reference! : newDemoReference();
        const expireAt = (known ? orders.get(reference) : wanted.expireAt) ?? DEMO_DEFAULT_EXPIRE_AT;
        orders.set(reference, expireAt);
        // The cart's checkout where it stands (docs/one-payment.md): its payment in progress found, never a second.
        // A status query of the page's client, as every shop's.
        const { token: checkoutToken } = await (await stack).openCheckout({ ...DEMO_CART, reference, expireAt }, { request });
        return { reference, checkoutToken, expireAt };
      };
      const cookie = (order: DemoOrder) => `${DEMO_ORDER_COOKIE}=${order.reference}; Path=/; SameSite=Lax; HttpOnly`;

      server.middlewares.use((request, response, next) => {
        const path = request.url?.split('?')[0];
        if ((path === '/' || path === '/index.html') && request.method === 'GET') {
          // The page as a shop's server renders it: with the checkout token of this visitor's order.
          void (async () => {
            const reference = cookieOf(request, DEMO_ORDER_COOKIE);
            const order = await orderFor(reference ? { reference } : {}, request);
            const source = await readFile(new URL('../index.html', import.meta.url), 'utf8');
            const rendered = source
              .replace('checkout-token=""', `checkout-token="${order.checkoutToken}"`)
              .replace('<code id="reference"></code>', `<code id="reference">${order.reference}</code>`);
            const html = await server.transformIndexHtml(request.url ?? '/', rendered);
            response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store', 'Set-Cookie': cookie(order) });
            response.end(html);
          })().catch(next);
          return;
        }
        // Changes come as JSON only, so that no other site's form can post them (as the sandbox guards itself).
        if ((path === DEMO_ORDERS_PATH || path === DEMO_FAULTS_PATH || path === DEMO_LINKS_PATH) && request.method === 'POST' && !isJson(request)) {
          sendJson(response, 415, { error: 'send Content-Type: application/json' });
          return;
        }
        if (path === DEMO_ORDERS_PATH && request.method === 'POST') {
          void (async () => {
            const wanted = readOrderRequest(await jsonBody(request));
            if ('error' in wanted) return sendJson(response, 400, wanted);
            const order = await orderFor(wanted, request);
            sendJson(response, 200, order, { 'Set-Cookie': cookie(order) });
          })().catch(next);
          return;
        }
        if (path === DEMO_LINKS_PATH && request.method === 'POST') {
          // A chat seller's link for a new cart: the kit makes it, the sandbox's dashboard lists it.
          void (async () => {
            const started = await stack;
            const reference = newDemoReference();
            const made = await started.paymentLink({ ...DEMO_CART, reference });
            const link: DemoLink = { url: made.url, qr: `${started.basePath}/pay/${made.link}/qr.svg`, reference };
            sendJson(response, 200, link);
          })().catch(next);
          return;
        }
        if (path === DEMO_FAULTS_PATH) {
          void (async () => {
            if (request.method === 'POST') {
              const held = nextCreateFaults.hold(await jsonBody(request));
              if ('error' in held) return sendJson(response, 400, held);
            } else if (request.method === 'DELETE') {
              nextCreateFaults.clear();
            } else if (request.method !== 'GET') {
              return sendJson(response, 405, { error: 'GET, POST or DELETE' }, { Allow: 'GET, POST, DELETE' });
            }
            sendJson(response, 200, { nextCreate: nextCreateFaults.list() });
          })().catch(next);
          return;
        }
        if (request.url?.startsWith(CALLBACK_FEED_PATH)) {
          response.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-store', Connection: 'keep-alive' });
          for (const entry of feed) response.write(`data: ${JSON.stringify(entry)}\n\n`);
          listeners.add(response);
          request.on('close', () => listeners.delete(response));
          return;
        }
        stack.then((started) => started.middleware(request, response, next), next);
      });
    },
  };
}
