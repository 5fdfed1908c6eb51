// How much each section of `npm run bench` measures: the full load, or the smoke load, which runs every section once,
// each of its comparisons, runtimes and processes, on a handful of requests, page loads and rounds: its figures mean
// nothing, it shows that every section still runs to its figures (test/tooling/bench-smoke.test.ts, in npm test).
// The switch, read here and nowhere else: `node bench/run.mjs --smoke`, or BENCH_SMOKE=1 in the environment (which a
// section run alone reads too: `BENCH_SMOKE=1 node bench/lighthouse.mjs`).

/** True for the smoke load. */
export const SMOKE = process.argv.includes('--smoke') || process.env.BENCH_SMOKE === '1';

const FULL = {
  /** bench/startup.mjs: page loads of each kind, after the warm-up ones (discarded). */
  startUp: { runs: 20, warmUpRuns: 2 },
  /** bench/isolated.mjs: page loads of each kind, after the warm-up ones (discarded). */
  isolated: { runs: 20, warmUpRuns: 2 },
  /**
   * bench/lighthouse.mjs: runs of each page (LIGHTHOUSE_RUNS, for a quick look), what each run is given besides the
   * section's own flags, and how the placeholder's stylesheet's three pages are throttled.
   */
  lighthouse: { runs: Number(process.env.LIGHTHOUSE_RUNS ?? 3), flags: {}, stylesheets: { throttlingMethod: 'devtools' } },
  /**
   * bench/polling.mjs: the wait with no payment, in minutes; the moments paid at in the first minute (how many); the
   * later moments, each minute with each offset in seconds.
   */
  polling: { noPaymentMinutes: 30, firstMinutePayments: 20, laterMinutes: [5, 10, 20], laterOffsetsSeconds: [0, 20, 40] },
  /**
   * bench/stream.mjs: callbacks timed one at a time; streams open on one kit, and how many connect at a time; the
   * wait counted in status queries, in minutes.
   */
  stream: { latencySamples: 300, openStreams: 2_000, opening: 100, waitMinutes: 30 },
  /** bench/pay-elsewhere.mjs: orders made on a phone-sized window and followed to the receipt by the desktop one. */
  secondDevice: { samples: 40 },
  /** bench/kit-overhead.mjs: rounds of each side, the requests that warm each up, and the requests of a round. */
  kitOverhead: { rounds: 7, warmUp: 300, counts: { status: 1_500, create: 800 } },
  /** bench/channels.mjs: over HTTP, rounds, requests of a round and of the warm-up; in one process, rounds and requests. */
  channels: { rounds: 15, count: 2_000, warmUp: 1_000, inProcessRounds: 21, inProcessCount: 3_000 },
  /**
   * bench/micro.mjs: how long each building block runs a round (three rounds); the kit and the sandbox in one process:
   * creates that warm each side up, creates one at a time, and creates of each of the four rounds 16 at a time.
   */
  micro: { rateMs: 500, warmUp: 50, oneAtATime: 400, perRound: 200 },
};

/**
 * Every section, each code path once: a page load of each kind after one warm-up, each runtime and each side with a
 * round of 16 requests, the shortest waits that still pass each moment the section pays at. About 45 s in all on two
 * cores, Lighthouse more than half of it.
 */
const SMOKE_LOAD = {
  startUp: { runs: 1, warmUpRuns: 1 },
  isolated: { runs: 1, warmUpRuns: 1 },
  // One run of each page, in about 5 s (7 s at Lighthouse's own settings): its quiet windows 250 ms instead of 1 s (at
  // 0, a trace missed the first paint now and then: NO_FCP), no full-page screenshot, and none of the audits that
  // take time and that the section does not read (bf-cache navigates away and back). The stylesheet's three pages
  // under simulated throttling, as the shop's page: Chromium's own throttling waits at least 5.25 s for each quiet
  // window (about 17 s a run).
  lighthouse: {
    runs: 1,
    flags: {
      pauseAfterFcpMs: 250,
      pauseAfterLoadMs: 250,
      networkQuietThresholdMs: 250,
      cpuQuietThresholdMs: 250,
      disableFullPageScreenshot: true,
      skipAudits: ['bf-cache', 'screenshot-thumbnails', 'final-screenshot'],
    },
    stylesheets: { throttlingMethod: 'simulate' },
  },
  polling: { noPaymentMinutes: 2, firstMinutePayments: 1, laterMinutes: [2], laterOffsetsSeconds: [0] },
  // Two waves of two streams opening.
  stream: { latencySamples: 2, openStreams: 4, opening: 2, waitMinutes: 2 },
  secondDevice: { samples: 1 },
  kitOverhead: { rounds: 1, warmUp: 16, counts: { status: 16, create: 16 } },
  channels: { rounds: 1, count: 16, warmUp: 16, inProcessRounds: 1, inProcessCount: 16 },
  micro: { rateMs: 5, warmUp: 1, oneAtATime: 2, perRound: 16 },
};

/** The load of this run. */
export const LOAD = SMOKE ? SMOKE_LOAD : FULL;
