/**
 * The session's state in words of the element's language: what the element's parts render once the session is
 * there (rebuilt at every update, so a change of language re-words everything).
 */
import type { CheckoutState as SessionState, FieldName } from '../checkout/index.js';
import { fieldsOf } from '../checkout/fields.js';
import type { LocalizeController } from './controllers/localize.js';
import { fieldErrorText, wordedMessage } from './messages.js';
import type { CheckoutState, Step } from './state.js';

/** The form's step, whatever create it waits on. */
const FORM: Step = { kind: 'form' };

/** The step a phase shows: a checkout not yet set up shows the form; a lost create looked for, the wait. */
function stepOf(phase: SessionState['phase']): Step {
  switch (phase.kind) {
    case 'idle':
    case 'form':
      return FORM;
    case 'looking-up':
      return { kind: 'waiting', order: undefined };
    case 'waiting':
      return { kind: 'waiting', order: phase.order };
    case 'result':
      return 'order' in phase ? phase : { ...phase, order: undefined };
    default:
      return phase;
  }
}

/** The session's state, worded in the element's language. */
export function viewOf(session: SessionState, localize: LocalizeController): CheckoutState {
  const { phase, errors, alert, notice, ...rest } = session;
  const worded: CheckoutState['errors'] = {};
  for (const [field, error] of Object.entries(errors)) if (error) worded[field as FieldName] = fieldErrorText(field as FieldName, error, localize);
  // The date of birth's three boxes share one message, chosen by the kinds of their errors: every part missing is the
  // date missing; else the first part's.
  const dateParts = fieldsOf('BankAccount').filter((spec) => spec.control === 'date-part');
  const broken = dateParts.filter((spec) => errors[spec.name]);
  if (broken[0]) {
    const missing = broken.length === dateParts.length && broken.every((spec) => errors[spec.name]?.rule === 'required');
    worded.dateOfBirth = missing ? fieldErrorText('dateOfBirth', { rule: 'required' }, localize) : worded[broken[0].name];
  }
  return { ...rest, step: stepOf(phase), errors: worded, alert: wordedMessage(alert, localize), notice: wordedMessage(notice, localize) };
}
