/**
 * `svc-sandbox`: the sandbox as a command. Prints its base URL and the merchants it serves; stops cleanly
 * on SIGINT and SIGTERM.
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { SANDBOX_DEFAULT_PORT } from '../core/index.js';
import { SandboxConfigError } from './config.js';
import { DataFileError } from './persistence.js';
import { parseSandboxFile } from './scenario-file.js';
import { createSandbox, type SandboxOptions } from './server.js';
import { DEFAULT_MERCHANT } from './config.js';

const USAGE = `Usage: svc-sandbox [options]

  --port <n>             port to listen on (default ${SANDBOX_DEFAULT_PORT}; 0 picks a free one)
  --host <address>       address to listen on (default 127.0.0.1)
  --merchant-id <id>     the merchant's id (digits)
  --private-key <key>    the merchant's private key: signs requests and callbacks
  --public-key <key>     the merchant's public key: accepted on status queries
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
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        'merchant-id': { type: 'string' },
        'private-key': { type: 'string' },
        'public-key': { type: 'string' },
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
  const port = Number(values['port'] ?? SANDBOX_DEFAULT_PORT);
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
    process.stderr.write(`svc-sandbox: ${known ? error.message : (error as Error).message}\n`);
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
