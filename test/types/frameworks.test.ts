// The generated JSX typings (dist/jsx/*.d.ts, from the manifest): one fixture project per framework under
// test/types/<framework>/, type-checked by tsc as an app would, through the package's own exports
// (`svc-checkout/jsx/<framework>`). valid.tsx uses attributes, properties and typed events and must compile;
// invalid.tsx misuses them under `// @ts-expect-error`, so it compiles only if every misuse is an error.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error a plain JavaScript module without types
import { assertDistFresh } from '../../scripts/dist-is-fresh.mjs';

const run = promisify(execFile);
const root = new URL('../../', import.meta.url).pathname;
const tsc = `${root}node_modules/typescript/bin/tsc`;

/** tsc's output for one fixture project; '' when it compiles. */
async function typeCheck(framework: string): Promise<string> {
  try {
    await run(process.execPath, [tsc, '--noEmit', '--pretty', 'false', '--singleThreaded', '-p', `test/types/${framework}/tsconfig.json`], { cwd: root, timeout: 60_000 });
    return '';
  } catch (error) {
    const { stdout, stderr, message } = error as { stdout?: string; stderr?: string; message: string };
    return `${stdout ?? ''}${stderr ?? ''}`.trim() || message;
  }
}

const frameworks = ['react', 'preact', 'solid', 'vue', 'svelte'];

describe('the JSX typings type-check attributes, properties and events, and refuse misuses', () => {
  // The five projects at once, each tsc on one thread: about a second each on a quiet machine.
  let results: Map<string, Promise<string>>;
  beforeAll(async () => {
    await assertDistFresh();
    results = new Map(frameworks.map((framework) => [framework, typeCheck(framework)]));
  });
  for (const framework of frameworks) {
    it(framework, async () => {
      expect(await results.get(framework)).toBe('');
    }, 60_000);
  }
});
