export interface SvcErrorDetail {
  /** A service code (`50003`, `02001`, …) or the element's own (`NETWORK`, `TIMEOUT`, `HTTP`, `CONFIG`, `UNLOADED`, …: `CLIENT_ERROR_CODES`). */
  code: string;
  message: string;
  /** Whether the same action may work if the payer tries it again. */
  retryable: boolean;
}

/** Something went wrong that the payer sees as an error. */
export class SvcErrorEvent extends CustomEvent<SvcErrorDetail> {
  constructor(detail: SvcErrorDetail) {
    super('svc-error', { bubbles: true, composed: true, detail });
  }
}

declare global {
  interface GlobalEventHandlersEventMap {
    'svc-error': SvcErrorEvent;
  }
}
