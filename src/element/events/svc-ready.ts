import type { PayMethod } from '../../core/index.js';

export interface SvcReadyDetail {
  methods: PayMethod[];
  /** True when the element picked up an order in progress (a reload, or the return from 3-D Secure). */
  resumed: boolean;
}

/** The element is configured and shown. */
export class SvcReadyEvent extends CustomEvent<SvcReadyDetail> {
  constructor(detail: SvcReadyDetail) {
    super('svc-ready', { bubbles: true, composed: true, detail });
  }
}

declare global {
  interface GlobalEventHandlersEventMap {
    'svc-ready': SvcReadyEvent;
  }
}
