/**
 * Payers type digits in the script they use: Arabic-Indic (٠١٢…), Extended Arabic-Indic (۰۱۲…) or Latin.
 * Everything this package sends carries ASCII digits; this is where the others become them.
 */
const DIGIT_ZEROS = [0x0660, 0x06f0, 0xff10] as const; // Arabic-Indic, Extended Arabic-Indic, fullwidth

export function toAsciiDigits(text: string): string {
  return text.replace(/[\u0660-\u0669\u06f0-\u06f9\uff10-\uff19]/g, (char) => {
    const code = char.charCodeAt(0);
    const zero = DIGIT_ZEROS.find((base) => code >= base && code <= base + 9) as number;
    return String(code - zero);
  });
}

/** Groups a reference code in threes for reading aloud and copying by eye: 123456789 -> "123 456 789". */
export function groupReferenceCode(code: string): string {
  return code.replace(/(\d{3})(?=\d)/g, '$1 ');
}
