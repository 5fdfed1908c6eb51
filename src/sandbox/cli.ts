/**
 * `svc-sandbox`: the sandbox as a command. Prints its base URL and the merchants it serves; stops cleanly
 * on SIGINT and SIGTERM. Given a command after `--`, runs it beside the sandbox with the sandbox's address and
 * merchant in its environment (a shop's `npm start`), and stops with it.
 */
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { SANDBOX_DEFAULT_PORT } from '../core/index.js';
import { SandboxConfigError } from './config.js';
import { DataFileError } from './world/persistence.js';
import { parseSandboxFile } from './scenarios/scenario-file.js';
import { createSandbox, type Sandbox, type SandboxOptions } from './server.js';
import { DEFAULT_MERCHANT } from './config.js';

const USAGE = `Usage: svc-sandbox [options] [-- <command> [args…]]

  -- <command>           run a command beside the sandbox (a shop: -- node server.mjs), with SVC_BASE_URL,
                         SVC_MERCHANT_ID, SVC_PRIVATE_KEY and SVC_SANDBOX=1 in its environment; stop when it stops
  --port <n>             port to listen on (default $SVC_SANDBOX_PORT, else ${SANDBOX_DEFAULT_PORT}; 0 picks a free one)
  --host <address>       address to listen on (default 127.0.0.1)
  --merchant-id <id>     the merchant's id (digits)
  --private-key <key>    the merchant's private key: signs requests and callbacks
  --public-key <key>     the merchant's public key: accepted on status queries
  --merchant-name <name> the shop's name, as the service knows it (its 3-D Secure page shows it)
  --webhook-url <url>    where callbacks go when an order has no callbackUrl
  --scenarios <file.json>
                         merchants, test values and VAT rates as data: {"merchants": [{merchantId, privateKey,
                         publicKey?, webhookUrl?, methods?, available?, name?}], "otp", "pin", "dateOfBirth",
                         "bankCode", "bankAccounts": {...}, "vatRates": {...}, "refundAmounts": {...}}
                         (README, "Scenarios as data"); each key changes the defaults
  --config <file.json>   the same format (once merchants only)
  --data <file.json>     keep orders, callbacks, faults, expectations and the clock in this file across
                         restarts (written atomically after every change; read at start)
  --public-url <url>     the address browsers reach the sandbox at (for the 3-D Secure page)
  --allow-remote-callbacks
                         send callbacks to hosts other than this machine (off: loopback only)
  --quiet                do not log requests
  --help                 show this text
`;

export async function main(argv: string[]): Promise<number> {
  const split = argv.indexOf('--');
  const command = split < 0 ? [] : argv.slice(split + 1);
  if (split >= 0 && command.length === 0) {
    process.stderr.write(`svc-sandbox: -- must be followed by a command to run\n\n${USAGE}`);
    return 2;
  }
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: split < 0 ? argv : argv.slice(0, split),
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        'merchant-id': { type: 'string' },
        'private-key': { type: 'string' },
        'public-key': { type: 'string' },
        'merchant-name': { type: 'string' },
        'webhook-url': { type: 'string' },
        config: { type: 'string' },
        scenarios: { type: 'string' },
        data: { type: 'string' },
        'public-url': { type: 'string' },
        'allow-remote-callbacks': { type: 'boolean' },
        quiet: { type: 'boolean' },
        help: { type: 'boolean' },
      },
      strict: true,
    }));
  } catch (error) {
    process.stderr.write(`svc-sandbox: ${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (values['help']) {
    process.stdout.write(USAGE);
    return 0;
  }
  // The environment's port is for the one place a command line cannot be changed: a shop's `npm start`.
  const port = Number(values['port'] ?? (process.env['SVC_SANDBOX_PORT'] || SANDBOX_DEFAULT_PORT));
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    process.stderr.write(`svc-sandbox: --port must be a whole number from 0 to 65535\n`);
    return 2;
  }
  const text = (name: string) => (typeof values[name] === 'string' ? (values[name] as string) : undefined);
  const options: SandboxOptions = {
    port,
    host: text('host') ?? '127.0.0.1',
    ...(text('merchant-id') ? { merchantId: text('merchant-id') } : {}),
    ...(text('private-key') ? { privateKey: text('private-key') } : {}),
    ...(text('public-key') ? { publicKey: text('public-key') } : {}),
    ...(text('webhook-url') ? { webhookUrl: text('webhook-url') } : {}),
    ...(text('merchant-name') ? { merchantName: text('merchant-name') } : {}),
    ...(text('public-url') ? { publicUrl: text('public-url') } : {}),
    ...(values['allow-remote-callbacks'] ? { allowRemoteCallbacks: true } : {}),
    ...(values['quiet'] ? {} : { log: (line: string) => process.stdout.write(`${line}\n`) }),
  };
  if (text('config') && text('scenarios')) {
    process.stderr.write('svc-sandbox: give --scenarios or --config, not both: they read the same format\n');
    return 2;
  }
  let sandbox;
  try {
    const file = text('scenarios') ?? text('config');
    if (file) {
      let content: string;
      try {
        content = await readFile(file, 'utf8');
      } catch (error) {
        throw new SandboxConfigError(`${file} cannot be read: ${(error as Error).message}`);
      }
      // Checked here, so that a problem names the file's line; the sandbox takes the document as it is.
      options.scenarios = parseSandboxFile(content, file).document;
    }
    if (text('data')) options.dataFile = text('data');
    sandbox = await createSandbox(options);
  } catch (error) {
    const known = error instanceof SandboxConfigError || error instanceof DataFileError;
    const busy = (error as { code?: string }).code === 'EADDRINUSE';
    const hint = busy ? ` (another sandbox? --port 0, or SVC_SANDBOX_PORT=0, picks a free port)` : '';
    process.stderr.write(`svc-sandbox: ${known ? error.message : (error as Error).message}${hint}\n`);
    return 2;
  }
  process.stdout.write(`svc-sandbox listening on ${sandbox.url}\n`);
  process.stdout.write(`  dashboard ${sandbox.url}/\n`);
  if (text('data')) process.stdout.write(`  state kept in ${text('data')}\n`);
  for (const merchant of sandbox.merchants) {
    const state = merchant.available ? merchant.methods.join(', ') : 'unavailable';
    // The built-in test key is printed so that a newcomer can copy it into their shop; a key of their own never is.
    const key = merchant.privateKey === DEFAULT_MERCHANT.privateKey ? `private key ${merchant.privateKey} (test values)` : 'private key as given (not shown)';
    process.stdout.write(`  merchant ${merchant.merchantId}, ${key}: ${state}${merchant.webhookUrl ? `, webhook ${merchant.webhookUrl}` : ''}\n`);
  }
  const running = sandbox;
  if (command.length > 0) return runBeside(running, command);
  await new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      process.stdout.write(`svc-sandbox: ${signal}, stopping\n`);
      void running.close().then(resolve);
    };
    process.once('SIGINT', () => stop('SIGINT'));
    process.once('SIGTERM', () => stop('SIGTERM'));
  });
  return 0;
}

/**
 * Runs `command` with the sandbox's address and its first merchant's test credentials in its environment (what
 * a shop reads: SVC_BASE_URL, SVC_MERCHANT_ID, SVC_PRIVATE_KEY) and SVC_SANDBOX=1 (a shop may set what only a
 * developer needs by it: the init shop's limits), passes SIGINT and SIGTERM on to it, and closes the sandbox when it
 * exits: the command's exit code is this one's.
 */
async function runBeside(sandbox: Sandbox, command: string[]): Promise<number> {
  const merchant = sandbox.merchants[0]!;
  // Listening before anything is started or said: a signal that comes meanwhile is passed on, never lost.
  let child: ReturnType<typeof spawn> | undefined;
  let stopping: NodeJS.Signals | undefined;
  const pass = (signal: NodeJS.Signals) => {
    stopping = signal;
    child?.kill(signal);
  };
  const onInterrupt = () => pass('SIGINT');
  const onTerminate = () => pass('SIGTERM');
  process.on('SIGINT', onInterrupt);
  process.on('SIGTERM', onTerminate);
  process.stdout.write(`svc-sandbox: running ${command.join(' ')} with SVC_BASE_URL=${sandbox.url}\n`);
  child = spawn(command[0]!, command.slice(1), {
    stdio: 'inherit',
    // Windows finds npm, npx and the like only through its shell.
    shell: process.platform === 'win32',
    env: { ...process.env, SVC_BASE_URL: sandbox.url, SVC_MERCHANT_ID: merchant.merchantId, SVC_PRIVATE_KEY: merchant.privateKey, SVC_SANDBOX: '1' },
  });
  if (stopping) child.kill(stopping);
  const started = child;
  const code = await new Promise<number>((resolve) => {
    started.once('error', (error) => {
      process.stderr.write(`svc-sandbox: ${command[0]} could not start: ${error.message}\n`);
      resolve(127);
    });
    started.once('exit', (exitCode, signal) => resolve(exitCode ?? (signal === 'SIGINT' || signal === 'SIGTERM' ? 0 : 1)));
  });
  process.off('SIGINT', onInterrupt);
  process.off('SIGTERM', onTerminate);
  await sandbox.close();
  return code;
}
