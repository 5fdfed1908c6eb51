/**
 * What an attempt sends: the callback's bytes signed with scheme v2, or spoiled as the delivery fault it met
 * says, or an earlier attempt's bytes and headers again, exactly as they were. RequestTimestamp is real time,
 * never the sandbox clock: the merchant checks it against its own.
 */
import { canonicalJson } from '../../core/index.js';
import { SIGNING_HEADERS } from '../../core/signing.js';
import type { ResolvedMerchant } from '../config.js';
import { DELIVERY_FAULTS, STALE_TIMESTAMP_MS, TAMPER_FIELDS, type DeliveryFault, type DeliveryFaultKind } from '../faults/delivery-faults.js';
import { signCallback } from '../signing.js';

/** The headers and bytes of an attempt, and the fault that made them so, in words too. */
export type Send = { headers: Record<string, string>; body: string; fault?: DeliveryFaultKind; note?: string };

/** `body` signed by `merchant`, as the service signs its callbacks. */
export async function signed(merchant: ResolvedMerchant, body: string, timestamp = String(Date.now())): Promise<Send> {
  return {
    body,
    headers: {
      'Content-Type': 'application/json',
      [SIGNING_HEADERS.authorization]: await signCallback(timestamp, body, merchant.privateKey),
      [SIGNING_HEADERS.merchantId]: merchant.merchantId,
      [SIGNING_HEADERS.timestamp]: timestamp,
    },
  };
}

/** What an attempt that met `fault` sends; without one, the callback signed. */
export async function faulty(merchant: ResolvedMerchant, body: string, fault: DeliveryFault | undefined): Promise<Send> {
  switch (fault?.kind) {
    case 'badSignature': {
      const send = await signed(merchant, body);
      const signature = send.headers['Authorization'] as string;
      const last = signature.at(-1) as string;
      send.headers['Authorization'] = `${signature.slice(0, -1)}${((parseInt(last, 16) + 1) % 16).toString(16)}`;
      return { ...send, fault: 'badSignature', note: 'the last hex digit of the signature was changed' };
    }
    case 'tamper': {
      const send = await signed(merchant, body);
      const field = fault.field ?? 'amount.total';
      const changed = JSON.parse(body) as Record<string, unknown>;
      const before = field === 'amount.total' ? (changed['amount'] as { total: unknown }).total : changed[field];
      TAMPER_FIELDS[field](changed);
      const after = field === 'amount.total' ? (changed['amount'] as { total: unknown }).total : changed[field];
      return { ...send, body: canonicalJson(changed), fault: 'tamper', note: `${field} changed from ${String(before)} to ${String(after)} after signing` };
    }
    case 'staleTimestamp':
      return { ...(await signed(merchant, body, String(Date.now() - STALE_TIMESTAMP_MS))), fault: 'staleTimestamp', note: 'RequestTimestamp is an hour old' };
    case 'invalidBody': {
      const { status: _status, ...rest } = JSON.parse(body) as Record<string, unknown>;
      const send = await signed(merchant, canonicalJson(rest));
      return { ...send, fault: 'invalidBody', note: 'signed without status, which the specification requires' };
    }
    case 'duplicate':
    case 'replay':
      return { ...(await signed(merchant, body)), fault: fault.kind, note: DELIVERY_FAULTS[fault.kind].does };
    default:
      return signed(merchant, body);
  }
}

/** An earlier attempt's bytes and headers, sent again as they were: what an eavesdropper can do. */
export function replayed(original: { headers: Record<string, string>; body: string; attempt: number }): Send {
  return {
    headers: { ...original.headers },
    body: original.body,
    fault: 'replay',
    note: `the bytes and headers of attempt ${original.attempt}, sent again as they were`,
  };
}
