/**
 * The session's state in words of the element's language: what the element's parts render once the session is
 * there (rebuilt at every update, so a change of language re-words everything).
 */
import { orderOf, type CheckoutState as SessionState, type FieldName } from '../checkout/index.js';
import type { LocalizeController } from './controllers/localize.js';
import { fieldErrorText, wordedMessage } from './messages.js';
import type { CheckoutState, Step } from './state.js';

/** The step a phase shows. */
function stepOf(phase: SessionState['phase']): Step {
  switch (phase.kind) {
    case 'idle':
    case 'form':
      return { kind: 'form' };
    case 'looking-up':
    case 'waiting':
      return { kind: 'waiting' };
    default:
      return phase;
  }
}

/** The session's state, worded in the element's language. */
export function viewOf(session: SessionState, localize: LocalizeController): CheckoutState {
  const { phase, errors, alert, notice, ...rest } = session;
  const worded: Partial<Record<FieldName, string>> = {};
  for (const [field, error] of Object.entries(errors)) if (error) worded[field as FieldName] = fieldErrorText(field as FieldName, error, localize);
  return { ...rest, step: stepOf(phase), order: orderOf(phase), errors: worded, alert: wordedMessage(alert, localize), notice: wordedMessage(notice, localize) };
}
