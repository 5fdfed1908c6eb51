import { css, nothing, type TemplateResult } from 'lit';
import type { ActiveOrder, CheckoutContext, Step } from '../state.js';
import { CheckoutPart } from './checkout-part.js';

/** What the parts of the steps after the form share: their box, headings, status line, spinner, secondary buttons. */
const stepStyles = css`
  .confirm {
    display: grid;
    gap: 0.5em;
    border-block-start: 1px solid var(--_border);
    padding-block-start: 0.75em;
  }

  /* A finger's width (WCAG 2.5.5), whatever a button's own font size: Copy code's smaller text made it 39 px. */
  button {
    min-block-size: max(2.75em, 44px);
  }

  .secondary {
    background: transparent;
    color: var(--_primary);
    border: 2px solid var(--_primary);
    font-weight: 600;
  }

  /* A step sits in the element's own container: no second card inside it. */
  .step {
    display: grid;
    gap: var(--_space);
  }

  h2 {
    margin: 0;
    font-size: 1.25em;
    line-height: 1.3;
  }

  /* A heading focused at a step change: its ring clear of its words, and inside a result's coloured edge. */
  h2[tabindex='-1']:focus-visible {
    outline-offset: 6px;
  }

  .status {
    display: flex;
    align-items: center;
    gap: 0.5em;
    color: var(--_muted);
  }

  .spinner {
    inline-size: 1.25em;
    block-size: 1.25em;
    flex: none;
    border-radius: 50%;
    border: 3px solid var(--_border);
    border-block-start-color: var(--_primary);
    animation: spin 0.9s linear infinite;
  }

  @keyframes spin {
    to {
      transform: rotate(1turn);
    }
  }

  @media (prefers-reduced-motion: reduce) {
    .spinner {
      animation: none;
      border-block-start-color: var(--_border);
      background: radial-gradient(circle, var(--_primary) 30%, transparent 32%);
    }
  }

  .row {
    display: flex;
    flex-wrap: wrap;
    gap: calc(var(--_space) / 2);
  }

  /* A step's secondary actions (send again, use another method, print) in one style: each the row's width. */
  .row > .secondary {
    flex: 1 1 100%;
  }
`;

/** A part of the steps after the form: it comes with the session's chunk, and so do its styles. */
export abstract class StepPart extends CheckoutPart {
  static override styles = [...CheckoutPart.styles, stepStyles];
}

/** The order a step shows, when it has one. */
export function stepOrder(step: Step): ActiveOrder | undefined {
  return 'order' in step ? step.order : undefined;
}

/** The order of a next action, as its step shows it. */
export type ActionOrder = Extract<Step, { kind: 'action' }>['order'];

/** The part of one next action (action-views.ts says which): rendered with the action's order. */
export abstract class ActionPart extends StepPart {
  protected override renderPart(context: CheckoutContext): unknown {
    const step = context.state.step;
    return step.kind === 'action' ? this.renderAction(context, step.order) : nothing;
  }

  protected abstract renderAction(context: CheckoutContext, order: ActionOrder): TemplateResult | typeof nothing;
}
