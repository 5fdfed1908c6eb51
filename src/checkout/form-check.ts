/**
 * The create request the form would send, and what the payer's rows say of it: built and checked once per change of
 * what it is made from (the values of the chosen method, the configuration, the attempt), never once per reader.
 *
 * Only the payer's own rows are checked here (PAYER_CREATE_RULES): the merchant's (reference, amount, country,
 * product…) are the kit's to check, when it signs the checkout token and at every create; a wrong attribute of a shop
 * without tokens is named by the kit's answer to the create (docs/element.md, "A misconfigured attribute").
 */
import { MERCHANT_PATHS, PAYER_CREATE_RULES, readPath, toAsciiDigits, validate, withoutFields, writePath, type CreatePaymentRequest, type PayMethod, type Violation } from '../core/index.js';
import { contactOnFile } from '../core/contact-claims.js';
import { ATTRIBUTE_WIRE_FIELDS } from './config-sources.js';
import type { CheckoutConfig } from './config.js';
import { fieldsOf, formFieldOf, isAsked, type FieldName, type FieldSpec } from './fields.js';
import { currentReference, type FormCheck, type Model } from './model.js';
import type { FieldError } from './state.js';

/** The check of the model's form: the one it has when nothing it is made from changed, else a new one. */
export function checkOf(model: Model): FormCheck | undefined {
  const config = model.config;
  if (!config) return undefined;
  const { method, values, redirectMode } = model.state;
  const inputs = [config, method, values[method], currentReference(model), redirectMode, model.pageUrl, model.isolated];
  const last = model.check;
  if (last && last.inputs.length === inputs.length && last.inputs.every((input, i) => input === inputs[i])) return last;
  // The fields an isolated frame holds are checked there, with their own rows of the same table: what it says of
  // them stands for their rows here.
  const isolated = fieldsOf(method).filter((field) => model.isolated?.fields.includes(field.name));
  let rows = PAYER_CREATE_RULES[method];
  const body = createBody(model, config, isolated);
  // The notice's fields the shop has on file (the checkout token's sealed contact): the payer may leave them empty,
  // and the kit fills them, while the payer typed none of the contact; once they type any, the kit fills none and every
  // field the channel needs is asked as ever (whole or not at all).
  const onFile = method === 'ReferenceCode' ? contactOnFile(config.checkoutToken, body['notify']) : [];
  if (onFile.length) rows = { ...rows, fields: { ...rows.fields, ...Object.fromEntries(onFile.map((wire) => [wire, { ...rows.fields[wire]!, required: false }])) } };
  const table = isolated.length ? withoutFields(rows, isolated.map((field) => field.wire)) : rows;
  const result = validate(table, body);
  // The body sent: what the merchant configured as it is, the payer's fields as their rows made them (trimmed, defaults).
  if (result.ok) for (const wire of Object.keys(table.fields)) writePath(body, wire, readPath(result.value, wire));
  const fromFrame: Violation[] = isolated.flatMap((field) => {
    const rule = model.isolated?.broken[field.name];
    return rule ? [{ field: field.wire, rule, message: `${field.wire}: ${rule}` }] : [];
  });
  const all = [...(result.ok ? [] : result.violations), ...fromFrame];
  const payer: Partial<Record<FieldName, (typeof all)[number]>> = {};
  for (const violation of all) {
    const field = formFieldOf(method, violation.field);
    if (field) payer[field] ??= violation;
  }
  return {
    inputs,
    payer,
    all,
    isolated: isolated.map((field) => field.name),
    value: result.ok && fromFrame.length === 0 ? (body as unknown as CreatePaymentRequest) : undefined,
    withoutIsolated: result.ok && isolated.length > 0 ? (body as unknown as CreatePaymentRequest) : undefined,
  };
}

/** The errors the form shows: every violation (`all`), or only those of fields the payer has visited; the service's stand. */
export function shownErrors(model: Model, check: FormCheck, all: boolean): Partial<Record<FieldName, FieldError>> {
  const errors: Partial<Record<FieldName, FieldError>> = {};
  for (const [field, violation] of Object.entries(check.payer) as [FieldName, { rule: string }][]) {
    if (all || model.touched[field]) errors[field] = { rule: violation.rule };
  }
  for (const [field, error] of Object.entries(model.serverErrors) as [FieldName, FieldError][]) errors[field] ??= error;
  return errors;
}

/**
 * The create request the form would send now: what the merchant configured, and each payer field of the method's
 * rows at its wire path (one the method's values do not ask for is not sent, nor one an isolated frame holds).
 */
function createBody(model: Model, config: CheckoutConfig, isolated: readonly FieldSpec[]): Record<string, unknown> {
  const method: PayMethod = model.state.method;
  const typed = Object.fromEntries(
    Object.entries(model.state.values[method]).map(([name, value]) => [name, toAsciiDigits(value ?? '').trim()]),
  ) as Partial<Record<FieldName, string>>;
  const info = config.userInfo;
  const body: Record<string, unknown> = { customerName: info.userName, userPhone: info.userMobile };
  // What the merchant configured, each at the wire field its attribute fills (the one table of them).
  for (const [property, wire] of Object.entries(ATTRIBUTE_WIRE_FIELDS)) writePath(body, wire, (config as unknown as Record<string, unknown>)[property]);
  // Then what the checkout decides of them: the attempt's reference, the chosen method, and the merchant's fields of
  // a method only (where the bank sends the payer back, the name a reference code shows).
  body['reference'] = currentReference(model);
  body['payMethod'] = method;
  body['returnUrl'] = method === 'BankAccount' ? (config.returnUrl ?? defaultReturnUrl(model, config)) : undefined;
  body['merchantName'] = method === 'ReferenceCode' ? config.merchantName || undefined : undefined;
  for (const field of fieldsOf(method)) if (isAsked(field, typed) && !isolated.includes(field)) writePath(body, field.wire, typed[field.name]);
  return body;
}

/**
 * Where the bank sends the payer back by default: this page when the check happens in this window; the kit's
 * small return page (which tells this tab, then closes itself) when it happens in a new one.
 */
function defaultReturnUrl(model: Model, config: CheckoutConfig): string {
  const page = new URL(model.pageUrl);
  if (model.state.redirectMode === 'new-window') {
    const endpoint = (config.endpoint ?? '').replace(/\/+$/, '');
    return new URL(`${endpoint}${MERCHANT_PATHS.returnPage}`, page.href).href;
  }
  page.hash = '';
  return page.href;
}

/** The payer's secrets of a method, forgotten once the service has them (a retry asks again). */
export function withoutSecrets(values: Model['state']['values'], method: PayMethod): Model['state']['values'] {
  const secrets = fieldsOf(method).filter((field) => field.secret);
  if (secrets.length === 0) return values;
  const kept = { ...values[method] };
  for (const field of secrets) delete kept[field.name];
  return { ...values, [method]: kept };
}
