/**
 * Who a reference code message goes to, as the per-recipient limits count them: one phone or one mailbox
 * however the browser spells it. Only the counting key is normalised; the order sent to the service keeps the
 * payer's spelling.
 */
import { getCountryCallingCode, isSupportedCountry, Metadata, parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js';

/**
 * A phone number in E.164 (`+201012345678`), read in the order's country: `+20 101 234 5678`, `0020 101…`,
 * `01012345678` and `201012345678` are one number in Egypt. A number the library cannot read counts by its digits.
 * A number already written in E.164 for the order's country, of a length the country's numbers have, is its own key
 * without a parse (what the library would say of it: test/server/recipients.test.ts checks that they agree).
 */
export function phoneKeyOf(phone: string, country: string | undefined): string {
  const plan = country === undefined ? undefined : planOf(country);
  if (plan && phone.startsWith(plan.prefix) && isPlainE164(phone, plan)) return phone;
  const parsed = parsePhoneNumberFromString(phone, country as CountryCode | undefined);
  return parsed?.isPossible() ? parsed.number : phone.replace(/\D/g, '');
}

interface Plan {
  /** `+` and the country's calling code. */
  prefix: string;
  lengths: ReadonlySet<number>;
  /** What a national number starts with that E.164 leaves out: 0, the national prefix. */
  leading: readonly string[];
}

/** The library's metadata, with the two methods its types leave out. */
interface PlanMetadata {
  getCountryCodesForCallingCode(code: string): readonly string[] | undefined;
  selectNumberingPlan(country: CountryCode): void;
  numberingPlan: { possibleLengths(): number[]; nationalPrefix(): string | undefined };
}

const plans = new Map<string, Plan | undefined>();

function planOf(country: string): Plan | undefined {
  if (plans.has(country)) return plans.get(country);
  let plan: Plan | undefined;
  // A calling code that several countries share (+1, +7, +44…) reads the number's own digits to tell its country,
  // and its lengths with it: those go to the library.
  const metadata = new Metadata() as unknown as PlanMetadata;
  if (isSupportedCountry(country) && metadata.getCountryCodesForCallingCode(getCountryCallingCode(country))?.length === 1) {
    metadata.selectNumberingPlan(country);
    const numbering = metadata.numberingPlan;
    const national = numbering.nationalPrefix();
    plan = { prefix: `+${getCountryCallingCode(country)}`, lengths: new Set(numbering.possibleLengths()), leading: national ? ['0', national] : ['0'] };
  }
  if (plans.size < 300) plans.set(country, plan);
  return plan;
}

/** `+`, the calling code, then digits only, not starting as a national number does, of one of the country's lengths. */
function isPlainE164(phone: string, plan: Plan): boolean {
  const national = phone.length - plan.prefix.length;
  if (!plan.lengths.has(national)) return false;
  for (let index = plan.prefix.length; index < phone.length; index++) {
    const code = phone.charCodeAt(index);
    if (code < 48 || code > 57) return false;
  }
  return !plan.leading.some((start) => phone.startsWith(start, plan.prefix.length));
}

/**
 * A mailbox: lowercased, the `+tag` of sub-addressing dropped, and trailing dots dropped from both parts
 * (`Mona+x@Example.com.` is `mona@example.com`). Folding two mailboxes into one key only makes their limit stricter.
 */
export function emailKeyOf(email: string): string {
  const lower = email.trim().toLowerCase();
  const at = lower.lastIndexOf('@');
  if (at < 0) return lower;
  const local = lower.slice(0, at).replace(/\+.*$/, '').replace(/\.+$/, '');
  const domain = lower.slice(at + 1).replace(/\.+$/, '');
  return `${local}@${domain}`;
}
