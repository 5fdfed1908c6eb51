// npm run bench: sizes and speeds of what ships, each figure beside what it is compared with, all measured in this
// run, and one table at the end. It reports; it never fails on a figure. A section that throws says so where it
// stopped, the run goes on to the next, and exits 1 after the table. Compare runs made on the same machine.
//   bench/size.mjs          the CDN file against a one-input Lit element (bench/floor/), and what takes its bytes
//   bench/startup.mjs       start-up in headless Chromium, the CDN file against the same floor element
//   bench/pay-page.mjs      the kit's pay page: its bytes before the payer acts, and its start-up beside the element on a
//                           plain page of the same kit
//   bench/pay-elsewhere.mjs "Pay on your phone": callback to the receipt on the second device (the desktop window that
//                           showed the form while a phone-sized one made the order), p99
//   bench/isolated.mjs      Bank account chosen to a field to type in: the isolated frame against the inline form
//   bench/lighthouse.mjs    Lighthouse on examples/shop, mobile: score, text compression, render-blocking requests,
//                           layout shift, and the placeholder's stylesheet blocking against not
//   bench/polling.mjs       the element's poller over a 30-minute wait on the sandbox clock
//   bench/stream.mjs        the status stream: callback-to-payer latency, queries in a 30-minute wait, open streams
//   bench/kit-overhead.mjs  status and create through the merchant kit against a bare forwarder (bench/forwarder.mjs),
//                           and on Deno and Bun against a bare forwarder of each (bench/runtime-server.mjs)
//   bench/channels.mjs      status through the kit before its diagnostics channels, with them and nobody listening, and
//                           with a subscriber on every channel
//   bench/micro.mjs         signing, validation, canonical JSON; kit and sandbox in one process
// `node bench/run.mjs --smoke` (or BENCH_SMOKE=1) runs every section once on a tiny load (bench/load.mjs): its figures
// mean nothing; test/tooling/bench-smoke.test.ts runs it in npm test, so that no section stops running unnoticed.
import { availableParallelism, cpus } from 'node:os';
import { performance } from 'node:perf_hooks';
import { measureChannels } from './channels.mjs';
import { measureIsolated } from './isolated.mjs';
import { measureKitOverhead } from './kit-overhead.mjs';
import { measureLighthouse } from './lighthouse.mjs';
import { SMOKE } from './load.mjs';
import { measureMicro } from './micro.mjs';
import { measurePayPage } from './pay-page.mjs';
import { measureSecondDevice } from './pay-elsewhere.mjs';
import { measurePolling } from './polling.mjs';
import { measureSize } from './size.mjs';
import { measureStartUp } from './startup.mjs';
import { measureStream } from './stream.mjs';

process.chdir(new URL('..', import.meta.url).pathname);

const SMOKE_WARNING = 'SMOKE RUN (bench/load.mjs): every section once on a tiny load; its figures mean nothing, compare none of them';
if (SMOKE) console.log(SMOKE_WARNING);

const sections = [];
let current;
const note = (line) => console.log(line);
/** One figure: what, the figure, what it is compared with, the target and whether it is met (when there is one). */
const row = (entry) => {
  current.rows.push(entry);
  console.log(`  ${entry.what}: ${entry.figure}${entry.compared ? ` | ${entry.compared}` : ''}${entry.target ? ` | target ${entry.target}` : ''}`);
};
/** The sections that threw: each said where it stopped, and the run went on to the next; the run fails at its end. */
const failed = [];
async function section(title, measure) {
  current = { title, rows: [] };
  sections.push(current);
  const start = performance.now();
  console.log(`\n## ${title}`);
  try {
    await measure();
  } catch (error) {
    failed.push(title);
    console.log(`  FAILED: ${error?.message ?? error} (stack on stderr)`);
    console.error(`## ${title}: failed\n`, error);
  }
  console.log(`  (${((performance.now() - start) / 1000).toFixed(1)} s)`);
}

const began = performance.now();
let built;
await section('Size', async () => {
  built = await measureSize(row, note);
});
await section('Headless Chromium: start-up, and the minified CSS', () => measureStartUp(row, note, built));
await section('Isolated fields: the bank account details in their frame', () => measureIsolated(row, note));
await section('The pay page of a payment link', () => measurePayPage(row, note));
await section('Pay on your phone: the receipt on the second device', () => measureSecondDevice(row, note));
await section('Lighthouse: the whole-shop example on a phone', () => measureLighthouse(row, note));
let polling;
await section('Polling cost', async () => {
  polling = await measurePolling(row, note);
});
await section('Status stream', () => measureStream(row, note, polling));
await section('Merchant kit overhead', () => measureKitOverhead(row, note));
await section('Diagnostics channels', () => measureChannels(row, note));
await section('Building blocks', () => measureMicro(row));

const header = ['what', 'figure', 'compared with', 'target', 'met?'];
const cells = (entry) => [entry.what, entry.figure, entry.compared ?? '', entry.target ?? '', entry.target ? (entry.met ? 'yes' : 'no') : ''];
const lines = sections.flatMap((part) => part.rows.map(cells));
const widths = header.map((title, column) => Math.max(title.length, ...lines.map((values) => values[column].length)));
const line = (values) => `| ${values.map((value, column) => value.padEnd(widths[column])).join(' | ')} |`;
console.log(`\n${line(header)}`);
console.log(`|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`);
for (const part of sections) {
  console.log(line([`**${part.title}**`, '', '', '', '']));
  for (const entry of part.rows) console.log(line(cells(entry)));
}
const cores = typeof availableParallelism === 'function' ? availableParallelism() : cpus().length;
console.log(`\nnode ${process.version}, ${process.platform} ${process.arch}, ${cores} cores (${cpus()[0]?.model ?? 'unknown CPU'}); ${((performance.now() - began) / 1000).toFixed(0)} s`);
if (SMOKE) console.log(SMOKE_WARNING);
if (failed.length > 0) {
  console.log(`\nFAILED: ${failed.length} section${failed.length > 1 ? 's' : ''} threw: ${failed.join('; ')}`);
  process.exitCode = 1;
}
