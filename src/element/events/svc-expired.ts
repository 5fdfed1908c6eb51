export interface SvcExpiredDetail {
  orderNo: string;
  reference: string;
}

/** The order expired unpaid: the service closed it, or its expiry passed and the last check still saw it pending. */
export class SvcExpiredEvent extends CustomEvent<SvcExpiredDetail> {
  constructor(detail: SvcExpiredDetail) {
    super('svc-expired', { bubbles: true, composed: true, detail });
  }
}

declare global {
  interface GlobalEventHandlersEventMap {
    'svc-expired': SvcExpiredEvent;
  }
}
