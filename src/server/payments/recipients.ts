/**
 * Who a reference code message goes to, as the per-recipient limits count them: one phone or one mailbox
 * however the browser spells it. Only the counting key is normalised; the order sent to the service keeps the
 * payer's spelling.
 */
import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js';

/**
 * A phone number in E.164 (`+201012345678`), read in the order's country: `+20 101 234 5678`, `0020 101…`,
 * `01012345678` and `201012345678` are one number in Egypt. A number the library cannot read counts by its digits.
 */
export function phoneKeyOf(phone: string, country: string | undefined): string {
  const parsed = parsePhoneNumberFromString(phone, country as CountryCode | undefined);
  return parsed?.isPossible() ? parsed.number : phone.replace(/\D/g, '');
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
