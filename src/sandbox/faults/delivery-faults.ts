/**
 * Callback delivery under control: what goes wrong with the next N callbacks (of one order, of one
 * reference, or of any), as the network and a misbehaving sender would make it go wrong. Applied by the
 * dispatcher (callbacks/dispatcher.ts) to each delivery attempt it makes; duplicates, re-sends and replays it makes on
 * purpose meet no fault.
 */
import { integer, isPlainObject, ORDER_FORMATS, type Violation } from '../../core/index.js';
import { ConsumableQueue, countDown, type QueueData } from '../world/consumable-queue.js';
import { choice, fieldReader, minutesFormat, unknownFields } from '../http/input.js';

/** Every delivery fault: what the sandbox does, and what a merchant kit that checks callbacks answers. */
export const DELIVERY_FAULTS = {
  duplicate: { does: 'sends it twice, one after the other: the same notifyId and body, each signed', kit: '200 both times; onCallback once' },
  omit: { does: 'does not send it and does not retry it, as if it was lost after the service counted it delivered', kit: 'nothing arrives: query the status' },
  badSignature: { does: "sends it with a signature that is not the body's (one hex digit changed)", kit: '401; the sandbox retries as usual' },
  tamper: { does: 'changes `field` (default amount.total) after signing', kit: '401; the retry carries the true body' },
  staleTimestamp: { does: 'signs it with a RequestTimestamp an hour old', kit: '401 (stale); retried' },
  invalidBody: { does: 'signs a body that breaks the specification (no `status`)', kit: '400; retried' },
  outOfOrder: { does: 'holds it back until the next callback of any order was sent (at most 10 sandbox minutes)', kit: 'both handled once, in the order they came' },
  replay: { does: 'sends it, then its exact bytes and headers again `afterMinutes` later (default 10), as an eavesdropper would', kit: 'a duplicate (200, no onCallback) or stale (401)' },
} as const;

export type DeliveryFaultKind = keyof typeof DELIVERY_FAULTS;
export const DELIVERY_FAULT_KINDS = Object.keys(DELIVERY_FAULTS) as DeliveryFaultKind[];

/** The fields `tamper` may change, and how: each change is one a forger would want. */
export const TAMPER_FIELDS = {
  'amount.total': (body: Record<string, unknown>) => {
    const amount = body['amount'] as { total: number };
    amount.total = Number(amount.total) + 100;
  },
  status: (body: Record<string, unknown>) => {
    body['status'] = body['status'] === 'SUCCESS' ? 'FAIL' : 'SUCCESS';
  },
  orderNo: (body: Record<string, unknown>) => {
    body['orderNo'] = String(body['orderNo']).replace(/\d$/, (digit) => String((Number(digit) + 1) % 10));
  },
  reference: (body: Record<string, unknown>) => {
    body['reference'] = `${String(body['reference'])}-x`;
  },
} as const;

export type TamperField = keyof typeof TAMPER_FIELDS;

export const OUT_OF_ORDER_MAX_HOLD_MINUTES = 10;
export const DEFAULT_REPLAY_MINUTES = 10;
export const STALE_TIMESTAMP_MS = 60 * 60 * 1000;

export interface DeliveryFaultInput {
  kind: DeliveryFaultKind;
  /** Delivery attempts still to meet it. */
  count: number;
  orderNo?: string;
  reference?: string;
  merchantId?: string;
  field?: TamperField;
  afterMinutes?: number;
}

export interface DeliveryFault extends DeliveryFaultInput {
  id: string;
  remaining: number;
}

const FIELDS = ['kind', 'count', 'orderNo', 'reference', 'merchantId', 'field', 'afterMinutes'] as const;

/** Checks a control call's body; every problem names its field. */
export function checkDeliveryFault(body: unknown): { ok: true; value: DeliveryFaultInput } | { ok: false; violations: Violation[] } {
  if (!isPlainObject(body)) return { ok: false, violations: [{ field: 'body', rule: 'type', message: 'the body must be a JSON object' }] };
  const violations = unknownFields(body, FIELDS);
  const read = fieldReader(body, violations);
  const kind = read<DeliveryFaultKind>('kind', choice(DELIVERY_FAULT_KINDS));
  if (body['kind'] === undefined || body['kind'] === null) violations.push({ field: 'kind', rule: 'required', message: `kind is required: one of ${DELIVERY_FAULT_KINDS.join(', ')}` });
  const count = read<number>('count', integer({ min: 1, max: 1000, expected: 'a whole number from 1 to 1000' })) ?? 1;
  const orderNo = read<string>('orderNo', ORDER_FORMATS.orderNo);
  const reference = read<string>('reference', ORDER_FORMATS.reference);
  const merchantId = read<string>('merchantId', ORDER_FORMATS.merchantId);
  const field = read<TamperField>('field', choice(Object.keys(TAMPER_FIELDS)));
  const afterMinutes = read<number>('afterMinutes', minutesFormat);
  if (body['field'] !== undefined && kind !== undefined && kind !== 'tamper') violations.push({ field: 'field', rule: 'state', message: 'field is only for kind tamper' });
  if (body['afterMinutes'] !== undefined && kind !== undefined && kind !== 'replay') {
    violations.push({ field: 'afterMinutes', rule: 'state', message: 'afterMinutes is only for kind replay' });
  }
  if (orderNo !== undefined && reference !== undefined) {
    violations.push({ field: 'reference', rule: 'conflict', message: 'name the order by orderNo or by reference, not both' });
  }
  if (violations.length > 0 || kind === undefined) return { ok: false, violations };
  return {
    ok: true,
    value: {
      kind,
      count,
      ...(orderNo !== undefined ? { orderNo } : {}),
      ...(reference !== undefined ? { reference } : {}),
      ...(merchantId !== undefined ? { merchantId } : {}),
      ...(kind === 'tamper' ? { field: field ?? 'amount.total' } : {}),
      ...(kind === 'replay' ? { afterMinutes: afterMinutes ?? DEFAULT_REPLAY_MINUTES } : {}),
    },
  };
}

export type DeliveryFaultData = QueueData<DeliveryFault, 'faults'>;

/** The queue, oldest first: a delivery meets the first fault that names it (or names no order). */
export class DeliveryFaultQueue extends ConsumableQueue<DeliveryFault, 'faults'> {
  constructor() {
    super('d', 'faults');
  }

  add(input: DeliveryFaultInput): DeliveryFault {
    return this.push((id) => ({ ...input, id, remaining: input.count }));
  }

  /** The fault a delivery attempt meets, if any; counts it. */
  take(delivery: { orderNo: string; reference: string; merchantId: string }): DeliveryFault | undefined {
    return this.consume(
      (fault) =>
        (fault.orderNo === undefined || fault.orderNo === delivery.orderNo) &&
        (fault.reference === undefined || fault.reference === delivery.reference) &&
        (fault.merchantId === undefined || fault.merchantId === delivery.merchantId),
      countDown,
    );
  }
}
