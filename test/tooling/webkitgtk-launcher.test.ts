// The WebKit launcher of the browser suites (scripts/webkitgtk-launcher.mjs): it says what is missing, and it
// leaves no process behind.
import { readdir, readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
// @ts-expect-error a plain JavaScript module without types
import { webkitGtkLauncher } from '../../scripts/webkitgtk-launcher.mjs';

const NAMES = /^(Xvfb|WebKitWebDriver|MiniBrowser|WebKit\w*)$/;

/** Pids of the processes the launcher may start. */
async function webkitProcesses(): Promise<Set<string>> {
  const found = new Set<string>();
  for (const pid of await readdir('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
      const name = /\((.*)\)/.exec(stat)?.[1] ?? '';
      // A zombie has gone already: its parent has yet to collect it.
      if (NAMES.test(name) && !/\) Z /.test(stat)) found.add(pid);
    } catch {
      // gone while listing
    }
  }
  return found;
}

describe('the WebKit launcher', () => {
  it('fails loudly, naming the package, when WebKitWebDriver or Xvfb is missing, and starts nothing', async () => {
    const before = await webkitProcesses();
    const launcher = webkitGtkLauncher({ webdriverPath: '/nowhere/WebKitWebDriver', xvfbPath: '/nowhere/Xvfb' });
    const error: Error = await launcher.initialize().then(
      () => new Error('it started'),
      (reason: Error) => reason,
    );
    expect(error.message).toMatch(/\/nowhere\/WebKitWebDriver \(Debian: webkit2gtk-driver/);
    expect(error.message).toMatch(/\/nowhere\/Xvfb \(Debian: xvfb/);
    await launcher.stop();
    expect([...(await webkitProcesses())].filter((pid) => !before.has(pid))).toEqual([]);
  });

  it('starts Xvfb, WebKitWebDriver and MiniBrowser, and stops every one of them', async () => {
    const before = await webkitProcesses();
    const launcher = webkitGtkLauncher();
    try {
      await launcher.initialize();
      await launcher.startSession('one', 'about:blank');
      expect(launcher.isActive('one')).toBe(true);
      const started = [...(await webkitProcesses())].filter((pid) => !before.has(pid));
      expect(started.length).toBeGreaterThanOrEqual(3);
      await launcher.stopSession('one');
      expect(launcher.isActive('one')).toBe(false);
    } finally {
      await launcher.stop();
    }
    expect([...(await webkitProcesses())].filter((pid) => !before.has(pid))).toEqual([]);
  });
});
