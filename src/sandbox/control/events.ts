/**
 * The control API's event stream, GET /sandbox/v1/events: a snapshot of the whole world first, then every event
 * the world publishes as it happens (`?types=` keeps some; `reset` always comes), each shown as the control API
 * shows what it names (views.ts).
 */
import { EventStreams } from '../http/event-stream.js';
import type { Exchange } from '../http/router.js';
import { SANDBOX_EVENT_TYPES, type SandboxEventType } from '../world/events.js';
import type { SandboxWorld } from '../world/world.js';
import { shownEvent, snapshot } from './views.js';

export interface ControlEvents {
  serve(exchange: Exchange): void;
  /** Ends every open stream. */
  close(): void;
}

export function controlEvents(world: SandboxWorld, heartbeatMs: number): ControlEvents {
  const streams = new EventStreams(heartbeatMs);

  function serve(exchange: Exchange): void {
    const { url, cors, finish } = exchange;
    const asked = url.searchParams.get('types');
    const types = asked ? asked.split(',').map((type) => type.trim()) : undefined;
    const unknown = types?.filter((type) => !Object.hasOwn(SANDBOX_EVENT_TYPES, type));
    if (unknown && unknown.length > 0) {
      return finish(400, { message: `types: ${unknown.join(', ')} is not an event type; they are ${Object.keys(SANDBOX_EVENT_TYPES).join(', ')}`, errors: [{ field: 'types', rule: 'enum', message: 'unknown event type' }] }, cors);
    }
    world.tick();
    const wanted = (type: SandboxEventType) => !types || type === 'reset' || types.includes(type);
    const first = { id: 0, type: 'snapshot', at: world.clock.now(), data: snapshot(world) };
    streams.open(exchange, first, (send) =>
      world.events.subscribe((event) => {
        if (wanted(event.type)) send(shownEvent(event));
      }),
    );
  }

  return { serve, close: () => streams.close() };
}
