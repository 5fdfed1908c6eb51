/**
 * The service's operations, one row each: its path, the rules its body must meet, and whether repeating it is
 * safe (a read changes nothing; a create, a code or a refund may already have been done). The service client,
 * the merchant kit (through the client) and the sandbox's router all read this table.
 */
import { SERVICE_PATHS, type ServiceOperation } from './paths.js';
import { OTP_REQUEST, PIN_REQUEST, REFUND_CREATE, REFUND_QUERY, RESEND_OTP_REQUEST, STATUS_REQUEST } from './rules.js';
import { validate, validateCreateRequest, type Validation, type ValidateOptions } from './validate.js';

export interface ServiceOperationSpec {
  path: string;
  check(body: unknown, options?: ValidateOptions): Validation<unknown>;
  /** A read: repeated after a transport failure or `50003` without risk. */
  safeToRepeat: boolean;
}

export const SERVICE_OPERATIONS: Readonly<Record<ServiceOperation, ServiceOperationSpec>> = {
  create: { path: SERVICE_PATHS.create, check: (body, options) => validateCreateRequest(body, options), safeToRepeat: false },
  inputOtp: { path: SERVICE_PATHS.inputOtp, check: (body) => validate(OTP_REQUEST, body), safeToRepeat: false },
  inputPin: { path: SERVICE_PATHS.inputPin, check: (body) => validate(PIN_REQUEST, body), safeToRepeat: false },
  resendOtp: { path: SERVICE_PATHS.resendOtp, check: (body) => validate(RESEND_OTP_REQUEST, body), safeToRepeat: false },
  status: { path: SERVICE_PATHS.status, check: (body) => validate(STATUS_REQUEST, body), safeToRepeat: true },
  refundCreate: { path: SERVICE_PATHS.refundCreate, check: (body) => validate(REFUND_CREATE, body), safeToRepeat: false },
  refundQuery: { path: SERVICE_PATHS.refundQuery, check: (body) => validate(REFUND_QUERY, body), safeToRepeat: true },
};

/** The operation a request path names, if any. */
export function operationAt(path: string): ServiceOperation | undefined {
  return (Object.keys(SERVICE_OPERATIONS) as ServiceOperation[]).find((operation) => SERVICE_OPERATIONS[operation].path === path);
}
