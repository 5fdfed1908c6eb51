/**
 * A kit process in Deno or Bun, run unbundled as a shop runs it (the built package, `svc-checkout/server` and
 * `svc-checkout/server/redis` with node-redis from node_modules), its callbacks, throttles and status updates shared
 * through Redis. Configured by SANDBOX_URL, REDIS_URL and STREAM_POLL_MS; prints `listening on <url>`, then
 * `callback <notifyId> <orderNo> <status>` per callback handled and `query` per status query sent.
 */
import { createMerchantHandler, SERVICE_PATHS } from 'svc-checkout/server';
import { connectRedis } from 'svc-checkout/server/redis';

declare const Deno: { env: { get(name: string): string | undefined }; serve(options: object, handler: (request: Request) => Promise<Response>): { addr: { port: number } } };
declare const Bun: { serve(options: object): { port: number } };

const setting = (name: string): string => {
  const value = typeof Deno !== 'undefined' ? Deno.env.get(name) : (globalThis as unknown as { process: { env: Record<string, string> } }).process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
};

const redis = await connectRedis({ url: setting('REDIS_URL'), merchantId: '256612345678901' });
const handler = createMerchantHandler({
  merchantId: '256612345678901',
  privateKey: 'sandbox-private-key-256612345678901',
  environment: { baseUrl: setting('SANDBOX_URL') },
  // The sandbox's webhook decides which kit a callback reaches, whichever kit made the order.
  callbackUrl: false,
  streams: { pollIntervalMs: Number(setting('STREAM_POLL_MS')) },
  logger: { warn: (line) => console.log(`log ${line}`), error: (line) => console.log(`log ${line}`) },
  fetch: (input, init) => {
    if (String(input).endsWith(SERVICE_PATHS.status)) console.log('query');
    return fetch(input, init);
  },
  onCallback: ({ notifyId, body }) => console.log(`callback ${notifyId} ${body.orderNo} ${body.status}`),
  ...redis.stores,
});

const port = typeof Deno !== 'undefined' ? Deno.serve({ hostname: '127.0.0.1', port: 0, onListen() {} }, handler).addr.port : Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: handler }).port;
console.log(`listening on http://127.0.0.1:${port}`);
