/**
 * What `<svc-checkout>` does for the steps after the form, loaded with them (src/element/engine.ts): copying the
 * reference code, and moving focus to the start of a new step so that keyboard and screen reader users follow it.
 */
import type { LitElement } from 'lit';
import { orderOf, type CheckoutSession } from '../checkout/index.js';

/** Copies the order's reference code; the session notes whether it could (the step says so). */
export async function copyReferenceCode(session: CheckoutSession): Promise<void> {
  const code = orderOf(session.state.phase)?.referenceCode;
  if (!code) return;
  try {
    await navigator.clipboard.writeText(code);
    session.note({ kind: 'copied' });
  } catch {
    session.note({ kind: 'copy-failed' });
  }
}

/** Focuses the start of the step in the element's body: its last part (the shop's result slot may follow it). */
export async function focusStep(body: Element | null | undefined): Promise<void> {
  const parts = [...(body?.children ?? [])].filter((child) => child.localName !== 'slot');
  const part = parts.at(-1) as (LitElement & { focusStart?: () => void }) | undefined;
  if (!part) return;
  await part.updateComplete;
  part.focusStart?.();
}
