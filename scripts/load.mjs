// npm run load [-- --checkouts 500 --concurrency 500 --poll-ms 250 --timeout 120]
// npm run load -- --kits 2 --redis --checkouts 2000
//
// A bounded load run on 127.0.0.1 (issue 7, part 4): a sandbox and the merchant kit (createMerchantHandler behind
// toNodeListener on node:http, wired by startStack) from dist/, and N checkouts at once through the kit as the element makes them:
// ReferenceCode paid at the sandbox, Pos swiped (success or fail), BankAccount with OTP (some resend the code and
// type a wrong one first), and some left pending until the sandbox clock moves past their expiry. Each checkout
// polls its status through the kit, one request at a time, until the order is settled.
//
// It prints throughput, latency percentiles per kit route and errors by kind, then checks that every order ended
// in exactly one terminal state (through the kit and in the sandbox) and that each order's change was delivered,
// acknowledged and handed to onCallback exactly once. It exits 1 if a check fails, a request failed, or the run
// passes its time limit; it always closes what it started.
//
// With --redis (and --kits N), the kit runs as N processes (scripts/kit-process.mjs) sharing a redis-server this
// script starts, behind a round-robin proxy in a process of its own (scripts/round-robin-proxy.mjs) that also takes
// the sandbox's callbacks;
// and each payer streams its order's status (GET /payments/events, through the proxy, so on any process) instead of
// polling: it waits for PENDING and for its final status on the stream. A further check: every stream saw its
// order's final status, and ended.
//
// With --fault NAME (scripts/load-faults.mjs: redis-pause, redis-restart, kill-kit, cluster, drop-callbacks,
// sentinel-failover, lagging-replica, partition, lost-answers, cluster-failover), the same
// run of kit processes meets that fault --fault-at seconds in, the checkouts started --rate a second so that the run
// spans it; it then prints how many payments never reached the shop's onCallback (lost) or reached it twice
// (doubled), and the 99th percentile of the time from each payment to the payer seeing it and to the shop's hook.
import { fork, spawn } from 'node:child_process';
import { once, setMaxListeners } from 'node:events';
import { createInterface } from 'node:readline';
import { availableParallelism } from 'node:os';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { CHECKOUT_TOKEN_HEADER, EventStreamReader, MERCHANT_PATHS, ORDER_TOKEN_HEADER } from '../dist/core/index.js';
import { createSandbox, DEFAULT_MERCHANT, SandboxControl, startStack, testValues } from '../dist/sandbox/index.js';
import { issueCheckoutToken } from '../dist/server/index.js';
import { DROPPED_RECONCILE, FAULTS, faultFigures, startFaultRedis } from './load-faults.mjs';
import { startRedisServer } from './redis-processes.mjs';

const { values: args } = parseArgs({
  options: {
    checkouts: { type: 'string', default: '500' },
    concurrency: { type: 'string' },
    'poll-ms': { type: 'string', default: '250' },
    timeout: { type: 'string', default: '120' },
    kits: { type: 'string', default: '1' },
    redis: { type: 'boolean', default: false },
    fault: { type: 'string' },
    'fault-at': { type: 'string', default: '10' },
    rate: { type: 'string' },
  },
});
const count = (name, text, min) => {
  const value = Number(text);
  if (!Number.isInteger(value) || value < min) {
    console.error(`load: --${name} must be a whole number of at least ${min}`);
    process.exit(2);
  }
  return value;
};
const CHECKOUTS = count('checkouts', args.checkouts, 1);
const CONCURRENCY = count('concurrency', args.concurrency ?? args.checkouts, 1);
const POLL_MS = count('poll-ms', args['poll-ms'], 1);
const TIMEOUT_S = count('timeout', args.timeout, 1);
const FAULT = args.fault;
if (FAULT !== undefined && !Object.hasOwn(FAULTS, FAULT)) {
  console.error(`load: --fault must be one of ${Object.keys(FAULTS).join(', ')}`);
  process.exit(2);
}
const FAULT_AT_S = count('fault-at', args['fault-at'], 0);
/** Checkouts started a second (in a fault's run, so that it spans the fault); undefined: all at once. */
const RATE = args.rate !== undefined ? count('rate', args.rate, 1) : FAULT ? 20 : undefined;
const KITS = FAULT ? Math.max(2, count('kits', args.kits, 1)) : count('kits', args.kits, 1);
if (KITS > 1 && !args.redis && !FAULT) {
  console.error('load: --kits above 1 needs --redis: the processes share callbacks, throttles and status updates through it');
  process.exit(2);
}
/** Kit processes sharing Redis, and payers that stream their status rather than poll it. */
const SHARED = args.redis || FAULT !== undefined;
const REQUEST_TIMEOUT_MS = 20_000; // the element's own limit on a call to the kit
const EXPIRE_MINUTES = 30;

// --- What each checkout does, and how its order must end -----------------------------------------------------------

const RETURN_ORIGIN = 'https://shop.example';
const BANK = { bankCode: testValues.TEST_BANK_CODE, returnUrl: `${RETURN_ORIGIN}/return`, ...testValues.TEST_DATE_OF_BIRTH };
/** Twenty slots: each checkout takes the scenario of its index modulo 20. */
const SCENARIOS = [
  ...Array(6).fill({ name: 'ReferenceCode, paid', method: 'ReferenceCode', then: 'pay', ends: 'SUCCESS' }),
  ...Array(4).fill({ name: 'Pos, swiped', method: 'Pos', then: 'swipe success', ends: 'SUCCESS' }),
  ...Array(2).fill({ name: 'Pos, declined', method: 'Pos', then: 'swipe fail', ends: 'FAIL', failureCode: 'CARD_DECLINED' }),
  ...Array(2).fill({ name: 'BankAccount, OTP', method: 'BankAccount', account: '2215381176', then: 'otp', ends: 'SUCCESS' }),
  { name: 'BankAccount, OTP resent, one wrong', method: 'BankAccount', account: '2215381176', then: 'resend, wrong otp, otp', ends: 'SUCCESS' },
  { name: 'BankAccount, OTP, no funds', method: 'BankAccount', account: '2215381190', then: 'otp', ends: 'FAIL', failureCode: 'INSUFFICIENT_FUNDS' },
  ...Array(2).fill({ name: 'ReferenceCode, expires', method: 'ReferenceCode', then: 'expire', ends: 'CLOSE', failureCode: 'ORDER_EXPIRED' }),
  ...Array(2).fill({ name: 'Pos, expires', method: 'Pos', then: 'expire', ends: 'CLOSE', failureCode: 'ORDER_EXPIRED' }),
];

const runId = Date.now().toString(36);
function createBody(index, scenario) {
  const common = {
    reference: `load-${runId}-${index}`,
    amount: { total: 12_500 + index, currency: 'EGP' },
    product: { name: 'Espresso beans', description: 'Single-origin, 1 kg' },
    country: 'EG',
    expireAt: EXPIRE_MINUTES,
  };
  switch (scenario.method) {
    case 'Pos':
      return { ...common, payMethod: 'Pos', sn: `LOAD-${runId}-${index}` };
    case 'BankAccount':
      return { ...common, payMethod: 'BankAccount', bankAccountNumber: scenario.account, ...BANK };
    default:
      return {
        ...common,
        payMethod: 'ReferenceCode',
        // A payer each: the kit limits the messages one phone or mailbox receives.
        notify: {
          notifyUserName: 'Mona Hassan',
          notifyLanguage: index % 2 ? 'Arabic' : 'English',
          notifyUserEmail: `mona.${index}@example.com`,
          notifyUserMobile: `+2010${String(index).padStart(8, '0')}`,
        },
      };
  }
}

// --- Measuring --------------------------------------------------------------------------------------------------

const latencies = new Map(); // kit route -> milliseconds
const errors = new Map(); // kind -> count
let controlCalls = 0;
const stop = new AbortController();
// Every request and every stream of the run listens for it: thousands at once, by design.
setMaxListeners(Number.POSITIVE_INFINITY, stop.signal);
/** What the run is doing, for a message if it stops. */
let phase = 'running the checkouts';

function countError(kind) {
  errors.set(kind, (errors.get(kind) ?? 0) + 1);
}

class CheckoutError extends Error {
  /** A network failure or a 502/503 on the way: the payer's page tries again (in a fault's run). */
  transient = false;
}

/**
 * One call to the kit, as the element makes it, with the checkout token the shop's page carries (creates, and
 * status before the order is known) or the order's token; fails the checkout on anything but HTTP 200 and an
 * envelope.
 */
async function kit(route, body, proof = {}) {
  const path = MERCHANT_PATHS[route];
  const started = performance.now();
  let response;
  try {
    response = await fetch(`${kitUrl}${path}`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        ...(proof.orderToken ? { [ORDER_TOKEN_HEADER]: proof.orderToken } : proof.checkoutToken ? { [CHECKOUT_TOKEN_HEADER]: proof.checkoutToken } : {}),
      },
      body: JSON.stringify(body),
      signal: AbortSignal.any([stop.signal, AbortSignal.timeout(REQUEST_TIMEOUT_MS)]),
    });
  } catch (error) {
    countError(`${path}: ${error?.name === 'TimeoutError' ? 'no answer within 20 s' : `network (${error?.cause?.code ?? error?.name})`}`);
    throw Object.assign(new CheckoutError(`${path} failed`), { transient: true });
  }
  const text = await response.text();
  const elapsed = performance.now() - started;
  if (!latencies.has(path)) latencies.set(path, []);
  latencies.get(path).push(elapsed);
  let envelope;
  try {
    envelope = JSON.parse(text);
  } catch {
    envelope = undefined;
  }
  if (response.status !== 200 || typeof envelope?.code !== 'string') {
    countError(`${path}: HTTP ${response.status}`);
    throw Object.assign(new CheckoutError(`${path} answered HTTP ${response.status}`), { transient: response.status >= 502 });
  }
  return { envelope, token: response.headers.get(ORDER_TOKEN_HEADER) ?? undefined };
}

/**
 * A call as the element makes it in a fault's run: a call that failed on the way is made again, and a create
 * whose answer was lost is first looked for by its reference (the order may have been made), as the element does.
 */
async function kitAgain(route, body, proof) {
  for (let attempt = 0; ; attempt++) {
    try {
      const answer = await kit(route, body, proof);
      // The service did not answer the kit's create (it may have made the order): as the element, look it up.
      // A create made again after such a lookup was lost too finds its order made: look it up again.
      const made = attempt > 0 && answer.envelope.code === 'ORDER_EXISTS';
      if (FAULT && route === 'create' && (answer.envelope.code === '50003' || made) && attempt < 5) {
        throw Object.assign(new CheckoutError('create: 50003'), { transient: true });
      }
      return answer;
    } catch (error) {
      if (!FAULT || !(error instanceof CheckoutError) || !error.transient || attempt >= 5) throw error;
      await pause(500);
      if (route !== 'create') continue;
      const found = await kit('status', { reference: body.reference }, proof).catch(() => undefined);
      if (found?.envelope.code !== '00000' || !found.envelope.data?.orderNo) continue;
      const order = await control((sandbox) => sandbox.order(found.envelope.data.orderNo));
      return { envelope: { code: '00000', data: { ...found.envelope.data, referenceCode: order.referenceCode } }, token: found.token };
    }
  }
}

/** The sandbox's control API: the payer, or time passing. */
let sandboxControl;
/** With --redis, at most this many control calls at once: thousands in one instant would overflow the sandbox's accept queue. */
const CONTROL_CONCURRENCY = 64;
let controlInFlight = 0;
const controlQueue = [];
async function control(run) {
  controlCalls += 1;
  if (SHARED) {
    if (controlInFlight >= CONTROL_CONCURRENCY) await new Promise((resolve) => controlQueue.push(resolve));
    controlInFlight += 1;
  }
  try {
    return await run(sandboxControl);
  } catch (error) {
    countError(`control: ${error?.message ?? error}`);
    throw new CheckoutError(`control call failed: ${error?.message ?? error}`);
  } finally {
    if (SHARED) {
      controlInFlight -= 1;
      controlQueue.shift()?.();
    }
  }
}

function expectCode(route, envelope, code) {
  if (envelope.code !== code) {
    countError(`${MERCHANT_PATHS[route]}: code ${envelope.code} where ${code} was due`);
    throw new CheckoutError(`${route}: ${envelope.code}`);
  }
}

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls through the kit, one request at a time, until the order is no longer pending (or `until` says stop). */
async function pollStatus(record, until = (status) => status !== 'PENDING') {
  for (;;) {
    await pause(POLL_MS);
    if (stop.signal.aborted) throw new CheckoutError('stopped');
    const { envelope } = await kit('status', { reference: record.reference }, record.proof);
    expectCode('status', envelope, '00000');
    if (until(envelope.data.status)) return envelope.data;
  }
}

// --- The status stream, as a payer's page reads it ----------------------------------------------------------

const streamLatencies = { open: [], settle: [] };

/**
 * Opens the order's status stream through the proxy (any kit process) and reads it: `pending` resolves at the
 * first status, `final` at a terminal one (the stream then ends). A stream that drops is opened again with
 * Last-Event-ID, and counted as an error.
 */
function watch(record) {
  const stream = { statuses: [], ended: undefined };
  let pending;
  let final;
  stream.pending = new Promise((resolve, reject) => (pending = { resolve, reject }));
  stream.final = new Promise((resolve, reject) => (final = { resolve, reject }));
  stream.final.catch(() => undefined);
  stream.pending.catch(() => undefined);
  const openedAt = performance.now();
  let lastEventId = '';
  // A signal of its own (fetch caps the listeners of a signal it is given at 1 500, and warns past them).
  const own = new AbortController();
  stop.signal.addEventListener('abort', () => own.abort(), { once: true });
  const connect = async () => {
    const response = await fetch(`${kitUrl}${MERCHANT_PATHS.events}`, {
      headers: { [ORDER_TOKEN_HEADER]: record.proof.orderToken, ...(lastEventId ? { 'Last-Event-ID': lastEventId } : {}) },
      signal: own.signal,
    });
    if (!response.headers.get('content-type')?.startsWith('text/event-stream')) {
      countError(`GET ${MERCHANT_PATHS.events}: ${response.status} ${await response.text()}`);
      // A gateway with no live target this instant (a fault's run): the page opens the stream again.
      if (FAULT && response.status >= 502) return;
      throw new CheckoutError('the status stream was refused');
    }
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    const events = new EventStreamReader(lastEventId);
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      for (const event of events.push(decoder.decode(value, { stream: true }))) {
        if (event.type === 'status') {
          const data = JSON.parse(event.data);
          lastEventId = event.lastEventId;
          stream.statuses.push(data.status);
          if (stream.statuses.length === 1) {
            streamLatencies.open.push(performance.now() - openedAt);
            pending.resolve(data);
          }
          if (data.status !== 'PENDING') {
            record.payerSawAt ??= Date.now();
            if (record.actedAt !== undefined) streamLatencies.settle.push(performance.now() - record.actedAt);
            final.resolve(data);
          }
        } else if (event.type === 'end') {
          stream.ended = JSON.parse(event.data).reason;
        }
      }
    }
  };
  (async () => {
    for (;;) {
      try {
        await connect();
      } catch (error) {
        if (stop.signal.aborted || error instanceof CheckoutError) {
          pending.reject(error);
          final.reject(error);
          return;
        }
        countError(`GET ${MERCHANT_PATHS.events}: network (${error?.cause?.code ?? error?.name})`);
      }
      if (stream.ended || stop.signal.aborted) return;
      countError(`GET ${MERCHANT_PATHS.events}: the stream dropped before its end`);
      await pause(500);
    }
  })();
  return stream;
}

// --- One checkout --------------------------------------------------------------------------------------------

const checkouts = [];
/** Checkouts whose payer walked away: they are looked at again once the clock has passed their expiry. */
const abandoned = [];

/** Creates the order, sees it pending, then does what the payer of its scenario does. */
async function checkout(index) {
  if (RATE !== undefined) await pause(runStartedAt + (index / RATE) * 1000 - performance.now());
  const scenario = SCENARIOS[index % SCENARIOS.length];
  const body = createBody(index, scenario);
  // The shop's server decides the order and renders its checkout token into the page.
  const { reference, amount, product, country, expireAt } = body;
  const checkoutToken = await issueCheckoutToken(DEFAULT_MERCHANT, { reference, amount, product, country, expireAt });
  const record = { index, scenario, reference, orderNo: undefined, status: undefined, failureCode: undefined, proof: { checkoutToken } };
  checkouts.push(record);
  const { envelope, token } = await kitAgain('create', body, { checkoutToken });
  expectCode('create', envelope, '00000');
  record.orderNo = envelope.data.orderNo;
  record.proof = { orderToken: token };
  if (SHARED) {
    // The payer's page opens the status stream at once; PENDING comes first.
    record.stream = watch(record);
    await record.stream.pending;
  } else {
    // The element starts polling as soon as the order is pending: the first check comes after one interval.
    await pollStatus(record, () => true);
  }
  if (scenario.then !== 'expire') record.actedAt = performance.now();
  switch (scenario.then) {
    case 'pay':
      await control((sandbox) => sandbox.payReferenceCode(envelope.data.referenceCode));
      break;
    case 'swipe success':
    case 'swipe fail':
      await control((sandbox) => sandbox.swipe(body.sn, scenario.then.slice('swipe '.length)));
      break;
    case 'resend, wrong otp, otp':
      expectCode('resendOtp', (await kitAgain('resendOtp', {}, record.proof)).envelope, '00000');
      expectCode('otp', (await kitAgain('otp', { otp: '00000000' }, record.proof)).envelope, '02001');
      expectCode('otp', (await kitAgain('otp', { otp: testValues.TEST_OTP }, record.proof)).envelope, '00000');
      break;
    case 'otp':
      expectCode('otp', (await kitAgain('otp', { otp: testValues.TEST_OTP }, record.proof)).envelope, '00000');
      break;
    case 'expire':
      abandoned.push(record);
      return;
  }
  // When the payment was made: the paying call's answer (the service settles the order as it answers).
  record.paidAt = Date.now();
  await settle(record);
}

async function settle(record) {
  const settled = record.stream ? await record.stream.final : await pollStatus(record);
  record.status = settled.status;
  record.failureCode = settled.failureCode ?? undefined;
}

/** Runs `task` for each item, `CONCURRENCY` at a time; a failed item is recorded and the others go on. */
const failures = [];
async function pool(items, task) {
  let next = 0;
  const worker = async () => {
    while (next < items.length && !stop.signal.aborted) {
      const item = items[next++];
      try {
        await task(item);
      } catch (error) {
        failures.push({ item, message: error instanceof Error ? error.message : String(error) });
        if (!(error instanceof CheckoutError)) countError(`checkout: ${error?.name ?? 'error'} ${error?.message ?? ''}`);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, items.length) }, worker));
}

// --- Start everything -------------------------------------------------------------------------------------------

/** Every process this run starts: none outlives it, however it ends (a time limit, Ctrl-C, an error). */
const children = new Set();
process.on('exit', () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});
const track = (child) => {
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
};

const callbacks = []; // what onCallback was given
const kitLog = []; // what the kit logged (it logs nothing when all goes well)
/**
 * The sandbox: in this process, or (with --redis) in a process of its own (bin/svc-sandbox.js), as the service is
 * elsewhere — this process then plays only the payers and the balancer's clients.
 */
async function startSandbox() {
  if (!SHARED) return createSandbox();
  const child = track(spawn(process.execPath, ['bin/svc-sandbox.js', '--port', '0', '--quiet'], {
    cwd: new URL('..', import.meta.url).pathname,
    stdio: ['ignore', 'pipe', 'inherit'],
  }));
  const url = await new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the sandbox exited (${code})`)));
    createInterface({ input: child.stdout }).on('line', (line) => {
      const found = /listening on (http:\/\/\S+)/.exec(line);
      if (found) resolve(found[1]);
    });
  });
  return {
    url,
    idle: () => pause(250), // its deliveries are not visible from here: a tick and a little more
    async close() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    },
  };
}
const sandbox = await startSandbox();
sandboxControl = new SandboxControl(sandbox.url, { signal: stop.signal, timeoutMs: REQUEST_TIMEOUT_MS });
let kitUrl;
let kitStack;
let proxy;
/** The run's Redis (a server with an append-only file, or a fault's cluster): `env` for the kits, `handle`, `close`. */
let redisServer;
const kitProcesses = [];
/** Each kit process with its name, for a fault that kills one. */
const kits = [];

/** A kit process (scripts/kit-process.mjs): its callbacks and log lines are this run's. */
async function startKitProcess(env, name) {
  const child = track(spawn(process.execPath, ['scripts/kit-process.mjs'], { cwd: new URL('..', import.meta.url).pathname, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] }));
  kitProcesses.push(child);
  kits.push({ name, child });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`a kit process exited (${code}): ${stderr.trim()}`)));
    createInterface({ input: child.stdout }).on('line', (line) => {
      const [kind, ...rest] = line.split(' ');
      if (kind === 'listening') resolve(rest[0]);
      else if (kind === 'callback') callbacks.push({ notifyId: rest[0], orderNo: rest[1], status: rest[2], source: rest[3], at: Number(rest[4]), kit: name });
      else if (kind === 'log') {
        kitLog.push(rest.slice(1).join(' '));
        if (process.env.LOAD_DEBUG) console.log(`  kit ${name}: ${rest.join(' ')}`);
      }
    });
  });
}

if (SHARED) {
  // The load balancer in a process of its own, as in a deployment (and off this process, which plays the payers).
  const balancer = track(fork(new URL('./round-robin-proxy.mjs', import.meta.url).pathname, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }));
  const [{ url: proxyUrl }] = await once(balancer, 'message');
  proxy = {
    url: proxyUrl,
    async close() {
      if (balancer.exitCode !== null || balancer.signalCode !== null) return;
      const exited = once(balancer, 'exit');
      balancer.kill('SIGTERM');
      await exited;
    },
  };
  kitUrl = proxy.url;
  try {
    if (FAULT) redisServer = await startFaultRedis(FAULT, track);
    else {
      const started = await startRedisServer();
      track(started.child);
      redisServer = { env: { REDIS_URL: started.url }, handle: started, close: () => started.close() };
    }
    const env = {
      SANDBOX_URL: sandbox.url,
      ...redisServer.env,
      ...(FAULT ? FAULTS[FAULT].kitEnv : {}),
      CALLBACK_URL: `${proxy.url}${MERCHANT_PATHS.callbacks}`,
      RETURN_URL_ORIGINS: RETURN_ORIGIN,
    };
    balancer.send({
      targets: await Promise.all(
        Array.from({ length: KITS }, (_, index) => startKitProcess({ ...env, ...redisServer.envFor?.(index, KITS) }, String.fromCharCode(65 + index))),
      ),
    });
  } catch (error) {
    console.error(`load: ${error.message}`);
    for (const child of kitProcesses) child.kill('SIGKILL');
    await redisServer?.close();
    await proxy.close();
    await sandbox.close();
    process.exit(1);
  }
} else {
  kitStack = await startStack({
    sandbox,
    handler: {
      returnUrlOrigins: [RETURN_ORIGIN],
      // Every payer of this run comes from 127.0.0.1: the per-client limits would count them as one.
      limits: { createsPerClient: false, statusPerClient: false, streamsPerClient: false },
      logger: { warn: (line) => kitLog.push(line), error: (line) => kitLog.push(line) },
      onCallback: (event) => {
        callbacks.push({ notifyId: event.notifyId, orderNo: event.body.orderNo, status: event.body.status });
      },
    },
  });
  kitUrl = kitStack.url;
}

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    console.error(`\nload: ${signal} while ${phase}; closing down.`);
    setTimeout(() => process.exit(1), 5_000).unref();
    closeAll().finally(() => process.exit(1));
  });
}

let closed = false;
async function closeAll() {
  if (closed) return;
  closed = true;
  stop.abort();
  await kitStack?.close();
  await proxy?.close();
  await Promise.all(
    kitProcesses.map(async (child) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    }),
  );
  await redisServer?.close();
  await sandbox.close();
}

const deadline = setTimeout(() => {
  const settledCount = checkouts.filter((item) => item.status).length;
  console.error(`\nload: timed out after ${TIMEOUT_S} s (--timeout) while ${phase}: ${settledCount} of ${CHECKOUTS} checkouts settled; closing down.`);
  // Whatever still waits is abandoned once the servers are closed; a close that hangs does not hold the exit.
  setTimeout(() => process.exit(1), 5_000).unref();
  closeAll().finally(() => process.exit(1));
}, TIMEOUT_S * 1000);

console.log(
  `load: ${CHECKOUTS} checkouts, ${CONCURRENCY} at a time, ` +
    (SHARED
      ? `${KITS} kit process${KITS > 1 ? 'es' : ''} sharing Redis behind a round-robin proxy, each payer streaming its status; `
      : `status polled every ${POLL_MS} ms through the kit; `) +
    `node ${process.version}, ${process.platform} ${process.arch}, ${availableParallelism()} CPUs`,
);

// --- Run ---------------------------------------------------------------------------------------------------------

if (process.env.LOAD_DEBUG) {
  setInterval(() => {
    const created = checkouts.filter((item) => item.orderNo).length;
    const streaming = checkouts.filter((item) => item.stream?.statuses.length > 0).length;
    const settledCount = checkouts.filter((item) => item.status).length;
    console.log(`  [${phase}] ${checkouts.length} started, ${created} created, ${streaming} streams with a status, ${settledCount} settled, ${callbacks.length} callbacks`);
  }, 5_000).unref();
}

/** When the checkouts began (performance.now()), for --rate. */
let runStartedAt = 0;
/** The fault's injection under way, and what it said, with the run's time of each line. */
let injection;
const faultLog = [];

/** Every checkout, then time passing for the abandoned ones; resolves to the seconds it took. */
async function run() {
  const started = performance.now();
  runStartedAt = started;
  if (FAULT) {
    await FAULTS[FAULT].before?.({ control, checkouts: CHECKOUTS });
    const say = (line) => faultLog.push(`${((performance.now() - started) / 1000).toFixed(1)} s: ${line}`);
    injection = pause(FAULT_AT_S * 1000).then(() =>
      FAULTS[FAULT].inject({ redis: redisServer.handle, kits, say, control }).catch((error) => say(`the fault failed: ${error.message}`)),
    );
  }
  await pool(
    Array.from({ length: CHECKOUTS }, (_, index) => index),
    checkout,
  );
  // Past their expiry, the sandbox closes the orders nobody paid.
  if (abandoned.length > 0 && !stop.signal.aborted) {
    phase = 'moving the clock past the abandoned orders\' expiry';
    await control((sandbox) => sandbox.advanceClock(EXPIRE_MINUTES + 1));
    await pool(abandoned, settle);
  }
  await injection;
  return (performance.now() - started) / 1000;
}

/**
 * In a fault's run: every settled order's outcome as the shop's onCallback took it, waited for until each settled
 * order has one (or the run's time is up), then two seconds more for any second one.
 */
async function handedOutcomes() {
  phase = "waiting for every outcome to reach the shop's onCallback";
  const handedOrders = () => new Set(callbacks.map((event) => event.orderNo));
  while (!checkouts.every((item) => !item.status || handedOrders().has(item.orderNo))) await pause(200);
  await pause(2_000);
}

/**
 * The sandbox's delivery attempts for this run's orders, once they have settled: callbacks go out as orders change
 * and on the sandbox's tick (every 200 ms), so wait until each settled order's delivery was acknowledged and none
 * is in flight, then two ticks more for any late or repeated one.
 */
async function settledDeliveries() {
  phase = 'waiting for every callback to be acknowledged';
  const ours = new Set(checkouts.map((item) => item.orderNo).filter(Boolean));
  const deliveries = async () => (await control((sandbox) => sandbox.callbacks())).filter((attempt) => ours.has(attempt.orderNo));
  for (;;) {
    await sandbox.idle();
    const acknowledged = new Set((await deliveries()).filter((attempt) => attempt.acknowledged).map((attempt) => attempt.orderNo));
    if (checkouts.every((item) => !item.status || acknowledged.has(item.orderNo))) break;
    await pause(200);
  }
  await pause(400);
  await sandbox.idle();
  return deliveries();
}

// --- Report -----------------------------------------------------------------------------------------------------

function report(elapsed) {
  const kitRequests = [...latencies.values()].reduce((sum, list) => sum + list.length, 0);
  const percentile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
  const ms = (value) => value.toFixed(1).padStart(8);
  console.log(
    `\nrun: ${elapsed.toFixed(1)} s for ${CHECKOUTS} checkouts (${(CHECKOUTS / elapsed).toFixed(1)} checkouts/s), ` +
      `${kitRequests} kit requests (${(kitRequests / elapsed).toFixed(0)} requests/s), ${controlCalls} control calls`,
  );
  console.log(`\n${'kit route'.padEnd(26)}${'requests'.padStart(9)}${'p50'.padStart(8)}${'p95'.padStart(8)}${'p99'.padStart(8)}${'max'.padStart(8)}  (ms)`);
  for (const [path, list] of [...latencies].sort((a, b) => a[0].localeCompare(b[0]))) {
    const sorted = [...list].sort((a, b) => a - b);
    const figures = [0.5, 0.95, 0.99].map((q) => ms(percentile(sorted, q))).join('');
    console.log(`${`POST ${path}`.padEnd(26)}${String(sorted.length).padStart(9)}${figures}${ms(sorted[sorted.length - 1])}`);
  }
  if (SHARED) {
    for (const [what, list] of [
      ['stream: opened to PENDING', streamLatencies.open],
      ['stream: payer acts to final', streamLatencies.settle],
    ]) {
      if (list.length === 0) continue;
      const sorted = [...list].sort((a, b) => a - b);
      const figures = [0.5, 0.95, 0.99].map((q) => ms(percentile(sorted, q))).join('');
      console.log(`${what.padEnd(26)}${String(sorted.length).padStart(9)}${figures}${ms(sorted[sorted.length - 1])}`);
    }
    const byKit = countBy(callbacks, (event) => event.kit);
    console.log(`\ncallbacks handled, by kit process: ${[...byKit].sort().map(([kit, n]) => `${kit} ${n}`).join(', ')}`);
  }
  console.log(`\nerrors: ${errors.size === 0 ? 'none' : [...errors].map(([kind, n]) => `${kind} ×${n}`).join('; ')}`);
  for (const failure of failures.slice(0, 5)) console.log(`  checkout ${failure.item.index ?? failure.item}: ${failure.message}`);
}

// --- Checks ------------------------------------------------------------------------------------------------------

const countBy = (list, key) => list.reduce((tally, item) => tally.set(key(item), (tally.get(key(item)) ?? 0) + 1), new Map());

async function verify(deliveries) {
  phase = 'checking';
  const checks = [];
  const check = (ok, what, detail) => checks.push({ ok, what, detail });

  check(
    failures.length === 0 && errors.size === 0 && kitLog.length === 0,
    'every checkout ran without a failed request or a kit warning',
    `${failures.length} failed checkouts, ${[...errors.values()].reduce((a, b) => a + b, 0)} errors, ${kitLog.length} kit log lines` +
      (kitLog[0] ? ` (first: ${kitLog[0]})` : ''),
  );

  // 1. One terminal state per order, the one its scenario leads to, the same through the kit and in the sandbox.
  const seen = await Promise.all(
    checkouts.map(async (item) => {
      const { envelope } = await kit('status', { reference: item.reference }, item.proof);
      return { item, status: envelope.data?.status, failureCode: envelope.data?.failureCode ?? undefined };
    }),
  );
  const inSandbox = (await control((sandbox) => sandbox.orders())).filter((order) => order.reference.startsWith(`load-${runId}-`));
  const sandboxCount = countBy(inSandbox, (order) => order.reference);
  const sandboxOrder = new Map(inSandbox.map((order) => [order.reference, order]));
  const wrong = seen.filter(({ item, status, failureCode }) => {
    const order = sandboxOrder.get(item.reference);
    return (
      sandboxCount.get(item.reference) !== 1 ||
      order.orderNo !== item.orderNo ||
      order.status !== status ||
      status !== item.status ||
      status !== item.scenario.ends ||
      failureCode !== item.scenario.failureCode
    );
  });
  check(
    checkouts.length === CHECKOUTS && inSandbox.length === CHECKOUTS && wrong.length === 0,
    'every order ended in exactly one terminal state, the one its scenario leads to (kit status query and GET /sandbox/v1/orders agree)',
    `${[...countBy(seen, (entry) => entry.status)].map(([status, n]) => `${status} ${n}`).join(', ')}; ${inSandbox.length} orders in the sandbox; ` +
      `${wrong.length} wrong${wrong[0] ? ` (first: ${wrong[0].item.reference} ${wrong[0].status}, expected ${wrong[0].item.scenario.ends})` : ''}`,
  );

  // 2. The delivery log: each order changed once (PENDING to terminal), so one notifyId, acknowledged once, with that status.
  const attempts = new Map();
  for (const attempt of deliveries) attempts.set(attempt.orderNo, [...(attempts.get(attempt.orderNo) ?? []), attempt]);
  const acknowledged = deliveries.filter((attempt) => attempt.acknowledged);
  const badDeliveries = checkouts.filter((item) => {
    const mine = attempts.get(item.orderNo) ?? [];
    const acks = mine.filter((attempt) => attempt.acknowledged);
    return new Set(mine.map((attempt) => attempt.notifyId)).size !== 1 || acks.length !== 1 || JSON.parse(acks[0].body).status !== item.status;
  });
  check(
    badDeliveries.length === 0,
    "each order's terminal change was delivered and acknowledged exactly once (GET /sandbox/v1/callbacks)",
    `${acknowledged.length} acknowledged deliveries for ${CHECKOUTS} orders, ${deliveries.length - acknowledged.length} unacknowledged attempts` +
      (deliveries.length > acknowledged.length
        ? ` (${[...countBy(deliveries.filter((attempt) => !attempt.acknowledged), (attempt) => attempt.status ?? `no answer: ${attempt.error ?? ''}`)].map(([answer, n]) => `${answer} ×${n}`).join(', ')}, each sent again)`
        : '') +
      `, ${badDeliveries.length} orders wrong`,
  );

  // 3. onCallback saw each acknowledged notifyId once, and nothing else: one per order, with its terminal status.
  const handed = countBy(callbacks, (event) => event.notifyId);
  const acknowledgedIds = new Set(acknowledged.map((attempt) => attempt.notifyId));
  const twice = [...handed].filter(([, n]) => n !== 1).length;
  const missing = [...acknowledgedIds].filter((notifyId) => !handed.has(notifyId)).length;
  const unknown = [...handed.keys()].filter((notifyId) => !acknowledgedIds.has(notifyId)).length;
  const perOrder = countBy(callbacks, (event) => `${event.orderNo} ${event.status}`);
  const orphans = checkouts.filter((item) => perOrder.get(`${item.orderNo} ${item.status}`) !== 1).length;
  check(
    twice === 0 && missing === 0 && unknown === 0 && orphans === 0 && callbacks.length === CHECKOUTS,
    'each notifyId reached onCallback exactly once, one per order with its terminal status, and only acknowledged ones',
    `${callbacks.length} handed over, ${handed.size} distinct; ${twice} more than once, ${missing} acknowledged but not handed over, ` +
      `${unknown} never acknowledged, ${orphans} orders without exactly one`,
  );

  // 4. Each payer's stream saw the order's final status, and ended.
  if (SHARED) {
    const final = new Map(seen.map(({ item, status }) => [item, status]));
    const missed = checkouts.filter((item) => !item.stream || item.stream.statuses.at(-1) !== final.get(item) || item.stream.ended !== 'terminal');
    check(
      missed.length === 0,
      "each payer's status stream saw its order's final status, then its end",
      `${checkouts.length - missed.length} of ${checkouts.length} streams` +
        (missed[0] ? `; first wrong: ${missed[0].reference} saw ${missed[0].stream?.statuses.join(' > ')}, ended ${missed[0].stream?.ended}` : ''),
    );
  }

  console.log('\nchecks:');
  for (const { ok, what, detail } of checks) console.log(`  ${ok ? 'ok  ' : 'FAIL'} ${what}\n       ${detail}`);
  return checks.every((item) => item.ok);
}

/** The checks of a fault's run: each order settled as its scenario says, every outcome at the shop once, the targets. */
async function verifyFault() {
  phase = 'checking';
  const checks = [];
  const check = (ok, what, detail) => checks.push({ ok, what, detail });
  const seen = await Promise.all(
    checkouts.map(async (item) => ({ item, status: (await kit('status', { reference: item.reference }, item.proof)).envelope.data?.status })),
  );
  const wrong = seen.filter(({ item, status }) => status !== item.scenario.ends || status !== item.status);
  check(
    wrong.length === 0 && checkouts.length === CHECKOUTS,
    'every order ended in the terminal state its scenario leads to, and its payer saw it',
    `${checkouts.length - wrong.length} of ${CHECKOUTS}` + (wrong[0] ? `; first wrong: ${wrong[0].item.reference} ${wrong[0].status}, the payer saw ${wrong[0].item.status}` : ''),
  );
  const figures = faultFigures(checkouts, callbacks);
  check(figures.lost === 0, "no payment lost: each settled order's outcome reached onCallback", `${figures.lost} lost of ${figures.settled}` + (figures.firstLost ? ` (first: ${figures.firstLost.orderNo})` : ''));
  check(figures.doubled === 0, 'no payment doubled: onCallback took each order once', `${figures.doubled} doubled`);
  check(figures.payerP99 <= 15_000, 'payment -> the payer seeing it, p99 within 15 s', `${(figures.payerP99 / 1000).toFixed(2)} s (max ${(figures.payerMax / 1000).toFixed(2)} s, ${figures.measured.payer} payments)`);
  if (FAULT === 'drop-callbacks') {
    const bound = (DROPPED_RECONCILE.quietSeconds + DROPPED_RECONCILE.sweepSeconds) * 1000;
    check(figures.shopP99 <= bound, `payment -> the shop's hook, p99 within one sweep (quiet ${DROPPED_RECONCILE.quietSeconds} s + sweep ${DROPPED_RECONCILE.sweepSeconds} s)`, `${(figures.shopP99 / 1000).toFixed(2)} s`);
  }
  console.log(`\nfault: ${FAULT}: ${FAULTS[FAULT].what}`);
  for (const line of faultLog) console.log(`  ${line}`);
  console.log(
    `\n  lost ${figures.lost}, doubled ${figures.doubled}, payment -> payer p99 ${(figures.payerP99 / 1000).toFixed(2)} s, ` +
      `payment -> shop hook p99 ${(figures.shopP99 / 1000).toFixed(2)} s (max ${(figures.shopMax / 1000).toFixed(2)} s)`,
  );
  for (const item of checkouts.filter((entry) => callbacks.filter((event) => event.orderNo === entry.orderNo).length > 1).slice(0, 3)) {
    const handed = callbacks.filter((event) => event.orderNo === item.orderNo).map((event) => `${event.kit} ${event.source} at +${((event.at - item.paidAt) / 1000).toFixed(2)} s`);
    console.log(`  doubled: ${item.orderNo} (${item.scenario.name}): ${handed.join('; ')}`);
  }
  console.log(`  medians: payment -> payer ${(figures.payerP50 / 1000).toFixed(2)} s, payment -> shop hook ${(figures.shopP50 / 1000).toFixed(2)} s`);
  if (process.env.LOAD_DEBUG) {
    for (const item of checkouts.filter((entry) => entry.paidAt).sort((a, b) => (callbacks.find((e) => e.orderNo === b.orderNo)?.at ?? 0) - b.paidAt - ((callbacks.find((e) => e.orderNo === a.orderNo)?.at ?? 0) - a.paidAt)).slice(0, 5)) {
      const event = callbacks.find((entry) => entry.orderNo === item.orderNo);
      console.log(`    slowest: ${item.scenario.name}: payer +${((item.payerSawAt - item.paidAt) / 1000).toFixed(2)} s, shop +${((event.at - item.paidAt) / 1000).toFixed(2)} s by ${event.kit}`);
    }
  }
  console.log(`  outcomes by source: ${[...figures.sources].map(([source, n]) => `${source} ${n}`).join(', ')}; kit log lines: ${kitLog.length}`);
  for (const line of [...new Set(kitLog.map((text) => text.replace(/\d+/g, 'N').slice(0, 140)))].slice(0, 8)) console.log(`    ${line}`);
  console.log('\nchecks:');
  for (const { ok, what, detail } of checks) console.log(`  ${ok ? 'ok  ' : 'FAIL'} ${what}\n       ${detail}`);
  return checks.every((item) => item.ok);
}

let passed = false;
try {
  const elapsed = await run();
  const deliveries = FAULT ? (await handedOutcomes(), []) : await settledDeliveries();
  report(elapsed);
  passed = FAULT ? await verifyFault() : await verify(deliveries);
  console.log(`\nload: ${passed ? 'all checks passed' : 'some checks FAILED'}`);
} catch (error) {
  console.error(`\nload: stopped while ${phase}: ${error instanceof Error ? error.message : String(error)}`);
} finally {
  clearTimeout(deadline);
  await closeAll();
}
process.exitCode = passed ? 0 : 1;
