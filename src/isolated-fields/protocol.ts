/**
 * What the page and the isolated frame say to each other (docs/isolated-fields.md). The page creates the frame with
 * its configuration in the address's fragment (never sent to a server); the frame greets its parent with the nonce it
 * was given; the page, having checked who greets, hands it one end of a `MessageChannel`; every message after that goes
 * over that private channel. The frame tells the page the rules its fields break, never their values.
 */
import { BANK_ACCOUNT_FIELDS } from '../checkout/bank-account-fields.js';
import { CODE_FIELDS } from '../checkout/code-fields.js';
import type { FieldName } from '../checkout/fields.js';
import type { IsolatedCall, IsolatedProof, IsolatedReport } from '../checkout/isolated.js';

/** The word both sides of the handshake carry, with the frame's nonce. */
export const HANDSHAKE = 'svc-isolated-fields';

/** What a frame holds: the bank account details, or the code of a one-time-code or PIN step. */
export type FrameKind = 'BankAccount' | 'INPUT_OTP' | 'INPUT_PIN';

/** The fields of each kind of frame, in the order the payer meets them: the rows of the forms' tables. */
export const FRAME_FIELDS: Readonly<Record<FrameKind, readonly FieldName[]>> = {
  BankAccount: BANK_ACCOUNT_FIELDS.map((field) => field.name),
  INPUT_OTP: [CODE_FIELDS.INPUT_OTP.name],
  INPUT_PIN: [CODE_FIELDS.INPUT_PIN.name],
};

/** The one call each kind of frame completes with its fields: it sends no other. */
export const FRAME_CALLS: Readonly<Record<FrameKind, IsolatedCall>> = { BankAccount: 'create', INPUT_OTP: 'otp', INPUT_PIN: 'pin' };

/**
 * What the frame takes of the page's look, and nothing else: the element's design tokens (the `--_*` its parts use,
 * resolved from the `--svc-*` a page sets) and the text's font and colour scheme.
 */
export const THEME_TOKENS = [
  '--_primary',
  '--_text',
  '--_muted',
  '--_background',
  '--_border',
  '--_danger',
  '--_focus',
  '--_radius',
  '--_space',
  'font-family',
  'font-size',
  'color-scheme',
] as const;

/** A place in the frame that has words: a field, or the date of birth's group. */
export type FrameSlot = FieldName | 'dateOfBirth';

/** The words the frame shows, in the page's language: its own words are the element's catalogs. */
export interface FrameWords {
  label: Partial<Record<FrameSlot, string>>;
  hint: Partial<Record<FrameSlot, string>>;
  placeholder: Partial<Record<FieldName, string>>;
  /** Said before each error to screen reader users ("Error:"). */
  errorPrefix: string;
}

/**
 * How the frame looks: the page's language and direction, the words, and the element's resolved design tokens
 * (`--_primary`, …, `font-family`, `font-size`, `color-scheme`), so that its fields are the element's own.
 */
export interface FrameLook {
  lang: string;
  dir: 'ltr' | 'rtl';
  words: FrameWords;
  theme: Readonly<Record<string, string>>;
}

/** The configuration in the frame's address (after `#`). */
export interface FrameConfig {
  nonce: string;
  kind: FrameKind;
  look: FrameLook;
}

/** What the frame shows at its fields: the message under each slot, and which inputs are invalid. */
export interface FrameErrors {
  texts: Partial<Record<FrameSlot, string>>;
  invalid: readonly FieldName[];
}

/** Where the frame puts the payer: its first field, or the first that is invalid. */
export type FrameFocus = 'first' | 'first-invalid';

export type ToFrame =
  | { type: 'look'; look: FrameLook }
  /**
   * The proof of the bank account create (a checkout token, or a ticket): the frame shows the payer what it says they
   * pay, and sends its create under it alone. The first one fixes what the frame shows; a later one is taken only if
   * it shows the same (a renewed ticket), so that no message can change the payment under the payer's eyes.
   */
  | { type: 'bind'; proof: IsolatedProof }
  | { type: 'errors'; errors: FrameErrors }
  | { type: 'focus'; at: FrameFocus }
  | { type: 'send'; id: number; call: IsolatedCall; body: Record<string, unknown>; proof: IsolatedProof };

/**
 * The kit's answer to a call the frame sent, as it came: the page reads it as it reads its own calls' answers
 * (`answerOf` in src/checkout/endpoint-client.ts), less any value typed in the frame (scrub.ts).
 */
export interface SentResponse {
  status: number;
  body: string;
  expiresIn: string | null;
  orderToken: string | null;
}

export type FromFrame =
  | { type: 'report'; report: IsolatedReport; edited?: FieldName | undefined }
  | { type: 'blur'; field: FieldName }
  /** The payer pressed Enter in a field. */
  | { type: 'submit' }
  | { type: 'height'; height: number }
  | { type: 'sent'; id: number; response: SentResponse }
  /** No answer came (`network`, `timeout`), or the frame sends no such call (`refused`). */
  | { type: 'sent'; id: number; failure: 'network' | 'timeout' | 'refused' };

export function encodeConfig(config: FrameConfig): string {
  return `#${encodeURIComponent(JSON.stringify(config))}`;
}

/** The configuration in an address's fragment, when it is one. */
export function decodeConfig(hash: string): FrameConfig | undefined {
  try {
    const config = JSON.parse(decodeURIComponent(hash.slice(1))) as FrameConfig;
    return typeof config.nonce === 'string' && Object.hasOwn(FRAME_FIELDS, config.kind) && typeof config.look?.words === 'object' ? config : undefined;
  } catch {
    return undefined;
  }
}
