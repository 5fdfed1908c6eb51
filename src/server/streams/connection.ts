/**
 * One client's open status stream: what it has been sent, and its end — by the kit, or by the client that left or
 * stopped reading.
 */
import type { PaymentStatus } from '../../core/index.js';
import type { StreamCloseReason } from '../observability/channels.js';

/** Events a client may leave unread before its stream is dropped (it stopped reading). */
const MAX_UNREAD_EVENTS = 64;

const encoder = new TextEncoder();

export class StreamConnection {
  /** The status this client has (from `Last-Event-ID` on a resumed stream). */
  seen: PaymentStatus | undefined;
  closed = false;
  /** Told why the stream closed (svc-checkout:stream, when someone listens). */
  onClosed: ((reason: StreamCloseReason) => void) | undefined;
  constructor(
    private readonly controller: ReadableStreamDefaultController<Uint8Array>,
    private readonly onClose: (connection: StreamConnection) => void,
  ) {}

  write(text: string): void {
    if (this.closed) return;
    if ((this.controller.desiredSize ?? 0) < -MAX_UNREAD_EVENTS) {
      this.close('slow-client'); // the client stopped reading: nothing it would see, and memory it holds
      return;
    }
    try {
      this.controller.enqueue(encoder.encode(text));
    } catch {
      this.close('client');
    }
  }

  /** Ends the response (the kit's side) or forgets it (the client left); the same cleanup either way. */
  close(reason: StreamCloseReason): void {
    if (this.closed) return;
    this.closed = true;
    this.onClosed?.(reason);
    try {
      this.controller.close();
    } catch {
      // already cancelled by the client
    }
    this.onClose(this);
  }
}
