// The status stream (GET /payments/events): how soon a payer sees a verified callback, what a 30-minute wait costs
// the service in status queries, and what open streams cost the kit.
//   - latency: kit processes (scripts/kit-process.mjs) in front of the sandbox; this process holds the streams and
//     sends each signed callback itself, so it times from the callback's request to the stream's event: one kit,
//     then two kits sharing Redis (callback to A, stream from B);
//   - status queries: the kit in this process on a virtual clock (its timers and clock injected), a real sandbox;
//   - memory: 2,000 streams open on one kit process, measured after a full collection.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { CALLBACK_TYPE, canonicalJson, EventStreamReader, MERCHANT_PATHS, ORDER_TOKEN_HEADER, SERVICE_PATHS } from '../dist/core/index.js';
import { createSandbox, DEFAULT_MERCHANT } from '../dist/sandbox/index.js';
import { createMerchantHandler, issueOrderToken, ORDER_TOKEN_GRACE_SECONDS, ServiceClient, signCallback } from '../dist/server/index.js';
import { LOAD } from './load.mjs';
import { cpuMsOf } from './process-cpu.mjs';
import { quantile } from './stats.mjs';

export const STREAM_P99_TARGET_MS = 250;
export const QUIET_QUERIES_TARGET = 3;
const { latencySamples: LATENCY_SAMPLES, openStreams: OPEN_STREAMS, opening: OPENING, waitMinutes: WAIT_MINUTES } = LOAD.stream;
const REDIS_SERVER = process.env.REDIS_SERVER_PATH ?? '/usr/bin/redis-server';
const { merchantId, privateKey } = DEFAULT_MERCHANT;

const ms = (value) => `${value.toFixed(1)} ms`;
const mb = (bytes) => `${(bytes / 1_048_576).toFixed(1)} MB`;

// --- Processes --------------------------------------------------------------------------------------------------

async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A kit process; its `memory` lines answer SIGUSR2. */
async function startKit(env, nodeArgs = []) {
  const child = spawn(process.execPath, [...nodeArgs, 'scripts/kit-process.mjs'], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  const kit = { child, url: '', memory: [] };
  const lines = createInterface({ input: child.stdout });
  kit.url = await new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`a kit process exited (${code}) before it listened`)));
    lines.on('line', (line) => {
      const [kind, ...rest] = line.split(' ');
      if (kind === 'listening') resolve(rest[0]);
      else if (kind === 'memory') kit.memory.push({ rss: Number(rest[0]), heapUsed: Number(rest[1]) });
    });
  });
  return kit;
}

async function memoryOf(kit) {
  const count = kit.memory.length;
  kit.child.kill('SIGUSR2');
  const deadline = Date.now() + 5_000;
  while (kit.memory.length === count && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  return kit.memory.at(-1);
}

async function stopProcess(child) {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  await exited;
}

async function startRedis() {
  const port = await freePort();
  const child = spawn(REDIS_SERVER, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: ['ignore', 'pipe', 'ignore'] });
  let output = '';
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('redis-server did not start')), 5_000);
    child.stdout.on('data', (chunk) => {
      output += chunk;
      if (output.includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  child.stdout.resume();
  return { child, url: `redis://127.0.0.1:${port}` };
}

// --- Orders, streams and callbacks ------------------------------------------------------------------------------

/** Pending orders made at the sandbox, each with the order token the kit would have given its page. */
async function makeOrders(sandboxUrl, count, tag) {
  const client = new ServiceClient({ merchantId, privateKey, environment: { baseUrl: sandboxUrl } });
  const runId = `${tag}-${Date.now().toString(36)}`;
  const orders = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < count) {
        const index = next++;
        const reference = `bench-stream-${runId}-${index}`;
        const answer = await client.createPayment({
          reference,
          amount: { total: 12_500, currency: 'EGP' },
          product: { name: 'Espresso beans', description: '1 kg' },
          payMethod: 'Pos',
          sn: `BENCH-${runId}-${index}`,
          country: 'EG',
          expireAt: 60,
        });
        if (answer.code !== '00000') throw new Error(`create failed: ${answer.code}`);
        const expiresAt = Math.floor(Date.now() / 1000) + 3_600 + ORDER_TOKEN_GRACE_SECONDS;
        const token = await issueOrderToken(privateKey, { merchantId, orderNo: answer.data.orderNo, reference, country: 'EG', expiresAt });
        orders[index] = { orderNo: answer.data.orderNo, reference, token };
      }
    }),
  );
  return orders;
}

/** A stream held open here; `seen(status)` resolves when that status arrives. */
function openStream(kitUrl, order) {
  const abort = new AbortController();
  const waiting = new Map();
  const stream = { statuses: new Map(), close: () => abort.abort() };
  stream.seen = (status) =>
    stream.statuses.has(status)
      ? Promise.resolve(stream.statuses.get(status))
      : new Promise((resolve) => waiting.set(status, resolve));
  stream.ready = (async () => {
    const response = await fetch(`${kitUrl}${MERCHANT_PATHS.events}`, { headers: { [ORDER_TOKEN_HEADER]: order.token }, signal: abort.signal });
    if (!response.headers.get('content-type')?.startsWith('text/event-stream')) throw new Error(`not a stream: ${await response.text()}`);
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    const events = new EventStreamReader();
    void (async () => {
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return;
          const at = performance.now();
          for (const event of events.push(decoder.decode(value, { stream: true }))) {
            if (event.type !== 'status') continue;
            const { status } = JSON.parse(event.data);
            stream.statuses.set(status, at);
            waiting.get(status)?.(at);
          }
        }
      } catch {
        // closed by the bench
      }
    })();
  })();
  return stream;
}

/** The service's callback of an order's change, signed as the service signs it, sent to `kitUrl`. */
async function sendCallback(kitUrl, order, status) {
  const body = canonicalJson({
    notifyId: `${order.orderNo}-${status}-${Math.random().toString(36).slice(2)}`,
    reference: order.reference,
    amount: { total: 12_500, currency: 'EGP' },
    orderNo: order.orderNo,
    country: 'EG',
    status,
    timestamp: Date.now(),
    type: CALLBACK_TYPE,
  });
  const timestamp = String(Date.now());
  const response = await fetch(`${kitUrl}${MERCHANT_PATHS.callbacks}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: await signCallback(timestamp, body, privateKey), MerchantId: merchantId, RequestTimestamp: timestamp },
    body,
  });
  if (response.status !== 200) throw new Error(`callback answered ${response.status}`);
  await response.arrayBuffer();
}

/** One callback at a time, each to another open stream: the time from sending it to the stream's event. */
async function latencies(callbackUrl, streamUrl, orders) {
  const streams = orders.map((order) => openStream(streamUrl, order));
  await Promise.all(streams.map((stream) => stream.ready));
  await Promise.all(streams.map((stream) => stream.seen('PENDING')));
  const samples = [];
  try {
    for (const [index, order] of orders.entries()) {
      const sent = performance.now();
      const seen = streams[index].seen('SUCCESS');
      await sendCallback(callbackUrl, order, 'SUCCESS');
      samples.push((await seen) - sent);
    }
  } finally {
    for (const stream of streams) stream.close();
  }
  return samples;
}

// --- Status queries on a virtual clock --------------------------------------------------------------------------

/**
 * The kit in this process, its timers and clock virtual, and one payer streaming one pending order for `minutes`
 * virtual minutes (30 in the full load). `callbacks`: other orders' callbacks reach the kit every minute (and one did
 * before the payer came), as in a shop that sells; otherwise none ever does. Returns the status queries made for the
 * watched order.
 */
async function queriesOverAWait(sandboxUrl, { callbacks, minutes = WAIT_MINUTES }) {
  const clock = { now: Date.now(), timers: new Map(), nextId: 1 };
  const timers = {
    setTimeout: (callback, delay) => {
      const id = clock.nextId++;
      clock.timers.set(id, { at: clock.now + Math.max(0, delay), callback });
      return id;
    },
    clearTimeout: (id) => clock.timers.delete(id),
  };
  let queries = 0;
  let inFlight = 0;
  const handler = createMerchantHandler({
    merchantId,
    privateKey,
    environment: { baseUrl: sandboxUrl },
    logger: { warn() {}, error() {} },
    timers,
    now: () => clock.now,
    // No heartbeats in the wait: only the streams' own checks are timers.
    streams: { heartbeatSeconds: 3_600 * 24 },
    fetch: async (input, init) => {
      if (String(input).endsWith(SERVICE_PATHS.status)) queries += 1;
      inFlight += 1;
      try {
        const response = await fetch(input, init);
        await response.clone().arrayBuffer();
        return response;
      } finally {
        inFlight -= 1;
      }
    },
  });
  const [order] = await makeOrders(sandboxUrl, 1, callbacks ? 'quiet' : 'none');
  // The order token, on the virtual clock the kit checks it against.
  order.token = await issueOrderToken(privateKey, {
    merchantId,
    orderNo: order.orderNo,
    reference: order.reference,
    country: 'EG',
    expiresAt: Math.floor(clock.now / 1000) + 3_600 + ORDER_TOKEN_GRACE_SECONDS,
  });
  const other = { orderNo: '26112299999999', reference: 'elsewhere' };
  const callback = async (n) => {
    const body = canonicalJson({ notifyId: `other-${n}`, reference: other.reference, amount: { total: 1, currency: 'EGP' }, orderNo: other.orderNo, country: 'EG', status: 'SUCCESS', timestamp: clock.now, type: CALLBACK_TYPE });
    const timestamp = String(clock.now);
    const answer = await handler(
      new Request(`http://kit.example${MERCHANT_PATHS.callbacks}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: await signCallback(timestamp, body, privateKey), MerchantId: merchantId, RequestTimestamp: timestamp },
        body,
      }),
    );
    if (answer.status !== 200) throw new Error(`callback answered ${answer.status}`);
  };
  const settle = async (before) => {
    // A check's query is signed (WebCrypto, off the main thread) before it is sent: wait for it to go and come back.
    const deadline = performance.now() + 1_000;
    while (queries === before && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 1));
    while (inFlight > 0) await new Promise((resolve) => setTimeout(resolve, 1));
    for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
  };

  if (callbacks) await callback(0);
  const began = clock.now;
  const end = began + minutes * 60_000;
  const abort = new AbortController();
  const response = await handler(new Request(`http://kit.example${MERCHANT_PATHS.events}?token=${order.token}`, { signal: abort.signal }));
  const reader = response.body.getReader();
  void (async () => {
    while (!(await reader.read().catch(() => ({ done: true }))).done);
  })();
  // The stream's first check is a timer too (due at once): the loop below fires it.
  const counted = queries;
  const events = callbacks ? Array.from({ length: minutes }, (_, index) => ({ at: began + (index + 1) * 60_000, n: index + 1 })) : [];
  for (;;) {
    let next;
    for (const [id, timer] of clock.timers) if (!next || timer.at < next.at) next = { id, ...timer };
    const event = events[0];
    const at = Math.min(next?.at ?? Number.POSITIVE_INFINITY, event?.at ?? Number.POSITIVE_INFINITY);
    if (at > end) break;
    clock.now = at;
    if (event && event.at === at) {
      events.shift();
      await callback(event.n);
      continue;
    }
    clock.timers.delete(next.id);
    const before = queries;
    next.callback();
    await settle(before);
  }
  abort.abort();
  return queries - counted;
}

// --- The section --------------------------------------------------------------------------------------------------

/** `polling`: the polling section's results of this run (the element's own figures, to compare with). */
export async function measureStream(row, note, polling) {
  const sandbox = await createSandbox({ tickMs: 50 });
  const started = [];
  try {
    const firstMinute = polling?.flows?.Pos?.firstMinute?.map((entry) => entry.delayMs);
    const pollingNotice = firstMinute ? `element polling: median ${(quantile(firstMinute, 0.5) / 1000).toFixed(2)} s, worst ${(Math.max(...firstMinute) / 1000).toFixed(2)} s (first minute)` : 'element polling: a check every 2.5 s';

    // 1. One kit process.
    const kit = await startKit({ SANDBOX_URL: sandbox.url });
    started.push(kit.child);
    await sendCallback(kit.url, { orderNo: '26112299999998', reference: 'warm-up' }, 'SUCCESS');
    const one = await latencies(kit.url, kit.url, await makeOrders(sandbox.url, LATENCY_SAMPLES, 'one'));
    note(`\nStatus stream: ${LATENCY_SAMPLES} callbacks sent one at a time, each signed and posted to the kit by this process, each to another`);
    note('open stream; timed from the callback request to the status event on the stream (HTTP, verification, onCallback, bus, SSE write).');
    const p99 = quantile(one, 0.99);
    row({
      what: 'callback to the streaming payer, one kit process: median / p99',
      figure: `${ms(quantile(one, 0.5))} / ${ms(p99)} (max ${ms(Math.max(...one))})`,
      compared: pollingNotice,
      target: `p99 ≤ ${STREAM_P99_TARGET_MS} ms`,
      met: p99 <= STREAM_P99_TARGET_MS,
    });

    // 2. Two kit processes sharing Redis: callback to A, stream from B.
    if (existsSync(REDIS_SERVER)) {
      const redis = await startRedis();
      started.push(redis.child);
      const env = { SANDBOX_URL: sandbox.url, REDIS_URL: redis.url, REDIS_ACCEPT_DATA_LOSS: '1' }; // a bench's Redis keeps nothing on disk
      const [a, b] = await Promise.all([startKit(env), startKit(env)]);
      started.push(a.child, b.child);
      await sendCallback(a.url, { orderNo: '26112299999997', reference: 'warm-up-2' }, 'SUCCESS');
      const two = await latencies(a.url, b.url, await makeOrders(sandbox.url, LATENCY_SAMPLES, 'two'));
      const p99two = quantile(two, 0.99);
      row({
        what: 'callback to A, payer streaming from B (Redis pub/sub): median / p99',
        figure: `${ms(quantile(two, 0.5))} / ${ms(p99two)} (max ${ms(Math.max(...two))})`,
        compared: `one process: ${ms(quantile(one, 0.5))} / ${ms(p99)}`,
        target: `p99 ≤ ${STREAM_P99_TARGET_MS} ms`,
        met: p99two <= STREAM_P99_TARGET_MS,
      });
      await Promise.all([stopProcess(a.child), stopProcess(b.child)]);
      await stopProcess(redis.child);
    } else {
      note(`  (no ${REDIS_SERVER}: the two-process figure is left out)`);
    }

    // 3. Status queries over a 30-minute wait (the full load), on a virtual clock.
    const quiet = await queriesOverAWait(sandbox.url, { callbacks: true });
    const none = await queriesOverAWait(sandbox.url, { callbacks: false });
    const elementRequests = polling?.flows?.Pos?.requests;
    note(`\nStatus queries for one streamed order over ${WAIT_MINUTES} minutes on a virtual clock (the kit in this process, its timers and clock injected;`);
    note('every query a real one to the sandbox). "Callbacks arriving": another order\'s callback every minute; "none": no callback ever.');
    row({
      what: `status queries in a ${WAIT_MINUTES}-minute wait, callbacks arriving`,
      figure: `${quiet}`,
      compared: `element polling: ${elementRequests ?? 57}`,
      target: `≤ ${QUIET_QUERIES_TARGET}`,
      met: quiet <= QUIET_QUERIES_TARGET,
    });
    row({
      what: `status queries in a ${WAIT_MINUTES}-minute wait, no callback ever`,
      figure: `${none}`,
      compared: `element polling: ${elementRequests ?? 57}, per tab (the stream's: per order, however many tabs)`,
    });

    // 4. Open streams and memory, one kit process.
    await stopProcess(kit.child);
    const big = await startKit({ SANDBOX_URL: sandbox.url }, ['--expose-gc']);
    started.push(big.child);
    await sendCallback(big.url, { orderNo: '26112299999996', reference: 'warm-up-3' }, 'SUCCESS');
    const orders = await makeOrders(sandbox.url, OPEN_STREAMS, 'many');
    const idle = await memoryOf(big);
    // Payers arrive OPENING at a time (2,000 connections in the same instant would only measure the listen backlog).
    const openedAt = performance.now();
    const cpuBefore = cpuMsOf(big.child.pid);
    const streams = [];
    for (let index = 0; index < orders.length; index += OPENING) {
      const wave = orders.slice(index, index + OPENING).map((order) => openStream(big.url, order));
      streams.push(...wave);
      await Promise.all(wave.map((stream) => stream.ready));
    }
    await Promise.all(streams.map((stream) => stream.seen('PENDING')));
    const openSeconds = (performance.now() - openedAt) / 1000;
    const openCpu = cpuBefore === undefined ? undefined : (cpuMsOf(big.child.pid) - cpuBefore) / 1000;
    const busy = await memoryOf(big);
    // A callback for each, 16 at a time: every stream sees its own.
    const delays = [];
    let next = 0;
    const sentAt = performance.now();
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < orders.length) {
          const index = next++;
          const sent = performance.now();
          const seen = streams[index].seen('SUCCESS');
          await sendCallback(big.url, orders[index], 'SUCCESS');
          delays.push((await seen) - sent);
        }
      }),
    );
    const callbackSeconds = (performance.now() - sentAt) / 1000;
    for (const stream of streams) stream.close();
    const perStream = (busy.heapUsed - idle.heapUsed) / OPEN_STREAMS;
    const perStreamRss = (busy.rss - idle.rss) / OPEN_STREAMS;
    note(`\n${OPEN_STREAMS} streams on one kit process (each its own order and connection), memory after a full collection (--expose-gc).`);
    row({
      what: 'memory per open stream, kit process: heap / RSS',
      figure: `${(perStream / 1024).toFixed(1)} kB / ${(perStreamRss / 1024).toFixed(1)} kB`,
      compared: `kit at rest: heap ${mb(idle.heapUsed)}, RSS ${mb(idle.rss)}`,
    });
    row({
      what: `${OPEN_STREAMS.toLocaleString('en')} open streams on one kit process`,
      figure: `all open (${OPENING} connecting at a time) and PENDING seen in ${openSeconds.toFixed(1)} s; heap ${mb(busy.heapUsed)}, RSS ${mb(busy.rss)}`,
      compared: `at rest: heap ${mb(idle.heapUsed)}, RSS ${mb(idle.rss)}`,
    });
    const p99busy = quantile(delays, 0.99);
    row({
      what: `a callback to each of the ${OPEN_STREAMS.toLocaleString('en')}, 16 at a time: median / p99`,
      figure: `${ms(quantile(delays, 0.5))} / ${ms(p99busy)}; all ${delays.length} seen in ${callbackSeconds.toFixed(1)} s`,
      compared: `one at a time, ${LATENCY_SAMPLES} streams: ${ms(quantile(one, 0.5))} / ${ms(p99)}`,
      target: `p99 ≤ ${STREAM_P99_TARGET_MS} ms`,
      met: p99busy <= STREAM_P99_TARGET_MS,
    });
    if (openCpu !== undefined) {
      note(`  opening the ${OPEN_STREAMS} streams (each: its token checked, one status query signed and sent) took ${((openCpu * 1000) / OPEN_STREAMS).toFixed(2)} ms of the kit's CPU per stream`);
    }
  } finally {
    for (const child of started.reverse()) await stopProcess(child);
    await sandbox.close();
  }
}
