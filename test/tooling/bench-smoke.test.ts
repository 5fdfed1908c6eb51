// `npm run bench` runs whole (issue 43): bench/run.mjs on its smoke load (--smoke, bench/load.mjs) runs every section,
// each to its figures and the final table, and leaves no process behind. Its figures mean nothing: none is read.
// dist/ is built before vitest runs (npm test builds first; after a change to src/, npm run build).
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** 35 to 45 s alone on two cores; npm test runs other files beside it. */
const TIMEOUT_MS = 240_000;
/** Set in the bench's environment, which the processes it starts inherit (Chromium's helpers aside: benchProcesses). */
const MARKER = 'SVC_BENCH_SMOKE_RUN';
/** How long the bench may take to exit once it has printed its last line. */
const EXIT_GRACE_MS = 15_000;

/** A live process (zombies have gone already): its session, and whether this run's marker is in its environment. */
interface Running {
  pid: number;
  session: number;
  marked: boolean;
}

async function running(run: string): Promise<Running[]> {
  const found: Running[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = await readFile(`/proc/${entry}/stat`, 'latin1');
      // After the command's name: state, parent, process group, session.
      const [state, , , session] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (state === 'Z') continue;
      const environment = await readFile(`/proc/${entry}/environ`, 'latin1');
      found.push({ pid: Number(entry), session: Number(session), marked: environment.split('\0').includes(`${MARKER}=${run}`) });
    } catch {
      // gone while listing
    }
  }
  return found;
}

/**
 * The bench's processes: those that carry the marker, and those in a session one of them leads (Chromium's helpers
 * are started with an environment of their own, in the session of the browser's process). `leaders`: the marked
 * processes seen so far, this listing's added.
 */
async function benchProcesses(run: string, leaders: Set<number>): Promise<number[]> {
  const all = await running(run);
  for (const { pid, marked } of all) if (marked) leaders.add(pid);
  return all.filter(({ marked, session }) => marked || leaders.has(session)).map(({ pid }) => pid);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const commandOf = async (pid: number) => (await readFile(`/proc/${pid}/cmdline`, 'latin1').catch(() => '(gone)')).replaceAll('\0', ' ').trim();

/** The section titles bench/run.mjs measures, in order, from its source: `await section('Title', …)`. */
async function sectionTitles(): Promise<string[]> {
  const source = await readFile(`${ROOT}bench/run.mjs`, 'utf8');
  return [...source.matchAll(/\bsection\('([^']+)'/g)].map((match) => match[1] ?? '');
}

describe('npm run bench', () => {
  it(
    'runs every section once on the smoke load, each to a figure, prints the table, and leaves no process behind',
    async () => {
      const titles = await sectionTitles();
      expect(titles.length).toBeGreaterThanOrEqual(9);
      const run = randomUUID();
      const began = performance.now();
      // Its own process group, so that a run cut short can be ended whole.
      const bench = spawn(process.execPath, ['bench/run.mjs', '--smoke'], {
        cwd: ROOT,
        env: { ...process.env, [MARKER]: run },
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
      });
      let stdout = '';
      let stderr = '';
      bench.stdout.on('data', (chunk) => (stdout += chunk));
      bench.stderr.on('data', (chunk) => (stderr += chunk));
      // The processes it starts, looked for while it runs: a browser's helpers are known by their browser's session.
      const leaders = new Set(bench.pid === undefined ? [] : [bench.pid]);
      let ended = false;
      const watching = (async () => {
        for (; !ended; await sleep(250)) await benchProcesses(run, leaders);
      })();
      try {
        const code = await new Promise<number | string>((resolve, reject) => {
          const timer = setTimeout(() => resolve('timed out'), TIMEOUT_MS - 20_000);
          // Its last line printed, it has nothing left to do: a process it started that is still running keeps it alive.
          const printed = () => {
            if (stdout.lastIndexOf('\nSMOKE RUN') <= 0) return;
            bench.stdout.off('data', printed);
            setTimeout(() => resolve(`still running ${EXIT_GRACE_MS / 1000} s after its last line`), EXIT_GRACE_MS).unref();
          };
          bench.stdout.on('data', printed);
          bench.once('error', reject);
          bench.once('close', (exitCode, signal) => {
            clearTimeout(timer);
            resolve(exitCode ?? String(signal));
          });
        });
        ended = true;
        await watching;
        const seconds = ((performance.now() - began) / 1000).toFixed(0);
        // The bench awaits the end of every process it starts; a browser's helpers may take a moment more.
        let left = await benchProcesses(run, leaders);
        for (let wait = 0; left.length > 0 && wait < 30 && code === 0; wait++) {
          await sleep(100);
          left = await benchProcesses(run, leaders);
        }
        const running = (await Promise.all(left.map(commandOf))).map((command) => command.slice(0, 200));
        const tail = (text: string) => text.split('\n').slice(-40).join('\n');
        const said = `stderr:\n${tail(stderr)}\nstdout:\n${tail(stdout)}\nits processes running:\n${running.join('\n')}`;
        expect(code, `node bench/run.mjs --smoke: ${code} after ${seconds} s\n${said}`).toBe(0);
        expect(running, 'processes the bench left running').toEqual([]);

        const lines = stdout.split('\n');
        expect(lines[0]).toMatch(/^SMOKE RUN\b/);
        expect(lines.filter((line) => line.startsWith('## ')).map((line) => line.slice(3))).toEqual(titles);
        const tableAt = lines.findIndex((line) => /^\| what +\| figure +\| compared with +\| target +\| met\? +\|$/.test(line));
        expect(tableAt, 'the final table').toBeGreaterThan(0);

        // The table: a bold line for each section, then its rows, one a line; the first cell says what, the second the figure.
        const table = lines.slice(tableAt + 2).filter((line) => line.startsWith('| '));
        const cells = (line: string) => line.slice(2, -2).split(' | ').map((cell) => cell.trim());
        const bold = table.map((line, index) => ({ title: /^\*\*(.+)\*\*$/.exec(cells(line)[0] ?? '')?.[1], index })).filter((entry) => entry.title !== undefined);
        expect(bold.map((entry) => entry.title)).toEqual(titles);
        for (const [position, { title, index }] of bold.entries()) {
          const rows = table.slice(index + 1, bold[position + 1]?.index ?? table.length).map(cells);
          expect(rows.length, `rows of the section "${title}"`).toBeGreaterThan(0);
          // Each row printed as it was measured, under its own section's header: `  what: figure`.
          const from = lines.indexOf(`## ${title}`);
          const to = lines.findIndex((line, at) => at > from && (line.startsWith('## ') || at === tableAt));
          const printed = lines.slice(from, to);
          for (const [what, figure] of rows) {
            expect(figure, `the figure of "${what}" (${title})`).not.toBe('');
            expect(printed.some((line) => line.startsWith(`  ${what}: ${figure}`)), `"${what}" printed in its section (${title})`).toBe(true);
          }
        }
        expect(lines.at(-2)).toMatch(/^SMOKE RUN\b/);
      } finally {
        // What is left of a run cut short or leaking: its process group, and every process of its own found.
        ended = true;
        await watching;
        try {
          if (bench.pid !== undefined) process.kill(-bench.pid, 'SIGKILL');
        } catch {
          // the group has ended
        }
        for (const pid of await benchProcesses(run, leaders)) {
          try {
            process.kill(pid, 'SIGKILL');
          } catch {
            // ended meanwhile
          }
        }
      }
    },
    TIMEOUT_MS,
  );
});
