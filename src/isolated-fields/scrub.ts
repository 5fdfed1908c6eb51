/**
 * The kit's answer without any value typed here: the kit writes none, but a shop's own words (an `OrderRejection`
 * of its `authorize` hook, which sees the details) or the service's could quote one, and the page reads the answer.
 * Values of four characters or more, as whole words (a digit run inside a longer number is not one).
 */
export function withoutTyped(text: string, values: readonly string[]): string {
  const words = values.flatMap((value) => [value, value.replace(/\s+/g, '')]).filter((value) => value.length >= 4);
  return words.reduce((out, word) => out.replace(new RegExp(`(?<![0-9A-Za-z])${word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![0-9A-Za-z])`, 'g'), '••••'), text);
}
