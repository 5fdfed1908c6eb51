// The diagnostics channels' cost (docs/observability.md): status queries through the kit, 16 at a time, in the same
// rounds, from three kits each in a process of its own (bench/channels-kit.mjs) in front of one service that answers
// at once (bench/channels-service.mjs: the sandbox's own work would hide the kits' differences):
//   before      the kit as it was before its channels: the source of the parent of the commit that added
//               src/server/diagnostics.ts (from git), built here
//   nobody      the kit now (this working tree's source), nobody listening
//   subscribed  the kit now, a subscriber on every channel (each message read, nothing more)
// Both kits are bundled the same way (esbuild, one ES module), so that only their source differs. Over HTTP, five
// processes share the machine's two cores, and a round's ratio moves by several per cent with the machine's load;
// so the same three are also weighed in this process alone (the kits' code, nothing else), and the target is there:
// nobody listening within 2 % of before. `node bench/channels.mjs` runs this part alone (after `npm run build`).
import { execFileSync } from 'node:child_process';
import { tracingChannel } from 'node:diagnostics_channel';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { Agent, request as httpRequest } from 'node:http';
import { ORDER_TOKEN_HEADER } from '../dist/core/index.js';
import { DEFAULT_MERCHANT } from '../dist/sandbox/index.js';
import { issueOrderToken } from '../dist/server/index.js';
import { CONCURRENCY, load, start, stop } from './kit-overhead.mjs';
import { LOAD } from './load.mjs';
import { cpuMsOf } from './process-cpu.mjs';
import { quantile } from './stats.mjs';

/** Nobody listening, against the kit before its channels: the ratio of throughputs at least this. */
export const NOBODY_RATIO_TARGET = 0.98;
const { rounds: ROUNDS, count: COUNT, warmUp: WARM_UP, inProcessRounds: IN_PROCESS_ROUNDS, inProcessCount: IN_PROCESS_COUNT } = LOAD.channels;
/** What the service answers every status query (bench/channels-service.mjs answers the same). */
const SERVICE_ANSWER = JSON.stringify({
  code: '00000',
  message: 'SUCCESSFUL',
  data: { reference: 'bench-channels', orderNo: '26112200000001', status: 'PENDING', amount: { total: 12_500, currency: 'EGP' } },
});
const SIDES = ['before', 'nobody', 'subscribed'];

/** The commit whose kit had no channels yet: the parent of the one that added them (HEAD before they are committed). */
function commitBefore() {
  const added = execFileSync('git', ['log', '--diff-filter=A', '--format=%H', '--', 'src/server/diagnostics.ts'], { encoding: 'utf8' }).trim().split('\n').filter(Boolean).at(-1);
  return execFileSync('git', ['rev-parse', '--short', added ? `${added}^` : 'HEAD'], { encoding: 'utf8' }).trim();
}

/** The kit of `src` (a folder holding src/), bundled into one module in `out`. */
async function bundleKit(src, out) {
  // The kit's own dependencies (libphonenumber-js) from this project's node_modules, wherever the source was put.
  await build({ entryPoints: [join(src, 'src/server/index.ts')], bundle: true, format: 'esm', platform: 'node', target: 'es2022', outfile: out, nodePaths: [join(process.cwd(), 'node_modules')], logLevel: 'silent' });
  return out;
}

/** The bench asks as one client: the per-client and per-order limits on status queries are off (bench/channels-kit.mjs too). */
const STATUS_UNLIMITED = { statusPerClient: false, statusPerOrder: false };

/** `count` order tokens, each for an order of its own, handed out one after the other. */
async function orderTokens(count) {
  const tokens = [];
  const expiresAt = Math.floor(Date.now() / 1000) + 3_600;
  for (let index = 0; index < count; index++) {
    tokens.push(await issueOrderToken(DEFAULT_MERCHANT.privateKey, { merchantId: DEFAULT_MERCHANT.merchantId, orderNo: String(26112200000000 + index), reference: `bench-channels-${index}`, country: 'EG', expiresAt }));
  }
  let next = 0;
  return () => tokens[next++ % tokens.length];
}

/** Every channel subscribed as an APM tool would (each message read), or not; returns the function that stops. */
function subscribeAll(channels) {
  let heard = 0;
  const read = (message) => {
    heard += message.durationMs === undefined ? 1 : 2;
  };
  const handlers = { start: read, end: read, asyncStart: read, asyncEnd: read, error: read };
  const tracing = Object.values(channels).filter((name) => name !== channels.redis && name !== channels.timing);
  for (const name of tracing) tracingChannel(name).subscribe(handlers);
  return () => {
    for (const name of tracing) tracingChannel(name).unsubscribe(handlers);
    return heard;
  };
}

/**
 * The kits' own work alone: both in this process, each a Web handler (the path of Deno, Bun and workerd), the service
 * a fetch of the bench's that answers at once; calls per second of each, in alternating batches. The network, the
 * service and the other processes are out of the figure: what is left is the kits' code.
 */
async function inProcess(modules, token) {
  const kits = { before: await import(modules.before), now: await import(modules.now) };
  const fetchAnswer = async () => new Response(SERVICE_ANSWER, { headers: { 'Content-Type': 'application/json', Date: new Date().toUTCString() } });
  const options = { ...DEFAULT_MERCHANT, environment: { baseUrl: 'http://127.0.0.1:9' }, fetch: fetchAnswer, limits: STATUS_UNLIMITED, logger: { warn() {}, error() {} } };
  const handlers = { before: kits.before.createMerchantHandler(options), nobody: kits.now.createMerchantHandler(options) };
  handlers.subscribed = handlers.nobody;
  const call = (handler) => async () => {
    const response = await handler(new Request('http://shop.example/payments/status', { method: 'POST', headers: { 'Content-Type': 'application/json', [ORDER_TOKEN_HEADER]: token() }, body: '{}' }));
    if (!(await response.text()).includes('"00000"')) throw new Error('unexpected answer');
  };
  const runs = Object.fromEntries(SIDES.map((side) => [side, []]));
  let heard = 0;
  for (let round = -2; round < IN_PROCESS_ROUNDS; round++) {
    const order = SIDES.slice((round + 3) % SIDES.length).concat(SIDES.slice(0, (round + 3) % SIDES.length));
    for (const side of order) {
      const unsubscribe = side === 'subscribed' ? subscribeAll(kits.now.CHANNELS) : undefined;
      const result = await load(call(handlers[side]), IN_PROCESS_COUNT);
      heard += unsubscribe?.() ?? 0;
      if (round >= 0) runs[side].push(result); // the first two rounds warm up
    }
  }
  if (heard === 0) throw new Error('the subscriber heard nothing');
  return runs;
}

export async function measureChannels(row, note) {
  const scratch = mkdtempSync(join(tmpdir(), 'svc-channels-bench-'));
  const before = commitBefore();
  execFileSync('sh', ['-c', `git archive ${before} src | tar -x -C ${scratch}`]);
  const modules = {
    before: await bundleKit(scratch, join(scratch, 'kit-before.mjs')),
    now: await bundleKit(process.cwd(), join(scratch, 'kit-now.mjs')),
  };
  const service = await start('the service', ['bench/channels-service.mjs']);
  const kits = {};
  try {
    const env = { SANDBOX_URL: service.url };
    kits.before = await start('the kit before its channels', ['bench/channels-kit.mjs'], { ...env, KIT_MODULE: modules.before });
    kits.nobody = await start('the kit, nobody listening', ['bench/channels-kit.mjs'], { ...env, KIT_MODULE: modules.now });
    kits.subscribed = await start('the kit, a subscriber on every channel', ['bench/channels-kit.mjs'], { ...env, KIT_MODULE: modules.now, SUBSCRIBE: '1' });

    // An order of its own for every query, each with the token a page holds for it (every kit takes them: one
    // merchant, one key): queries of one order within a second would share one answer, and never reach the service.
    const token = await orderTokens(WARM_UP * SIDES.length + ROUNDS * COUNT * SIDES.length);
    // A sender lighter than fetch (node:http on kept-alive connections), so that the kits' own work weighs most.
    const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
    const status = (url) => {
      const { hostname, port } = new URL(url);
      return () =>
        new Promise((resolve, reject) => {
          const sent = httpRequest(
            { hostname, port, path: '/payments/status', method: 'POST', agent, headers: { 'Content-Type': 'application/json', 'Content-Length': 2, [ORDER_TOKEN_HEADER]: token() } },
            (response) => {
              const chunks = [];
              response.on('data', (chunk) => chunks.push(chunk));
              response.on('end', () => {
                const answer = JSON.parse(Buffer.concat(chunks).toString('utf8'));
                if (answer.code === '00000') resolve();
                else reject(new Error(`unexpected answer ${answer.code}`));
              });
            },
          );
          sent.on('error', reject);
          sent.end('{}');
        });
    };

    for (const side of SIDES) await load(status(kits[side].url), WARM_UP);
    const runs = Object.fromEntries(SIDES.map((side) => [side, []]));
    for (let round = 0; round < ROUNDS; round++) {
      const order = SIDES.slice(round % SIDES.length).concat(SIDES.slice(0, round % SIDES.length));
      for (const side of order) {
        const cpuBefore = cpuMsOf(kits[side].child.pid);
        const result = await load(status(kits[side].url), COUNT);
        const cpuAfter = cpuMsOf(kits[side].child.pid);
        result.cpuMs = cpuBefore === undefined || cpuAfter === undefined ? Number.NaN : (cpuAfter - cpuBefore) / COUNT;
        runs[side].push(result);
      }
    }
    const median = (side, of) => quantile(runs[side].map(of), 0.5);
    const roundRatio = (side, base, of) => quantile(runs[side].map((result, round) => of(result) / of(runs[base][round])), 0.5);
    const rate = (result) => result.rate;
    const cpu = (result) => result.cpuMs;
    note(`\nDiagnostics channels: status queries, ${CONCURRENCY} at a time, ${ROUNDS} rounds of ${COUNT} per kit, the kits taking turns (ratios:`);
    note(`  the median of the rounds' own); before: the kit at ${before} (before its channels); nobody: the kit now, nobody listening;`);
    note('  subscribed: the kit now, a subscriber on every channel. Each kit bundled by esbuild from its source, in a process of its own,');
    note('  in front of a service that answers at once; the sender on node:http.');
    for (const side of SIDES) {
      const latencies = runs[side].flatMap((result) => result.latencies);
      note(`  ${side}: ${Math.round(median(side, rate))} /s, p50 ${quantile(latencies, 0.5).toFixed(2)} ms, p95 ${quantile(latencies, 0.95).toFixed(2)} ms; kit CPU ${median(side, cpu).toFixed(3)} ms a query`);
    }
    const nobody = roundRatio('nobody', 'before', rate);
    row({
      what: 'status through the kit over HTTP, nobody listening to its channels: throughput',
      figure: `${Math.round(median('nobody', rate))} /s`,
      compared: `before its channels (${before}): ${Math.round(median('before', rate))} /s, ratio ${nobody.toFixed(3)}; kit CPU ${median('nobody', cpu).toFixed(3)} against ${median('before', cpu).toFixed(3)} ms a query`,
    });
    const subscribed = roundRatio('subscribed', 'nobody', rate);
    row({
      what: 'status through the kit over HTTP, a subscriber on every channel: throughput',
      figure: `${Math.round(median('subscribed', rate))} /s`,
      compared: `nobody listening: ${Math.round(median('nobody', rate))} /s, ratio ${subscribed.toFixed(3)}; kit CPU ${median('subscribed', cpu).toFixed(3)} ms a query (${(roundRatio('subscribed', 'nobody', cpu) * 100 - 100).toFixed(1)} % more)`,
    });

    const own = await inProcess(modules, await orderTokens((IN_PROCESS_ROUNDS + 2) * IN_PROCESS_COUNT * SIDES.length));
    const ownMedian = (side) => quantile(own[side].map(rate), 0.5);
    const ownRatio = (side, base) => quantile(own[side].map((result, round) => result.rate / own[base][round].rate), 0.5);
    note(`  The kits' code alone (both in this process, Web handlers, the service a fetch that answers at once; ${IN_PROCESS_ROUNDS} rounds of`);
    note(`  ${IN_PROCESS_COUNT} per kit): before ${Math.round(ownMedian('before'))} /s, nobody ${Math.round(ownMedian('nobody'))} /s, subscribed ${Math.round(ownMedian('subscribed'))} /s.`);
    const ownNobody = ownRatio('nobody', 'before');
    row({
      what: "status, the kit's code alone, nobody listening: throughput",
      figure: `${Math.round(ownMedian('nobody'))} /s`,
      compared: `before its channels (${before}): ${Math.round(ownMedian('before'))} /s, ratio ${ownNobody.toFixed(3)}`,
      target: `ratio ≥ ${NOBODY_RATIO_TARGET}`,
      met: ownNobody >= NOBODY_RATIO_TARGET,
    });
    row({
      what: "status, the kit's code alone, a subscriber on every channel: throughput",
      figure: `${Math.round(ownMedian('subscribed'))} /s`,
      compared: `nobody listening: ${Math.round(ownMedian('nobody'))} /s, ratio ${ownRatio('subscribed', 'nobody').toFixed(3)}`,
    });
  } finally {
    for (const kit of Object.values(kits)) await stop(kit);
    await stop(service);
    rmSync(scratch, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.chdir(new URL('..', import.meta.url).pathname);
  await measureChannels(
    (entry) => console.log(`  ${entry.what}: ${entry.figure} | ${entry.compared ?? ''}${entry.target ? ` | target ${entry.target}: ${entry.met ? 'met' : 'not met'}` : ''}`),
    (line) => console.log(line),
  );
}
