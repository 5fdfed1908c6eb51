// For the CDN build (scripts/cdn-build.mjs): minifies the CSS inside Lit's css`…` tagged templates of our own sources,
// which esbuild leaves as written (a template literal is a string to it). Comments go, whitespace runs become one
// space, and the space beside { } ; , > ( ) : / goes, outside CSS strings. Only the text between interpolations
// changes; `${…}` stays as it is. html`…` templates are never touched: whitespace there is content. A template
// holding a backslash is left as written (an escape's whitespace can be part of it).

/** Characters a space may be dropped after, and before. */
const NO_SPACE_AFTER = new Set(['{', '}', ';', ',', '>', '(', ':', '/']);
const NO_SPACE_BEFORE = new Set(['{', '}', ';', ',', '>', ')', '/']);

/**
 * Minifies one piece of a css`` template (the text between two interpolations). `atStart`/`atEnd` say whether
 * the piece begins or ends the whole template (then its outer whitespace goes); beside an interpolation one
 * space is kept unless punctuation inside the piece makes it useless.
 */
export function minifyCssText(text, { atStart = true, atEnd = true } = {}) {
  // Tokens: strings verbatim, comments and whitespace as one space, anything else as it is.
  const tokens = [];
  for (let index = 0; index < text.length; ) {
    const char = text[index];
    if (char === '"' || char === "'") {
      let end = index + 1;
      while (end < text.length && text[end] !== char && text[end] !== '\n') end++;
      tokens.push({ text: text.slice(index, end + 1), string: true });
      index = end + 1;
    } else if (text.startsWith('/*', index)) {
      const end = text.indexOf('*/', index + 2);
      if (end < 0) throw new Error('an unclosed CSS comment');
      tokens.push({ text: ' ', space: true });
      index = end + 2;
    } else if (/\s/.test(char)) {
      let end = index;
      while (end < text.length && /\s/.test(text[end])) end++;
      tokens.push({ text: ' ', space: true });
      index = end;
    } else {
      tokens.push({ text: char });
      index++;
    }
  }
  let out = '';
  for (let index = 0; index < tokens.length; index++) {
    const token = tokens[index];
    if (!token.space) {
      if (token.text === '}' && out.endsWith(';')) out = out.slice(0, -1);
      out += token.text;
      continue;
    }
    if (out.endsWith(' ')) continue; // a run of spaces and comments
    const previous = out.at(-1);
    let next = index + 1;
    while (next < tokens.length && tokens[next].space) next++;
    const following = tokens[next];
    if (previous === undefined ? atStart : NO_SPACE_AFTER.has(previous)) continue;
    if (following === undefined ? atEnd : NO_SPACE_BEFORE.has(following.text)) continue;
    out += ' ';
  }
  return out;
}

/** Ends of a template literal that starts after index `start` (just past its backtick): its pieces and its end. */
function scanTemplate(source, start) {
  const pieces = [];
  let pieceStart = start;
  for (let index = start; index < source.length; index++) {
    const char = source[index];
    if (char === '\\') {
      index++;
    } else if (char === '`') {
      pieces.push([pieceStart, index]);
      return { pieces, end: index };
    } else if (char === '$' && source[index + 1] === '{') {
      pieces.push([pieceStart, index]);
      const close = scanExpression(source, index + 2);
      if (close < 0) return undefined;
      index = close;
      pieceStart = close + 1;
    }
  }
  return undefined;
}

/** Index of the `}` closing an interpolation that starts at `start`, stepping over strings and templates. */
function scanExpression(source, start) {
  let depth = 0;
  for (let index = start; index < source.length; index++) {
    const char = source[index];
    if (char === '{') depth++;
    else if (char === '}') {
      if (depth === 0) return index;
      depth--;
    } else if (char === '"' || char === "'") {
      index++;
      while (index < source.length && source[index] !== char) index += source[index] === '\\' ? 2 : 1;
    } else if (char === '`') {
      const inner = scanTemplate(source, index + 1);
      if (!inner) return -1;
      index = inner.end;
    }
  }
  return -1;
}

/** An edit of a source: its text from `from` to `to` becomes `text`. */
/** @typedef {{ from: number, to: number, text: string }} Edit */

/** The edits minifying the CSS of every css`` template of a source (each piece of text between interpolations). */
export function cssTemplateEdits(source) {
  const edits = [];
  const tag = /(?<![\w$.])css`/g;
  for (let match = tag.exec(source); match; match = tag.exec(source)) {
    const start = match.index + match[0].length;
    const template = scanTemplate(source, start);
    if (!template) continue;
    tag.lastIndex = template.end + 1;
    if (source.slice(start, template.end).includes('\\')) continue;
    template.pieces.forEach(([from, to], index) => {
      const text = minifyCssText(source.slice(from, to), { atStart: index === 0, atEnd: index === template.pieces.length - 1 });
      if (text !== source.slice(from, to)) edits.push({ from, to, text });
    });
  }
  return edits;
}

/**
 * The edits making every whitespace run that holds a line break, in the text of html`` and svg`` templates, one
 * space: the indentation of templates as written. HTML collapses such a run to one space anyway (no template here
 * holds a <pre>, a <textarea> or `white-space: pre`), so the DOM reads the same; the text between interpolations
 * is all that changes. `offset` is where `source` starts in the whole module (for templates inside interpolations).
 */
export function htmlTemplateEdits(source, offset = 0) {
  const edits = [];
  const tag = /(?<![\w$.])(?:html|svg)`/g;
  for (let match = tag.exec(source); match; match = tag.exec(source)) {
    const start = match.index + match[0].length;
    const template = scanTemplate(source, start);
    if (!template) continue;
    tag.lastIndex = template.end + 1;
    template.pieces.forEach(([from, to], index) => {
      // An interpolation may hold templates of its own.
      if (index > 0) edits.push(...htmlTemplateEdits(source.slice(template.pieces[index - 1][1], from), offset + template.pieces[index - 1][1]));
      for (const run of source.slice(from, to).matchAll(/[ \t]*\n\s*/g)) {
        edits.push({ from: offset + from + run.index, to: offset + from + run.index + run[0].length, text: ' ' });
      }
    });
  }
  return edits;
}

/** The source with its edits made (edits that do not overlap, in any order). */
export function applyEdits(source, edits) {
  let out = '';
  let copied = 0;
  for (const edit of [...edits].sort((a, b) => a.from - b.from)) {
    out += source.slice(copied, edit.from) + edit.text;
    copied = edit.to;
  }
  return out + source.slice(copied);
}

/** The source with the CSS of every css`` template minified. */
export function minifyCssTemplatesIn(source) {
  return applyEdits(source, cssTemplateEdits(source));
}

/** The source with the indentation of its html`` and svg`` templates made one space. */
export function collapseHtmlTemplatesIn(source) {
  return applyEdits(source, htmlTemplateEdits(source));
}
