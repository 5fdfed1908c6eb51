/**
 * Every wire shape of the service's specification, as TypeScript types. Field names are the wire names.
 * Where the specification types a field one way and its samples send another, the type accepts both and
 * `normalizeCreateRequest` (rules.ts) turns it into the one form the rest of the code uses.
 */
import type {
  NextActionType,
  NotifyLanguage,
  NotifyMethod,
  PaymentStatus,
  RefundStatus,
  RefundWay,
} from './status.js';
import type { PayMethod } from './pay-methods.js';

/** Every response of the service: `code` `00000` with `data` on success, an error code otherwise. */
export interface Envelope<T = unknown> {
  code: string;
  message: string;
  data?: T | null;
}

export interface Amount {
  /** Integer, minor (cent) units. */
  total: number;
  /** Three uppercase letters, e.g. `EGP`. */
  currency: string;
}

export interface Product {
  name: string;
  description?: string;
}

/** Fields shared by the `Pos` and `BankAccount` create requests. */
export interface CreateRequestBase {
  reference: string;
  amount: Amount;
  /** Where callbacks go; otherwise the webhook URL configured for the merchant. */
  callbackUrl?: string;
  product: Product;
  /** Minutes until the order closes; default 30. */
  expireAt?: number;
  country?: string;
  customerName?: string;
  userClientIP?: string;
  userPhone?: string;
}

export interface PosCreateRequest extends CreateRequestBase {
  payMethod: 'Pos';
  /** Serial number of the POS terminal. */
  sn: string;
}

export interface BankAccountCreateRequest extends CreateRequestBase {
  payMethod: 'BankAccount';
  bankAccountNumber: string;
  bankCode: string;
  /** Where the cashier sends the payer back after 3-D Secure. */
  returnUrl: string;
  dobDay: string;
  dobMonth: string;
  dobYear: string;
  /** Appears in the specification's samples only, with no rule. */
  bvn?: string;
}

export interface Notify {
  notifyUserName: string;
  notifyLanguage: NotifyLanguage;
  /** Required when `notifyMethod` is `BOTH` or `EMAIL`. */
  notifyUserEmail?: string;
  /** Required when `notifyMethod` is `BOTH` or `SMS`. */
  notifyUserMobile?: string;
  /** Default `BOTH`. */
  notifyMethod?: NotifyMethod;
}

/**
 * The `ReferenceCode` create request as normalised: numbers where the parameter table says strings and the
 * samples send numbers (see `ReferenceCodeCreateInput` for what is accepted).
 */
export interface ReferenceCodeCreateRequest {
  payMethod: 'ReferenceCode';
  reference: string;
  merchantName?: string;
  amount: Amount;
  callbackUrl?: string;
  product: Required<Product>;
  country: string;
  expireAt: number;
  notify: Notify;
  /** Sent by a sample; no rule is given. */
  returnUrl?: string;
}

/** What is accepted for `ReferenceCode`: `amount.total` and `expireAt` as numbers or digit strings. */
export interface ReferenceCodeCreateInput extends Omit<ReferenceCodeCreateRequest, 'amount' | 'expireAt'> {
  amount: { total: number | string; currency: string };
  expireAt?: number | string;
}

export type CreatePaymentRequest = PosCreateRequest | BankAccountCreateRequest | ReferenceCodeCreateRequest;
export type CreatePaymentInput = PosCreateRequest | BankAccountCreateRequest | ReferenceCodeCreateInput;

export type CreateRequestFor<M extends PayMethod> = Extract<CreatePaymentRequest, { payMethod: M }>;

/** The further body the specification sends to the create path, and the real service to its OTP action. */
export interface OtpRequest {
  country: string;
  orderNo?: string;
  /** The real service lets `reference` replace `orderNo`. */
  reference?: string;
  otp: string;
}

export interface PinRequest {
  country: string;
  orderNo?: string;
  reference?: string;
  pin: string;
}

export interface ResendOtpRequest {
  country: string;
  orderNo?: string;
  reference?: string;
}

export interface StatusRequest {
  country: string;
  reference?: string;
  orderNo?: string;
}

export interface RefundCreateRequest {
  amount: Amount;
  callbackUrl?: string;
  country: string;
  originalReference: string;
  reference: string;
  refundWay: RefundWay;
}

export interface RefundQueryRequest {
  reference: string;
  country: string;
}

export interface Vat {
  /** Minor units. */
  total: number;
  currency: string;
}

export interface NextAction {
  actionType: NextActionType;
  /** For `REDIRECT_3DS`: where to send the payer (our assumption of where the address arrives). */
  redirectUrl?: string;
}

/** `data` of a successful create. */
export interface CreatePaymentData {
  reference: string;
  orderNo: string;
  status: PaymentStatus;
  amount: Amount;
  vat?: Vat;
  nextAction?: NextAction;
  failureCode?: string;
  failureReason?: string;
  /** Nine digits; `ReferenceCode` only. */
  referenceCode?: string;
}

/** `data` of a status query. */
export interface CashierStatusData {
  reference: string;
  orderNo: string;
  status: PaymentStatus;
  amount?: Amount;
  vat?: Vat & { rate: number; currencySymbo: string };
  failureCode?: string | null;
  failureReason: string | null;
  silence: string;
}

/** `data` of a refund query. */
export interface RefundStatusData {
  reference: string;
  originalReference: string;
  orderNo: string;
  originalOrderNo: string;
  country: string;
  amount: Amount;
  orderStatus: RefundStatus;
  errorCode?: string;
  errorMsg?: string;
}

/** The body of a callback notification, as it arrives (`amount.total` may be a string). */
export interface CallbackBody {
  notifyId: string;
  reference: string;
  amount: { total: number | string; currency: string };
  orderNo: string;
  country: string;
  status: PaymentStatus;
  /** Creation time of the message, milliseconds. */
  timestamp: number;
  type: 'MACQUIRING_CALLBACK';
  failureCode?: string;
  failureReason?: string;
  extras?: Record<string, string>;
}

/** The SDK's `PayParams`. `publicKey` is the merchant's public key; the element never takes a private one. */
export interface PayParams {
  publicKey?: string;
  merchantId: string;
  merchantName: string;
  reference: string;
  countryCode: string;
  currency: string;
  /** Minor units. */
  payAmount: number;
  productName: string;
  productDescription: string;
  callbackUrl?: string;
  /** Minutes. */
  expireAt: number;
  payMethod?: PayMethod;
  userInfo?: UserInfo;
  userClientIP?: string;
}

export interface UserInfo {
  userId?: string;
  userName?: string;
  userMobile?: string;
  userEmail?: string;
}

/** The SDK's `CashierStatusParams`. */
export interface CashierStatusParams {
  publicKey?: string;
  merchantId: string;
  reference: string;
  countryCode: string;
}

/** What the SDK hands to `webPayCallback`, and `<svc-checkout>` to `svc-pay-result`. */
export interface WebPayResult {
  callbackName: string;
  eventName: string;
  merchantId: string;
  orderNo: string;
  orderStatus: PaymentStatus;
  payNo: string;
  referenceCode: string;
}

/** One broken rule, as every validator in this package reports it. */
export interface Violation {
  /** Dotted path of the field, e.g. `notify.notifyUserEmail`. */
  field: string;
  /** The rule that failed: `required`, `type`, `integer`, `positive`, `format`, `enum`, `maxLength`, … */
  rule: string;
  message: string;
  /** A wrong OTP or PIN: how many more tries the order takes (our sandbox and kit say it; the specification is silent). */
  triesLeft?: number;
}
