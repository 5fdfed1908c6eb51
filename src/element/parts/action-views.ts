/**
 * Which part shows each next action, its title, and what is said aloud when it opens: one row per action. A new
 * next action is a row here, its part, and its words (src/element/i18n).
 */
import { html, type TemplateResult } from 'lit';
import type { Translation } from '../i18n/translation.js';
import type { ActionType, CheckoutContext } from '../state.js';

/** The parts a step (its code form too, and the reference code's voucher) exports to the page's `::part()` styles. */
const STEP_PARTS = 'step, heading, status, spinner, countdown, alert, alert-error, alert-warning, alert-info, button, button-secondary, button-copy, button-print, button-share, form, field, label, input, hint, error, code, deadline, where';

export interface ActionView {
  /** The part, rendered with the checkout's context. */
  part(context: CheckoutContext): TemplateResult;
  /** The step's heading; also what is announced when the step opens. */
  title(t: Translation): string;
}

export const ACTION_VIEWS: Readonly<Record<ActionType, ActionView>> = {
  SWIPE_CARD: {
    part: (context) => html`<svc-swipe-step exportparts=${STEP_PARTS} .context=${context}></svc-swipe-step>`,
    title: (t) => t.swipeTitle,
  },
  INPUT_OTP: {
    part: (context) => html`<svc-code-step exportparts=${STEP_PARTS} .context=${context}></svc-code-step>`,
    title: (t) => t.otpTitle,
  },
  INPUT_PIN: {
    part: (context) => html`<svc-code-step exportparts=${STEP_PARTS} .context=${context}></svc-code-step>`,
    title: (t) => t.pinTitle,
  },
  REDIRECT_3DS: {
    part: (context) => html`<svc-redirect-step exportparts=${STEP_PARTS} .context=${context}></svc-redirect-step>`,
    title: (t) => t.redirectTitle,
  },
  REFERENCE_CODE: {
    part: (context) => html`<svc-reference-code-step exportparts=${STEP_PARTS} .context=${context}></svc-reference-code-step>`,
    title: (t) => t.codeTitle,
  },
};

/** A pending order whose next action this page does not know. */
export const WAITING_VIEW = (context: CheckoutContext): TemplateResult =>
  html`<svc-waiting-step exportparts=${STEP_PARTS} .context=${context}></svc-waiting-step>`;
