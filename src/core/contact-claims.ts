/**
 * The payer's contact a checkout token may carry (docs/pay-links.md, "The payer's contact"): sealed, never in clear.
 * The kit seals what the shop knows of the payer (a payment link's `payer`, or a token's) under a key of the kit's
 * alone (`payerContact`), and says beside it which of the notice's fields it holds (`contactOnFile`, letters: `n` the
 * name, `e` the email, `m` the mobile number), so that the reference code form lets the payer leave those empty. The
 * values themselves never reach the page: the kit fills the notice from the sealed claim when the payer creates.
 *
 * Apart from token-wire.ts on purpose: the element's first frame never reads these; the form's chunk does.
 */
import { readTokenPayload } from './token-wire.js';

/** The claims' short wire names. */
export const CONTACT_KEYS = { payerContact: 'pc', contactOnFile: 'cf' } as const;

/** Each field of the notice a contact on file can stand for, by its letter in `contactOnFile`. */
export const CONTACT_LETTERS = { n: 'notify.notifyUserName', e: 'notify.notifyUserEmail', m: 'notify.notifyUserMobile' } as const;

/** `contactOnFile`'s form: each letter at most once, in this order. */
export const CONTACT_ON_FILE = /^n?e?m?$/;

/**
 * Whether the payer typed any of the notice's contact fields (`notify`'s name, email or mobile number; blank is none).
 * The contact on file is used whole or not at all: the kit fills the notice from it only when the payer typed none of
 * them, and the form lets them be left empty only then (docs/pay-links.md, "The payer's contact").
 */
export function typedContact(notify: unknown): boolean {
  return Object.values(CONTACT_LETTERS).some((wire) => {
    const value = notify && typeof notify === 'object' ? (notify as Record<string, unknown>)[wire.slice(7)] : undefined;
    return value != null && (typeof value !== 'string' || value.trim() !== '');
  });
}

/**
 * The notice's fields (their wire paths) the shop has on file for the payer, as a checkout token says (read, never
 * checked: only the kit can check a token, and it fills only what it sealed), the payer's `notify` as typed so far
 * given: none once the payer typed any contact field (whole or not at all). None for any other text.
 */
export function contactOnFile(token: unknown, notify?: unknown): string[] {
  const payload = token && !typedContact(notify) ? readTokenPayload(token, 'checkout') : undefined;
  const letters = typeof payload === 'object' ? payload.short[CONTACT_KEYS.contactOnFile] : undefined;
  if (typeof letters !== 'string' || !letters || !CONTACT_ON_FILE.test(letters)) return [];
  return [...letters].map((letter) => CONTACT_LETTERS[letter as keyof typeof CONTACT_LETTERS]);
}
