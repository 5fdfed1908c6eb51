// The floor of the size and start-up figures: the least a Lit widget that takes one typed value can be. One
// labelled input and a little CSS, bundled like the CDN file (scripts/cdn-build.mjs).
import { css, html, LitElement } from 'lit';

export class FloorElement extends LitElement {
  static override shadowRootOptions: ShadowRootInit = { ...LitElement.shadowRootOptions, delegatesFocus: true };
  static override properties = { label: { type: String } };
  static override styles = css`
    :host {
      display: block;
      font-family: inherit;
    }
    label {
      display: grid;
      gap: 0.25rem;
    }
    input {
      font: inherit;
      padding: 0.5rem;
      border: 1px solid #74777f;
      border-radius: 8px;
    }
  `;

  declare label: string;

  constructor() {
    super();
    this.label = 'Name';
  }

  protected override render() {
    return html`<label>${this.label} <input name="name" autocomplete="name" /></label>`;
  }
}

customElements.define('floor-element', FloorElement);
