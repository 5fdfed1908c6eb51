/**
 * What the checkout machine (machine.ts) tells of what went wrong: the payer, in an alert or a notice said in the live
 * region; the page, in an `error` event; the developer, in the log. Only the machine's own findings are logged.
 */
import { CLIENT_ERROR_CODES, isRetryable, violationsOf, type Envelope, type Violation } from '../core/index.js';
import { RESULT_ROLES } from '../core/result-roles.js';
import { CONFIG_SOURCES, REFUSED_SETTINGS } from './config-sources.js';
import type { Failure } from './endpoint-client.js';
import { formFieldOf, type FieldName } from './fields.js';
import type { Draft } from './machine-draft.js';
import type { Unanswered } from './model.js';
import type { FieldError, Message } from './state.js';
import { messageForEnvelope, transportMessageOf } from './transitions.js';

/**
 * A checkout that is not set up correctly, by the setting at fault: a `CONFIG` error, also written to the log, where
 * its developer looks (the payer of a live checkout reads only that it is not available). Only the machine's own
 * findings are written there, never words from an answer.
 */
export function configError(d: Draft, setting: string, violation?: Violation, stop = false): void {
  // `stop`: the checkout cannot go on, and shows why instead of its form.
  if (stop) d.set({ phase: { kind: 'config-error', setting } });
  const message = violation ? `${setting}: ${violation.message}` : (REFUSED_SETTINGS.get(setting) ?? `${CLIENT_ERROR_CODES.CONFIG.message}: ${setting}`);
  d.do({ type: 'log', message: `svc-checkout: ${message}` });
  d.error('CONFIG', message, false);
}

/** The isolated frame's own fetch got no answer at all (not a timeout, not a frame that went). */
export const isNoAnswer = (unanswered: Unanswered) => 'failure' in unanswered && unanswered.failure.frame === true;

/**
 * What a developer reads when something in front of the kit refuses the isolated frame's calls: what happened and
 * where the fix is told (docs/isolated-fields.md says which middleware, and how each is set).
 */
export const FRAME_REFUSED =
  "the isolated fields' create got no answer while the page's own call to the same kit did: a CORS middleware or dev " +
  'server in front of the kit refuses their preflight (OPTIONS from Origin: null). See docs/isolated-fields.md, "Behind a CORS middleware"';

/**
 * The isolated frame's create got no answer while the lookup that followed it, the page's own call to the kit, got
 * one: not the payer's connection, but the kit's set-up. The payer reads that the secure fields could not reach the
 * shop (not to check their connection), and the developer what to change.
 */
export function frameRefused(d: Draft): void {
  d.do({ type: 'log', message: `svc-checkout: ${FRAME_REFUSED}` });
  alert(d, { kind: 'fields-refused' });
  d.error('CONFIG', FRAME_REFUSED, false);
}

/** A lost create's order was never made: what its failure said is said now. */
export function report(d: Draft, unanswered: Unanswered): void {
  if ('failure' in unanswered) transportError(d, unanswered.failure);
  else envelopeError(d, unanswered.envelope);
}

export function transportError(d: Draft, failure: Failure): void {
  alert(d, { kind: failure.code ? transportMessageOf(failure) : 'generic' });
  d.error(failure.code ?? 'NETWORK', failure.message, failure.retryable);
}

/** A passing message: shown, and said in the live region. */
export function notice(d: Draft, message: Message): void {
  d.set({ notice: message });
  d.announce(message);
}

/** An error the payer must read: shown, and said in the live region (where "Processing…" was). */
export function alert(d: Draft, message: Message): void {
  d.set({ alert: message });
  d.announce(message);
}

/**
 * An envelope that is not a success: field errors where they belong, the rest as an alert that says what the payer
 * can do. A refusal of what the payer cannot change (the shop's settings, its account at the service) keeps the form
 * and says to contact the shop; the page hears the code, and for `02001` the fields and rules at fault.
 */
export function envelopeError(d: Draft, envelope: Envelope<unknown>): void {
  const violations = violationsOf(envelope);
  const named = violations.map((violation) => `${violation.field} (${violation.rule}): ${violation.message}`).join('; ');
  d.error(envelope.code, named ? `${envelope.message} ${named}` : envelope.message, isRetryable(envelope.code));
  if (envelope.code !== RESULT_ROLES.invalid) {
    alert(d, messageForEnvelope(envelope));
    return;
  }
  // A field the merchant configured, refused by the kit (a shop without checkout tokens, whose attributes no signature
  // vouches for: the element does not check them itself): the developer reads the setting at fault in the log.
  for (const { field } of violations) {
    const setting = formFieldOf(d.m.state.method, field) ? undefined : CONFIG_SOURCES[field];
    if (setting) d.do({ type: 'log', message: `svc-checkout: ${setting}: the kit refused ${field}` });
  }
  const errors: Partial<Record<FieldName, FieldError>> = {};
  const others: Message[] = [];
  for (const violation of violations) {
    const field = formFieldOf(d.m.state.method, violation.field);
    if (field) errors[field] = violation.rule === 'merchant' ? { rule: 'merchant', text: violation.message } : { rule: violation.rule };
    // The merchant's own words (an OrderRejection) are for the payer; the service's English is not.
    else if (violation.rule === 'merchant') others.push({ kind: 'merchant', text: violation.message });
    else if (violation.rule === 'limit' || violation.rule === 'state') others.push({ kind: violation.rule });
    // A field the payer never sees (the reference, the return address, a setting): only the shop can mend it.
    else others.push({ kind: 'unavailable' });
  }
  const fields = Object.keys(errors) as FieldName[];
  if (fields.length > 0) {
    const touched = { ...d.m.touched };
    for (const field of fields) touched[field] = true;
    d.update({ touched, serverErrors: { ...d.m.serverErrors, ...errors } });
    d.set({ errors, submitCount: d.m.state.submitCount + 1, alert: others[0] });
    d.announce({ kind: 'form-errors', count: fields.length });
    return;
  }
  alert(d, others[0] ?? { kind: 'unavailable' });
}
