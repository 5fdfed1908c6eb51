/**
 * The payer's fields of each method, one row each: where the field goes in the create request (`wire`, whose rules
 * in src/core apply), how the form asks for it, whether it is a secret, what the shop's `userInfo` fills it with,
 * and when it is asked at all. The create body (form-check.ts), the forms (src/element/parts) and the machine's
 * field errors are made from these rows: a new field is a row here, its rule in src/core/rules.ts, and its words.
 */
import type { NotifyLanguage, NotifyMethod, PayMethod } from '../core/index.js';
import type { CheckoutConfig, CheckoutSettings } from './config.js';
// The one list of each, in the order the form offers them (straight from the module: the forms' chunk is small).
import { NOTIFY_LANGUAGES, NOTIFY_METHODS } from '../core/notify.js';
import { BANK_ACCOUNT_FIELDS } from './bank-account-fields.js';
import { POS_FIELDS } from './pos-fields.js';
import type { CODE_FIELDS } from './code-fields.js';
import type { FieldSpec as Spec } from './field-spec.js';

export type { HintName } from './field-spec.js';
/** A row of the payer's fields; `Name` is one of them (`FieldName`) unless said. */
export type FieldSpec<Name extends string = FieldName> = Spec<Name>;

/** The reference code's channel: both unless the payer chose one. */
const channelOf = (values: Readonly<Record<string, string | undefined>>) => values['notifyMethod'] || 'BOTH';

/** Fields per method, in the order they are asked. The date of birth is three fields shown as one group. */
export const METHOD_FIELDS = {
  Pos: POS_FIELDS,
  BankAccount: BANK_ACCOUNT_FIELDS,
  ReferenceCode: [
    { name: 'notifyUserName', wire: 'notify.notifyUserName', autocomplete: 'name', maxlength: 100, prefill: 'userName' },
    { name: 'notifyMethod', wire: 'notify.notifyMethod', autocomplete: 'off', control: 'choice', choices: NOTIFY_METHODS },
    {
      name: 'notifyUserEmail',
      wire: 'notify.notifyUserEmail',
      type: 'email',
      inputmode: 'email',
      autocomplete: 'email',
      maxlength: 254,
      prefill: 'userEmail',
      askedWhen: (values) => channelOf(values) !== 'SMS',
    },
    {
      name: 'notifyUserMobile',
      wire: 'notify.notifyUserMobile',
      type: 'tel',
      inputmode: 'tel',
      autocomplete: 'tel',
      maxlength: 20,
      hint: 'notifyUserMobile',
      prefill: 'userMobile',
      askedWhen: (values) => channelOf(values) !== 'EMAIL',
    },
    { name: 'notifyLanguage', wire: 'notify.notifyLanguage', autocomplete: 'off', control: 'select', choices: NOTIFY_LANGUAGES, prefill: 'language' },
  ],
} as const satisfies Record<PayMethod, readonly FieldSpec<string>[]>;

/** The payer's fields, by the names the forms use (a view labels each; see the element's `Translation`). */
export type FieldName = (typeof METHOD_FIELDS)[PayMethod][number]['name'] | (typeof CODE_FIELDS)[keyof typeof CODE_FIELDS]['name'];

export const NOTIFY_METHOD_CHOICES: readonly NotifyMethod[] = NOTIFY_METHODS;
export const NOTIFY_LANGUAGE_CHOICES: readonly NotifyLanguage[] = NOTIFY_LANGUAGES;

/** A method's rows, as the forms and the create body read them. */
export function fieldsOf(method: PayMethod): readonly FieldSpec[] {
  return METHOD_FIELDS[method];
}

/** The form field a wire field is typed into, for a method. */
export function formFieldOf(method: PayMethod, wire: string): FieldName | undefined {
  return fieldsOf(method).find((field) => field.wire === wire)?.name;
}

/** The payer's values per method, as a checkout's state holds them (state.ts). */
type Values = Readonly<Record<PayMethod, Readonly<Partial<Record<string, string>>>>>;

/**
 * What the shop already knows of the payer (`prefill`: its `userInfo`, the `language` setting) fills each field whose
 * row says so, and each choice its first, where the payer has not typed: read from the rows, every method's.
 */
export function prefilled<State extends { values: Values }>(config: Pick<CheckoutConfig, 'userInfo'>, settings: Pick<CheckoutSettings, 'language'>, state: State): State {
  const known: Readonly<Record<string, string | undefined>> = { ...config.userInfo, language: settings.language };
  const values: Record<string, Values[PayMethod]> = { ...state.values };
  for (const [method, rows] of Object.entries(METHOD_FIELDS)) {
    for (const { name, prefill, choices } of rows as readonly FieldSpec[]) {
      if ((prefill || choices) && !values[method]![name]) values[method] = { ...values[method], [name]: (prefill && known[prefill]) ?? choices?.[0] ?? '' };
    }
  }
  return { ...state, values };
}

/** Whether a field is asked for, given the values of its method. */
export function isAsked(field: FieldSpec, values: Readonly<Record<string, string | undefined>>): boolean {
  return field.askedWhen?.(values) ?? true;
}
