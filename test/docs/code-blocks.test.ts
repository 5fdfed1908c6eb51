// The documents written for people and coding assistants to copy from (the README, llms.txt and every page under
// docs/, as scripts/doc-samples.mjs finds them): every fenced code block parses in its language, and every local
// link points at a file that exists or that the package builds. A block that does not parse is a block an assistant
// copies broken. Programs also run (samples.test.ts), fragments type-check (fragments.test.ts).
//
//   js, mjs, jsx, ts, tsx   esbuild's parser (an ES module: top-level await allowed)
//   json                    JSON.parse
//   css                     esbuild's CSS parser
//   html                    parse5's tokenizer reports no error, every element is closed in order, and each
//                           inline <script> parses as JavaScript
//   vue                     Vue's template compiler (a single-file component when it has <template>/<script>)
//   svelte                  Svelte's parser
//   sh, bash                bash -n
//   text                    nothing: output and logs, said so by the fence
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { transform, type Loader } from 'esbuild';
import { Tokenizer, TokenizerMode, type Token, type TokenHandler } from 'parse5';
import { parse as parseSvelte } from 'svelte/compiler';
import { compileTemplate, parse as parseSfc } from 'vue/compiler-sfc';
import { describe, expect, it } from 'vitest';
// @ts-expect-error a plain JavaScript module without types
import { assertDistFresh } from '../../scripts/dist-is-fresh.mjs';
// @ts-expect-error a plain JavaScript module without types
import { documents, fencedBlocks as fencedBlocksOf } from '../../scripts/doc-samples.mjs';

const root = new URL('../../', import.meta.url).pathname;
const DOCUMENTS: string[] = await documents();

/**
 * Pages other engineers are writing at the same time, linked already from the pages that point at their topics; the
 * lead merges them. Each must not exist yet: once it lands, this list loses it and its links are checked as any.
 */
const PAGES_BEING_WRITTEN: string[] = [];

interface Block {
  language: string;
  code: string;
  /** 1-based line of the opening fence. */
  line: number;
}

/** Fenced blocks (```lang … ```), in order: as the samples' script reads them. */
const fencedBlocks = (markdown: string): Block[] => fencedBlocksOf(markdown);

const LOADERS: Record<string, Loader> = { js: 'js', mjs: 'js', javascript: 'js', jsx: 'jsx', ts: 'ts', typescript: 'ts', tsx: 'tsx' };
const VOID_ELEMENTS = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'source', 'track', 'wbr']);
const TEXT_MODES: Record<string, (typeof TokenizerMode)[keyof typeof TokenizerMode]> = {
  script: TokenizerMode.SCRIPT_DATA,
  style: TokenizerMode.RAWTEXT,
  textarea: TokenizerMode.RCDATA,
  title: TokenizerMode.RCDATA,
};

async function parseScript(code: string, loader: Loader): Promise<string[]> {
  try {
    await transform(code, { loader, format: 'esm', target: 'esnext', logLevel: 'silent' });
    return [];
  } catch (error) {
    const { errors } = error as { errors?: { text: string; location?: { line: number; column: number } }[] };
    return errors?.map((item) => `${item.location ? `${item.location.line}:${item.location.column} ` : ''}${item.text}`) ?? [String(error)];
  }
}

/** Problems of an HTML fragment: tokenizer errors, elements not closed (or closed out of order), bad scripts. */
async function htmlProblems(code: string): Promise<string[]> {
  const problems: string[] = [];
  const open: string[] = [];
  const scripts: { type: string; text: string }[] = [];
  let script: { type: string; text: string } | undefined;
  const tokenizer: Tokenizer = new Tokenizer({ sourceCodeLocationInfo: true }, {
    onParseError: (error) => problems.push(`${error.startLine}:${error.startCol} ${error.code}`),
    onStartTag(token: Token.TagToken) {
      if (VOID_ELEMENTS.has(token.tagName)) return;
      if (token.selfClosing) return; // a non-void `<x />` is reported by the tokenizer
      open.push(token.tagName);
      const mode = TEXT_MODES[token.tagName];
      if (mode !== undefined) tokenizer.state = mode;
      if (token.tagName === 'script' && !token.attrs.some((attribute) => attribute.name === 'src')) {
        script = { type: token.attrs.find((attribute) => attribute.name === 'type')?.value ?? '', text: '' };
      }
    },
    onEndTag(token: Token.TagToken) {
      const expected = open.pop();
      if (expected !== token.tagName) problems.push(`${token.location?.startLine}:${token.location?.startCol} </${token.tagName}> closes <${expected ?? 'nothing'}>`);
      if (token.tagName === 'script' && script) scripts.push(script), (script = undefined);
    },
    onCharacter(token: Token.CharacterToken) {
      if (script) script.text += token.chars;
    },
    onWhitespaceCharacter(token: Token.CharacterToken) {
      if (script) script.text += token.chars;
    },
    onNullCharacter: () => problems.push('a NUL character'),
    onComment() {},
    onDoctype() {},
    onEof() {},
  } satisfies TokenHandler);
  tokenizer.write(code, true);
  if (open.length > 0) problems.push(`never closed: ${open.map((name) => `<${name}>`).join(', ')}`);
  for (const { type, text } of scripts) {
    if (type === '' || type === 'module' || type === 'text/javascript') problems.push(...(await parseScript(text, 'js')).map((problem) => `<script>: ${problem}`));
  }
  return problems;
}

function vueProblems(code: string): string[] {
  if (/^\s*<(template|script|style)[\s>]/m.test(code)) {
    return parseSfc(code, { filename: 'snippet.vue' }).errors.map((error) => error.message);
  }
  const result = compileTemplate({
    source: code,
    filename: 'snippet.vue',
    id: 'snippet',
    compilerOptions: { isCustomElement: (tag) => tag.includes('-') },
  });
  return result.errors.map((error) => (typeof error === 'string' ? error : error.message));
}

function svelteProblems(code: string): string[] {
  try {
    parseSvelte(code, { modern: true });
    return [];
  } catch (error) {
    return [(error as Error).message];
  }
}

async function shellProblems(code: string): Promise<string[]> {
  try {
    await promisify(execFile)('bash', ['-n', '-c', code], { timeout: 10_000 });
    return [];
  } catch (error) {
    return [((error as { stderr?: string }).stderr ?? String(error)).trim()];
  }
}

async function problemsOf(block: Block): Promise<string[]> {
  const loader = LOADERS[block.language];
  if (loader) return parseScript(block.code, loader);
  switch (block.language) {
    case 'json':
      try {
        JSON.parse(block.code);
        return [];
      } catch (error) {
        return [(error as Error).message];
      }
    case 'css':
      try {
        // CSS parsers forgive by design: what esbuild warns about is what a browser would drop.
        const { warnings } = await transform(block.code, { loader: 'css', logLevel: 'silent' });
        return warnings.map((warning) => warning.text);
      } catch (error) {
        return ((error as { errors?: { text: string }[] }).errors ?? [{ text: String(error) }]).map((item) => item.text);
      }
    case 'html':
      return htmlProblems(block.code);
    case 'vue':
      return vueProblems(block.code);
    case 'svelte':
      return svelteProblems(block.code);
    case 'sh':
    case 'bash':
    case 'shell':
      return shellProblems(block.code);
    case 'text':
      return []; // output, logs and trees, declared as such: nothing to copy and run
    default:
      return [`no checker for the language "${block.language}": name one of the checked languages`];
  }
}

/** Local links of a document: [text](path), not URLs or anchors. */
function localLinks(markdown: string): string[] {
  return [...markdown.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((match) => (match[1] as string).split('#')[0] as string)
    .filter((target) => target !== '' && !/^[a-z][a-z\d+.-]*:/i.test(target));
}

describe('the checker itself', () => {
  it('finds errors in broken blocks of each language', async () => {
    const broken: Block[] = [
      { language: 'js', code: "import { x } from 'y';\nconst = 1;", line: 1 },
      { language: 'ts', code: 'const a: = 1;', line: 1 },
      { language: 'html', code: '<svc-checkout endpoint="/checkout">', line: 1 },
      { language: 'html', code: '<div><span></div></span>', line: 1 },
      { language: 'html', code: '<svc-checkout endpoint="/checkout></svc-checkout>', line: 1 },
      { language: 'html', code: '<script type="module">import { } from;</script>', line: 1 },
      { language: 'vue', code: '<svc-checkout :userInfo.prop="payer"', line: 1 },
      { language: 'svelte', code: '<svc-checkout userInfo={payer></svc-checkout>', line: 1 },
      { language: 'sh', code: 'if true; then echo', line: 1 },
      { language: 'json', code: '{ "a": 1, }', line: 1 },
      { language: 'css', code: 'svc-checkout:not(:defined { display: block }', line: 1 },
      { language: 'python', code: 'print(1)', line: 1 },
    ];
    for (const block of broken) expect(await problemsOf(block), `${block.language}: ${block.code}`).not.toEqual([]);
  });

  it('accepts sound blocks, comments and inline scripts included', async () => {
    const sound: Block[] = [
      { language: 'html', code: '<!-- a comment -->\n<svc-checkout endpoint="/checkout" checkout-token="ct1.eyJ…"></svc-checkout>\n<br>\n<script type="module">\n  if (1 < 2) document.title = "</b>";\n</script>', line: 1 },
      { language: 'js', code: "const token = await fetch('/t');", line: 1 },
    ];
    for (const block of sound) expect(await problemsOf(block), block.code).toEqual([]);
  });
});

describe('the integration guide’s test of an integration', () => {
  it('runs as written against the built package: a POS order is created, swiped in the sandbox and paid', async () => {
    await assertDistFresh();
    const guide = fencedBlocks(readFileSync(`${root}docs/integration-guide.md`, 'utf8'));
    const recipe = guide.find((block) => block.code.includes('await createSandbox(credentials)'));
    expect(recipe, 'the block of "Test your integration without a browser"').toBeDefined();
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', recipe!.code], { cwd: root, timeout: 30_000 });
    expect(stdout.trim().split('\n')).toEqual(['SWIPE_CARD', 'SUCCESS']);
  });
});

describe('the sandbox page’s backend in one call', () => {
  it('runs as written against the built package: the stack’s kit creates a POS order, the swipe comes back as a verified callback', async () => {
    await assertDistFresh();
    const page = fencedBlocks(readFileSync(`${root}docs/sandbox.md`, 'utf8'));
    const recipe = page.find((block) => block.code.includes('await startStack('));
    expect(recipe, 'the block of "A sandbox and the kit in front of it"').toBeDefined();
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', recipe!.code], { cwd: root, timeout: 30_000 });
    expect(stdout.trim().split('\n')).toEqual(['SWIPE_CARD', 'SUCCESS']);
  });
});

describe('the reliability page’s reconciliation recipe', () => {
  it('runs as written against the built package: a payment whose callback never arrives reaches onCallback by a sweep', async () => {
    await assertDistFresh();
    const page = fencedBlocks(readFileSync(`${root}docs/reliability.md`, 'utf8'));
    const recipe = page.find((block) => block.code.includes('console.log(await handler.reconcile())'));
    expect(recipe, 'the block of "Reconciliation"').toBeDefined();
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', recipe!.code], { cwd: root, timeout: 30_000 });
    expect(stdout.trim().split('\n')).toEqual(['{ asked: 1, handled: 1, forgotten: 1 }', "[ 'reconciliation SUCCESS' ]"]);
  });
});

describe('the reliability page’s outcome key recipe', () => {
  it('runs as written against the built package: a callback and a reconciliation of one outcome share its key, fulfilled once', async () => {
    await assertDistFresh();
    const page = fencedBlocks(readFileSync(`${root}docs/reliability.md`, 'utf8'));
    const recipe = page.find((block) => block.language === 'js' && block.code.includes('fulfilments.has(outcomeKey)'));
    expect(recipe, 'the block of "Your onCallback: idempotent in your own database"').toBeDefined();
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', recipe!.code], { cwd: root, timeout: 30_000 });
    expect(stdout.trim().split('\n')).toEqual(["[ 'callback: shipped', 'reconciliation: already fulfilled' ]", "[ 'outcome:<orderNo>:SUCCESS' ]"]);
  });
});

describe('the documents', () => {
  it('wait only for pages not yet written', () => {
    for (const page of PAGES_BEING_WRITTEN) expect(existsSync(`${root}${page}`), `${page} exists: take it off PAGES_BEING_WRITTEN`).toBe(false);
  });

  it('are the README, llms.txt and every page under docs/', () => {
    expect(DOCUMENTS.slice(0, 2)).toEqual(['README.md', 'llms.txt']);
    expect(DOCUMENTS).toEqual(expect.arrayContaining(['docs/README.md', 'docs/element.md', 'docs/kit.md', 'docs/sandbox-manual.md', 'docs/integration-guide.md']));
  });
});

describe.each(DOCUMENTS)('%s', (document) => {
  const markdown = readFileSync(`${root}${document}`, 'utf8');
  const blocks = fencedBlocks(markdown);

  // The README and llms.txt teach by example; a page of docs/ may be prose and tables alone.
  if (!document.startsWith('docs/')) {
    it('has code blocks, each in a checked language', () => {
      expect(blocks.length).toBeGreaterThan(0);
    });
  }

  it.each(blocks.map((block) => [`${block.language} block at line ${block.line}`, block] as const))('%s parses', async (_name, block) => {
    expect(await problemsOf(block)).toEqual([]);
  });

  it('links only to files that exist or that the package builds', () => {
    const pkg = JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as { exports: Record<string, string | { default: string }> };
    const built = new Set(Object.values(pkg.exports).map((target) => (typeof target === 'string' ? target : target.default).replace(/^\.\//, '')));
    const base = document.includes('/') ? document.slice(0, document.lastIndexOf('/') + 1) : '';
    for (const link of localLinks(markdown)) {
      const path = new URL(link, `file:///${base}`).pathname.slice(1);
      expect(existsSync(`${root}${path}`) || built.has(path) || PAGES_BEING_WRITTEN.includes(path), `${document} links to ${link}`).toBe(true);
    }
  });
});
