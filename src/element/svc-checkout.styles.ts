import { css } from 'lit';
import { alertBox, visuallyHidden } from './parts/shared.styles.js';

/** The dark theme's tokens: for theme="dark", and for prefers-color-scheme: dark unless theme="light". */
const darkTokens = css`
  --_primary: var(--svc-color-primary, #a8c7fa);
  --_on-primary: var(--svc-color-on-primary, #062e6f);
  --_text: var(--svc-color-text, #e4e2e6);
  --_muted: var(--svc-color-muted, #c4c6cf);
  --_background: var(--svc-color-background, #1b1b1f);
  --_surface: var(--svc-color-surface, #2a2a30);
  --_border: var(--svc-color-border, #8e9099);
  --_danger: var(--svc-color-danger, #ffb4ab);
  --_success: var(--svc-color-success, #7fd88f);
  --_warning: var(--svc-color-warning, #ffb95c);
  --_on-warning: #2b1700;
  color-scheme: dark;
`;

/**
 * The element's design tokens and outer layout. Public tokens are `--svc-*`; each is read once here into a
 * private `--_*` variable that the parts use, so that a merchant sets a token once, on the element or above.
 */
export const styles = css`
  :host {
    --_primary: var(--svc-color-primary, #0b57d0);
    --_on-primary: var(--svc-color-on-primary, #ffffff);
    --_text: var(--svc-color-text, #1b1b1f);
    --_muted: var(--svc-color-muted, #4f5158);
    --_background: var(--svc-color-background, #ffffff);
    --_surface: var(--svc-color-surface, #f3f4f8);
    /* Near 3:1 on the background: enough for a control's edge (WCAG 1.4.11), lighter than text. */
    --_border: var(--svc-color-border, #8e9099);
    --_danger: var(--svc-color-danger, #b3261e);
    --_success: var(--svc-color-success, #146c2e);
    --_warning: var(--svc-color-warning, #7a4a00);
    --_on-warning: #ffffff;
    --_focus: var(--svc-color-focus, var(--_primary));
    --_radius: var(--svc-radius, 8px);
    /*
     * Sizes in em of the host's font size, which is "medium" (the payer's own browser font size) unless the shop
     * sets one: never rem, which a page's "html { font-size: 10px }" would shrink the element with.
     */
    --_space: var(--svc-spacing, 1em);
    --_font: var(--svc-font-family, system-ui, -apple-system, 'Segoe UI', Roboto, 'Noto Sans', 'Noto Sans Arabic', sans-serif);
    --_mono: var(--svc-font-family-mono, ui-monospace, 'SF Mono', Menlo, Consolas, 'Liberation Mono', monospace);
    --_font-size: var(--svc-font-size, medium);

    display: block;
    /* A readable form on a plain page; a merchant's layout may set its own. */
    max-inline-size: var(--svc-max-inline-size, 34em);
    color-scheme: light;
    font-family: var(--_font);
    font-size: var(--_font-size);
    line-height: 1.5;
    color: var(--_text);
    /*
     * The text properties a page sets on its body or root (a template's "#root { text-align: center }") inherit
     * into a shadow root: each is set here to the element's own, so that the page's never reach the element's layout.
     */
    text-align: start;
    letter-spacing: normal;
    word-spacing: normal;
    text-transform: none;
    text-indent: 0;
    white-space: normal;
  }

  :host([theme='dark']) {
    ${darkTokens}
  }

  @media (prefers-color-scheme: dark) {
    :host(:not([theme='light'])) {
      ${darkTokens}
    }
  }

  :host([hidden]) {
    display: none;
  }

  .base {
    background: var(--_background);
    color: var(--_text);
    border: 1px solid var(--_border);
    border-radius: var(--_radius);
    padding: var(--_space);
    display: grid;
    gap: var(--_space);
  }

  .header {
    display: grid;
    gap: calc(var(--_space) / 4);
  }

  .merchant {
    display: flex;
    flex-wrap: wrap;
    align-items: center;
    gap: calc(var(--_space) / 2);
    font-weight: 600;
  }

  .badge {
    display: inline-block;
    padding-inline: calc(var(--_space) / 2);
    border-radius: calc(var(--_radius) / 2);
    background: var(--_warning);
    color: var(--_on-warning);
    font-size: 0.8125em;
    font-weight: 700;
    letter-spacing: 0.02em;
  }

  .amount {
    margin: 0;
    display: flex;
    align-items: baseline;
    justify-content: space-between;
    gap: var(--_space);
  }

  .amount-label {
    color: var(--_muted);
  }

  .amount-value {
    font-size: 1.5em;
    font-weight: 700;
    font-variant-numeric: tabular-nums;
  }

  .product {
    margin: 0;
    color: var(--_muted);
  }
  /* The reference whole: its line breaks before it, never at its hyphens (one too long for a line wraps in its own box). */
  .product span {
    display: inline-block;
  }

  .body {
    display: grid;
    gap: var(--_space);
  }

  /*
   * A form whose chunk is on its way (a method just chosen on a slow network): its place, shaded, its shade coming
   * and going, where there was nothing for a second. Drawn by a pseudo-element, which goes with the rule: WebKit
   * keeps an element's own animation running after the element is defined (the form would fade for ever). Not "Pay on
   * your phone", whose place is held below instead, unshaded: it is not a form.
   */
  :not(:defined, svc-pay-elsewhere)::before {
    content: '';
    display: block;
    block-size: 12em;
    border-radius: var(--_radius);
    background: var(--_surface);
    animation: pending 1s infinite alternate;
  }

  /*
   * "Pay on your phone" under the form, drawn from the first frame and defined when its chunk comes after the
   * session's: its place (the space above its button, and the button: parts/pay-elsewhere) is held meanwhile,
   * unshaded, so that nothing below moves when it comes.
   */
  svc-pay-elsewhere {
    min-block-size: 3.75em;
  }

  @keyframes pending {
    to {
      opacity: 0.4;
    }
  }

  ${alertBox}
  ${visuallyHidden}
`;
