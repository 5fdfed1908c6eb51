// `svc-sandbox [options] -- <command>`: a shop's `npm start`. The command runs beside the sandbox with its address and
// merchant in its environment; the sandbox stops with it, and passes it the signals it gets.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { fillPath } from '../../src/core/index.js';
import { SANDBOX_PATHS } from '../../src/sandbox/paths.js';
import { ServiceClient } from '../../src/server/index.js';
import { bankAccountRequest } from '../core/fixtures.js';
// @ts-expect-error a plain JavaScript module without types
import { assertDistFresh } from '../../scripts/dist-is-fresh.mjs';

beforeAll(() => assertDistFresh());

const bin = new URL('../../bin/svc-sandbox.js', import.meta.url).pathname;

/** svc-sandbox with `args`; its output as it comes, and its exit code. */
function sandboxCommand(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [bin, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const waitFor = async (pattern: RegExp) => {
    const end = Date.now() + 10_000;
    for (;;) {
      const match = pattern.exec(output);
      if (match) return match;
      if (Date.now() > end) throw new Error(`${pattern} not printed: ${output}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  };
  return { child, exit, waitFor, output: () => output };
}

/** A Node program for `--`: prints what it was given, then waits `ms` and exits with `code`. */
const program = (code: number, ms: number) =>
  `console.log('ENV ' + JSON.stringify({ url: process.env.SVC_BASE_URL, merchantId: process.env.SVC_MERCHANT_ID, privateKey: process.env.SVC_PRIVATE_KEY }));` +
  `setTimeout(() => process.exit(${code}), ${ms});`;

describe('svc-sandbox -- <command>', () => {
  it('runs the command with the sandbox’s address and merchant, under the merchant name given, and stops with its exit code', async () => {
    const run = sandboxCommand(['--port', '0', '--quiet', '--merchant-name', 'Corner Coffee', '--', process.execPath, '-e', program(3, 1_500)]);
    const env = JSON.parse((await run.waitFor(/^ENV (\{.*\})/m))[1]!) as { url: string; merchantId: string; privateKey: string };
    expect(env.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(env.merchantId).toBe('256612345678901');
    // What the shop does with them: an order, whose 3-D Secure page names the shop.
    const client = new ServiceClient({ merchantId: env.merchantId, privateKey: env.privateKey, environment: { baseUrl: env.url } });
    const created = await client.createPayment(bankAccountRequest({ reference: 'RUN-1', bankAccountNumber: '2215381200' }) as never);
    const page = await (await fetch(`${env.url}${fillPath(SANDBOX_PATHS.threeDsPage, { orderNo: created.data!.orderNo })}`)).text();
    expect(page).toContain('<dd>Corner Coffee</dd>');
    expect(await run.exit).toBe(3);
    await expect(fetch(env.url)).rejects.toThrow();
  });

  it('passes SIGTERM on to the command, then closes', async () => {
    const run = sandboxCommand(['--port', '0', '--quiet', '--', process.execPath, '-e', program(0, 60_000)]);
    await run.waitFor(/^ENV /m);
    run.child.kill('SIGTERM');
    expect(await run.exit).toBe(0);
  });

  it('passes on a signal that comes while the command is being started', async () => {
    const run = sandboxCommand(['--port', '0', '--quiet', '--', process.execPath, '-e', program(0, 60_000)]);
    await run.waitFor(/^svc-sandbox: running /m);
    run.child.kill('SIGTERM');
    expect(await run.exit).toBe(0);
  });

  it('takes its port from SVC_SANDBOX_PORT when no --port is given (a shop’s npm start cannot be given one)', async () => {
    const run = sandboxCommand(['--quiet', '--', process.execPath, '-e', program(0, 200)], { SVC_SANDBOX_PORT: '0' });
    const url = (await run.waitFor(/listening on (\S+)/))[1]!;
    expect(url).not.toContain(':4010');
    expect(await run.exit).toBe(0);
  });

  it('refuses -- with nothing after it, and says how to pick another port when its own is taken', async () => {
    const empty = sandboxCommand(['--port', '0', '--']);
    expect(await empty.exit).toBe(2);
    expect(empty.output()).toContain('-- must be followed by a command');
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    try {
      const port = (taken.address() as { port: number }).port;
      const busy = sandboxCommand(['--port', String(port)]);
      expect(await busy.exit).toBe(2);
      expect(busy.output()).toContain('EADDRINUSE');
      expect(busy.output()).toContain('--port 0, or SVC_SANDBOX_PORT=0, picks a free port');
    } finally {
      taken.close();
    }
  });
});
