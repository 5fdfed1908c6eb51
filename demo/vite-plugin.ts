/**
 * The demo's backend inside Vite's dev server: a sandbox and the merchant kit (the dev stack), plus a live
 * feed of the callbacks the kit verified (and of those it rejected), for the demo page's log.
 */
import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Plugin, ViteDevServer } from 'vite';
import { startDevStack, type DevStack } from '../src/sandbox/index.js';
import { DEMO_CART, DEMO_ORDER_COOKIE, DEMO_ORDERS_PATH, newDemoReference, type DemoOrder } from './orders.js';

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

      const stack = new Promise<DevStack>((resolve, reject) => {
        server.httpServer?.once('listening', () => {
          const address = server.httpServer?.address() as AddressInfo;
          const publicUrl = server.resolvedUrls?.local[0] ?? `http://localhost:${address.port}/`;
          startDevStack({
            publicUrl,
            ...(options.basePath ? { basePath: options.basePath } : {}),
            sandbox: { log: (line) => server.config.logger.info(`[sandbox] ${line}`, { timestamp: true }) },
            handler: {
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

      // The shop's own orders: references it made, each with the token it renders into its page.
      const orders = new Set<string>();
      const orderFor = async (wanted: string | undefined): Promise<DemoOrder> => {
        const reference = wanted && orders.has(wanted) ? wanted : newDemoReference();
        orders.add(reference);
        const checkoutToken = await (await stack).checkoutToken({ ...DEMO_CART, reference });
        return { reference, checkoutToken };
      };
      const cookie = (order: DemoOrder) => `${DEMO_ORDER_COOKIE}=${order.reference}; Path=/; SameSite=Lax; HttpOnly`;

      server.middlewares.use((request, response, next) => {
        const path = request.url?.split('?')[0];
        if ((path === '/' || path === '/index.html') && request.method === 'GET') {
          // The page as a shop's server renders it: with the checkout token of this visitor's order.
          void (async () => {
            const order = await orderFor(cookieOf(request, DEMO_ORDER_COOKIE));
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
        if (path === DEMO_ORDERS_PATH && request.method === 'POST') {
          void (async () => {
            const chunks: Buffer[] = [];
            for await (const chunk of request) chunks.push(chunk as Buffer);
            let wanted: unknown;
            try {
              wanted = (JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as { reference?: unknown }).reference;
            } catch {
              wanted = undefined;
            }
            const order = await orderFor(typeof wanted === 'string' ? wanted : undefined);
            response.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', 'Set-Cookie': cookie(order) });
            response.end(JSON.stringify(order));
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
