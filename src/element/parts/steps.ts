/**
 * The parts of the steps after the form, and which shows each view: they come with the session's chunk
 * (src/element/engine.ts), since only a session leads past the form.
 */
import { html, type TemplateResult } from 'lit';
import type { ActionType, CheckoutContext, Step } from '../state.js';
import { renderAlert } from './alert.js';
import './countdown/countdown.js';
import './leave-order.js';
import './swipe-step/swipe-step.js';
import './code-step/code-step.js';
import './redirect-step/redirect-step.js';
import './reference-code-step/reference-code-step.js';
import './waiting-step/waiting-step.js';
import './result/result.js';

const STEP_PARTS = 'step, heading, status, spinner, countdown, alert, button, button-secondary, form, field, label, input, hint, error, code';

/** Which part shows each next action (and a pending order whose next action is not known here). */
const ACTION_PARTS: Record<ActionType | 'waiting', (context: CheckoutContext) => TemplateResult> = {
  SWIPE_CARD: (context) => html`<svc-swipe-step exportparts=${STEP_PARTS} .context=${context}></svc-swipe-step>`,
  INPUT_OTP: (context) => html`<svc-code-step exportparts=${STEP_PARTS} .context=${context}></svc-code-step>`,
  INPUT_PIN: (context) => html`<svc-code-step exportparts=${STEP_PARTS} .context=${context}></svc-code-step>`,
  REDIRECT_3DS: (context) => html`<svc-redirect-step exportparts=${STEP_PARTS} .context=${context}></svc-redirect-step>`,
  REFERENCE_CODE: (context) => html`<svc-reference-code-step exportparts=${STEP_PARTS} .context=${context}></svc-reference-code-step>`,
  waiting: (context) => html`<svc-waiting-step exportparts=${STEP_PARTS} .context=${context}></svc-waiting-step>`,
};

/**
 * A view past the form: a configuration error (its setting named in test mode only: the payer never reads a
 * setting's name, a developer does), a next action, the wait, or the result.
 */
export function renderStep(step: Exclude<Step, { kind: 'form' }>, context: CheckoutContext, sandbox: boolean): TemplateResult {
  const t = context.localize.term;
  switch (step.kind) {
    case 'config-error':
      return html`${renderAlert({ tone: 'error', text: sandbox ? t.configError(step.setting) : t.unavailable }, { urgent: true })}`;
    case 'action':
      return ACTION_PARTS[context.state.order?.actionType ?? 'waiting'](context);
    case 'waiting':
      return ACTION_PARTS.waiting(context);
    case 'result':
      return html`<svc-result exportparts="result, heading, button, alert" .context=${context}></svc-result><slot name="result"></slot>`;
  }
}
