/**
 * Kit processes for the several-processes suites: scripts/kit-process.mjs (the built kit, its state in Redis) in a
 * child process each, read line by line: its address, every callback it handled, every status query it sent and
 * every line it logged.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';

const script = new URL('../../scripts/kit-process.mjs', import.meta.url).pathname;

export interface KitProcess {
  name: string;
  url: string;
  child: ChildProcess;
  /** `notifyId orderNo status` of every callback its onCallback handled. */
  callbacks: string[];
  queries: number;
  logs: string[];
  stop(): Promise<void>;
}

export async function startKitProcess(name: string, env: Record<string, string>): Promise<KitProcess> {
  const child = spawn(process.execPath, [script], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const kit: KitProcess = {
    name,
    url: '',
    child,
    callbacks: [],
    queries: 0,
    logs: [],
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
  const listening = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`kit ${name} did not start: ${stderr}`)), 10_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new KitExit(code, stderr));
    });
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const [kind, ...rest] = line.split(' ');
      if (kind === 'listening') {
        clearTimeout(timer);
        resolve(rest[0]!);
      } else if (kind === 'callback') kit.callbacks.push(rest.join(' '));
      else if (kind === 'query') kit.queries += 1;
      else if (kind === 'log') kit.logs.push(rest.join(' '));
    });
  });
  kit.url = await listening;
  return kit;
}

/** The kit process ended before it listened. */
export class KitExit extends Error {
  constructor(
    readonly code: number | null,
    readonly stderr: string,
  ) {
    super(`the kit exited (${code}): ${stderr}`);
  }
}
