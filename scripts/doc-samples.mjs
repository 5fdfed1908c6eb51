// The code samples of the documents (README.md, llms.txt and every page under docs/), as npm test runs them
// (test/docs/samples.test.ts, test/docs/fragments.test.ts, test/docs/code-blocks.test.ts). The convention, written
// for the pages' authors in docs/README.md ("Code samples"):
//
//   ```js / ```mjs / ```ts          a program: run, as an ES module, against a sandbox (see docs/README.md)
//   ```js fragment (any language)   a piece of a program: type-checked against the package's types, its free names
//                                   declared in test/docs/fragment-globals.d.ts; never run
//   ```jsx / ```tsx                 always a fragment (a component of an app): type-checked
//   under <!-- from examples/<file> --> or <!-- run in <runtime> -->: code npm test runs elsewhere (the whole file in
//                                   test/examples, word for word; the runtime's own test): parsed here, not run again
//   ```html ```css ```json ```sh ```vue ```svelte ```text   parsed in their language (text: nothing)
//
//   node scripts/doc-samples.mjs            lists every sample: page, line, language, what npm test does with it
//   node scripts/doc-samples.mjs --write    also writes them to build/doc-samples/ (what the tests run)
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('..', import.meta.url));
export const SAMPLES_DIR = 'build/doc-samples';

/** Languages a program may be written in; jsx and tsx samples are app code, checked as fragments. */
const PROGRAM_LANGUAGES = new Set(['js', 'mjs', 'javascript', 'ts', 'typescript']);
const SCRIPT_LANGUAGES = new Set([...PROGRAM_LANGUAGES, 'jsx', 'tsx']);

/** The documents whose samples run: the README, llms.txt, and every Markdown page under docs/, however many. */
export async function documents() {
  const pages = [];
  const walk = async (folder) => {
    for (const entry of await readdir(join(root, folder), { withFileTypes: true })) {
      const path = `${folder}/${entry.name}`;
      if (entry.isDirectory()) await walk(path);
      else if (entry.name.endsWith('.md')) pages.push(path);
    }
  };
  await walk('docs');
  return ['README.md', 'llms.txt', ...pages.sort()];
}

/**
 * The fenced blocks of a Markdown text, in order: language, the words after it (`fragment`), code and the line of
 * the opening fence (1-based).
 */
export function fencedBlocks(markdown) {
  const blocks = [];
  const lines = markdown.split('\n');
  for (let index = 0; index < lines.length; index++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*([\w+-]*)\s*(.*)$/.exec(lines[index]);
    if (!open) continue;
    const [, indent, fence, language, words] = open;
    // The line above, when it says where else the block runs (an excerpt of an example, another runtime).
    const above = lines.slice(0, index).reverse().find((line) => line.trim() !== '')?.trim() ?? '';
    const elsewhere = /^<!-- (?:from \S+|run in [^>]+) -->$/.test(above) ? above : undefined;
    const body = [];
    let end = index + 1;
    for (; end < lines.length && !lines[end].trimStart().startsWith(fence); end++) body.push(lines[end].slice(indent.length));
    if (end >= lines.length) throw new Error(`line ${index + 1}: a code block is never closed`);
    blocks.push({ language: language.toLowerCase(), words: words.trim().split(/\s+/).filter(Boolean), code: body.join('\n'), line: index + 1, elsewhere });
    index = end;
  }
  return blocks;
}

/** What npm test does with a block: `program` (run), `fragment` (type-checked) or `parse` (its language's parser). */
export function kindOf(block) {
  if (!SCRIPT_LANGUAGES.has(block.language) || block.elsewhere) return 'parse';
  if (block.words.includes('fragment') || !PROGRAM_LANGUAGES.has(block.language)) return 'fragment';
  return 'program';
}

/** A sample's file name: its page and line (`docs-kit.md-120.mjs`). */
function fileNameOf(document, block, extension) {
  return `${document.replace(/[/\\]/g, '-')}-${block.line}.${extension}`;
}

const EXTENSIONS = { js: 'mjs', mjs: 'mjs', javascript: 'mjs', ts: 'mts', typescript: 'mts', jsx: 'jsx', tsx: 'tsx' };

/** Every sample of every document: `{document, line, language, kind, code, file}` (file: where --write puts it). */
export async function samples() {
  const found = [];
  for (const document of await documents()) {
    for (const block of fencedBlocks(await readFile(join(root, document), 'utf8'))) {
      const kind = kindOf(block);
      const extension = EXTENSIONS[block.language];
      const file = extension && kind !== 'parse' ? join(SAMPLES_DIR, kind === 'program' ? 'programs' : 'fragments', fileNameOf(document, block, kind === 'fragment' && extension === 'mjs' ? 'js' : extension)) : undefined;
      found.push({ document, line: block.line, language: block.language, words: block.words, kind, code: block.code, file });
    }
  }
  return found;
}

/**
 * Writes every program and fragment under build/doc-samples/ (programs/ and fragments/), each as the module it is
 * (a fragment gets `export {}`, so that two fragments' names never meet). Returns the samples.
 */
export async function writeSamples() {
  const all = await samples();
  await rm(join(root, SAMPLES_DIR), { recursive: true, force: true });
  await mkdir(join(root, SAMPLES_DIR, 'programs'), { recursive: true });
  await mkdir(join(root, SAMPLES_DIR, 'fragments'), { recursive: true });
  for (const sample of all) {
    if (!sample.file) continue;
    const header = `// ${sample.document}, line ${sample.line}\n`;
    await writeFile(join(root, sample.file), `${header}${sample.code}\n${sample.kind === 'fragment' ? 'export {};\n' : ''}`);
  }
  return all;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const all = process.argv.includes('--write') ? await writeSamples() : await samples();
  const counts = {};
  for (const sample of all) {
    counts[sample.kind] = (counts[sample.kind] ?? 0) + 1;
    console.log(`${sample.document}:${sample.line}\t${sample.language}\t${sample.kind}${sample.file ? `\t${relative(root, join(root, sample.file))}` : ''}`);
  }
  console.log(`${all.length} blocks: ${Object.entries(counts).map(([kind, count]) => `${count} ${kind}`).join(', ')}`);
}
