/**
 * What the Redis suites send a kit and read back from it: a signed callback of a settled order, as the service sends
 * it (once, or again while answered 503, as the service retries), and a logger that keeps its lines.
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

/**
 * Settled orders' callbacks delivered to `handlers` in turn (by `index`): `deliver` sends one once and gives its
 * status; `delivered` sends it again while it is answered 503, as the service does, for `retryForMs` at most. Out of a
 * fault, a 503 still comes when a replica's acknowledgement outlasts replicaTimeoutMs on a loaded machine: the kit then
 * holds callbacks back a beat.
 */
export function callbackDeliveries(handlers: readonly ((request: Request) => Promise<Response>)[], retryForMs: number) {
  const deliver = async (orderNo: string, index: number) => (await handlers[index % handlers.length]!(await settledCallback(orderNo))).status;
  const delivered = async (orderNo: string, index: number) => {
    const end = Date.now() + retryForMs;
    let status = await deliver(orderNo, index);
    while (status === 503 && Date.now() < end) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      status = await deliver(orderNo, index);
    }
    return status;
  };
  return { deliver, delivered };
}

/** A logger that keeps what it is told, warnings and errors alike. */
export function keptLines() {
  const kept: string[] = [];
  return { kept, warn: (line: string) => kept.push(line), error: (line: string) => kept.push(line) };
}
