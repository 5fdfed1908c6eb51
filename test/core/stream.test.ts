// The status stream's wire format: events written by the kit and read back, cut anywhere, as the HTML standard reads them.
import { describe, expect, it } from 'vitest';
import {
  encodeComment,
  encodeEvent,
  EventStreamReader,
  parseStreamEnd,
  parseStreamSchedule,
  parseStreamStatus,
  type ReceivedEvent,
} from '../../src/core/index.js';

/** Feeds `text` in pieces of `size` characters. */
function readAll(text: string, size: number, reader = new EventStreamReader()): ReceivedEvent[] {
  const events: ReceivedEvent[] = [];
  for (let index = 0; index < text.length; index += size) events.push(...reader.push(text.slice(index, index + size)));
  return events;
}

describe('the event stream format', () => {
  const written =
    encodeEvent({ retry: 3000 }) +
    encodeComment() +
    encodeEvent({ event: 'schedule', data: '{"a":1}' }) +
    encodeEvent({ event: 'status', id: 'PENDING', data: 'one\ntwo' }) +
    encodeComment('ping') +
    encodeEvent({ data: 'plain' });

  it('reads what the kit writes, whatever the chunks', () => {
    for (const size of [1, 2, 3, 7, 1000]) {
      const reader = new EventStreamReader();
      expect(readAll(written, size, reader)).toEqual([
        { type: 'schedule', data: '{"a":1}', lastEventId: '' },
        { type: 'status', data: 'one\ntwo', lastEventId: 'PENDING' },
        { type: 'message', data: 'plain', lastEventId: 'PENDING' },
      ]);
      expect(reader.retry).toBe(3000);
    }
  });

  it('takes CRLF, CR and LF line ends, a CR and LF split across chunks, and drops a leading BOM', () => {
    const reader = new EventStreamReader();
    expect(reader.push('\ufeffevent: a\r')).toEqual([]);
    expect(reader.push('\ndata: 1\r')).toEqual([]);
    expect(reader.push('\r')).toEqual([{ type: 'a', data: '1', lastEventId: '' }]);
    expect(reader.push('\ndata:2\n\ndata: 3\r\n\r\n')).toEqual([
      { type: 'message', data: '2', lastEventId: '' },
      { type: 'message', data: '3', lastEventId: '' },
    ]);
  });

  it('ignores an id with NUL, a retry that is not digits, unknown fields, and an event without data', () => {
    const reader = new EventStreamReader('PENDING');
    const events = reader.push('id: a\u0000b\nretry: 1s\nfoo: bar\nevent: x\n\ndata: y\n\n');
    expect(events).toEqual([{ type: 'message', data: 'y', lastEventId: 'PENDING' }]);
    expect(reader.retry).toBeUndefined();
  });

  it('never dispatches an event left unfinished', () => {
    expect(new EventStreamReader().push('data: half')).toEqual([]);
  });

  it('writes one field per line: nobody can add a field through a value', () => {
    expect(encodeEvent({ event: 'status\ndata: x', id: 'a\nb', data: 'd' })).toBe('event: status data: x\nid: a b\ndata: d\n\n');
    expect(encodeComment('a\nb')).toBe(':a b\n\n');
  });

  it('checks what each event carries', () => {
    expect(parseStreamStatus('{"reference":"r","orderNo":"1","status":"SUCCESS","failureCode":7}')).toEqual({ reference: 'r', orderNo: '1', status: 'SUCCESS' });
    expect(parseStreamStatus('{"reference":"r","orderNo":"1","status":"PAID"}')).toBeUndefined();
    expect(parseStreamStatus('not json')).toBeUndefined();
    const schedule = { delayMs: 0, intervalMs: 2500, backoff: [1, 2], durationMs: 10, heartbeatMs: 15000, retryMs: 3000 };
    expect(parseStreamSchedule(JSON.stringify(schedule))).toEqual(schedule);
    expect(parseStreamSchedule(JSON.stringify({ ...schedule, backoff: [] }))).toBeUndefined();
    expect(parseStreamSchedule(JSON.stringify({ ...schedule, intervalMs: -1 }))).toBeUndefined();
    expect(parseStreamEnd('{"reason":"expired"}')).toEqual({ reason: 'expired' });
    expect(parseStreamEnd('{"reason":"other"}')).toBeUndefined();
  });
});
