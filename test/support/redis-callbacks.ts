/**
 * What the Redis suites send a kit and read back from it: a signed callback of a settled order, as the service sends
 * it, and a logger that keeps its lines.
 */
import { CALLBACK_TYPE, canonicalJson, MERCHANT_PATHS } from '../../src/core/index.js';
import { signCallback } from '../../src/server/index.js';
import { DEFAULT_MERCHANT } from '../../src/sandbox/index.js';

/** A signed callback of order `orderNo`, settled at `status`, from the default merchant's service. */
export async function settledCallback(orderNo: string, status = 'SUCCESS'): Promise<Request> {
  const { merchantId, privateKey } = DEFAULT_MERCHANT;
  const body = canonicalJson({
    notifyId: `n-${orderNo}`,
    reference: `r-${orderNo}`,
    amount: { total: 12_500, currency: 'EGP' },
    orderNo,
    country: 'EG',
    status,
    timestamp: Date.now(),
    type: CALLBACK_TYPE,
  });
  const timestamp = String(Date.now());
  return new Request(`http://shop.example${MERCHANT_PATHS.callbacks}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: await signCallback(timestamp, body, privateKey), MerchantId: merchantId, RequestTimestamp: timestamp },
    body,
  });
}

/** A logger that keeps what it is told, warnings and errors alike. */
export function keptLines() {
  const kept: string[] = [];
  return { kept, warn: (line: string) => kept.push(line), error: (line: string) => kept.push(line) };
}
