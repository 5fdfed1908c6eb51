/**
 * Which of a file's stored encodings a request gets, from its `Accept-Encoding` (RFC 9110 §12.5.3). The element's
 * files are compressed at build time (scripts/precompress.mjs); the kit only chooses among the copies it read.
 *
 * The highest q-value wins; at the same q-value, brotli (the smallest) before gzip before the file as it is. `q=0`
 * refuses a coding, and `*` stands for every coding the header does not name. The file as it is (`identity`) is
 * acceptable unless refused by name or by `*;q=0`; when the header does not name it, it comes after every coding
 * the header does. No header at all gets the file as it is (a browser always sends one; a script that sends none
 * may not decode). An empty header accepts only the file as it is.
 */

export type ContentCoding = 'br' | 'gzip' | 'identity';

/** Ours, at equal q-values: the smallest first. */
const PREFERENCE: readonly ContentCoding[] = ['br', 'gzip', 'identity'];

/** The names a header may give each coding (`x-gzip` is gzip, RFC 9110 §8.4.1.3). */
const NAMES: Record<string, ContentCoding | '*'> = { br: 'br', gzip: 'gzip', 'x-gzip': 'gzip', identity: 'identity', '*': '*' };

/** `q=` as RFC 9110 §12.4.2 writes it: 0 to 1, three decimals at most. */
const QVALUE = /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/;

/** The file as it is, when the header names neither it nor `*`: acceptable, below any q-value a header can write. */
const UNNAMED_IDENTITY = 0.0001;

/** The q-value the header gives each coding it names (and `*`); a coding named twice keeps its highest. */
function qValues(header: string): Map<ContentCoding | '*', number> {
  const found = new Map<ContentCoding | '*', number>();
  for (const item of header.split(',')) {
    const [name = '', ...parameters] = item.split(';').map((part) => part.trim());
    const coding = NAMES[name.toLowerCase()];
    if (!coding) continue;
    const q = parameters.find((parameter) => /^q\s*=/i.test(parameter))?.replace(/^q\s*=\s*/i, '') ?? '1';
    // A q-value that is none: the item is not understood, so it accepts nothing.
    if (!QVALUE.test(q)) continue;
    found.set(coding, Math.max(found.get(coding) ?? 0, Number(q)));
  }
  return found;
}

/**
 * The coding to send, among those `available` (a file always has `identity`); undefined when the header refuses
 * every one of them (then 406).
 */
export function chooseEncoding(header: string | null, available: readonly ContentCoding[]): ContentCoding | undefined {
  if (header === null) return available.includes('identity') ? 'identity' : undefined;
  const accepted = qValues(header);
  const qOf = (coding: ContentCoding) => accepted.get(coding) ?? accepted.get('*') ?? (coding === 'identity' ? UNNAMED_IDENTITY : 0);
  let best: ContentCoding | undefined;
  for (const coding of PREFERENCE) {
    if (!available.includes(coding) || qOf(coding) === 0) continue;
    if (best === undefined || qOf(coding) > qOf(best)) best = coding;
  }
  return best;
}
