// The kit's building blocks, each against the plain Node or JavaScript operation it adds to, and the kit in front of
// the sandbox in one process, against the same creates sent straight to the sandbox.
import { createHmac } from 'node:crypto';
import { createServer } from 'node:http';
import { performance } from 'node:perf_hooks';
import { canonicalJson, CHECKOUT_TOKEN_HEADER, SERVICE_PATHS, validateCreateRequest } from '../dist/core/index.js';
import { createSandbox, DEFAULT_MERCHANT } from '../dist/sandbox/index.js';
import { createMerchantHandler, issueCheckoutToken, MemoryThrottleStore, signCallback, signRequest, toNodeListener, verifyCallback } from '../dist/server/index.js';
import { LOAD } from './load.mjs';
import { quantile } from './stats.mjs';

const { rateMs, warmUp, oneAtATime, perRound } = LOAD.micro;

/** Runs `task` for about `ms`, three times; the median rate. */
async function rate(task, ms = rateMs) {
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
  return quantile(rates, 0.5);
}

const perSecond = (value) => `${Math.round(value).toLocaleString('en')} /s`;

export async function measureMicro(row) {
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
  const pairs = [
    [`signRequest, ${body.length}-byte body (node:crypto here)`, () => signRequest(body, key), 'node:crypto createHmac, same body', () => createHmac('sha512', key).update(body).digest('hex')],
    ['verifyCallback, same body', () => verifyCallback({ headers, body, privateKey: key }), 'signCallback, same body', () => signCallback(timestamp, body, key)],
    ['validateCreateRequest, ReferenceCode', () => validateCreateRequest(order), 'JSON.parse of the same body', () => JSON.parse(body)],
    ['canonicalJson, ReferenceCode order', () => canonicalJson(order), 'JSON.stringify, same order', () => JSON.stringify(order)],
  ];
  // The in-memory throttle store full, as under heavy use or an attack: each create opens windows for new keys.
  const store = new MemoryThrottleStore();
  let payer = 0;
  const newKey = () => `messagesPerEmail:payer-${++payer}@example.com`;
  for (let index = 0; index < 100_000; index++) store.hit(newKey(), 5, 3_600_000);
  const plain = new Map();
  pairs.push(['MemoryThrottleStore.hit, a new key each, at its 100 000-key bound', () => store.hit(newKey(), 5, 3_600_000), 'Map.set of a new key', () => plain.set(newKey(), { count: 1 }).size > 200_000 && plain.clear()]);
  for (const [what, task, against, baseline] of pairs) {
    const ours = await rate(task);
    const theirs = await rate(baseline);
    row({ what, figure: perSecond(ours), compared: `${against}: ${perSecond(theirs)}` });
  }

  // The kit in front of the sandbox, both in this process, over HTTP on 127.0.0.1.
  const sandbox = await createSandbox();
  const handler = createMerchantHandler({
    merchantId: DEFAULT_MERCHANT.merchantId,
    privateKey: key,
    environment: { baseUrl: sandbox.url },
    // One sender, one payer's contacts, one address: the kit's limits would count every create as the same payer's.
    limits: { createsPerClient: false, messagesPerEmail: false, messagesPerPhone: false },
    logger: { warn() {}, error() {} },
  });
  const server = createServer(toNodeListener(handler));
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const kit = `http://127.0.0.1:${server.address().port}`;
  let counter = 0;
  const check = async (response) => {
    const answer = await response.json();
    if (answer.code !== '00000') throw new Error(`unexpected ${answer.code}`);
  };
  // The checkout tokens the shop's server would have rendered, made before anything is timed.
  const tokens = [];
  // Each side's warm-up, its creates one at a time, and its share of four rounds of both.
  for (let index = 1; index <= warmUp + oneAtATime + 4 * perRound; index++) {
    const { reference: _reference, payMethod: _method, notify: _notify, ...decided } = order;
    tokens.push(await issueCheckoutToken({ merchantId: DEFAULT_MERCHANT.merchantId, privateKey: key }, { ...decided, reference: `bench-kit-${index}` }));
  }
  let kitCounter = 0;
  const sides = {
    kit: () => {
      const index = ++kitCounter;
      return fetch(`${kit}/payments`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', [CHECKOUT_TOKEN_HEADER]: tokens[index - 1] },
        body: JSON.stringify({ ...order, reference: `bench-kit-${index}` }),
      }).then(check);
    },
    direct: async () => {
      const text = canonicalJson({ ...order, reference: `bench-${++counter}` });
      const signed = await signRequest(text, key);
      await fetch(`${sandbox.url}${SERVICE_PATHS.create}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${signed}`, MerchantId: DEFAULT_MERCHANT.merchantId },
        body: text,
      }).then(check);
    },
  };
  try {
    for (const send of Object.values(sides)) for (let warm = 0; warm < warmUp; warm++) await send();
    const latencies = { kit: [], direct: [] };
    for (let index = 0; index < oneAtATime; index++) {
      // Turn by turn, so that both meet the same, growing, order book.
      for (const side of ['kit', 'direct']) {
        const start = performance.now();
        await sides[side]();
        latencies[side].push(performance.now() - start);
      }
    }
    const at = (side) => [0.5, 0.95, 0.99].map((q) => quantile(latencies[side], q).toFixed(2)).join(' / ');
    row({ what: 'create through kit + sandbox in one process, one at a time: p50 / p95 / p99', figure: `${at('kit')} ms`, compared: `straight to the sandbox, signed: ${at('direct')} ms` });

    // Four rounds of `perRound` each (200 in the full load), taking turns (the sandbox's book grows with every create).
    const concurrent = 16;
    const elapsed = { kit: 0, direct: 0 };
    for (let round = 0; round < 4; round++) {
      for (const side of round % 2 === 0 ? ['kit', 'direct'] : ['direct', 'kit']) {
        let next = 0;
        const start = performance.now();
        await Promise.all(
          Array.from({ length: concurrent }, async () => {
            while (next < perRound) {
              next++;
              await sides[side]();
            }
          }),
        );
        elapsed[side] += performance.now() - start;
      }
    }
    const rates = { kit: (4 * perRound) / (elapsed.kit / 1000), direct: (4 * perRound) / (elapsed.direct / 1000) };
    row({ what: `create through kit + sandbox in one process, ${concurrent} at a time`, figure: perSecond(rates.kit), compared: `straight to the sandbox, signed: ${perSecond(rates.direct)}` });
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await sandbox.close();
  }
}
