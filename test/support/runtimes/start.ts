/**
 * Starts the runner (runner.ts) in a real runtime, from the binaries the runtimes' npm packages install: Deno and
 * Bun as processes of their own, workerd through miniflare (which starts workerd), the Edge Runtime through its
 * own server (a Node host, as `edge-runtime --listen` and `vercel dev` run it). Each gets the runner bundled by
 * esbuild, as the runtime's deploy tool would bundle a shop's code, and its configuration where that runtime
 * keeps a shop's settings.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { build } from 'esbuild';
import type { KitAppConfig } from './kit-app.js';

export const RUNTIMES = ['deno', 'bun', 'workerd', 'workerd-nodejs-compat', 'edge-runtime'] as const;
export type RuntimeName = (typeof RUNTIMES)[number];

const root = new URL('../../../', import.meta.url).pathname;
export const bin = (name: string) => join(root, 'node_modules', '.bin', name);
/** The compatibility date the Worker runs under (workerd's behaviour as of that day). */
export const COMPATIBILITY_DATE = '2026-04-01';

export interface StartedRuntime {
  name: RuntimeName;
  url: string;
  /** Everything the runtime printed (stdout and stderr). */
  output(): string;
  stop(): Promise<void>;
}

/** The runner as one file: an ES module, or a classic script for the Edge Runtime (which evaluates one). */
export async function bundle(entry: string, format: 'esm' | 'iife'): Promise<string> {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    format,
    platform: 'neutral',
    target: 'es2022',
    mainFields: ['module', 'main'],
    logLevel: 'silent',
  });
  return result.outputFiles[0]!.text;
}

const runnerEntry = new URL('./runner.ts', import.meta.url).pathname;
const workerEntry = new URL('./runner-worker.ts', import.meta.url).pathname;

/** A process that prints `listening on http://…`; its output kept. */
export async function spawnListening(command: string, args: string[], env: Record<string, string>, cwd: string): Promise<{ child: ChildProcess; url: string; output(): string }> {
  const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const lines = createInterface({ input: child.stdout! });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${command} did not listen within 20 s: ${output}`)), 20_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${command} exited (${code}) before it listened: ${output}`));
    });
    lines.on('line', (line) => {
      output += `${line}\n`;
      const match = /listening on (http:\/\/\S+?)\/?(?:\s|$)/.exec(line);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
  });
  return { child, url, output: () => output };
}

export async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}

/** The environment Deno and Bun run with here: no update check, no telemetry, their caches in `dir`. */
export function quietEnv(dir: string): Record<string, string> {
  return { DENO_DIR: join(dir, 'deno'), DENO_NO_UPDATE_CHECK: '1', DO_NOT_TRACK: '1', BUN_INSTALL_CACHE_DIR: join(dir, 'bun'), NO_COLOR: '1' };
}

/** Deno's permissions for the kit: the network on loopback and the environment; no files, no subprocesses. */
export const DENO_PERMISSIONS = ['--no-prompt', '--allow-net=127.0.0.1', '--allow-env'];

export async function startRuntime(name: RuntimeName, config: KitAppConfig): Promise<StartedRuntime> {
  const dir = mkdtempSync(join(tmpdir(), `svc-runtime-${name}-`));
  const cleanUp = () => rmSync(dir, { recursive: true, force: true });
  const KIT_CONFIG = JSON.stringify(config);
  try {
    switch (name) {
      case 'deno':
      case 'bun': {
        const file = join(dir, 'runner.mjs');
        writeFileSync(file, await bundle(runnerEntry, 'esm'));
        const args = name === 'deno' ? ['run', ...DENO_PERMISSIONS, '--no-config', file] : ['run', file];
        const started = await spawnListening(bin(name), args, { ...quietEnv(dir), KIT_CONFIG }, dir);
        return {
          name,
          url: started.url,
          output: started.output,
          async stop() {
            await stopProcess(started.child);
            cleanUp();
          },
        };
      }
      case 'workerd':
      case 'workerd-nodejs-compat': {
        const { Miniflare } = await import('miniflare');
        let output = '';
        const miniflare = new Miniflare({
          modules: true,
          script: await bundle(workerEntry, 'esm'),
          compatibilityDate: COMPATIBILITY_DATE,
          // Node's modules in the Worker, as many shops turn them on: then the kit finds node:crypto and node:http.
          compatibilityFlags: name === 'workerd-nodejs-compat' ? ['nodejs_compat'] : [],
          bindings: { KIT_CONFIG: JSON.stringify({ ...config, runtime: name }) },
          host: '127.0.0.1',
          port: 0,
          handleRuntimeStdio(stdout, stderr) {
            stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
            stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
          },
        });
        const url = (await miniflare.ready).origin;
        return {
          name,
          url,
          output: () => output,
          async stop() {
            await miniflare.dispose();
            cleanUp();
          },
        };
      }
      case 'edge-runtime': {
        const { EdgeRuntime, runServer } = await import('edge-runtime');
        const runtime = new EdgeRuntime({
          initialCode: await bundle(runnerEntry, 'iife'),
          // Vercel's Edge Functions read a project's settings and secrets from process.env, and nothing else of it.
          extend: (context) => Object.assign(context, { process: { env: { KIT_CONFIG } } }),
        });
        const server = await runServer({ runtime, host: '127.0.0.1', port: 0 });
        return {
          name,
          url: server.url.replace(/\/$/, ''),
          output: () => '',
          async stop() {
            await server.close();
            cleanUp();
          },
        };
      }
    }
  } catch (error) {
    cleanUp();
    throw error;
  }
}
