/**
 * `POST /timings`: the element's timings, sent as beacons by a page that asked for them (`send-timings`), published on
 * `svc-checkout:timing` one by one (docs/observability.md). A beacon carries no proof (`navigator.sendBeacon` sends no
 * header of the page's) and is believed for what it is: a few numbers for the shop's own charts. So each timing is
 * rebuilt from the table (src/core/timings.ts), anything else in it left behind, and nothing is kept or forwarded.
 *
 * Anyone can send one, so the timings that reach the channel are counted like every other call a browser makes
 * (src/server/limits): per client (`timingsPerClient`) and in all (`timings`), across processes with a shared throttle
 * store. A beacon whose timings a limit refuses is dropped whole. Always 204 once read, dropped or not: a beacon's
 * sender never reads the answer, and a page going away should see nothing fail.
 */
import { parseJson, TIMING_LIMITS, timingOf, type CheckoutTiming } from '../../core/index.js';
import { listened, timingChannel } from './channels.js';
import { problem, readBody } from '../http/http.js';
import { decodeUtf8 } from '../runtime/signature.js';

/** A beacon of twenty timings is under 2 KiB. */
const MAX_BEACON_BYTES = 4_096;

const accepted = () => new Response(null, { status: 204, headers: { 'Cache-Control': 'no-store' } });

export interface TimingsRouteOptions {
  /** Counts `count` timings of this request's client against the beacons' limits: whether they may be published. */
  admit(request: Request, count: number): Promise<boolean>;
}

export function timingsRoute(options: TimingsRouteOptions): (request: Request) => Promise<Response> {
  return async function receiveTimings(request) {
    const body = await readBody(request, MAX_BEACON_BYTES);
    if (body === 'too-large') return problem(413, `a beacon is at most ${MAX_BEACON_BYTES} bytes`);
    // Nobody listens: nothing would reach anyone, and nothing is counted.
    if (!listened(timingChannel)) return accepted();
    const text = decodeUtf8(body);
    const parsed = text === undefined ? undefined : parseJson(text);
    const sent = parsed?.ok ? (parsed.value as { timings?: unknown } | null)?.timings : undefined;
    if (!Array.isArray(sent)) return problem(400, 'a beacon is {"timings": [...]}');
    const timings = sent.slice(0, TIMING_LIMITS.perBeacon).map(timingOf).filter((timing): timing is CheckoutTiming => timing !== undefined);
    if (timings.length === 0 || !(await options.admit(request, timings.length))) return accepted();
    for (const timing of timings) timingChannel.publish(timing);
    return accepted();
  };
}
