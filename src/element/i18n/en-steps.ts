import type { NotifyMethod } from '../../core/index.js';
import type { NumberFormat, ShippedTerms } from './translation.js';
import { waitOf } from './wait.js';

/** Made at the first count, not when the catalog loads. */
let rules: Intl.PluralRules | undefined;
const plural = { select: (n: number) => (rules ??= new Intl.PluralRules('en')).select(n) };
const count = (n: number, format: NumberFormat, one: string, other: string) => `${format(n)} ${plural.select(n) === 'one' ? one : other}`;

/** Where a reference code went, by the channels it was sent through: said the same wherever it is said. */
const sentTo = (method: NotifyMethod, email: string, mobile: string) =>
  method === 'BOTH' ? `by SMS to ${mobile} and by email to ${email}` : method === 'SMS' ? `by SMS to ${mobile}` : `by email to ${email}`;

/**
 * English words of the steps, results and errors: they come with the session's chunk, which registers them under
 * the words already there (en.ts, and any a merchant registered).
 */
const enSteps: ShippedTerms = {
  // The badge's tooltip, read on hover: it comes with the session, out of the first frame's bytes.
  testModeHint: 'No real money moves. Use the sandbox test values.',

  label: {
    otp: 'One-time code',
    pin: 'PIN',
  },
  hint: {
    otp: 'The code in the message your bank sent.',
    pin: 'The PIN of your bank account.',
  },

  fieldError: {
    required: (label) => `Enter ${label.toLowerCase()}.`,
    format: (label) => `${label} is not in the right format.`,
    length: (label) => `${label} has too few or too many characters.`,
    date: 'Enter a real date.',
    past: 'The date of birth must be in the past.',
    tooOld: 'Check the year of birth.',
    mismatchCode: 'That code is not right. Check the message and try again.',
    codesExhausted: 'No more tries for this payment. Use another method to pay.',
    mismatchDateOfBirth: 'The date of birth does not match the account.',
    limit: 'You asked for too many codes. Wait for the last one, or start again.',
    state: 'This payment has moved past that step.',
    characters: (label) => `${label} has characters that are not allowed, such as line breaks.`,
    other: (label) => `Check ${label.toLowerCase()}.`,
  },
  errorPrefix: 'Error:',
  frameTitle: { code: 'Secure entry' },
  formHasErrors: (n, format) => `There ${n === 1 ? 'is' : 'are'} ${count(n, format, 'problem', 'problems')} with the form.`,

  swipeTitle: 'Pay at the terminal',
  swipeBody: (sn) => `Swipe or insert the card at terminal ${sn}.`,
  waiting: 'Waiting for the payment…',

  otpTitle: 'Enter the code',
  otpBody: 'Your bank sent a one-time code to the phone number of the account.',
  pinTitle: 'Enter your PIN',
  pinBody: 'Your bank asks for the PIN of the account.',
  confirm: 'Confirm',
  resend: 'Send the code again',
  resendIn: (seconds, format) => `Send again in ${count(seconds, format, 'second', 'seconds')}`,
  resent: 'A new code is on its way.',

  redirectTitle: 'Confirm with your bank',
  redirectBody: 'Your bank needs to confirm this payment on its own page. You will come back here afterwards.',
  redirectGo: 'Continue to your bank',
  redirecting: 'Taking you to your bank…',
  redirectWindowOpened: 'Complete the check in the window that opened. This page updates by itself.',
  redirectReopen: 'Open the bank’s page again',

  codeTitle: 'Your reference code',
  codeBody: 'Pay this code at any payment point before it expires.',
  payBefore: (amount, time) => `Pay ${amount} with this code at any payment point before ${time}.`,
  canClose: 'You can close this page.',
  printCode: 'Print or save',
  copy: 'Copy code',
  copied: 'Code copied.',
  copyFailed: 'Could not copy. Select the code and copy it.',
  shareCode: 'Share',
  voucherCopied: 'Voucher copied.',
  whereTitle: 'Where to pay',
  whereToPay: 'Pay the code in cash or from your bank, wherever the shop tells you its codes are accepted. Keep it until you have paid.',
  voucherText: (merchant, code, deadline, where) => `${merchant}: reference code ${code}. ${deadline} ${where}`,
  payOnPhone: 'Pay on your phone',
  payOnPhoneHint: 'Scan the code with your phone’s camera, or send yourself the link. This page shows the payment once it is made.',
  payOnPhoneQr: 'QR code of the link to this checkout',
  payOnPhoneLink: 'Link to this checkout',
  copyLink: 'Copy link',
  linkCopied: 'Link copied.',
  payOnPhoneFailed: 'The link could not be made. Try again, or pay here.',
  leftPaid: 'The payment you started earlier for this order went through: nothing more is needed.',
  paidTwice: 'This order was paid twice. The shop will refund one of the payments.',
  sentBy: (method, email, mobile) => `We also sent it ${sentTo(method, email, mobile)}.`,
  onFile: { email: 'the address the shop has on file', mobile: 'the number the shop has on file' },
  expiresIn: 'Expires in',
  timeLeft: (minutes, seconds, format) =>
    minutes > 0 ? `${count(minutes, format, 'minute', 'minutes')} left` : `${count(seconds, format, 'second', 'seconds')} left`,

  status: { INITIAL: 'Starting', PENDING: 'Waiting for payment', SUCCESS: 'Paid', FAIL: 'Failed', CLOSE: 'Expired' },
  statusLabel: 'Status',

  successTitle: 'Payment received',
  successBody: (amount) => `We received ${amount}.`,
  failTitle: 'The payment did not go through',
  failBody: 'Nothing was charged. You can try again.',
  failReason: (reason) => `Reason: ${reason}`,
  expiredTitle: 'This payment expired',
  expiredBody: 'The time to pay ran out and nothing was charged. You can start again.',
  paidBeforeTitle: 'This order is already paid',
  paidBeforeBody: (amount, reference, orderNo) => `A payment of ${amount} was made for order ${reference} before (payment number ${orderNo}). Nothing more is needed.`,
  mismatchTitle: 'This order cannot be paid here',
  mismatchBody: 'A payment for this order already exists for a different amount. Contact the shop.',
  retry: 'Try again',
  startOver: 'Start again',

  networkError: 'We could not reach the shop. Check your connection and try again.',
  serviceError: 'Payments are not available right now. Try again in a moment.',
  codeSentOnly: (method, email, mobile) => `Your reference code was sent ${sentTo(method, email, mobile)}. Pay it at any payment point.`,
  answerLost: 'Your payment has started, but its next step did not reach this page. This page follows it; you can also start again.',
  duplicateInProgress: 'A payment for this order is already in progress.',
  inProgressFromAccount: (ending) => `A payment from the bank account ending in ${ending} is already in progress.`,
  genericError: 'Something went wrong. Try again.',
  configError: (setting) => `This checkout is not set up correctly (${setting}).`,
  redirectBlocked: 'Your browser blocked the bank’s window. Use the button to open it.',
  statusCheckFailed: 'We could not check the payment status. We keep trying.',
  checkoutExpired: 'This checkout has expired. Reload the page to continue.',
  checkoutRefused: 'This checkout cannot be used any more. Reload the page.',
  tooMany: (seconds, format) => {
    const wait = waitOf(seconds);
    return `Too many attempts. Try again in ${wait.about ? 'about ' : ''}${count(wait.count, format, wait.unit, `${wait.unit}s`)}.`;
  },
  shopError: 'The shop could not take payments just now. Try again in a moment.',
  timeoutError: 'The shop is taking too long to answer. Try again in a moment.',
  notFoundError: 'Payments are not set up on this page. Please contact the shop.',
  fieldsUnavailable: 'The secure payment fields could not load. Reload the page, or choose another method.',
  fieldsRefused: 'The secure payment fields could not reach the shop. Choose another method, or contact the shop.',
  unavailable: 'This checkout is not available right now. Please contact the shop.',

  leaveOrder: 'Use another method',
  leaveConfirm: 'Stop this payment and choose another way to pay? Do not complete this one afterwards.',
  leaveYes: 'Yes, use another method',
  leaveNo: 'Keep this payment',
  codeTriesLeft: (left, format) =>
    left === 1 ? 'That code is not right. You have one last try.' : `That code is not right. ${count(left, format, 'try', 'tries')} left.`,
  failure: {
    CARD_DECLINED: 'Your card was declined. Try another card or another method.',
    INSUFFICIENT_FUNDS: 'There is not enough money in the account.',
    ACCOUNT_BLOCKED: 'This account cannot make payments. Contact your bank.',
    AUTH_ATTEMPTS_EXCEEDED: 'Too many wrong codes were entered.',
    '3DS_DECLINED': 'The payment was not confirmed with your bank.',
    ORDER_EXPIRED: 'The time to pay ran out.',
  },
  receipt: { method: 'Method', time: 'Time', orderNo: 'Payment number', copy: 'Copy payment number' },
};

export default enSteps;
