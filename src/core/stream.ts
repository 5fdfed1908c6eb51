/**
 * The status stream's contract (DESIGN.md §3, `GET /payments/events`): what the merchant kit sends and the
 * status stream client reads, as Server-Sent Events. The wire format is the WHATWG one (`event:`, `data:`,
 * `id:`, `retry:`, comment lines), written and read here so that both sides agree byte for byte; no
 * EventSource is needed, so the client can send its token in a header.
 */
import { isPlainObject } from './formats.js';
import { parseJson } from './json.js';
import { isPaymentStatus, type PaymentStatus } from './status.js';

/** The events of the stream, by name. */
export const STREAM_EVENTS = {
  /** The order's status (`StreamStatus`); its `id` is the status, so that a resumed stream skips what was seen. */
  status: 'status',
  /** How to poll instead, should the stream fail (`StreamSchedule`); sent first on every connection. */
  schedule: 'schedule',
  /** The stream is over (`StreamEnd`): do not reconnect. */
  end: 'end',
} as const;

/**
 * Query parameters of the stream route, for clients that cannot send headers (EventSource): `token` carries the
 * order token (`ot1.…`) or the checkout token (`ct1.…`), `reference` the reference a checkout token covers.
 * The headers `Svc-Order-Token` and `Svc-Checkout-Token` are read first.
 */
export const STREAM_QUERY = { token: 'token', reference: 'reference' } as const;

export const LAST_EVENT_ID_HEADER = 'Last-Event-ID';

export const EVENT_STREAM_TYPE = 'text/event-stream';

/** The order's status as the stream tells it. */
export interface StreamStatus {
  reference: string;
  orderNo: string;
  status: PaymentStatus;
  failureCode?: string;
  failureReason?: string;
  /** On a stream opened with a checkout token: the order's token, for its OTP, PIN and status calls. */
  orderToken?: string;
}

/**
 * The poll schedule the kit wants a client to follow if it falls back to polling `/payments/status`: wait
 * `delayMs`, then check every `intervalMs × backoff[i]` (the last multiple repeats), for `durationMs` at most.
 */
export interface StreamSchedule {
  delayMs: number;
  intervalMs: number;
  backoff: number[];
  /** How long the order may still change (until its expiry), from the moment the event was sent. */
  durationMs: number;
  /** The kit sends a comment line at least this often; silence for much longer means the stream is stuck. */
  heartbeatMs: number;
  /** The pause before reconnecting after a dropped stream (also sent as `retry:`). */
  retryMs: number;
}

export type StreamEndReason = 'terminal' | 'expired';

export interface StreamEnd {
  reason: StreamEndReason;
}

/** One event as it goes on the wire. */
export interface ServerSentEvent {
  event?: string;
  data?: string;
  id?: string;
  retry?: number;
}

/** The text of one event: each field on its own line, `data` split at line breaks, and the blank line that ends it. */
export function encodeEvent(event: ServerSentEvent): string {
  let text = '';
  if (event.retry !== undefined) text += `retry: ${Math.max(0, Math.floor(event.retry))}\n`;
  if (event.event !== undefined) text += `event: ${oneLine(event.event)}\n`;
  if (event.id !== undefined) text += `id: ${oneLine(event.id).replace(/\0/g, '')}\n`;
  if (event.data !== undefined) for (const line of event.data.split(/\r\n|\r|\n/)) text += `data: ${line}\n`;
  return `${text}\n`;
}

/** A comment line: ignored by every reader, but bytes on the wire (heartbeats). */
export function encodeComment(text = ''): string {
  return `:${oneLine(text)}\n\n`;
}

function oneLine(text: string): string {
  return text.replace(/[\r\n]/g, ' ');
}

/** An event as a reader dispatches it: `type` is `message` when the event named none. */
export interface ReceivedEvent {
  type: string;
  data: string;
  /** The last event ID after this event (an event without `id:` keeps the one before). */
  lastEventId: string;
}

/**
 * Reads `text/event-stream` text as it arrives, in chunks cut anywhere (even between CR and LF), as the HTML
 * standard's "event stream interpretation" says: a leading BOM is dropped, lines end at CRLF, LF or CR, a line
 * starting with `:` is a comment, an event is dispatched at a blank line when it has data, `retry:` takes
 * digits only, and an `id:` containing NUL is ignored. What is left unfinished at the end is never dispatched.
 */
export class EventStreamReader {
  #buffer = '';
  #started = false;
  #skipLineFeed = false;
  #type = '';
  #data: string[] = [];
  #lastEventId = '';
  #retry: number | undefined;

  constructor(lastEventId = '') {
    this.#lastEventId = lastEventId;
  }

  get lastEventId(): string {
    return this.#lastEventId;
  }

  /** The reconnection time the stream asked for last, if any. */
  get retry(): number | undefined {
    return this.#retry;
  }

  /** Feeds decoded text; returns the events it completed. */
  push(text: string): ReceivedEvent[] {
    if (!this.#started && text.length > 0) {
      this.#started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    const events: ReceivedEvent[] = [];
    let chunk = this.#buffer + text;
    this.#buffer = '';
    if (this.#skipLineFeed && chunk.startsWith('\n')) chunk = chunk.slice(1);
    this.#skipLineFeed = false;
    let start = 0;
    for (let index = 0; index < chunk.length; index++) {
      const char = chunk.charCodeAt(index);
      if (char !== 0x0a && char !== 0x0d) continue;
      const event = this.#line(chunk.slice(start, index));
      if (event) events.push(event);
      if (char === 0x0d) {
        if (index + 1 === chunk.length) this.#skipLineFeed = true;
        else if (chunk.charCodeAt(index + 1) === 0x0a) index++;
      }
      start = index + 1;
    }
    this.#buffer = chunk.slice(start);
    return events;
  }

  #line(line: string): ReceivedEvent | undefined {
    if (line === '') return this.#dispatch();
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') this.#type = value;
    else if (field === 'data') this.#data.push(value);
    else if (field === 'id') {
      if (!value.includes('\0')) this.#lastEventId = value;
    } else if (field === 'retry') {
      if (/^\d+$/.test(value)) this.#retry = Number(value);
    }
    return undefined;
  }

  #dispatch(): ReceivedEvent | undefined {
    const type = this.#type || 'message';
    const data = this.#data;
    this.#type = '';
    this.#data = [];
    if (data.length === 0) return undefined;
    return { type, data: data.join('\n'), lastEventId: this.#lastEventId };
  }
}

/** A `status` event's data, checked; undefined when it is not one. */
export function parseStreamStatus(data: string): StreamStatus | undefined {
  const value = parseObject(data);
  if (!value || typeof value['reference'] !== 'string' || typeof value['orderNo'] !== 'string' || !isPaymentStatus(value['status'])) {
    return undefined;
  }
  const status: StreamStatus = { reference: value['reference'], orderNo: value['orderNo'], status: value['status'] };
  for (const field of ['failureCode', 'failureReason', 'orderToken'] as const) {
    if (typeof value[field] === 'string') status[field] = value[field];
  }
  return status;
}

/** A `schedule` event's data, checked; undefined when it is not one. */
export function parseStreamSchedule(data: string): StreamSchedule | undefined {
  const value = parseObject(data);
  if (!value) return undefined;
  const numbers = ['delayMs', 'intervalMs', 'durationMs', 'heartbeatMs', 'retryMs'] as const;
  if (!numbers.every((field) => isCount(value[field]))) return undefined;
  const backoff = value['backoff'];
  if (!Array.isArray(backoff) || backoff.length === 0 || !backoff.every((multiple) => isCount(multiple) && multiple > 0)) return undefined;
  return {
    delayMs: value['delayMs'] as number,
    intervalMs: value['intervalMs'] as number,
    backoff: backoff as number[],
    durationMs: value['durationMs'] as number,
    heartbeatMs: value['heartbeatMs'] as number,
    retryMs: value['retryMs'] as number,
  };
}

/** An `end` event's data, checked. */
export function parseStreamEnd(data: string): StreamEnd | undefined {
  const reason = parseObject(data)?.['reason'];
  return reason === 'terminal' || reason === 'expired' ? { reason } : undefined;
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}

function parseObject(data: string): Record<string, unknown> | undefined {
  const parsed = parseJson(data);
  return parsed.ok && isPlainObject(parsed.value) ? parsed.value : undefined;
}
