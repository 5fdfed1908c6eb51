/**
 * What the demo's logs show of each entry: one line, coloured by outcome — paid is green, failed red, closed or
 * expired amber, waiting blue — so that a tester sees at a glance how a run went. The whole detail stays one
 * click away. Pure functions: no DOM here.
 */
export type Tone = 'good' | 'bad' | 'warn' | 'info' | 'plain';

export interface LogLine {
  title: string;
  summary: string;
  tone: Tone;
  detail: unknown;
}

type Detail = Record<string, unknown> & { data?: Record<string, unknown> };

const STATUS_TONES: Readonly<Record<string, Tone>> = { SUCCESS: 'good', FAIL: 'bad', CLOSE: 'warn', PENDING: 'info' };

export function toneOfStatus(status: unknown): Tone {
  return (typeof status === 'string' && STATUS_TONES[status]) || 'plain';
}

const text = (...parts: unknown[]) => parts.filter((part) => typeof part === 'string' && part !== '').join(' · ');

/** An event of the element. */
export function describeEvent(name: string, detail: unknown): LogLine {
  const d = (typeof detail === 'object' && detail !== null ? detail : {}) as Detail;
  const line = (summary: string, tone: Tone): LogLine => ({ title: name, summary, tone, detail });
  switch (name) {
    case 'svc-pay-result':
      return line(text(d['orderStatus'], d['orderNo'], d['referenceCode'] ? `code ${String(d['referenceCode'])}` : ''), toneOfStatus(d['orderStatus']));
    case 'svc-error':
      return line(text(d['code'], d['message']), d['retryable'] === true ? 'warn' : 'bad');
    case 'svc-expired':
      return line(text('expired unpaid', d['orderNo']), 'warn');
    case 'svc-http-response': {
      const ok = d['code'] === '00000';
      const status = d.data?.['status'];
      return line(text(d['code'], ok ? '' : d['message'], status, d.data?.['orderNo']), ok ? (status === 'PENDING' ? 'info' : toneOfStatus(status)) : 'bad');
    }
    case 'svc-action':
      return line(text(d['actionType'], d['orderNo']), 'info');
    case 'svc-ready':
      return line(text(Array.isArray(d['methods']) ? d['methods'].join(', ') : '', d['resumed'] ? 'resumed' : ''), 'plain');
    case 'svc-change':
      return line(text(d['payMethod'], d['complete'] ? 'complete' : 'incomplete'), 'plain');
    default:
      return line(typeof detail === 'string' ? detail : '', 'plain');
  }
}

/** An entry of the demo server's callback feed: verified (coloured by the order's status) or rejected. */
export function describeCallback(entry: { verified: boolean; reason?: string; body?: unknown }): LogLine {
  if (!entry.verified) return { title: '✕ rejected', summary: entry.reason ?? '', tone: 'bad', detail: entry };
  const body = (entry.body ?? {}) as Detail;
  return {
    title: '✓ signature verified',
    summary: text(body['status'], body['orderNo'], body['failureCode']),
    tone: toneOfStatus(body['status']),
    detail: entry.body,
  };
}

/** Whether a line matches a filter: every word of it, case-insensitive, in its title, summary or detail. */
export function matchesFilter(line: LogLine, filter: string): boolean {
  const words = filter.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return true;
  const haystack = `${line.title} ${line.summary} ${JSON.stringify(line.detail) ?? ''}`.toLowerCase();
  return words.every((word) => haystack.includes(word));
}
