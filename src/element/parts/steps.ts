/**
 * The parts of the steps after the form, and which shows each view: they come with the session's chunk
 * (src/element/engine.ts), since only a session leads past the form.
 */
import { html, type TemplateResult } from 'lit';
import type { CheckoutContext, Step } from '../state.js';
import { ACTION_VIEWS, WAITING_VIEW } from './action-views.js';
import { renderAlert } from './alert.js';
import './countdown/countdown.js';
import './leave-order.js';
import './swipe-step/swipe-step.js';
import './code-step/code-step.js';
import './redirect-step/redirect-step.js';
import './reference-code-step/reference-code-step.js';
import './waiting-step/waiting-step.js';
import './result/result.js';

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
      return ACTION_VIEWS[step.order.actionType].part(context);
    case 'waiting':
      return WAITING_VIEW(context);
    case 'result':
      return html`<svc-result exportparts="result, heading, button, button-secondary, button-copy, alert, alert-error, alert-warning, alert-info" .context=${context}></svc-result><slot name="result"></slot>`;
  }
}
