import type { NextActionType } from '../../core/index.js';

export interface SvcActionDetail {
  /** The next action, or `REFERENCE_CODE` when the payer pays a reference code elsewhere. */
  actionType: NextActionType | 'REFERENCE_CODE';
  orderNo: string;
  reference: string;
  redirectUrl?: string;
  referenceCode?: string;
}

/** A next action is shown to the payer. */
export class SvcActionEvent extends CustomEvent<SvcActionDetail> {
  constructor(detail: SvcActionDetail) {
    super('svc-action', { bubbles: true, composed: true, detail });
  }
}

declare global {
  interface GlobalEventHandlersEventMap {
    'svc-action': SvcActionEvent;
  }
}
