import { html, nothing, type TemplateResult } from 'lit';
import type { CheckoutContext } from '../state.js';
import { stepOrder } from './step-part.js';
import { renderAlert } from './alert.js';

/**
 * "Waiting for the payment…" with the waiting indicator, after the step's notice (a status that cannot be
 * checked, a code sent again or copied); the changes themselves are announced by the element.
 */
export function renderStatusLine(
  context: CheckoutContext,
  options: { status?: boolean; countdown?: 'always' | 'last-minutes' } = {},
): TemplateResult | typeof nothing {
  const order = stepOrder(context.state.step);
  if (!order) return nothing;
  const t = context.localize.term;
  return html`
    ${renderAlert(context.state.notice, { kind: 'notice' })}
    ${options.status === false
      ? nothing
      : html`<p class="status" part="status">
          <span class="spinner" part="spinner" aria-hidden="true"></span>
          <span>${t.statusLabel}: ${t.status[order.status]}</span>
        </p>`}
    <svc-countdown exportparts="countdown" .context=${context} ?always=${options.countdown === 'always'}></svc-countdown>
  `;
}
