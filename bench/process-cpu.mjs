// CPU time another process has used so far, for the bench's per-request CPU figures. Linux's schedstat counts each
// thread's time on a CPU in nanoseconds: the sum over the process's threads (its main thread, V8's and libuv's).
// /proc/<pid>/stat counts whole clock ticks (10 ms), which for a round of 800 requests is a step of 0.0125 ms per
// request, a tenth of the floor's own figure: it is the fallback where schedstat is missing.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_SECOND = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' })) || undefined;
  } catch {
    return undefined;
  }
})();

/** Throws where the kernel keeps no schedstat (no thread could be read), so that the caller falls back to ticks. */
function scheduledMs(pid) {
  let ns = 0;
  let read = 0;
  for (const thread of readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${thread}/schedstat`, 'utf8').split(' ')[0]);
      read += 1;
    } catch {
      // the thread ended between the listing and the read: its time is gone with it (Node's threads live as long as it does)
    }
  }
  if (read === 0) throw new Error(`no schedstat for process ${pid}`);
  return ns / 1e6;
}

function tickedMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
}

/** Milliseconds of CPU (user and system, every thread) process `pid` has used; undefined off Linux. */
export function cpuMsOf(pid) {
  try {
    return scheduledMs(pid);
  } catch {
    try {
      return TICKS_PER_SECOND ? tickedMs(pid) : undefined;
    } catch {
      return undefined;
    }
  }
}
