/**
 * The demo's backend inside Vite's dev server: a sandbox and the merchant kit (the dev stack), plus a live
 * feed of the callbacks the kit verified (and of those it rejected), for the demo page's log.
 */
import type { ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Plugin, ViteDevServer } from 'vite';
import { startDevStack, type DevStack } from '../src/sandbox/index.js';

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

      server.middlewares.use((request, response, next) => {
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
