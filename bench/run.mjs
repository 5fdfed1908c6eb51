// npm run bench: sizes and speeds of what ships, printed as figures. Run on a quiet machine and compare runs
// made on the same one; nothing here asserts a number.
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { performance } from 'node:perf_hooks';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { canonicalJson, validateCreateRequest } from '../dist/core/index.js';
import { createSandbox, DEFAULT_MERCHANT } from '../dist/sandbox/index.js';
import { createMerchantHandler, signCallback, signRequest, toNodeListener, verifyCallback } from '../dist/server/index.js';

const rows = [];
const print = (what, figure) => {
  rows.push([what, figure]);
  console.log(`${what.padEnd(58)} ${figure}`);
};

// --- Sizes -------------------------------------------------------------------------------------------------
const cdn = await readFile('dist/cdn/svc-checkout.js');
print('dist/cdn/svc-checkout.js, minified', `${(cdn.length / 1024).toFixed(1)} KiB`);
print('dist/cdn/svc-checkout.js, gzip -9', `${(gzipSync(cdn, { level: 9 }).length / 1024).toFixed(1)} KiB`);
print('dist/cdn/svc-checkout.js, brotli', `${(brotliCompressSync(cdn).length / 1024).toFixed(1)} KiB`);
const meta = JSON.parse(await readFile('build/cdn.meta.json', 'utf8'));
const byOrigin = {};
for (const [input, { bytesInOutput }] of Object.entries(meta.outputs['dist/cdn/svc-checkout.js'].inputs)) {
  const origin = input.startsWith('node_modules/') ? 'lit' : input.split('/').slice(0, 2).join('/');
  byOrigin[origin] = (byOrigin[origin] ?? 0) + bytesInOutput;
}
for (const [origin, bytes] of Object.entries(byOrigin).sort((a, b) => b[1] - a[1])) {
  print(`  of which ${origin} (minified)`, `${(bytes / 1024).toFixed(1)} KiB`);
}

// --- Operations per second -----------------------------------------------------------------------------------
/** Runs `task` for about `ms`, three times; reports the median rate. */
async function rate(what, task, ms = 700) {
  const rates = [];
  for (let round = 0; round < 3; round++) {
    let done = 0;
    const start = performance.now();
    while (performance.now() - start < ms) {
      await task();
      done++;
    }
    rates.push(done / ((performance.now() - start) / 1000));
  }
  rates.sort((a, b) => a - b);
  print(what, `${Math.round(rates[1]).toLocaleString('en')} /s`);
}

const key = DEFAULT_MERCHANT.privateKey;
const order = {
  reference: 'bench-1',
  amount: { total: 12_500, currency: 'EGP' },
  product: { name: 'Espresso beans', description: 'Single-origin, 1 kg' },
  payMethod: 'ReferenceCode',
  country: 'EG',
  expireAt: 60,
  notify: { notifyUserName: 'Mona Hassan', notifyLanguage: 'Arabic', notifyUserEmail: 'mona@example.com', notifyUserMobile: '+201001234567' },
};
const body = canonicalJson(order);
const timestamp = String(Date.now());
const signature = await signCallback(timestamp, body, key);
const headers = { Authorization: signature, MerchantId: DEFAULT_MERCHANT.merchantId, RequestTimestamp: timestamp };

await rate(`signRequest, ${body.length}-byte body`, () => signRequest(body, key));
await rate('verifyCallback, same body', () => verifyCallback({ headers, body, privateKey: key }));
await rate('validateCreateRequest, ReferenceCode', () => validateCreateRequest(order));
await rate('canonicalJson, ReferenceCode order', () => canonicalJson(order));

// --- The kit in front of the sandbox, over HTTP on 127.0.0.1 ------------------------------------------------------
const sandbox = await createSandbox();
const handler = createMerchantHandler({
  merchantId: DEFAULT_MERCHANT.merchantId,
  privateKey: key,
  environment: { baseUrl: sandbox.url },
  logger: { warn() {}, error() {} },
});
const server = createServer(toNodeListener(handler));
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const kit = `http://127.0.0.1:${server.address().port}`;
let counter = 0;
const create = async () => {
  const response = await fetch(`${kit}/payments`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ ...order, reference: `bench-${++counter}` }),
  });
  const answer = await response.json();
  if (answer.code !== '00000') throw new Error(`unexpected ${answer.code}`);
};

for (let warm = 0; warm < 50; warm++) await create();
const latencies = [];
for (let index = 0; index < 400; index++) {
  const start = performance.now();
  await create();
  latencies.push(performance.now() - start);
}
latencies.sort((a, b) => a - b);
const at = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))].toFixed(2);
print('create through kit + sandbox, one at a time: p50 / p95 / p99', `${at(0.5)} / ${at(0.95)} / ${at(0.99)} ms`);

const concurrent = 16;
const total = 800;
const start = performance.now();
let next = 0;
await Promise.all(
  Array.from({ length: concurrent }, async () => {
    while (next < total) {
      next++;
      await create();
    }
  }),
);
print(`create through kit + sandbox, ${concurrent} at a time`, `${Math.round(total / ((performance.now() - start) / 1000))} /s`);

server.closeAllConnections();
await new Promise((resolve) => server.close(resolve));
await sandbox.close();
console.log(`\nnode ${process.version}, ${process.platform} ${process.arch}`);
