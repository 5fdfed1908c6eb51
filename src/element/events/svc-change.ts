import type { PayMethod } from '../../core/index.js';

export interface SvcChangeDetail {
  payMethod: PayMethod;
  /** Whether the payer's part of the form is valid, so that `submit()` would send it. */
  complete: boolean;
}

/** The payer chose a method or changed a field. */
export class SvcChangeEvent extends CustomEvent<SvcChangeDetail> {
  constructor(detail: SvcChangeDetail) {
    super('svc-change', { bubbles: true, composed: true, detail });
  }
}

declare global {
  interface GlobalEventHandlersEventMap {
    'svc-change': SvcChangeEvent;
  }
}
