/**
 * Server-Sent Events over node:http: a stream opens with its first event, then carries every event it is handed,
 * and a comment now and then so that proxies keep it open. A reader that stops reading is let go; every stream
 * ends when the sandbox closes. Which events a stream carries, and how they read, is its route's to say.
 */
import type { ServerResponse } from 'node:http';
import type { Exchange } from './router.js';

/** Bytes an event stream may fall behind by before its reader is let go. */
const MAX_STREAM_BACKLOG = 8 * 1024 * 1024;

/** An event as a stream carries it: its id, its type as the event's name, and the whole of it as the data. */
export interface StreamEvent {
  id: number;
  type: string;
}

/** Hands each event to `send` until the function it returns is called (the reader went away). */
export type Subscribe = (send: (event: StreamEvent) => void) => () => void;

export class EventStreams {
  readonly #open = new Set<ServerResponse>();

  constructor(private readonly heartbeatMs: number) {}

  /** Answers the exchange with a stream: `first`, then whatever `subscribe` hands on. */
  open({ response, cors, log, path }: Exchange, first: StreamEvent, subscribe: Subscribe): void {
    log(`GET ${path} 200 stream`);
    response.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      'X-Accel-Buffering': 'no',
      'X-Content-Type-Options': 'nosniff',
      ...cors,
    });
    response.write('retry: 2000\n\n');
    response.write(formatServerSentEvent(first));
    const unsubscribe = subscribe((event) => {
      // A reader that stopped reading is let go: it reconnects and starts afresh.
      if (response.writableLength > MAX_STREAM_BACKLOG) response.destroy();
      else response.write(formatServerSentEvent(event));
    });
    const heartbeat = setInterval(() => response.write(': still here\n\n'), this.heartbeatMs);
    heartbeat.unref();
    this.#open.add(response);
    response.on('close', () => {
      unsubscribe();
      clearInterval(heartbeat);
      this.#open.delete(response);
    });
  }

  close(): void {
    for (const stream of this.#open) stream.end();
  }
}

/** One event in the text/event-stream format: its id, its type as the event name, its JSON on one line. */
export function formatServerSentEvent(event: StreamEvent): string {
  return `id: ${event.id}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}
