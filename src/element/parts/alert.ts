import { html, nothing, svg, type TemplateResult } from 'lit';
import { ifDefined } from 'lit/directives/if-defined.js';
import type { WordedMessage } from '../state.js';

/**
 * The one alert of the element: an error, a warning or information, each with its colour and its icon (inline
 * SVG, the same on every platform). `role="alert"` for what the payer must hear at once; the rest is spoken
 * by the element's own live region, once.
 */
export function renderAlert(
  message: WordedMessage | undefined,
  options: { urgent?: boolean; kind?: 'alert' | 'notice' } = {},
): TemplateResult | typeof nothing {
  if (!message) return nothing;
  return html`<p class="alert ${message.tone} ${options.kind ?? 'alert'}" part="alert alert-${message.tone}" role=${ifDefined(options.urgent ? 'alert' : undefined)}>
    ${ICONS[message.tone]}<span>${message.text}</span>
  </p>`;
}

const ICONS = {
  error: icon(svg`<circle cx="12" cy="12" r="9" /><path d="M12 7.5v5.5M12 16.5h.01" />`),
  warning: icon(svg`<path d="M12 3.5l9.5 16.5h-19z" /><path d="M12 10v4.5M12 17.5h.01" />`),
  info: icon(svg`<circle cx="12" cy="12" r="9" /><path d="M12 11v5.5M12 7.5h.01" />`),
};

function icon(paths: TemplateResult<2>) {
  return html`<svg class="alert-icon" viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" focusable="false" fill="none"
    stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round">${paths}</svg>`;
}
