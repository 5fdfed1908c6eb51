// `npx svc-checkout init [folder]`: a shop of one's own, written into a folder and run from the package as npm packs
// it: `npm start` runs it beside a sandbox, the kit serves the element, and a paid order reaches the shop's log.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { lstat, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHECKOUT_TOKEN_HEADER } from '../../src/core/index.js';
import { initShop, shopNameOf } from '../../src/scaffold/init.js';
import { SandboxControl } from '../../src/sandbox/control/client.js';
import { createSandbox } from '../../src/sandbox/index.js';
import { expectCartsHeld } from '../support/shop-carts.js';
import { npmInstall, packedTarball } from '../support/tarball.js';
// @ts-expect-error a plain JavaScript module without types
import { assertDistFresh } from '../../scripts/dist-is-fresh.mjs';

const run = promisify(execFile);

/**
 * Six reference codes to one phone, each from a cart of its own (a new visitor): the code of the sixth, or the limit
 * that refused it. The kit's default is 5 per phone per hour; the shop raises it under the sandbox.
 */
async function sixthCodeToOnePhone(shopUrl: string): Promise<string> {
  let last = '';
  for (let index = 0; index < 6; index++) {
    const page = await (await fetch(`${shopUrl}/`)).text();
    const token = /checkout-token="([^"]+)"/.exec(page)![1]!;
    const created = await (
      await fetch(`${shopUrl}/checkout/payments`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', [CHECKOUT_TOKEN_HEADER]: token },
        body: JSON.stringify({ payMethod: 'ReferenceCode', notify: { notifyUserName: 'Mona Hassan', notifyUserMobile: '+201001234567', notifyLanguage: 'English', notifyMethod: 'SMS' } }),
      })
    ).json();
    last = created.code === 'TOO_MANY_REQUESTS' ? created.data.limit : created.code;
  }
  return last;
}
const repository = new URL('../../', import.meta.url).pathname;
/** A port no one listens on now, for a shop whose address is not its own (SHOP_URL) and so cannot say its port. */
async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
const folders: string[] = [];
async function freshFolder(): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), 'svc-shop-'));
  folders.push(folder);
  return folder;
}
afterAll(() => Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true }))));

describe('init', () => {
  it('names the shop after its folder', () => {
    expect(shopNameOf('/tmp/my-coffee_shop')).toBe('My Coffee Shop');
    expect(shopNameOf('/tmp/...')).toBe('My Shop');
  });

  it('writes a server and a package.json into a new folder', async () => {
    const folder = join(await freshFolder(), 'corner-coffee');
    const result = await initShop(folder);
    expect(result.needsInstall).toBe(true);
    const manifest = JSON.parse(await readFile(join(folder, 'package.json'), 'utf8'));
    expect(manifest).toMatchObject({
      name: 'corner-coffee',
      private: true,
      type: 'module',
      scripts: { start: 'svc-sandbox --merchant-name "Corner Coffee" --data .svc-sandbox.json -- node server.mjs' },
      dependencies: { express: '^5.1.0', 'svc-checkout': expect.stringMatching(/^\^\d+\.\d+\.\d+/) },
    });
    const server = await readFile(join(folder, 'server.mjs'), 'utf8');
    expect(server).toContain("const shopName = 'Corner Coffee';");
    expect(server).toContain('checkout.element.tags()');
    // The page follows the payer's colour scheme, as the element does: never a dark element on a white page.
    expect(server).toContain('<meta name="color-scheme" content="light dark">');
    await run(process.execPath, ['--check', join(folder, 'server.mjs')]);
  });

  it('adds to a package.json there, keeping its fields; refuses to overwrite a server or another start script', async () => {
    const folder = await freshFolder();
    await writeFile(join(folder, 'package.json'), JSON.stringify({ name: 'mine', description: 'kept', dependencies: { express: '^5.0.0' } }));
    await initShop(folder, { name: 'Café "Nile" O’Brien\'s' });
    const manifest = JSON.parse(await readFile(join(folder, 'package.json'), 'utf8'));
    expect(manifest).toMatchObject({ name: 'mine', description: 'kept', dependencies: { express: '^5.0.0', 'svc-checkout': expect.any(String) } });
    expect(manifest.scripts.start).toBe('svc-sandbox --merchant-name "Café Nile O’Brien\'s" --data .svc-sandbox.json -- node server.mjs');
    // Any name is a string in the server, never code.
    await run(process.execPath, ['--check', join(folder, 'server.mjs')]);
    expect(await readFile(join(folder, 'server.mjs'), 'utf8')).toContain(`const shopName = 'Café "Nile" O’Brien\\'s';`);
    await expect(initShop(folder)).rejects.toThrow(/server\.mjs exists already/);

    const other = await freshFolder();
    await writeFile(join(other, 'package.json'), JSON.stringify({ scripts: { start: 'node app.js' } }));
    await expect(initShop(other)).rejects.toThrow(/has a start script of its own/);
    await writeFile(join(other, 'package.json'), '{ not json');
    await expect(initShop(other)).rejects.toThrow(/is not JSON/);
  });

  it('never writes through a symbolic link: a dangling server.mjs, another project’s package.json, a linked folder', async () => {
    const outside = await freshFolder();
    const dangling = await freshFolder();
    await symlink(join(outside, 'planted.mjs'), join(dangling, 'server.mjs'));
    await expect(initShop(dangling)).rejects.toThrow(/server\.mjs is a symbolic link: init writes regular files in the folder it is given, never through a link/);
    await expect(lstat(join(outside, 'planted.mjs'))).rejects.toThrow(/ENOENT/);
    await expect(lstat(join(dangling, 'package.json'))).rejects.toThrow(/ENOENT/);

    const project = JSON.stringify({ name: 'another-project', scripts: { test: 'vitest' } });
    await writeFile(join(outside, 'package.json'), project);
    const linked = await freshFolder();
    await symlink(join(outside, 'package.json'), join(linked, 'package.json'));
    await expect(initShop(linked)).rejects.toThrow(/package\.json is a symbolic link/);
    expect(await readFile(join(outside, 'package.json'), 'utf8')).toBe(project);
    await expect(lstat(join(linked, 'server.mjs'))).rejects.toThrow(/ENOENT/);

    const parent = await freshFolder();
    await symlink(outside, join(parent, 'shop'));
    await expect(initShop(join(parent, 'shop'))).rejects.toThrow(/shop is a symbolic link/);
    await expect(lstat(join(outside, 'server.mjs'))).rejects.toThrow(/ENOENT/);
    // Through the command, the person who ran it reads why.
    const refused = await run(process.execPath, [join(repository, 'bin/svc-checkout.js'), 'init', 'shop'], { cwd: parent }).catch((error: { code: number; stderr: string }) => error);
    expect(refused).toMatchObject({ code: 1, stderr: expect.stringMatching(/^svc-checkout init: .*shop is a symbolic link/) });
  });

  it('writes any name as text: line breaks of every kind end no comment, and the page escapes it', async () => {
    // In the package's folder, so that the shop's imports resolve (express, and svc-checkout as this build), and its
    // code runs.
    await mkdir(join(repository, 'build'), { recursive: true });
    const folder = await mkdtemp(join(repository, 'build', 'init-name-'));
    folders.push(folder);
    await mkdir(join(folder, 'node_modules'));
    await symlink(repository, join(folder, 'node_modules', 'svc-checkout'));
    const name = "Nile\u2028console.log('INJECTED 1')\u2029console.log('INJECTED 2')\rconsole.log('INJECTED 3')\n</title><b>&";
    await initShop(folder, { name });
    const server = await readFile(join(folder, 'server.mjs'), 'utf8');
    expect(server.split('\n')[0]).toMatch(/^\/\/ Nile console\.log\('INJECTED 1'\) console\.log\('INJECTED 2'\) console\.log\('INJECTED 3'\) <\/title><b>&: a shop in one file\./);
    expect(server).not.toMatch(/[\r\u2028\u2029]/);
    await run(process.execPath, ['--check', join(folder, 'server.mjs')]);

    const sandbox = await createSandbox();
    const merchant = sandbox.merchants[0]!;
    // Behind its https: address (SHOP_URL), as the shop's comment says for going live: its cookies are Secure.
    const port = await freePort();
    const shop = spawn(process.execPath, ['server.mjs'], {
      cwd: folder,
      env: { ...process.env, PORT: String(port), SHOP_URL: 'https://shop.example', SVC_MERCHANT_ID: merchant.merchantId, SVC_PRIVATE_KEY: merchant.privateKey, SVC_BASE_URL: sandbox.url },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let printed = '';
    shop.stdout!.on('data', (chunk) => (printed += chunk));
    shop.stderr!.on('data', (chunk) => (printed += chunk));
    try {
      const end = Date.now() + 15_000;
      while (!printed.includes('listening on https://shop.example/') && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 50));
      const shopUrl = `http://127.0.0.1:${port}`;
      const page = await (await fetch(`${shopUrl}/`)).text();
      expect(page).toContain('<title>Nile console.log(&#39;INJECTED 1&#39;) console.log(&#39;INJECTED 2&#39;) console.log(&#39;INJECTED 3&#39;) &#60;/title&#62;&#60;b&#62;&#38;</title>');
      expect(printed).not.toMatch(/^INJECTED/m);
      await expectCartsHeld(shopUrl, { secure: true });
      // It serves a payment link made at the command line as it is (docs/pay-links.md): its kit is at /checkout.
      const made = await run(process.execPath, [join(repository, 'bin/svc-checkout.js'), 'link', '--amount', '12500', '--currency', 'EGP', '--country', 'EG', '--product', 'Coffee beans'], {
        env: { PATH: process.env['PATH'] ?? '', SVC_MERCHANT_ID: merchant.merchantId, SVC_PRIVATE_KEY: merchant.privateKey, SHOP_URL: shopUrl },
      });
      const payPage = await fetch(made.stdout.trim().split('\n').at(-1)!);
      expect(payPage.status).toBe(200);
      const payHtml = await payPage.text();
      expect(payHtml).toContain('<h1>Coffee beans</h1>');
      // "Pay on your phone" on the pay page: its QR code, drawn by the kit, of the page at the shop's public address.
      const link = made.stdout.trim().split('\n').at(-1)!.split('/pay/')[1]!;
      expect(payHtml).toContain(`https://shop.example/checkout/pay/${link}`);
      expect(payHtml).toContain(`/pay/${link}/qr.svg`);
      const qr = await fetch(`${shopUrl}/checkout/pay/${link}/qr.svg`);
      expect(qr.status).toBe(200);
      expect(qr.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
      // Not under svc-sandbox (no SVC_SANDBOX), though on a loopback address: the kit's limits as they are.
      expect(await sixthCodeToOnePhone(shopUrl)).toBe('messagesPerPhone');
    } finally {
      shop.kill('SIGTERM');
      await sandbox.close();
    }
    // The kit's merchantName holds 100 characters: a longer name is refused before anything is written.
    await expect(initShop(await freshFolder(), { name: 'x'.repeat(101) })).rejects.toThrow(/--name is 101 characters: a shop's name is at most 100/);
  });
});

describe('a shop from the packed package', () => {
  let shop: ChildProcess | undefined;
  let output = '';
  beforeAll(() => assertDistFresh());
  // npm start, and the sandbox and shop under it: a process group of its own, started here (npm passes no signal on).
  const stop = async () => {
    if (!shop?.pid || shop.exitCode !== null || shop.signalCode !== null) return;
    const exited = new Promise((resolve) => shop!.once('exit', resolve));
    process.kill(-shop.pid, 'SIGTERM');
    await exited;
  };
  afterAll(() => stop());

  it('installs, writes a shop into a folder, and its npm start serves a checkout whose payments reach its log', async () => {
    const tarball = await packedTarball();
    const project = await freshFolder();
    await npmInstall(project, [tarball, 'express']);
    const { stdout } = await run('npx', ['svc-checkout', 'init', 'corner-shop', '--name', 'Corner Coffee'], { cwd: project, timeout: 60_000 });
    expect(stdout).toContain('cd corner-shop');
    expect(stdout).toContain('npm install');
    const folder = join(project, 'corner-shop');
    // What `npm install` there does once the package is on npm; until then, the tarball.
    await npmInstall(folder, [tarball]);

    const start = () => {
      output = '';
      shop = spawn('npm', ['start'], { cwd: folder, env: { ...process.env, PORT: '0', SVC_SANDBOX_PORT: '0' }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
      const read = (chunk: Buffer) => (output += chunk.toString());
      shop.stdout!.on('data', read);
      shop.stderr!.on('data', read);
    };
    start();
    const printed = async (pattern: RegExp, what: string) => {
      const end = Date.now() + 20_000;
      for (;;) {
        const match = pattern.exec(output);
        if (match) return match;
        if (Date.now() > end) throw new Error(`timed out waiting for ${what}: ${output}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    const sandboxUrl = (await printed(/svc-sandbox listening on (\S+)/, 'the sandbox'))[1]!;
    const shopUrl = (await printed(/Corner Coffee listening on (http:\/\/\S+?)\/? /, 'the shop'))[1]!;

    const visit = await fetch(`${shopUrl}/`);
    // The visitor's cart, as their browser keeps it.
    const cookie = visit.headers.get('set-cookie')!.split(';')[0]!;
    const page = await visit.text();
    const entry = /<script type="module" src="([^"]+)" integrity="(sha384-[^"]+)"><\/script>/.exec(page);
    expect(entry?.[1]).toBe('/checkout/svc-checkout.js');
    expect((await fetch(`${shopUrl}${entry![1]}`)).headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    const token = /checkout-token="([^"]+)"/.exec(page)![1]!;
    await expectCartsHeld(shopUrl, { secure: false });
    // Under npm start (svc-sandbox sets SVC_SANDBOX), the limits one developer meets first are raised.
    expect(await sixthCodeToOnePhone(shopUrl)).toBe('00000');

    // The element's create, as the page would send it; the sandbox's payer pays the code it got.
    const created = await (
      await fetch(`${shopUrl}/checkout/payments`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', [CHECKOUT_TOKEN_HEADER]: token },
        body: JSON.stringify({
          payMethod: 'ReferenceCode',
          notify: { notifyUserName: 'Mona Hassan', notifyUserEmail: 'mona@example.com', notifyUserMobile: '+201001234567', notifyLanguage: 'English', notifyMethod: 'BOTH' },
        }),
      })
    ).json();
    expect(created.code).toBe('00000');
    await new SandboxControl(sandboxUrl).payReferenceCode(created.data.referenceCode);
    await printed(new RegExp(`order ${created.data.reference}: SUCCESS`), 'the shop’s log of the payment');

    // A bank account order through 3-D Secure, returning to the shop's page: an origin the shop's kit accepts.
    const token3ds = /checkout-token="([^"]+)"/.exec(await (await fetch(`${shopUrl}/`)).text())![1]!;
    const bank = await (
      await fetch(`${shopUrl}/checkout/payments`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', [CHECKOUT_TOKEN_HEADER]: token3ds },
        body: JSON.stringify({ payMethod: 'BankAccount', bankCode: '033', bankAccountNumber: '2215381200', dobDay: '05', dobMonth: '01', dobYear: '1990', returnUrl: `${shopUrl}/` }),
      })
    ).json();
    expect(bank, JSON.stringify(bank)).toMatchObject({ code: '00000', data: { nextAction: { actionType: 'REDIRECT_3DS' } } });

    // Ctrl-C in a terminal signals the whole group: the sandbox passes it on to the shop, and both stop.
    const sandboxGone = async () => fetch(sandboxUrl).then(() => false, () => true);
    await stop();
    const end = Date.now() + 10_000;
    while (!(await sandboxGone()) && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await sandboxGone()).toBe(true);
    await expect(fetch(`${shopUrl}/`)).rejects.toThrow();
    shop = undefined;

    // npm start again: the sandbox kept its orders (in .svc-sandbox.json), so the cart paid is still its receipt.
    expect(JSON.parse(await readFile(join(folder, '.svc-sandbox.json'), 'utf8'))).toBeTypeOf('object');
    start();
    await printed(/svc-sandbox listening on (\S+)/, 'the sandbox again');
    const again = (await printed(/Corner Coffee listening on (http:\/\/\S+?)\/? /, 'the shop again'))[1]!;
    const receipt = await (await fetch(`${again}/`, { headers: { cookie } })).text();
    expect(receipt).toMatch(/<svc-checkout checkout-token="[^"]+" status-only>/);
    expect(receipt).toContain('Order again');
    await stop();
    shop = undefined;
  }, 240_000);

  it('serves its commands to a project: svc-sandbox, and svc-checkout sandbox where npx would look for another package', async () => {
    const tarball = await packedTarball();
    const project = await freshFolder();
    await mkdir(project, { recursive: true });
    await npmInstall(project, [tarball]);
    const help = await run('npx', ['svc-sandbox', '--help'], { cwd: project, timeout: 60_000 });
    expect(help.stdout).toContain('-- <command>');
    const through = await run('npx', ['svc-checkout', 'sandbox', '--help'], { cwd: project, timeout: 60_000 });
    expect(through.stdout).toBe(help.stdout);
    const usage = await run('npx', ['svc-checkout'], { cwd: project, timeout: 60_000 });
    expect(usage.stdout).toContain('init [folder]');
  }, 240_000);
});
