/**
 * The kit app (kit-app.ts) served by whichever runtime runs this file, bundled by esbuild into one module (a
 * classic script for the Edge Runtime), as each runtime's own deploy tool bundles a shop's code. Its configuration,
 * KIT_CONFIG (JSON), comes from where each runtime keeps a shop's settings and secrets: the environment (Deno, Bun),
 * `process.env` (the Edge Runtime), the Worker's bindings (workerd: runner-worker.ts, a module whose default export
 * Bun would serve by itself on port 3000). Deno and Bun print the address they listen on.
 */
import { createKitApp, type KitAppConfig } from './kit-app.js';

declare const Deno: {
  env: { get(name: string): string | undefined };
  serve(options: { hostname: string; port: number; onListen(address: { port: number }): void }, handler: (request: Request) => Promise<Response>): unknown;
};
declare const Bun: { env: Record<string, string | undefined>; serve(options: { hostname: string; port: number; fetch: (request: Request) => Promise<Response> }): { port: number } };
declare const EdgeRuntime: string | undefined;
declare function addEventListener(type: 'fetch', listener: (event: { request: Request; respondWith(response: Promise<Response>): void }) => void): void;

const configOf = (text: string | undefined): KitAppConfig => {
  if (!text) throw new Error('KIT_CONFIG is not set');
  return JSON.parse(text) as KitAppConfig;
};

if (typeof Deno !== 'undefined') {
  const app = createKitApp(configOf(Deno.env.get('KIT_CONFIG')), 'deno').serve;
  Deno.serve({ hostname: '127.0.0.1', port: 0, onListen: ({ port }) => console.log(`listening on http://127.0.0.1:${port}`) }, app);
} else if (typeof Bun !== 'undefined') {
  const app = createKitApp(configOf(Bun.env['KIT_CONFIG']), 'bun').serve;
  const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: app });
  console.log(`listening on http://127.0.0.1:${server.port}`);
} else if (typeof EdgeRuntime === 'string') {
  const app = createKitApp(configOf((globalThis as unknown as { process: { env: Record<string, string> } }).process.env['KIT_CONFIG']), 'edge-runtime').serve;
  addEventListener('fetch', (event) => event.respondWith(app(event.request)));
}
