// Where a process's CPU time went, from a V8 CPU profile (`node --cpu-prof`; the bench writes the kit's with
// KIT_CPU_PROF=<directory>): self time by part (Node's HTTP, fetch, web streams, crypto, the kit's own code, garbage
// collection…) and the functions that took most. `node bench/cpu-profile.mjs <file.cpuprofile> [top]`.
import { readFileSync } from 'node:fs';

/** The part a frame belongs to, from its script's URL and its name. */
const PARTS = [
  ['idle', (url, name) => name === '(idle)'],
  ['garbage collection', (url, name) => name === '(garbage collector)'],
  ['V8 and native (program)', (url, name) => name === '(program)'],
  ['fetch (undici)', (url) => /undici|internal\/deps\/undici|fetch/.test(url)],
  ['web streams', (url) => /webstreams/.test(url)],
  ['WebCrypto', (url) => /internal\/crypto\/(webcrypto|mac|keys|util)/.test(url)],
  ['node:crypto', (url) => /internal\/crypto/.test(url)],
  ['Web Request/Response/Headers', (url) => /internal\/(url|event_target|abort_controller|blob)/.test(url)],
  ['node:http and sockets', (url) => /_http_|internal\/http|\bnet\b|stream_base|internal\/streams|_stream_|internal\/timers|internal\/process\/task_queues|events/.test(url)],
  ['the kit (dist/server)', (url) => /dist\/server\//.test(url)],
  ['core (dist/core)', (url) => /dist\/core\//.test(url)],
  ['bench', (url) => /bench\//.test(url)],
  ['native (no script)', (url) => url === ''],
  ['other Node internals', (url) => url.startsWith('node:')],
  ['other', () => true],
];

export function summarise(profile) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfUs = new Map();
  const deltas = profile.timeDeltas;
  for (let index = 0; index < profile.samples.length; index++) {
    const id = profile.samples[index];
    selfUs.set(id, (selfUs.get(id) ?? 0) + (deltas[index + 1] ?? 0));
  }
  const parts = new Map();
  const functions = new Map();
  let total = 0;
  for (const [id, us] of selfUs) {
    const { callFrame } = byId.get(id);
    const url = callFrame.url.replace(/^file:\/\/.*?\/(dist|bench)\//, '$1/');
    const part = PARTS.find(([, test]) => test(url, callFrame.functionName))[0];
    parts.set(part, (parts.get(part) ?? 0) + us);
    const name = `${callFrame.functionName || '(anonymous)'} ${url}:${callFrame.lineNumber + 1}`;
    functions.set(name, (functions.get(name) ?? 0) + us);
    if (part !== 'idle') total += us;
  }
  // Inclusive time: each sample counts once for every distinct function on its stack.
  const parentOf = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  const inclusive = new Map();
  for (const [id, us] of selfUs) {
    const seen = new Set();
    for (let at = id; at !== undefined; at = parentOf.get(at)) {
      const { callFrame } = byId.get(at);
      const name = `${callFrame.functionName || '(anonymous)'} ${callFrame.url.replace(/^file:\/\/.*?\/(dist|bench)\//, '$1/')}:${callFrame.lineNumber + 1}`;
      if (seen.has(name)) continue;
      seen.add(name);
      inclusive.set(name, (inclusive.get(name) ?? 0) + us);
    }
  }
  return { total, parts, functions, inclusive };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { total, parts, functions, inclusive } = summarise(JSON.parse(readFileSync(process.argv[2], 'utf8')));
  const top = Number(process.argv[3] ?? 25);
  const share = (us) => `${((100 * us) / total).toFixed(1).padStart(5)} %  ${(us / 1000).toFixed(0).padStart(6)} ms`;
  console.log(`busy: ${(total / 1000).toFixed(0)} ms (idle left out)`);
  for (const [part, us] of [...parts].filter(([part]) => part !== 'idle').sort((a, b) => b[1] - a[1])) console.log(`${share(us)}  ${part}`);
  console.log('');
  for (const [name, us] of [...functions].filter(([name]) => !name.startsWith('(idle)')).sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${share(us)}  ${name}`);
  if (process.argv[4]) {
    const pattern = new RegExp(process.argv[4]);
    console.log(`\ninclusive time of the functions matching ${pattern}:`);
    for (const [name, us] of [...inclusive].filter(([name]) => pattern.test(name)).sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${share(us)}  ${name}`);
  }
}
