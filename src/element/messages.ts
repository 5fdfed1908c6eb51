/**
 * The session's messages, announcements and field errors in words: each kind to its term of the element's
 * `Translation`. Called at every render, so that a change of language re-words everything on screen.
 */
import type { Announcement, FieldError, FieldName, Message } from '../checkout/index.js';
import type { LocalizeController } from './controllers/localize.js';
import { numberIn } from './format.js';
import { ACTION_VIEWS } from './parts/action-views.js';
import type { Translation } from './i18n/translation.js';
import type { Tone, WordedMessage } from './state.js';

export type { Tone, WordedMessage } from './state.js';

/**
 * How each kind of message is shown: its tone (an error to act on, a warning, or information) and, for a message that
 * says no value of its own, the catalog's term that words it. Decided once, per kind.
 */
export const MESSAGE_WORDS = {
  network: ['error', 'networkError'],
  timeout: ['error', 'timeoutError'],
  'shop-error': ['error', 'shopError'],
  'not-found': ['error', 'notFoundError'],
  'fields-unavailable': ['error', 'fieldsUnavailable'],
  'fields-refused': ['error', 'fieldsRefused'],
  generic: ['error', 'genericError'],
  service: ['error', 'serviceError'],
  unavailable: ['error', 'unavailable'],
  'checkout-expired': ['error', 'checkoutExpired'],
  'checkout-refused': ['error', 'checkoutRefused'],
  'too-many': ['error'],
  merchant: ['error'],
  limit: ['error'],
  state: ['error'],
  'redirect-blocked': ['warning', 'redirectBlocked'],
  'status-unknown': ['warning', 'statusCheckFailed'],
  'copy-failed': ['warning', 'copyFailed'],
  'left-paid': ['info', 'leftPaid'],
  'paid-twice': ['warning', 'paidTwice'],
  'answer-lost': ['info', 'answerLost'],
  'in-progress': ['info'],
  'code-sent': ['info'],
  resent: ['info', 'resent'],
  copied: ['info', 'copied'],
} as const satisfies Record<Message['kind'], readonly [Tone, PlainTerm?]>;

/** A term of the catalog that is a sentence as it stands. */
type PlainTerm = { [K in keyof Translation]: Translation[K] extends string ? K : never }[keyof Translation];

export function wordedMessage(message: Message | undefined, localize: LocalizeController): WordedMessage | undefined {
  const text = messageText(message, localize);
  return message && text !== undefined ? { text, tone: MESSAGE_WORDS[message.kind][0] } : undefined;
}

export function messageText(message: Message | undefined, localize: LocalizeController): string | undefined {
  if (!message) return undefined;
  const t = localize.term;
  switch (message.kind) {
    case 'too-many':
      return t.tooMany(message.seconds, (n) => numberIn(localize, n));
    case 'merchant':
      return message.text;
    case 'limit':
    case 'state':
      return t.fieldError[message.kind];
    case 'in-progress':
      return message.accountEnding ? t.inProgressFromAccount(message.accountEnding) : t.duplicateInProgress;
    case 'code-sent':
      return t.codeSentOnly(message.notifyMethod, message.email || t.onFile.email, message.mobile || t.onFile.mobile);
    default:
      return t[MESSAGE_WORDS[message.kind][1]];
  }
}

export function announcementText(announcement: Announcement, localize: LocalizeController): string {
  const t = localize.term;
  switch (announcement.kind) {
    case 'processing':
      return t.processing;
    case 'form-errors':
      return t.formHasErrors(announcement.count, (n) => numberIn(localize, n));
    case 'step':
      return ACTION_VIEWS[announcement.actionType]?.title(t) ?? t.waiting;
    case 'status':
      return `${t.statusLabel}: ${t.status[announcement.status]}`;
    case 'result':
      return { SUCCESS: t.successTitle, PAID_BEFORE: t.paidBeforeTitle, FAIL: t.failTitle, CLOSE: t.expiredTitle, MISMATCH: t.mismatchTitle }[announcement.outcome];
    default:
      return messageText(announcement, localize) ?? '';
  }
}

/** A field's error in words, with the field's label. */
export function fieldErrorText(field: FieldName | 'dateOfBirth', error: FieldError, localize: LocalizeController): string {
  const t = localize.term;
  // A form's words come with its chunk: a session may judge its fields before (the headless `submit()` of a page
  // that has not shown the form yet). The field's name stands in until they come, and the view is worded again.
  const label = (t.label[field] as string | undefined) ?? field;
  switch (error.rule) {
    case 'required':
      return t.fieldError.required(label);
    case 'format':
    case 'type':
    case 'integer':
    case 'enum':
    case 'url':
    case 'positive':
      return t.fieldError.format(label);
    case 'minLength':
    case 'maxLength':
      return t.fieldError.length(label);
    case 'date':
      return t.fieldError.date;
    case 'past':
      return t.fieldError.past;
    case 'min':
      return field === 'dobYear' ? t.fieldError.tooOld : t.fieldError.other(label);
    case 'exhausted':
      return t.fieldError.codesExhausted;
    case 'mismatch':
      if (field !== 'otp' && field !== 'pin') return t.fieldError.mismatchDateOfBirth;
      return error.left !== undefined && error.left > 0 ? t.codeTriesLeft(error.left, (n) => numberIn(localize, n)) : t.fieldError.mismatchCode;
    case 'merchant':
      return error.text ?? t.fieldError.other(label);
    case 'limit':
      return t.fieldError.limit;
    case 'state':
      return t.fieldError.state;
    case 'characters':
      return t.fieldError.characters(label);
    default:
      return t.fieldError.other(label);
  }
}
