/** How long a value from a request may run in a log line before it is cut. */
const LOGGED_LENGTH = 80;

/**
 * A value that came from a request, fit for one log line: cut to 80 characters, and every character outside
 * printable ASCII escaped (`\n`, `\u202e`, …), so that no request can start a fake line or turn one around.
 */
export function printable(text: string): string {
  const cut = text.length > LOGGED_LENGTH ? `${text.slice(0, LOGGED_LENGTH)}...(${text.length} chars)` : text;
  return cut.replace(/[^\x20-\x7e]|\\/g, (char) => (char === '\\' ? '\\\\' : `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`));
}
