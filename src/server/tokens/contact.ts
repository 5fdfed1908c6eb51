/**
 * The payer's contact a checkout token carries sealed (src/core/contact-claims.ts; docs/pay-links.md, "The payer's
 * contact"): what the shop knows of its payer (a payment link's `payer`) travels in the page's token, where the page
 * and its script can read every claim, so it goes there encrypted: AES-256-GCM under a key derived from the merchant's
 * private key for this purpose alone (`HMAC-SHA512(privateKey, "svc-checkout:payer-contact:v1")`, its first 32 bytes),
 * bound to the merchant and the checkout (its additional data), so that a sealed contact is never moved to another
 * checkout. Beside it, in clear, only which of the notice's fields it holds. Stateless: any of the shop's kits opens it.
 */
import { base64UrlBytes, CONTACT_LETTERS, REFERENCE_CODE_CREATE, validate, type RuleTable, type Violation } from '../../core/index.js';
import { anyOf } from '../../core/groups.js';
import { hmacSha512Bytes } from '../runtime/signature.js';

/** The payer's contact a shop may give with a checkout (a link's `payer`): never shown to the page. */
export interface PayerContact {
  name?: string;
  email?: string;
  phone?: string;
}

const PURPOSE = 'svc-checkout:payer-contact:v1';
const IV_BYTES = 12;
/** The contact's fields, in the sealed array's order, each with the notice's field it fills and its letter. */
const FIELDS = [
  ['name', 'n'],
  ['email', 'e'],
  ['phone', 'm'],
] as const;

const FORMATS = {
  name: REFERENCE_CODE_CREATE.fields[CONTACT_LETTERS.n]!.format,
  email: REFERENCE_CODE_CREATE.fields[CONTACT_LETTERS.e]!.format,
  phone: REFERENCE_CODE_CREATE.fields[CONTACT_LETTERS.m]!.format,
};
/**
 * A contact on file is one a notice can be sent with, whole (it is used whole or not at all): the payer's name, which
 * the notice greets them by, and an address. A name alone, or an address without the name, would spare the payer
 * nothing (typing the missing field means typing all of it), so it is refused where the shop gives it.
 */
const CONTACT_RULES: RuleTable = {
  fields: {
    name: { required: true, format: FORMATS.name },
    email: { required: false, format: FORMATS.email },
    phone: { required: false, format: FORMATS.phone },
  },
  groups: [anyOf(['email', 'phone'])],
};

/**
 * What is wrong with a contact the shop gives, with the notice's own rules (a contact on file is checked as a typed one
 * is), each violation named `payer.<field>`; the contact as those rules leave it (trimmed) otherwise.
 */
export function checkPayerContact(payer: unknown): { ok: true; value: PayerContact | undefined } | { ok: false; violations: Violation[] } {
  if (payer === undefined) return { ok: true, value: undefined };
  const checked = validate<PayerContact>(CONTACT_RULES, payer);
  if (!checked.ok) {
    // Each field named where the shop wrote it: `payer.name is required`, `payer.email or payer.phone is required`.
    const named = (text: string) => text.replace(/^(\w+)(?: or (\w+))?/, (_, one: string, other?: string) => (other ? `payer.${one} or payer.${other}` : `payer.${one}`));
    return { ok: false, violations: checked.violations.map((violation) => ({ ...violation, field: `payer.${violation.field}`, message: named(violation.message) })) };
  }
  const value: PayerContact = {};
  for (const [field] of FIELDS) if (typeof checked.value[field] === 'string' && checked.value[field]) value[field] = checked.value[field];
  return { ok: true, value: Object.keys(value).length > 0 ? value : undefined };
}

const keys = new Map<string, Promise<CryptoKey>>();

function keyFor(privateKey: string): Promise<CryptoKey> {
  let key = keys.get(privateKey);
  if (!key) {
    if (keys.size >= 32) keys.delete(keys.keys().next().value as string);
    key = hmacSha512Bytes(privateKey, PURPOSE).then((bytes) => crypto.subtle.importKey('raw', bytes.slice(0, 32), { name: 'AES-GCM' }, false, ['encrypt', 'decrypt']));
    key.catch(() => keys.delete(privateKey));
    keys.set(privateKey, key);
  }
  return key;
}

/** The checkout a sealed contact belongs to: opened for it alone. */
const additionalData = (merchantId: string, reference: string) => new TextEncoder().encode(`${PURPOSE}\u0000${merchantId}\u0000${reference}`);

function base64Url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** The two claims of a contact (checked already): sealed, and which of the notice's fields it holds. */
export async function sealPayerContact(
  privateKey: string,
  checkout: { merchantId: string; reference: string },
  payer: PayerContact,
): Promise<{ payerContact: string; contactOnFile: string }> {
  const plain = new TextEncoder().encode(JSON.stringify(FIELDS.map(([field]) => payer[field] ?? null)));
  const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
  const sealed = new Uint8Array(
    await crypto.subtle.encrypt({ name: 'AES-GCM', iv, additionalData: additionalData(checkout.merchantId, checkout.reference) }, await keyFor(privateKey), plain),
  );
  const bytes = new Uint8Array(IV_BYTES + sealed.byteLength);
  bytes.set(iv);
  bytes.set(sealed, IV_BYTES);
  const contactOnFile = FIELDS.filter(([field]) => payer[field]).map(([, letter]) => letter).join('');
  return { payerContact: base64Url(bytes), contactOnFile };
}

/**
 * A token's sealed contact, opened for its checkout: the contact, or undefined when the token carries none, or
 * `'forged'` when it does not open under this key and checkout (never believed, never partly read).
 */
export async function openPayerContact(
  privateKey: string,
  claims: { merchantId: string; reference: string; payerContact?: string | undefined },
): Promise<PayerContact | undefined | 'forged'> {
  if (claims.payerContact === undefined) return undefined;
  const bytes = base64UrlBytes(claims.payerContact);
  if (!bytes || bytes.byteLength < IV_BYTES + 16) return 'forged';
  let plain: ArrayBuffer;
  try {
    plain = await crypto.subtle.decrypt(
      { name: 'AES-GCM', iv: bytes.slice(0, IV_BYTES), additionalData: additionalData(claims.merchantId, claims.reference) },
      await keyFor(privateKey),
      bytes.slice(IV_BYTES),
    );
  } catch {
    return 'forged';
  }
  let items: unknown;
  try {
    items = JSON.parse(new TextDecoder().decode(plain));
  } catch {
    return 'forged';
  }
  if (!Array.isArray(items)) return 'forged';
  const payer: PayerContact = {};
  FIELDS.forEach(([field], index) => {
    if (typeof items[index] === 'string') payer[field] = items[index];
  });
  const checked = checkPayerContact(payer);
  return checked.ok ? (checked.value ?? {}) : 'forged';
}
