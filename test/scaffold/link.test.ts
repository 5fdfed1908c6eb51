/**
 * `npx svc-checkout link` (docs/pay-links.md), as a seller runs it: the built command, credentials in the environment,
 * the link's address on the last line, a link the kit's pay page opens; bad input refused with the flag named.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contactOnFile } from '../../src/core/index.js';
import { readPaymentLink } from '../../src/server/index.js';
import { SandboxControl, startStack } from '../../src/sandbox/index.js';
// @ts-expect-error a plain JavaScript module without types
import { assertDistFresh } from '../../scripts/dist-is-fresh.mjs';

const run = promisify(execFile);
const repository = new URL('../..', import.meta.url).pathname;
type Stack = Awaited<ReturnType<typeof startStack>>;
let stack: Stack;

beforeAll(async () => {
  await assertDistFresh();
  stack = await startStack({ basePath: '/checkout', handler: { merchantName: 'Nile Coffee', elementFiles: new URL('../../dist/cdn/', import.meta.url), logger: { warn() {}, error() {} } } });
});
afterAll(() => stack.close());

const env = () => ({ PATH: process.env['PATH'] ?? '', SVC_MERCHANT_ID: stack.merchant.merchantId, SVC_PRIVATE_KEY: stack.merchant.privateKey, SHOP_URL: new URL(stack.url).origin });
const link = (args: string[], environment: Record<string, string> = env()) =>
  run(process.execPath, [join(repository, 'bin/svc-checkout.js'), 'link', ...args], { env: environment }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => error,
  );

describe('svc-checkout link', () => {
  it('prints a link on its last line that the pay page opens, good for the time asked', async () => {
    const before = Math.floor(Date.now() / 1000);
    const { code, stdout } = await link(['--amount', '12500', '--currency', 'EGP', '--country', 'EG', '--product', 'Coffee beans', '--reference', 'chat-order-77', '--expires', '3d']);
    expect(code).toBe(0);
    const url = stdout.trim().split('\n').at(-1)!;
    expect(url).toMatch(new RegExp(`^${new URL(stack.url).origin}/checkout/pay/pl1\\.[\\w-]+$`));
    expect(stdout).toContain('EGP\u00a0125.00');
    const read = await readPaymentLink(url.split('/').at(-1), stack.merchant);
    expect(read.ok && read.claims.order).toMatchObject({ reference: 'chat-order-77', amount: { total: 12_500, currency: 'EGP' }, country: 'EG', product: { name: 'Coffee beans' } });
    expect(read.ok && read.claims.expiresAt - before).toBeGreaterThanOrEqual(3 * 86_400);
    expect(read.ok && read.claims.expiresAt - before).toBeLessThanOrEqual(3 * 86_400 + 5);
    const page = await fetch(url);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<h1>Coffee beans</h1>');
  });

  it('takes --shop and --base-path over SHOP_URL and /checkout, and makes a cart id of its own without --reference', async () => {
    const { stdout } = await link(['--amount', '500', '--currency', 'EGP', '--country', 'EG', '--product', 'Tea', '--shop', 'https://shop.example', '--base-path', '/pay-here']);
    expect(stdout.trim().split('\n').at(-1)).toMatch(/^https:\/\/shop\.example\/pay-here\/pay\/pl1\./);
    expect(stdout).toMatch(/checkout link-[\da-z]+-[\da-f]{8}/);
  });

  it("tells a sandbox of its link when the environment says the service is one, for its dashboard; never otherwise", async () => {
    const control = new SandboxControl(stack.sandbox.url);
    const args = (reference: string) => ['--amount', '9000', '--currency', 'EGP', '--country', 'EG', '--product', 'Cardamom', '--reference', reference];
    // As svc-sandbox runs a command beside it: SVC_SANDBOX=1 and the sandbox's address.
    const told = await link(args('cli-told'), { ...env(), SVC_SANDBOX: '1', SVC_BASE_URL: stack.sandbox.url });
    expect(told.code).toBe(0);
    const url = told.stdout.trim().split('\n').at(-1)!;
    expect(told.stdout).toContain(`Listed on the sandbox's dashboard, ${stack.sandbox.url}/`);
    expect((await control.links()).find((each) => each.reference === 'cli-told')).toMatchObject({ url, amount: { total: 9000, currency: 'EGP' }, productName: 'Cardamom' });
    // An address alone is not a sandbox (the real service has no such call): nothing is sent.
    const untold = await link(args('cli-untold'), { ...env(), SVC_BASE_URL: stack.sandbox.url });
    expect(untold.code).toBe(0);
    expect(untold.stdout).not.toContain('dashboard');
    expect((await control.links()).map((each) => each.reference)).not.toContain('cli-untold');
    // A sandbox gone: the link is made all the same, on the last line, and the seller is told on stderr.
    const gone = await link(args('cli-gone'), { ...env(), SVC_SANDBOX: '1', SVC_BASE_URL: 'http://127.0.0.1:9' });
    expect(gone.code).toBe(0);
    expect(gone.stdout.trim().split('\n').at(-1)).toMatch(/\/checkout\/pay\/pl1\./);
    expect(gone.stderr).toMatch(/the sandbox at http:\/\/127\.0\.0\.1:9 was not told of this link \(.+\): its dashboard will not list it/);
    expect(gone.stderr).not.toContain(stack.merchant.privateKey);
  });

  it("seals the payer's contact it is given into the link, says it nowhere, and the pay page's token only says it is on file", async () => {
    const { code, stdout, stderr } = await link([
      '--amount', '12500', '--currency', 'EGP', '--country', 'EG', '--product', 'Coffee beans',
      '--payer-name', 'Mona Adel', '--payer-email', 'mona.adel@example.com', '--payer-phone', '+201001234567',
    ]);
    expect(code).toBe(0);
    for (const secret of ['Mona', 'mona.adel', '1001234567']) expect(`${stdout}${stderr}`).not.toContain(secret);
    const url = stdout.trim().split('\n').at(-1)!;
    const read = await readPaymentLink(url.split('/').at(-1), stack.merchant);
    expect(read.ok && read.claims.payer).toEqual({ name: 'Mona Adel', email: 'mona.adel@example.com', phone: '+201001234567' });
    const html = await (await fetch(url)).text();
    expect(contactOnFile(/checkout-token="([^"]+)"/.exec(html)?.[1])).toEqual(['notify.notifyUserName', 'notify.notifyUserEmail', 'notify.notifyUserMobile']);
    const bad = await link(['--amount', '12500', '--currency', 'EGP', '--country', 'EG', '--product', 'Coffee beans', '--payer-email', 'mona at example']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--payer-email: payer\.email must be/);
    // The contact is used whole: the name with an address.
    const nameless = await link(['--amount', '12500', '--currency', 'EGP', '--country', 'EG', '--product', 'Coffee beans', '--payer-email', 'mona@example.com']);
    expect(nameless.code).toBe(2);
    expect(nameless.stderr).toMatch(/--payer-name: payer\.name is required/);
  });

  it('refuses bad input, naming the flag or the variable', async () => {
    const base = ['--amount', '12500', '--currency', 'EGP', '--country', 'EG', '--product', 'Coffee beans'];
    const cases: [string[], Record<string, string> | undefined, RegExp][] = [
      [['--currency', 'EGP', '--country', 'EG', '--product', 'x'], undefined, /--amount is required/],
      [[...base.slice(2), '--amount', '12.5'], undefined, /--amount must be a whole number of minor units/],
      [[...base, '--expires', '31d'], undefined, /--expires must be a time from 1m to 30d/],
      [[...base, '--reference', 'cart--3'], undefined, /--reference: reference must not end in "--" and a number/],
      [[...base.slice(0, 2), '--currency', 'EURO', ...base.slice(4)], undefined, /--currency: /],
      [[...base, '--shop', 'ftp://shop'], undefined, /--shop: shopUrl must be/],
      [[...base, '--colour', 'red'], undefined, /Unknown option '--colour'/],
      [base, { ...env(), SVC_PRIVATE_KEY: '' }, /SVC_PRIVATE_KEY is not set/],
      [base, { PATH: process.env['PATH'] ?? '', SVC_MERCHANT_ID: stack.merchant.merchantId, SVC_PRIVATE_KEY: 'k' }, /--shop is required \(or SHOP_URL\)/],
    ];
    for (const [args, environment, message] of cases) {
      const { code, stderr, stdout } = await link(args, environment);
      expect(code, args.join(' ')).toBe(2);
      expect(stderr).toMatch(message);
      expect(stdout).toBe('');
      expect(stderr).not.toContain(stack.merchant.privateKey);
    }
  });
});
