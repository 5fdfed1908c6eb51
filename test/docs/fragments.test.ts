// Every fragment of the documents (a block marked `fragment`, and every jsx/tsx block) is type-checked against the
// package's built types, with only the names of test/docs/fragment-globals.d.ts declared for it: a fragment that
// calls an API that is not there, or passes it the wrong thing, fails here (docs/README.md, "Code samples").
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error a plain JavaScript module without types
import { root, SAMPLES_DIR, writeSamples } from '../../scripts/doc-samples.mjs';
// @ts-expect-error a plain JavaScript module without types
import { assertDistFresh } from '../../scripts/dist-is-fresh.mjs';

interface Sample {
  document: string;
  line: number;
  kind: string;
  file?: string;
}

const tsc = join(root, 'node_modules/typescript/bin/tsc');

/** The problems tsc reports for the fragments, each as `page, line n: message`. */
async function typeProblems(fragments: Sample[], globals: string): Promise<string[]> {
  const config = join(root, SAMPLES_DIR, 'tsconfig.fragments.json');
  await writeFile(
    config,
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        lib: ['ES2023', 'DOM', 'DOM.Iterable'],
        types: ['node'],
        // A fragment is a piece: what it leaves implicit is its program's. Names and types it uses are checked.
        strict: false,
        allowJs: true,
        checkJs: true,
        noEmit: true,
        jsx: 'react-jsx',
        skipLibCheck: true,
      },
      files: [globals, join(root, 'test/docs/fragment-modules.d.ts'), ...fragments.map((sample) => join(root, sample.file!))],
    }),
  );
  const result = await promisify(execFile)(process.execPath, [tsc, '-p', config, '--pretty', 'false'], { cwd: root, timeout: 120_000 }).then(
    () => '',
    (error: { stdout?: string }) => error.stdout ?? String(error),
  );
  const byFile = new Map(fragments.map((sample) => [join(root, sample.file!), sample]));
  return result
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const match = /^(.+?)\((\d+),\d+\): (.*)$/.exec(line);
      const sample = match ? byFile.get(join(root, match[1]!)) : undefined;
      // The file's first line names the block; its code starts on the next, as the fence's line does.
      return sample ? `${sample.document}, line ${sample.line + Number(match![2]) - 1}: ${match![3]}` : line;
    });
}

let fragments: Sample[];
beforeAll(async () => {
  await assertDistFresh(); // the fragments are checked against the built types
  fragments = ((await writeSamples()) as Sample[]).filter((sample) => sample.kind === 'fragment' && sample.file);
});

describe('the documents’ fragments', () => {
  it('are there, jsx and tsx among them', () => {
    expect(fragments.length).toBeGreaterThan(5);
    expect(fragments.some((sample) => /\.(jsx|tsx)$/.test(sample.file!))).toBe(true);
  });

  it('type-check against the package, with only the declared names', async () => {
    expect(await typeProblems(fragments, join(root, 'test/docs/fragment-globals.d.ts'))).toEqual([]);
  }, 120_000);

  it('fail when they use a name nothing declares, or an API the package does not have (the checker itself)', async () => {
    const broken = join(root, SAMPLES_DIR, 'fragments', 'broken-fragment.js');
    await writeFile(broken, "import { createMerchantHandler } from 'svc-checkout/server';\ncreateMerchantHandler({ merchantId: 1 }).serveEverything();\nundeclaredHelper();\nexport {};\n");
    const problems = await typeProblems([{ document: 'a page', line: 10, kind: 'fragment', file: join(SAMPLES_DIR, 'fragments', 'broken-fragment.js') }], join(root, 'test/docs/fragment-globals.d.ts'));
    expect(problems.join('\n')).toMatch(/a page, line 1[01]: .*serveEverything/);
    expect(problems.join('\n')).toMatch(/undeclaredHelper/);
  }, 120_000);
});
