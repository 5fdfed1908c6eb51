/**
 * The event stream, GET /sandbox/v1/events (Server-Sent Events): a snapshot of the whole world first, then
 * every event as it is published (`?types=` keeps some), and a comment now and then so that proxies keep it
 * open. A reader that stops reading is let go; every stream ends when the sandbox closes.
 */
import type { ServerResponse } from 'node:http';
import { snapshot } from '../control/api.js';
import { formatServerSentEvent, SANDBOX_EVENT_TYPES, type SandboxEventType } from '../world/events.js';
import type { Exchange } from './router.js';
import type { SandboxWorld } from '../world/world.js';

/** Bytes an event stream may fall behind by before its reader is let go. */
const MAX_STREAM_BACKLOG = 8 * 1024 * 1024;

export class EventStreams {
  readonly #open = new Set<ServerResponse>();

  constructor(
    private readonly world: SandboxWorld,
    private readonly heartbeatMs: number,
  ) {}

  serve({ url, response, cors, log, path, finish }: Exchange): void {
    const { world } = this;
    const asked = url.searchParams.get('types');
    const types = asked ? asked.split(',').map((type) => type.trim()) : undefined;
    const unknown = types?.filter((type) => !Object.hasOwn(SANDBOX_EVENT_TYPES, type));
    if (unknown && unknown.length > 0) {
      return finish(400, { message: `types: ${unknown.join(', ')} is not an event type; they are ${Object.keys(SANDBOX_EVENT_TYPES).join(', ')}`, errors: [{ field: 'types', rule: 'enum', message: 'unknown event type' }] }, cors);
    }
    world.tick();
    log(`GET ${path} 200 stream`);
    response.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      'X-Accel-Buffering': 'no',
      'X-Content-Type-Options': 'nosniff',
      ...cors,
    });
    response.write('retry: 2000\n\n');
    response.write(formatServerSentEvent({ id: 0, type: 'snapshot', at: world.clock.now(), data: snapshot(world) }));
    const wanted = (type: SandboxEventType) => !types || type === 'reset' || types.includes(type);
    const unsubscribe = world.events.subscribe((event) => {
      if (!wanted(event.type)) return;
      // A reader that stopped reading is let go: it reconnects and gets a new snapshot.
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
