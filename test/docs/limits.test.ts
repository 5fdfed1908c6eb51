// docs/limits.md against the kit's one table of limits (src/server/limits.ts): a row for every limit, with what it
// counts, what it is counted per and its default as the kit has them, and no row for a limit the kit does not have.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS, LIMIT_TABLE, type LimitName } from '../../src/server/index.js';

const page = readFileSync(new URL('../../docs/limits.md', import.meta.url), 'utf8');

/** The rows of the page's first table whose first cell names a limit in backticks. */
function rows(): Map<string, string[]> {
  const found = new Map<string, string[]>();
  const table = page.slice(page.indexOf('| limit | counts | per | default |'));
  for (const line of table.split('\n').slice(2)) {
    if (!line.startsWith('|')) break;
    const cells = line.split('|').slice(1, -1).map((cell) => cell.trim());
    found.set(cells[0]!.replace(/`/g, ''), cells.slice(1));
  }
  return found;
}

const number = (value: number) => value.toLocaleString('en').replace(/,/g, ' ');

function window(seconds: number): string {
  if (seconds % 3_600 === 0) return seconds === 3_600 ? 'hour' : `${number(seconds / 3_600)} hours`;
  if (seconds % 60 === 0) return seconds === 60 ? 'minute' : `${number(seconds / 60)} minutes`;
  return `${number(seconds)} seconds`;
}

describe('docs/limits.md', () => {
  it('lists every limit of the kit, with its default, and nothing else', () => {
    const documented = rows();
    expect([...documented.keys()].sort()).toEqual(Object.keys(LIMIT_TABLE).sort());
    for (const name of Object.keys(LIMIT_TABLE) as LimitName[]) {
      const [counts, per, given] = documented.get(name)!;
      const limit = DEFAULT_LIMITS[name];
      if (limit === false) throw new Error(`${name} is off by default`);
      expect(counts, name).toBe(LIMIT_TABLE[name].counts);
      expect(per!.startsWith(LIMIT_TABLE[name].per), `${name}: ${per}`).toBe(true);
      expect(given, name).toBe('windowSeconds' in limit ? `${number(limit.limit)} per ${window(limit.windowSeconds)}` : `${number(limit.limit)} open at once`);
    }
  });

  it('is linked from the pages of the limits we chose and of the threat model', () => {
    const read = (page: string) => readFileSync(new URL(`../../docs/${page}`, import.meta.url), 'utf8');
    const section = (text: string, title: string) => text.slice(text.indexOf(`## ${title}`), text.indexOf('\n## ', text.indexOf(`## ${title}`) + 1));
    expect(section(read('decisions.md'), 'Limits we chose')).toContain('(limits.md)');
    expect(section(read('security.md'), 'Threat model')).toContain('(limits.md)');
  });
});
