import { css } from 'lit';

/** Hidden from sight, not from screen readers. */
export const visuallyHidden = css`
  .visually-hidden {
    position: absolute;
    width: 1px;
    height: 1px;
    padding: 0;
    margin: -1px;
    overflow: hidden;
    clip-path: inset(50%);
    white-space: nowrap;
    border: 0;
  }
`;

/** The alert (parts/alert.ts): an error, a warning or information, marked by a coloured edge, an icon and its words. */
export const alertBox = css`
  .alert {
    display: flex;
    align-items: flex-start;
    gap: 0.5em;
    border-inline-start: 4px solid var(--_danger);
    background: var(--_surface);
    padding: calc(var(--_space) / 2) var(--_space);
    border-radius: calc(var(--_radius) / 2);
    margin: 0;
  }
  .alert-icon {
    flex: none;
    margin-block-start: 0.1em;
    color: var(--_danger);
  }
  .alert.warning {
    border-inline-start-color: var(--_warning);
  }
  .alert.warning .alert-icon {
    color: var(--_warning);
  }
  .alert.info {
    border-inline-start-color: var(--_primary);
  }
  .alert.info .alert-icon {
    color: var(--_primary);
  }
`;

/** Styles every part shares: fields, buttons, alerts (the steps add theirs: parts/step-part.ts). Colours come from the host's `--_*` tokens. */
export const partStyles = css`
  ${visuallyHidden}
  ${alertBox}

  :host {
    display: block;
  }

  * {
    box-sizing: border-box;
  }

  /*
   * Codes and order numbers shown to be read back: the monospace font. Fields stay in the text's font (their digits
   * are tabular below): a second font family in the first frame costs its layout the time to find and load the
   * face (README, Performance).
   */
  .mono {
    font-family: var(--_mono);
  }

  /*
   * Numbers: each digit the same width; in an Arabic layout a number is still written left to right, and its field
   * lines up with the labels and text around it, at the start of the line (the right).
   */
  .mono,
  input:is([inputmode='numeric'], [inputmode='tel'], [name='sn'], [name='otp'], [name='pin'], [name='bankAccountNumber']) {
    font-variant-numeric: tabular-nums;
  }
  :host(:dir(rtl)) input:is([inputmode='numeric'], [inputmode='tel'], [name='sn'], [name='otp'], [name='pin'], [name='bankAccountNumber']) {
    direction: ltr;
    text-align: right;
  }

  form {
    display: grid;
    gap: var(--_space);
    margin: 0;
  }

  fieldset {
    border: 0;
    margin: 0;
    padding: 0;
    min-inline-size: 0;
  }

  legend {
    padding: 0;
    font-weight: 600;
    margin-block-end: calc(var(--_space) / 4);
  }

  .field {
    display: grid;
    gap: calc(var(--_space) / 4);
  }

  label,
  .label {
    font-weight: 600;
  }

  .hint {
    color: var(--_muted);
    font-size: 0.875em;
    margin: 0;
  }

  input,
  select {
    font: inherit;
    color: var(--_text);
    background: var(--_background);
    border: 1px solid var(--_border);
    border-radius: calc(var(--_radius) / 2);
    padding: 0.5em 0.75em;
    min-block-size: 2.75em;
    inline-size: 100%;
  }

  input[aria-invalid='true'],
  select[aria-invalid='true'] {
    border-color: var(--_danger);
    border-width: 2px;
  }

  input:focus-visible,
  select:focus-visible,
  button:focus-visible,
  [tabindex='-1']:focus-visible,
  .choice input:focus-visible + span {
    outline: 3px solid var(--_focus);
    outline-offset: 2px;
  }

  [tabindex='-1']:focus:not(:focus-visible) {
    outline: none;
  }

  /* A field's error, its "!" mark drawn here; not .error, which is also an alert's tone (the alert has an icon of its own). */
  .field-error {
    color: var(--_danger);
    font-weight: 600;
    margin: 0;
    display: flex;
    gap: 0.35em;
    align-items: baseline;
  }

  .field-error::before {
    content: '!';
    display: inline-grid;
    place-items: center;
    flex: none;
    inline-size: 1.15em;
    block-size: 1.15em;
    border-radius: 50%;
    background: var(--_danger);
    color: var(--_background);
    font-size: 0.8em;
    font-weight: 800;
  }

  button {
    font: inherit;
    cursor: pointer;
    border-radius: calc(var(--_radius) / 2);
    min-block-size: 2.75em;
    padding: 0.5em 1.25em;
  }

  .primary {
    background: var(--_primary);
    color: var(--_on-primary);
    border: 2px solid var(--_primary);
    font-weight: 700;
    inline-size: 100%;
  }

  /* Inactive controls may be dimmed; a busy one ("Processing…") is the status the payer reads, so it is not. */
  button[aria-disabled='true']:not([aria-busy='true']) {
    cursor: not-allowed;
    opacity: 0.7;
  }

  button[aria-busy='true'] {
    cursor: progress;
  }

  p {
    margin: 0;
  }
`;
