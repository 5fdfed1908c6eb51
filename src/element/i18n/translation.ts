/**
 * Every string `<svc-checkout>` shows or announces. A catalog implements this interface whole; a merchant's
 * overrides and added locales may be partial, and fall back to the catalog of the language, then English.
 * Terms that take values are functions, so that each language orders words and chooses plural forms itself.
 */
import type { NotifyLanguage, NotifyMethod, PayMethod, PaymentStatus } from '../../core/index.js';

/** Writes a number in the element's locale (Latin or Arabic-Indic digits). */
export type NumberFormat = (value: number) => string;

export interface Translation {
  /** BCP 47 tag, e.g. `en`, `ar`, `ar-EG`. */
  $code: string;
  /** The language's own name. */
  $name: string;
  $dir: 'ltr' | 'rtl';

  testMode: string;
  testModeHint: string;
  total: string;
  paymentMethod: string;
  method: Record<PayMethod, string>;
  methodHint: Record<PayMethod, string>;

  /** Form labels, by form field name. */
  label: {
    sn: string;
    bankAccountNumber: string;
    bankCode: string;
    dateOfBirth: string;
    dobDay: string;
    dobMonth: string;
    dobYear: string;
    notifyUserName: string;
    notifyUserEmail: string;
    notifyUserMobile: string;
    notifyLanguage: string;
    notifyMethod: string;
    otp: string;
    pin: string;
  };
  hint: {
    sn: string;
    bankAccountNumber: string;
    bankCode: string;
    dateOfBirth: string;
    notifyUserMobile: string;
    otp: string;
    pin: string;
  };
  notifyMethodOption: Record<NotifyMethod, string>;
  notifyLanguageOption: Record<NotifyLanguage, string>;
  /**
   * The reference code form, when the shop has the payer's contact on file (a payment link's): where the code goes if
   * the payer leaves the contact empty, per channel (BOTH: the email and the mobile number).
   */
  contactOnFile: Record<NotifyMethod, string>;

  /** An error message per broken rule, given the field's label. */
  fieldError: {
    required: (label: string) => string;
    format: (label: string) => string;
    length: (label: string) => string;
    date: string;
    past: string;
    tooOld: string;
    mismatchCode: string;
    /** The kit's limit of wrong codes for the order is reached. */
    codesExhausted: string;
    mismatchDateOfBirth: string;
    /** Too many codes asked for. */
    limit: string;
    /** The order is past the step the payer tried. */
    state: string;
    /** Control characters, line breaks or bidirectional overrides. */
    characters: (label: string) => string;
    other: (label: string) => string;
  };
  errorPrefix: string;
  /** `format` writes a number in the element's locale, so that digits match the amounts around them. */
  formHasErrors: (count: number, format: NumberFormat) => string;

  pay: (amount: string) => string;
  /** The reference code form's button: it pays nothing yet, it issues the code that is paid at a payment point. */
  getCode: string;
  processing: string;
  /** The session's chunk, or the chosen form's, could not be fetched: the payment cannot go on in this page. */
  unloaded: string;

  swipeTitle: string;
  swipeBody: (serialNumber: string) => string;
  waiting: string;

  otpTitle: string;
  otpBody: string;
  pinTitle: string;
  pinBody: string;
  confirm: string;
  resend: string;
  resendIn: (seconds: number, format: NumberFormat) => string;
  resent: string;

  redirectTitle: string;
  redirectBody: string;
  redirectGo: string;
  redirecting: string;
  redirectWindowOpened: string;
  redirectReopen: string;

  codeTitle: string;
  codeBody: string;
  /** The voucher's line: the amount and the moment the code stops working ("14:51", or a date and time). */
  payBefore: (amount: string, time: string) => string;
  /** Under a code sent by SMS or email: the page is no longer needed. */
  canClose: string;
  /** Prints the voucher (or saves it as a PDF, from the print dialog). */
  printCode: string;
  copy: string;
  copied: string;
  copyFailed: string;
  /** Shares the voucher (Web Share), or copies it where the browser cannot share. */
  shareCode: string;
  /** The voucher was copied (the browser has no Web Share). */
  voucherCopied: string;
  /** The voucher's heading over where and how a code is paid. */
  whereTitle: string;
  /** Where and how a reference code is paid, unless the shop says (`where-to-pay`). */
  whereToPay: string;
  /** The voucher as shared text: the shop, the code, the amount and deadline line, where to pay. */
  voucherText: (merchant: string, code: string, deadline: string, where: string) => string;
  /** "Pay on your phone": opens the QR code and the link of this checkout. */
  payOnPhone: string;
  payOnPhoneHint: string;
  /** The QR code's text alternative. */
  payOnPhoneQr: string;
  /** The link's label. */
  payOnPhoneLink: string;
  copyLink: string;
  linkCopied: string;
  /** The link could not be made (offline, the kit has no public address). */
  payOnPhoneFailed: string;
  /** An order the payer left was paid after all. */
  leftPaid: string;
  /** The order was paid twice. */
  paidTwice: string;
  sentBy: (method: NotifyMethod, email: string, mobile: string) => string;
  /** Where a code went that the payer sent to the contact on file (they typed none): said in `sentBy`, `codeSentOnly`. */
  onFile: { email: string; mobile: string };
  expiresIn: string;
  /** Spoken (and shown to screen readers) form of the time left. */
  timeLeft: (minutes: number, seconds: number, format: NumberFormat) => string;

  status: Record<PaymentStatus, string>;
  statusLabel: string;

  successTitle: string;
  /** The word before the order's reference under the checkout's summary (the reference follows, left to right). */
  orderReference: string;
  /** The order's reference is the header's (said once): the body says what was received. */
  successBody: (amount: string) => string;
  failTitle: string;
  failBody: string;
  failReason: (reason: string) => string;
  expiredTitle: string;
  expiredBody: string;
  /** A duplicate reference whose order was paid before this checkout made it: not "we received". */
  paidBeforeTitle: string;
  paidBeforeBody: (amount: string, reference: string, orderNo: string) => string;
  /** An order with this reference exists for another amount or currency. */
  mismatchTitle: string;
  mismatchBody: string;
  retry: string;
  startOver: string;

  networkError: string;
  serviceError: string;
  /** A reference code whose create answer was lost: where the code was sent. */
  codeSentOnly: (method: NotifyMethod, email: string, mobile: string) => string;
  /** A pending order found after its create answer was lost, whose next step this page does not know. */
  answerLost: string;
  duplicateInProgress: string;
  /** Another page's payment from a bank account, which only its last characters name. */
  inProgressFromAccount: (ending: string) => string;
  genericError: string;
  configError: (setting: string) => string;
  redirectBlocked: string;
  statusCheckFailed: string;
  /** The checkout token expired: the page must be loaded again. */
  checkoutExpired: string;
  /** The shop's server refused this checkout's proof (altered, another shop's, not this order's). */
  checkoutRefused: string;
  /** A limit of the shop's server; `seconds` until the next try, said in seconds, minutes or hours (`waitOf`, wait.ts). */
  tooMany: (seconds: number, format: NumberFormat) => string;
  /** The shop's server answered, but not with a payment answer (5xx, 404): not the payer's connection. */
  shopError: string;
  /** The shop's server did not answer in time. */
  timeoutError: string;
  /** The shop's payment address answered 404: the page is set up wrong (never a setting's name). */
  notFoundError: string;
  /** The secure frame that holds the bank details or the code did not load: a setting of the shop, or the network. */
  fieldsUnavailable: string;
  /** The secure frame's call was refused on its way to the shop's server while the page's own got through: a setting of the shop. */
  fieldsRefused: string;
  /** A setting of the shop is wrong: the payer reads this, never the setting's name (test mode shows it too). */
  unavailable: string;

  /** Leaving a waiting step for a new attempt, with a confirmation. */
  leaveOrder: string;
  leaveConfirm: string;
  leaveYes: string;
  leaveNo: string;
  /** A wrong code, and how many tries are left (the last one is warned of). */
  codeTriesLeft: (left: number, format: NumberFormat) => string;
  /** The service's failure codes, in the payer's words; the service's own reason is the fallback. */
  failure: Partial<Record<string, string>>;
  /**
   * The title of the isolated frame that holds a form's fields or a step's code: what a screen reader says once, as
   * the payer enters it, before the field's own label (so not the label again).
   */
  frameTitle: { BankAccount: string; code: string };
  /** Placeholders of the date of birth boxes. */
  datePlaceholder: { day: string; month: string; year: string };
  /** The receipt of a result: the method, the time, the service's number of the payment (copyable); the shop's reference is the header's. */
  receipt: { method: string; time: string; orderNo: string; copy: string };
}

/** A partial catalog: overrides of some terms, or a new locale that falls back for what it lacks. */
export type PartialTranslation = { $code: string } & DeepPartial<Omit<Translation, '$code'>>;

type DeepPartial<T> = {
  [K in keyof T]?: T[K] extends (...args: never[]) => unknown ? T[K] : T[K] extends object ? DeepPartial<T[K]> : T[K];
};

/** Terms a chunk brings to a catalog already registered (registry.ts, addShippedTerms). */
export type ShippedTerms = Omit<PartialTranslation, '$code'>;
