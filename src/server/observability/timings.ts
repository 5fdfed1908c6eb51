/**
 * `POST /timings`: the element's timings, sent as beacons by a page that asked for them (`send-timings`), published on
 * `svc-checkout:timing` one by one (docs/observability.md). A beacon carries no proof (`navigator.sendBeacon` sends no
 * header of the page's) and is believed for what it is: a few numbers for the shop's own charts. So each timing is
 * rebuilt from the table (src/core/timings.ts), anything else in it left behind, and nothing is kept or forwarded.
 * Always 204 once read: a beacon's sender never reads the answer.
 */
import { parseJson, TIMING_LIMITS, timingOf } from '../../core/index.js';
import { listened, timingChannel } from './channels.js';
import { problem, readBody } from '../http/http.js';
import { decodeUtf8 } from '../runtime/signature.js';

/** A beacon of twenty timings is under 2 KiB. */
const MAX_BEACON_BYTES = 4_096;

const accepted = () => new Response(null, { status: 204, headers: { 'Cache-Control': 'no-store' } });

export async function receiveTimings(request: Request): Promise<Response> {
  const body = await readBody(request, MAX_BEACON_BYTES);
  if (body === 'too-large') return problem(413, `a beacon is at most ${MAX_BEACON_BYTES} bytes`);
  if (!listened(timingChannel)) return accepted();
  const text = decodeUtf8(body);
  const parsed = text === undefined ? undefined : parseJson(text);
  const timings = parsed?.ok ? (parsed.value as { timings?: unknown } | null)?.timings : undefined;
  if (!Array.isArray(timings)) return problem(400, 'a beacon is {"timings": [...]}');
  for (const sent of timings.slice(0, TIMING_LIMITS.perBeacon)) {
    const timing = timingOf(sent);
    if (timing) timingChannel.publish(timing);
  }
  return accepted();
}
