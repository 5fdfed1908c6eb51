// Polling cost: requests made and the delay before a payment is noticed, over waits of up to 30 minutes on the
// sandbox clock, for the ReferenceCode and POS flows. The element's StatusPoller runs on a virtual clock in a worker
// (bench/polling-worker.mjs); the merchant kit and the sandbox run here, on 127.0.0.1.
import { once } from 'node:events';
import { createServer } from 'node:http';
import { Worker } from 'node:worker_threads';
import { createSandbox, DEFAULT_MERCHANT } from '../dist/sandbox/index.js';
import { createMerchantHandler, toNodeListener } from '../dist/server/index.js';
import { LOAD } from './load.mjs';
import { quantile } from './stats.mjs';

export const REQUEST_TARGET = 60;
export const NOTICE_TARGET_MS = 3_000;
const { noPaymentMinutes: NO_PAYMENT_MINUTES, firstMinutePayments, laterMinutes, laterOffsetsSeconds } = LOAD.polling;
/** Twenty moments over the first minute (the full load), one in each 3 s, each at another point of the 2.5 s cycle. */
const FIRST_MINUTE_PAYMENTS = Array.from({ length: firstMinutePayments }, (_, index) => Math.round(3_000 * (index + ((0.5 + index * 0.618_034) % 1))));
/** Later moments (the full load): 5, 10 and 20 minutes, and 20 s and 40 s after each. */
const LATER_PAYMENTS = laterMinutes.flatMap((minutes) => laterOffsetsSeconds.map((offset) => minutes * 60_000 + offset * 1_000));

const seconds = (ms) => `${(ms / 1000).toFixed(2)} s`;

export async function measurePolling(row, note) {
  const sandbox = await createSandbox();
  const handler = createMerchantHandler({
    merchantId: DEFAULT_MERCHANT.merchantId,
    privateKey: DEFAULT_MERCHANT.privateKey,
    environment: { baseUrl: sandbox.url },
    limits: { createsPerClient: false, messagesPerEmail: false, messagesPerPhone: false },
    // The kit keeps the sandbox's time, which the worker moves to each check's virtual moment: checks seconds apart
    // there are seconds apart for the kit too (it answers queries within a second of each other with one answer).
    now: () => sandbox.clock.now(),
    logger: { warn() {}, error() {} },
  });
  const server = createServer(toNodeListener(handler));
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const worker = new Worker(new URL('./polling-worker.mjs', import.meta.url), {
      workerData: {
        kitUrl: `http://127.0.0.1:${server.address().port}`,
        sandboxUrl: sandbox.url,
        expireAtMinutes: 60,
        noPaymentMinutes: NO_PAYMENT_MINUTES,
        firstMinutePayments: FIRST_MINUTE_PAYMENTS,
        laterPayments: LATER_PAYMENTS,
      },
    });
    const [results] = await Promise.race([
      once(worker, 'message'),
      once(worker, 'error').then(([error]) => Promise.reject(error)),
    ]);
    await worker.terminate();

    note(`\nPolling: the element's StatusPoller (dist), base interval ${results.intervalMs} ms, on a virtual clock; every check a real status`);
    note('request through the kit to the sandbox, whose clock is moved to the same moment first (fractional minutes).');
    for (const [flow, result] of Object.entries(results.flows)) {
      const label = flow === 'Pos' ? 'POS' : flow;
      row({
        what: `${label}: status requests in a ${NO_PAYMENT_MINUTES}-minute wait, no payment`,
        figure: `${result.requests}`,
        compared: `last at ${seconds(result.lastCheckMs)}; status seen ${result.statuses.join(', ')}`,
        target: `≤ ${REQUEST_TARGET}`,
        met: result.requests <= REQUEST_TARGET,
      });
      const firstDelays = result.firstMinute.map((entry) => entry.delayMs);
      const firstWorst = Math.max(...firstDelays);
      row({
        what: `${label}: payment noticed, paid in the first minute (${firstDelays.length} moments)`,
        figure: `worst ${seconds(firstWorst)}, median ${seconds(quantile(firstDelays, 0.5))}`,
        compared: `checks every ${seconds(results.intervalMs)} there`,
        target: `≤ ${seconds(NOTICE_TARGET_MS)}`,
        met: firstWorst <= NOTICE_TARGET_MS,
      });
      const laterDelays = result.later.map((entry) => entry.delayMs);
      row({
        what: `${label}: payment noticed, paid at ${laterMinutes.join(', ')} min (+${laterOffsetsSeconds.join(', ')} s)`,
        figure: `worst ${seconds(Math.max(...laterDelays))}, median ${seconds(quantile(laterDelays, 0.5))}`,
        compared: `checks every ${seconds(results.backoff.at(-1) * results.intervalMs)} there`,
      });
      note(
        `  ${label}: status request through kit and sandbox, median ${quantile(result.statusMs, 0.5).toFixed(1)} ms; ` +
          `first-minute delays ${firstDelays.map((ms) => (ms / 1000).toFixed(1)).join(' ')} s`,
      );
    }
    note(`  the sandbox clock was moved ${results.advances} times; it was at most ${results.largestLeadMs.toFixed(0)} ms ahead of the poller's clock at a request`);
    return results;
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await sandbox.close();
  }
}
