/**
 * The commands of the steps after the form, loaded with them (src/element/engine.ts): to the session, and copying
 * the reference code.
 */
import { orderOf, type CheckoutSession } from '../checkout/index.js';
import type { StepActions } from './state.js';

/** The steps' commands, to the session. */
export function stepActions(session: CheckoutSession): StepActions {
  return {
    submitCode: (code) => session.submitCode(code),
    resendOtp: () => session.resendOtp(),
    openRedirect: () => session.openRedirect(),
    copyReferenceCode: () => copyReferenceCode(session),
    retry: () => session.leave(),
  };
}

/** Copies the order's reference code; the session notes whether it could (the step says so). */
async function copyReferenceCode(session: CheckoutSession): Promise<void> {
  const code = orderOf(session.state.phase)?.referenceCode;
  if (!code) return;
  try {
    await navigator.clipboard.writeText(code);
    session.note({ kind: 'copied' });
  } catch {
    session.note({ kind: 'copy-failed' });
  }
}

