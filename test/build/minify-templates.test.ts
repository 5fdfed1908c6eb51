// The CDN build's template minifiers (scripts/minify-css-templates.mjs): html`` and svg`` text loses its
// indentation (a run with a line break becomes one space, as HTML reads it anyway), templates inside
// interpolations too; interpolations, other strings and css`` templates stay as written.
import { describe, expect, it } from 'vitest';
// @ts-expect-error a plain JavaScript module without types
import { collapseHtmlTemplatesIn } from '../../scripts/minify-css-templates.mjs';

describe('collapseHtmlTemplatesIn', () => {
  it('makes each whitespace run with a line break one space, in html`` and svg`` text only', () => {
    const source = 'const a = html`\n  <p>\n    ${x}\n  </p>\n`;\nconst b = svg`<g>\n  <path d="M0 0" />\n</g>`;\nconst c = `\n  kept\n`;';
    expect(collapseHtmlTemplatesIn(source)).toBe('const a = html` <p> ${x} </p> `;\nconst b = svg`<g> <path d="M0 0" /> </g>`;\nconst c = `\n  kept\n`;');
  });

  it('leaves spaces without a line break, interpolations and css`` templates as they are', () => {
    const source = 'html`<b>a  b</b>${ f("\\n  x") }`; css`\n  a { b: c; }\n`;';
    expect(collapseHtmlTemplatesIn(source)).toBe(source);
  });

  it('reaches templates inside interpolations, however deep', () => {
    const source = 'html`\n<ul>${items.map((item) => html`\n  <li>${item ? html`\n    <b>${item}</b>` : nothing}</li>`)}\n</ul>`';
    expect(collapseHtmlTemplatesIn(source)).toBe('html` <ul>${items.map((item) => html` <li>${item ? html` <b>${item}</b>` : nothing}</li>`)} </ul>`');
  });
});
