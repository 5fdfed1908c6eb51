/**
 * `svc-checkout init [folder]`: a shop of one's own (shop-files.ts), written into a folder, new or one with a
 * package.json already (say, where `npm install svc-checkout express` just ran). Nothing there is overwritten: an
 * existing server.mjs stops it, and a package.json keeps its own fields, getting only the start script and the
 * dependencies it lacks. It writes regular files of that folder only: a symbolic link where it would write (a
 * dangling server.mjs, a package.json of another project) is refused, never followed.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, type Stats } from 'node:fs';
import { lstat, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { basename, join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { oneLine, packageFile, serverFile, shopScripts, type ShopTemplate } from './shop-files.js';

const USAGE = `Usage: svc-checkout init [folder] [--name <shop name>]

Writes a shop into the folder (default: this one): server.mjs, an Express server with the merchant kit and the
checkout element, and a package.json whose \`npm start\` runs it beside a sandbox.

  --name <shop name>     the shop's name, as the payer reads it (default: from the folder's name)
  --help                 show this text
`;

/** The longest shop name: the merchant kit's `merchantName`, which the payer reads, holds 100 characters. */
const MAX_NAME_LENGTH = 100;

/** "my-coffee_shop" -> "My Coffee Shop". */
export function shopNameOf(folder: string): string {
  const words = basename(folder).split(/[-_.\s]+/).filter(Boolean);
  const name = words.map((word) => `${word[0]!.toUpperCase()}${word.slice(1)}`).join(' ');
  return name || 'My Shop';
}

/** A package name npm accepts, from a folder's name. */
function packageNameOf(folder: string): string {
  const name = basename(folder).toLowerCase().replace(/[^a-z0-9._-]+/g, '-').replace(/^[._-]+/, '');
  return name || 'my-shop';
}

async function ownVersion(): Promise<string> {
  const manifest = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return manifest.version;
}

export interface InitResult {
  folder: string;
  written: string[];
  /** Whether the folder's dependencies still need `npm install`. */
  needsInstall: boolean;
}

/** What is at `path`, without following a link: nothing, or a regular file; anything else is refused, naming it. */
async function entryAt(path: string, kind: 'file' | 'folder' = 'file'): Promise<Stats | undefined> {
  const info = await lstat(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (info?.isSymbolicLink()) throw new Error(`${path} is a symbolic link: init writes regular files in the folder it is given, never through a link; remove the link, or init another folder`);
  if (info && kind === 'file' && !info.isFile()) throw new Error(`${path} is not a regular file: remove it, or init another folder`);
  if (info && kind === 'folder' && !info.isDirectory()) throw new Error(`${path} is not a folder: init another one`);
  return info;
}

/** Writes `text` to `path` as a new file, or in place of the regular file there: a link made meanwhile is replaced, not followed. */
async function writeRegular(path: string, text: string, replace: boolean): Promise<void> {
  if (!replace) {
    // `wx`: fails on anything there, a dangling link included.
    await writeFile(path, text, { flag: 'wx' });
    return;
  }
  const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  await writeFile(temporary, text, { flag: 'wx' });
  await rename(temporary, path).catch(async (error: unknown) => {
    await rm(temporary, { force: true });
    throw error;
  });
}

/** Writes the shop; throws an Error whose message is for the person who ran the command. */
export async function initShop(folderArgument: string, options: { name?: string } = {}): Promise<InitResult> {
  const folder = resolve(folderArgument);
  // Any name is one line of text: it is the payer's to read, and a comment and a string in server.mjs.
  const template: ShopTemplate = { name: oneLine(options.name ?? '') || shopNameOf(folder), version: await ownVersion() };
  // What the kit's merchantName takes: a longer name would fail every page of the shop.
  if (template.name.length > MAX_NAME_LENGTH) throw new Error(`--name is ${template.name.length} characters: a shop's name is at most ${MAX_NAME_LENGTH}`);
  const server = join(folder, 'server.mjs');
  const manifestPath = join(folder, 'package.json');
  await entryAt(folder, 'folder');
  if (await entryAt(server)) throw new Error(`${server} exists already: init writes a new shop; give it another folder`);
  const manifestThere = (await entryAt(manifestPath)) !== undefined;
  await mkdir(folder, { recursive: true });
  const written = [server];
  let needsInstall = true;
  if (manifestThere) {
    let manifest: { scripts?: Record<string, string>; dependencies?: Record<string, string> };
    try {
      manifest = JSON.parse(await readFile(manifestPath, 'utf8'));
    } catch (error) {
      throw new Error(`${manifestPath} is not JSON (${(error as Error).message}): fix it, or init another folder`);
    }
    const scripts = shopScripts(template);
    const start = manifest.scripts?.['start'];
    if (start !== undefined && start !== scripts['start']) {
      throw new Error(`${manifestPath} has a start script of its own ("${start}"): init another folder, or remove it`);
    }
    manifest.scripts = { ...manifest.scripts, ...scripts };
    const wanted = { express: '^5.1.0', 'svc-checkout': `^${template.version}` };
    const missing = Object.entries(wanted).filter(([name]) => manifest.dependencies?.[name] === undefined);
    manifest.dependencies = { ...manifest.dependencies, ...Object.fromEntries(missing) };
    needsInstall = missing.length > 0 || !existsSync(join(folder, 'node_modules', 'express')) || !existsSync(join(folder, 'node_modules', 'svc-checkout'));
    await writeRegular(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`, true);
  } else {
    await writeRegular(manifestPath, packageFile(template, packageNameOf(folder)), false);
  }
  written.push(manifestPath);
  await writeRegular(server, serverFile(template), false);
  return { folder, written, needsInstall };
}

export async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: { name: { type: 'string' }, help: { type: 'boolean' } }, allowPositionals: true, strict: true });
  } catch (error) {
    process.stderr.write(`svc-checkout init: ${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (parsed.values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (parsed.positionals.length > 1) {
    process.stderr.write(`svc-checkout init: one folder at most\n\n${USAGE}`);
    return 2;
  }
  let result: InitResult;
  try {
    result = await initShop(parsed.positionals[0] ?? '.', parsed.values.name === undefined ? {} : { name: parsed.values.name });
  } catch (error) {
    process.stderr.write(`svc-checkout init: ${(error as Error).message}\n`);
    return 1;
  }
  const where = relative(process.cwd(), result.folder);
  const steps = [...(where ? [`cd ${where}`] : []), ...(result.needsInstall ? ['npm install'] : []), 'npm start'];
  process.stdout.write(`Wrote ${result.written.map((file) => relative(process.cwd(), file)).join(' and ')}. Next:\n\n  ${steps.join('\n  ')}\n\n`);
  process.stdout.write('Then open http://127.0.0.1:3000/ and pay; the shop logs each payment the sandbox confirms.\n');
  return 0;
}
