// The demo's log lines: one line per entry, coloured by outcome, and a filter over all of it.
import { describe, expect, it } from 'vitest';
import { describeCallback, describeEvent, matchesFilter } from '../../demo/log-lines.js';

describe("the demo's log lines", () => {
  it('colour a payment by its outcome: paid green, failed red, closed or expired amber, waiting blue', () => {
    const result = (orderStatus: string) => describeEvent('svc-pay-result', { orderStatus, orderNo: '26112200000001', referenceCode: '' });
    expect(result('SUCCESS')).toMatchObject({ tone: 'good', summary: 'SUCCESS · 26112200000001' });
    expect(result('FAIL').tone).toBe('bad');
    expect(result('CLOSE').tone).toBe('warn');
    expect(result('PENDING').tone).toBe('info');
    expect(describeEvent('svc-expired', { orderNo: '1' }).tone).toBe('warn');
    expect(describeEvent('svc-action', { actionType: 'SWIPE_CARD', orderNo: '1' })).toMatchObject({ tone: 'info', summary: 'SWIPE_CARD · 1' });
  });

  it('colour errors red, and a status check the element keeps retrying amber', () => {
    expect(describeEvent('svc-error', { code: '50003', message: 'Service not available', retryable: false })).toMatchObject({
      tone: 'bad',
      summary: '50003 · Service not available',
    });
    expect(describeEvent('svc-error', { code: 'STATUS_UNKNOWN', message: '…', retryable: true }).tone).toBe('warn');
    expect(describeEvent('svc-http-response', { code: '02001', message: 'request params not valid.' }).tone).toBe('bad');
    expect(describeEvent('svc-http-response', { code: '00000', data: { status: 'PENDING', orderNo: '1' } })).toMatchObject({
      tone: 'info',
      summary: '00000 · PENDING · 1',
    });
    expect(describeEvent('svc-http-response', { code: '00000', data: { status: 'FAIL', orderNo: '1' } }).tone).toBe('bad');
  });

  it('colour a verified callback by its status and a rejected one red', () => {
    expect(describeCallback({ verified: true, body: { status: 'FAIL', orderNo: '1', failureCode: 'CARD_DECLINED' } })).toMatchObject({
      tone: 'bad',
      summary: 'FAIL · 1 · CARD_DECLINED',
    });
    expect(describeCallback({ verified: true, body: { status: 'SUCCESS', orderNo: '1' } }).tone).toBe('good');
    expect(describeCallback({ verified: false, reason: 'bad signature' })).toMatchObject({ tone: 'bad', summary: 'bad signature' });
  });

  it('filter on every word, case-insensitive, through the title, the summary and the detail', () => {
    const line = describeEvent('svc-pay-result', { orderStatus: 'FAIL', orderNo: '26112200000001', merchantId: '256612345678901' });
    expect(matchesFilter(line, '')).toBe(true);
    expect(matchesFilter(line, 'fail')).toBe(true);
    expect(matchesFilter(line, 'pay-result 2566')).toBe(true);
    expect(matchesFilter(line, 'svc-error')).toBe(false);
  });
});
