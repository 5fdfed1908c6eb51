// Runs the session's real StatusPoller (dist/checkout/poller.js) on a virtual clock, in a worker thread of its
// own (the poller's environment gets the virtual clock; Date.now is replaced too, for anything else): the merchant
// kit and the sandbox run in the main thread on real time. Time jumps from one timer to the next; before each
// check the sandbox's clock is moved to the same moment through its control API, and the check is a real status
// request to the kit (node:http, which keeps its own timers), which asks the sandbox.
import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { parentPort, workerData } from 'node:worker_threads';

const { kitUrl, sandboxUrl, expireAtMinutes, noPaymentMinutes, firstMinutePayments, laterPayments } = workerData;

// --- The virtual clock ----------------------------------------------------------------------------------------
const clock = { now: 0, nextId: 1, timers: new Map() };
globalThis.setTimeout = (callback, delay = 0) => {
  const id = clock.nextId++;
  clock.timers.set(id, { at: clock.now + Math.max(0, Number(delay) || 0), callback });
  return id;
};
globalThis.clearTimeout = (id) => {
  clock.timers.delete(id);
};
Date.now = () => clock.now;
/** What the poller reads of the page: a tab that stays visible and never goes offline, on the virtual clock. */
const environment = {
  now: () => clock.now,
  timers: { setTimeout: (callback, ms) => globalThis.setTimeout(callback, ms), clearTimeout: (id) => globalThis.clearTimeout(id) },
  visibility: { hidden: () => false, subscribe: () => () => {} },
  online: { subscribe: () => () => {} },
};

const { StatusPoller, DEFAULT_POLL_INTERVAL_MS, POLL_BACKOFF } = await import('../dist/checkout/poller.js');
const { DEFAULT_MERCHANT } = await import('../dist/sandbox/index.js');
const { issueCheckoutToken } = await import('../dist/server/index.js');
const { CHECKOUT_TOKEN_HEADER, ORDER_TOKEN_HEADER } = await import('../dist/core/index.js');
/** The sandbox's time: the kit keeps time with it (bench/polling.mjs), and checks tokens against it. */
async function sandboxNow() {
  const { body } = await call('GET', `${sandboxUrl}/sandbox/v1/clock`);
  return body.nowMs;
}

/** The timer due first (the earliest set first on a tie, as browsers run them). */
function nextTimer() {
  let next;
  for (const [id, timer] of clock.timers) if (!next || timer.at < next.at) next = { id, ...timer };
  return next;
}

// --- HTTP, with node:http ---------------------------------------------------------------------------------------
const agent = new Agent({ keepAlive: true });

function call(method, url, body, signal, headers = {}) {
  return new Promise((resolve, reject) => {
    // Every change goes as JSON, as the sandbox's control API requires.
    const text = method === 'GET' ? undefined : JSON.stringify(body ?? {});
    const outgoing = request(
      url,
      {
        method,
        agent,
        signal,
        headers: { ...(text === undefined ? {} : { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) }), ...headers },
      },
      (response) => {
        const chunks = [];
        response.on('data', (chunk) => chunks.push(chunk));
        response.on('end', () => {
          try {
            resolve({
              status: response.statusCode,
              body: JSON.parse(Buffer.concat(chunks).toString('utf8')),
              orderToken: response.headers[ORDER_TOKEN_HEADER.toLowerCase()],
            });
          } catch (error) {
            reject(error);
          }
        });
        response.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(text);
  });
}

// --- The sandbox's clock, kept at the virtual time --------------------------------------------------------------
/** How far the sandbox's clock was ahead of the virtual one when a request was made (it moves with real time too). */
let largestLeadMs = 0;
let advances = 0;

async function moveSandboxTo(virtualNow) {
  const { body } = await call('GET', `${sandboxUrl}/sandbox/v1/clock`);
  let sandboxNow = body.nowMs;
  if (sandboxNow < virtualNow) {
    // The control API takes minutes, fractions too.
    const moved = await call('POST', `${sandboxUrl}/sandbox/v1/clock/advance`, { minutes: (virtualNow - sandboxNow) / 60_000 });
    if (moved.status !== 200) throw new Error(`the sandbox clock did not move: ${JSON.stringify(moved.body)}`);
    sandboxNow = moved.body.nowMs;
    advances++;
  }
  largestLeadMs = Math.max(largestLeadMs, sandboxNow - virtualNow);
}

// --- Orders -------------------------------------------------------------------------------------------------
let serial = 0;

async function createOrder(flow) {
  serial++;
  const reference = `bench-poll-${process.pid}-${serial}`;
  const common = { reference, amount: { total: 12_500, currency: 'EGP' }, country: 'EG', expireAt: expireAtMinutes };
  const body =
    flow === 'ReferenceCode'
      ? {
          ...common,
          payMethod: 'ReferenceCode',
          product: { name: 'Espresso beans', description: 'Single-origin, 1 kg' },
          notify: { notifyUserName: 'Mona Hassan', notifyLanguage: 'English', notifyUserEmail: 'mona@example.com', notifyUserMobile: '+201001234567' },
        }
      : { ...common, payMethod: 'Pos', product: { name: 'Espresso beans' }, sn: `BENCH-${serial}` };
  // The shop's server decides the order and renders its checkout token; the page sends it with the create.
  const { payMethod: _method, sn: _sn, notify: _notify, ...decided } = body;
  const checkoutToken = await issueCheckoutToken(DEFAULT_MERCHANT, { ...decided, product: { description: 'Single-origin, 1 kg', ...decided.product } }, { now: await sandboxNow() });
  const { status, body: answer, orderToken } = await call('POST', `${kitUrl}/payments`, body, undefined, { [CHECKOUT_TOKEN_HEADER]: checkoutToken });
  if (status !== 200 || answer.code !== '00000' || answer.data?.status !== 'PENDING') {
    throw new Error(`the ${flow} order was not created: ${status} ${JSON.stringify(answer)}`);
  }
  return { flow, reference, sn: body.sn, referenceCode: answer.data.referenceCode, orderToken };
}

async function pay(order) {
  const path =
    order.flow === 'ReferenceCode' ? `/sandbox/v1/reference-codes/${order.referenceCode}/pay` : `/sandbox/v1/pos/${encodeURIComponent(order.sn)}/swipe`;
  const { status, body } = await call('POST', `${sandboxUrl}${path}`, order.flow === 'Pos' ? { outcome: 'success' } : undefined);
  if (status !== 200 || body.status !== 'SUCCESS') throw new Error(`the payment was refused: ${status} ${JSON.stringify(body)}`);
}

// --- One wait ---------------------------------------------------------------------------------------------------
/**
 * Creates an order and polls it as the element does from the moment it shows the next action, for at most
 * `horizonMs` of virtual time; pays it `payAtMs` after the start when given. A payment due at the very moment of
 * a check comes just after it. Returns the checks made (virtual time after the start, status, real duration).
 */
async function wait(flow, { horizonMs, payAtMs }) {
  const order = await createOrder(flow);
  const { body } = await call('GET', `${sandboxUrl}/sandbox/v1/clock`);
  clock.now = body.nowMs;
  clock.timers.clear();
  const origin = clock.now;
  const checks = [];
  let inFlight;
  const poller = new StatusPoller(
    {
      environment,
      check: (signal) => {
        inFlight = (async () => {
          await moveSandboxTo(clock.now);
          const began = performance.now();
          const answer = await call('POST', `${kitUrl}/payments/status`, {}, signal, { [ORDER_TOKEN_HEADER]: order.orderToken });
          const realMs = performance.now() - began;
          const status = answer.status === 200 && answer.body.code === '00000' ? answer.body.data?.status : undefined;
          checks.push({ atMs: clock.now - origin, status, realMs });
          return status;
        })().finally(() => {
          inFlight = undefined;
        });
        return inFlight;
      },
      onExpired: () => {},
      interval: () => DEFAULT_POLL_INTERVAL_MS,
    },
  );
  poller.connect();
  poller.start({ expiresAt: origin + expireAtMinutes * 60_000 });
  let paidAtMs;
  const settle = async () => {
    for (;;) {
      await new Promise((resolve) => setImmediate(resolve));
      if (!inFlight) return;
      await inFlight.catch(() => undefined);
    }
  };
  for (;;) {
    await settle();
    if (!poller.running) break;
    const timer = nextTimer();
    if (!timer) throw new Error('the poller is running with no timer set');
    if (payAtMs !== undefined && paidAtMs === undefined && origin + payAtMs < timer.at) {
      clock.now = origin + payAtMs;
      await moveSandboxTo(clock.now);
      await pay(order);
      paidAtMs = payAtMs;
      continue;
    }
    if (timer.at - origin > horizonMs) break;
    clock.now = timer.at;
    clock.timers.delete(timer.id);
    timer.callback();
  }
  poller.stop();
  return { checks, paidAtMs };
}

/** Pays at `payAtMs` and returns how long until the poller had SUCCESS in hand: virtual wait plus the real request. */
async function noticeDelay(flow, payAtMs) {
  const { checks } = await wait(flow, { horizonMs: (expireAtMinutes - 1) * 60_000, payAtMs });
  const seen = checks.find((check) => check.status === 'SUCCESS');
  if (!seen) throw new Error(`${flow}: a payment at ${payAtMs} ms was never seen`);
  return { payAtMs, delayMs: seen.atMs - payAtMs + seen.realMs, requests: checks.length };
}

const results = { intervalMs: DEFAULT_POLL_INTERVAL_MS, backoff: [...POLL_BACKOFF], flows: {} };
for (const flow of ['ReferenceCode', 'Pos']) {
  const idle = await wait(flow, { horizonMs: noPaymentMinutes * 60_000 });
  const statuses = new Set(idle.checks.map((check) => check.status));
  const firstMinute = [];
  for (const payAtMs of firstMinutePayments) firstMinute.push(await noticeDelay(flow, payAtMs));
  const later = [];
  for (const payAtMs of laterPayments) later.push(await noticeDelay(flow, payAtMs));
  results.flows[flow] = {
    requests: idle.checks.length,
    statuses: [...statuses],
    lastCheckMs: idle.checks.at(-1)?.atMs,
    statusMs: idle.checks.map((check) => check.realMs),
    firstMinute,
    later,
  };
}
results.largestLeadMs = largestLeadMs;
results.advances = advances;
agent.destroy();
parentPort.postMessage(results);
