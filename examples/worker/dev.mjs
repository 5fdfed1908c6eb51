// Runs examples/worker/worker.js on this machine in workerd, Cloudflare's Workers runtime, through miniflare, with no
// wrangler.toml: the Worker bundled by esbuild (as wrangler bundles it), the package's dist/cdn folder as its static
// assets, the settings as its bindings. Beside the sandbox:
//
//   npx svc-sandbox                   # the payment service on :4010
//   node examples/worker/dev.mjs      # the Worker on http://127.0.0.1:8787
//
// SVC_MERCHANT_ID, SVC_PRIVATE_KEY and SVC_BASE_URL name the service (default the sandbox's); PORT the port (0: any).
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { Miniflare } from 'miniflare';

const worker = await build({
  entryPoints: [fileURLToPath(new URL('./worker.js', import.meta.url))],
  bundle: true,
  format: 'esm',
  platform: 'neutral',
  mainFields: ['module', 'main'],
  write: false,
});
const miniflare = new Miniflare({
  modules: true,
  script: worker.outputFiles[0].text,
  compatibilityDate: '2026-04-01',
  bindings: {
    SVC_MERCHANT_ID: process.env.SVC_MERCHANT_ID ?? '256612345678901', // the sandbox's test values, not secrets
    SVC_PRIVATE_KEY: process.env.SVC_PRIVATE_KEY ?? 'sandbox-private-key-256612345678901',
    SVC_BASE_URL: process.env.SVC_BASE_URL ?? 'http://127.0.0.1:4010',
  },
  // What the Worker does not serve itself, a file of the element's, comes from here first.
  assets: { directory: dirname(fileURLToPath(import.meta.resolve('svc-checkout/cdn'))), routerConfig: { has_user_worker: true } },
  host: '127.0.0.1',
  port: Number(process.env.PORT ?? 8787),
});
const url = await miniflare.ready;
console.log(`Nile Coffee Roasters listening on ${url.origin}/ (a Worker in workerd)`);
process.once('SIGTERM', () => void miniflare.dispose().then(() => process.exit(0)));
process.once('SIGINT', () => void miniflare.dispose().then(() => process.exit(0)));
