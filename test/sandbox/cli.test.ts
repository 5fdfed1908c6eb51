// The svc-sandbox command, as built (npm run build compiles it to dist/ first).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ServiceClient } from '../../src/server/index.js';
import { posRequest, referenceCodeRequest } from '../core/fixtures.js';
import { eventually } from '../support/sandbox-fixture.js';
// @ts-expect-error a plain JavaScript module without types
import { assertDistFresh } from '../../scripts/dist-is-fresh.mjs';

// These run the built package: never an old one.
beforeAll(() => assertDistFresh());

const bin = new URL('../../bin/svc-sandbox.js', import.meta.url).pathname;
let child: ChildProcess | undefined;

afterEach(() => {
  child?.kill('SIGKILL');
  child = undefined;
});

function run(args: string[]): { output: () => string; url: Promise<string>; exit: Promise<number | null> } {
  child = spawn(process.execPath, [bin, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const url = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no URL printed: ${output}`)), 10_000);
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child!.stdout!.on('data', read);
    child!.stderr!.on('data', read);
  });
  const exit = new Promise<number | null>((resolve) => child!.on('exit', (code) => resolve(code)));
  return { output: () => output, url, exit };
}

describe('svc-sandbox', () => {
  it('starts with a merchant from the command line, serves it, and stops cleanly on SIGTERM', async () => {
    const started = run(['--port', '0', '--merchant-id', '256612345678901', '--private-key', 'cli-key']);
    const url = await started.url;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const client = new ServiceClient({ merchantId: '256612345678901', privateKey: 'cli-key', environment: { baseUrl: url } });
    expect((await client.createPayment(posRequest() as never)).code).toBe('00000');
    child!.kill('SIGTERM');
    expect(await started.exit).toBe(0);
    expect(started.output()).toContain('SIGTERM, stopping');
    expect(started.output()).toMatch(/POST \/api\/v1\/international\/payment\/create 200 00000/);
    expect(started.output()).not.toContain('cli-key');
    expect(started.output()).toContain('merchant 256612345678901, private key as given (not shown)');
  });

  it('prints the merchant id and the test key it uses, so that a shop can be pointed at it by copy and paste', async () => {
    const started = run(['--port', '0', '--quiet']);
    const url = await started.url;
    const line = 'merchant 256612345678901, private key sandbox-private-key-256612345678901 (test values)';
    await expect.poll(started.output).toContain(line);
    const client = new ServiceClient({ merchantId: '256612345678901', privateKey: 'sandbox-private-key-256612345678901', environment: { baseUrl: url } });
    expect((await client.createPayment(posRequest() as never)).code).toBe('00000');
  });

  it('serves several merchants from --config, each with its methods and availability, and stops on SIGINT', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-sandbox-'));
    const file = join(dir, 'merchants.json');
    await writeFile(
      file,
      JSON.stringify({
        merchants: [
          { merchantId: '100', privateKey: 'k-100', methods: ['ReferenceCode'] },
          { merchantId: '200', privateKey: 'k-200', available: false },
        ],
      }),
    );
    const started = run(['--port', '0', '--config', file, '--quiet']);
    const url = await started.url;
    const first = new ServiceClient({ merchantId: '100', privateKey: 'k-100', environment: { baseUrl: url } });
    const second = new ServiceClient({ merchantId: '200', privateKey: 'k-200', environment: { baseUrl: url } });
    expect((await first.createPayment(referenceCodeRequest() as never)).code).toBe('00000');
    expect((await first.createPayment(posRequest() as never)).code).toBe('02002');
    expect((await second.createPayment(posRequest() as never)).code).toBe('02007');
    child!.kill('SIGINT');
    expect(await started.exit).toBe(0);
    expect(started.output()).not.toContain('POST /api');
  });

  it('refuses a bad config with a message that names the entry and field', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-sandbox-'));
    const file = join(dir, 'bad.json');
    await writeFile(file, JSON.stringify({ merchants: [{ merchantId: '100', privateKey: 'k', methods: ['Cash'] }] }));
    const started = run(['--config', file]);
    expect(await started.exit).toBe(2);
    expect(started.output()).toContain('merchants[0].methods');
  });

  it('runs on a --scenarios file, and names the line and key of a mistake in one', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-sandbox-'));
    const file = join(dir, 'scenarios.json');
    await writeFile(file, JSON.stringify({ merchants: [{ merchantId: '300', privateKey: 'k-300' }], vatRates: { EG: 10 } }, null, 2));
    const started = run(['--port', '0', '--scenarios', file, '--quiet']);
    const url = await started.url;
    await eventually('the dashboard line', () => started.output().includes(`dashboard ${url}/`));
    const client = new ServiceClient({ merchantId: '300', privateKey: 'k-300', environment: { baseUrl: url } });
    expect((await client.createPayment(posRequest({ amount: { total: 11_000, currency: 'EGP' } }) as never)).data).toMatchObject({ vat: { total: 1000 } });
    child!.kill('SIGTERM');
    expect(await started.exit).toBe(0);

    await writeFile(file, '{\n  "vatRates": {\n    "EG": "14%"\n  }\n}\n');
    const refused = run(['--scenarios', file]);
    expect(await refused.exit).toBe(2);
    expect(refused.output()).toContain(`svc-sandbox: ${file}:3:5: vatRates.EG must be a percentage from 0 to under 100`);
  });

  it('keeps its state in a --data file across a restart, and refuses a damaged one', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-sandbox-'));
    const data = join(dir, 'state.json');
    const first = run(['--port', '0', '--data', data, '--quiet']);
    let url = await first.url;
    await eventually('the data file line', () => first.output().includes(`state kept in ${data}`));
    let client = new ServiceClient({ merchantId: '256612345678901', privateKey: 'sandbox-private-key-256612345678901', environment: { baseUrl: url } });
    const created = await client.createPayment(posRequest({ reference: 'cli-kept' }) as never);
    child!.kill('SIGTERM');
    expect(await first.exit).toBe(0);

    const second = run(['--port', '0', '--data', data, '--quiet']);
    url = await second.url;
    client = new ServiceClient({ merchantId: '256612345678901', privateKey: 'sandbox-private-key-256612345678901', environment: { baseUrl: url } });
    expect((await client.queryStatus({ country: 'EG', reference: 'cli-kept' })).data).toMatchObject({ orderNo: (created.data as { orderNo: string }).orderNo, status: 'PENDING' });
    child!.kill('SIGINT');
    expect(await second.exit).toBe(0);

    await writeFile(data, '{"format": "svc-sandbox-data", "version": 1, "book": ');
    const damaged = run(['--data', data]);
    expect(await damaged.exit).toBe(2);
    expect(damaged.output()).toMatch(/svc-sandbox: the data file .*state\.json is damaged: it is not JSON \(line 1, column 54/);
  });

  it('takes --scenarios or --config, not both', async () => {
    const started = run(['--scenarios', 'a.json', '--config', 'b.json']);
    expect(await started.exit).toBe(2);
    expect(started.output()).toContain('not both');
  });

  it('refuses an unknown option with the usage text', async () => {
    const started = run(['--prot', '4010']);
    expect(await started.exit).toBe(2);
    expect(started.output()).toContain('Usage: svc-sandbox');
  });
});
