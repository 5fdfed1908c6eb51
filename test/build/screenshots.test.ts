// npm run screenshots for one state: its images, and the review page that puts every state's eight variants
// (390 and 1280 px, English and Arabic, light and dark) side by side (scripts/screenshots.mjs).
import { execFile } from 'node:child_process';
import { access, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error a plain JavaScript module without types
import { assertDistFresh } from '../../scripts/dist-is-fresh.mjs';

const root = new URL('../../', import.meta.url).pathname;
const VARIANTS = [390, 1280].flatMap((width) => ['en', 'ar'].flatMap((locale) => ['light', 'dark'].map((theme) => `${width}.${locale}.${theme}`)));

describe('npm run screenshots', () => {
  let out: string;
  // It drives the built CDN file and the built sandbox: never an old one.
  beforeAll(async () => {
    await assertDistFresh();
    out = await mkdtemp(join(tmpdir(), 'svc-screenshots-'));
  });
  afterAll(() => out && rm(out, { recursive: true, force: true }));

  it('writes a state in its eight variants, and a review page that lists the eight of every state it took', async () => {
    await promisify(execFile)(process.execPath, ['scripts/screenshots.mjs', 'reference-code'], { cwd: root, env: { ...process.env, SCREENSHOTS_DIR: out }, timeout: 120_000 });
    const page = await readFile(join(out, 'index.html'), 'utf8');
    const rows = [...page.matchAll(/<tr data-state="([^"]+)">(.*?)<\/tr>/g)];
    expect(rows.map(([, state]) => state)).toEqual(['reference-code']);
    for (const [, state, row] of rows) {
      const cells = [...row!.matchAll(/<td data-variant="([^"]+)"><a href="([^"]+)">/g)];
      expect(cells.map(([, variant]) => variant).sort()).toEqual([...VARIANTS].sort());
      for (const [, variant, file] of cells) {
        const [width, locale, theme] = variant!.split('.');
        expect(file).toBe(`${state}.${locale}.${theme}.${width}.png`);
        await access(join(out, file!));
      }
    }
  }, 150_000);

  it('refuses a state it does not know, and names those it does', async () => {
    const run = promisify(execFile)(process.execPath, ['scripts/screenshots.mjs', 'no-such-state'], { cwd: root, env: { ...process.env, SCREENSHOTS_DIR: out }, timeout: 60_000 });
    await expect(run).rejects.toThrow(/no such state: no-such-state \(the states: method-choice,/);
    // Among them, the second tab on one cart (told which payment is in progress) and the init shop's page.
    await expect(run).rejects.toThrow(/, another-tab, init-page,/);
  }, 90_000);
});
