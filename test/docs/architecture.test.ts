// docs/architecture.md and docs/sandbox.md say where the code is: every path they name exists, their tables of
// folders name every folder of src/server and src/sandbox and only those, and each file a row names is in its folder.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url).pathname;
const read = (page: string) => readFileSync(join(root, page), 'utf8');

/** Every file under a folder, as paths relative to it. */
function filesUnder(folder: string): string[] {
  return readdirSync(join(root, folder), { recursive: true, encoding: 'utf8' }).filter((path) => statSync(join(root, folder, path)).isFile());
}

/** The rows of the first table whose header starts with `| folder |`: each folder and the text of its row. */
function folderRows(markdown: string): { folder: string; text: string }[] {
  const start = markdown.indexOf('| folder |');
  expect(start, 'a table of folders').toBeGreaterThan(-1);
  const rows = markdown.slice(start).split('\n').slice(2);
  return rows
    .slice(0, rows.findIndex((line) => !line.startsWith('|')))
    .map((line) => ({ folder: /^\| `([\w-]+)\/`/.exec(line)![1]!, text: line }));
}

/** The names in backticks that end like a source file. */
const fileNames = (text: string) => [...text.matchAll(/`([\w./-]+\.(?:ts|mjs|js))`/g)].map((match) => match[1]!);

const PATH = /(?<![\w/.-])((?:src|test|docs|scripts|bench|examples|demo|bin)\/[\w@./-]*[\w/])/g;

describe.each(['docs/architecture.md', 'docs/sandbox.md'])('%s', (page) => {
  const markdown = read(page);

  it('names only paths that exist', () => {
    const named = [...new Set([...markdown.matchAll(PATH)].map((match) => match[1]!))];
    expect(named.length).toBeGreaterThan(0);
    expect(named.filter((path) => !existsSync(join(root, path)))).toEqual([]);
  });

  it('names every file of the source it shows, in a folder that holds it', () => {
    const everyFile = new Set(filesUnder('src').map((path) => basename(path)));
    expect(fileNames(markdown).filter((name) => !name.includes('/') && !everyFile.has(name))).toEqual([]);
  });
});

describe.each([
  ['docs/architecture.md', 'src/server'],
  ['docs/sandbox.md', 'src/sandbox'],
])('the folders of %s', (page, source) => {
  const rows = folderRows(read(page));
  const folders = readdirSync(join(root, source), { withFileTypes: true }).filter((entry) => entry.isDirectory());

  it(`are the folders of ${source}, each once`, () => {
    expect(rows.map((row) => row.folder).sort()).toEqual(folders.map((entry) => entry.name).sort());
  });

  it('name the files each holds', () => {
    for (const { folder, text } of rows) {
      const held = new Set(filesUnder(join(source, folder)).flatMap((path) => [path, basename(path)]));
      // A path from the root (`src/server/redis.ts`) names a file outside the folder: the other check has it.
      const named = fileNames(text).filter((name) => !name.startsWith('src/'));
      expect(named.length, `${folder}/ names its files`).toBeGreaterThan(0);
      expect(named.filter((name) => !held.has(name)), `${folder}/`).toEqual([]);
    }
  });
});
