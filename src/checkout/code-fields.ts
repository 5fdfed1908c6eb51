/**
 * The field of each code step (OTP, PIN), in the shape of the forms' fields (fields.ts): apart from them, since only
 * the session leads to a code step, and the first frame does not carry it.
 */
import type { FieldSpec } from './field-spec.js';

export const CODE_FIELDS = {
  INPUT_OTP: { name: 'otp', wire: 'otp', inputmode: 'numeric', autocomplete: 'one-time-code', maxlength: 8, digits: true, hint: 'otp', secret: true },
  INPUT_PIN: { name: 'pin', wire: 'pin', type: 'password', inputmode: 'numeric', autocomplete: 'off', maxlength: 6, digits: true, hint: 'pin', secret: true },
} as const satisfies Record<string, FieldSpec<string>>;
