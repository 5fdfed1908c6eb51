// Generated bad requests to the sandbox: its service API, signed, unsigned and wrongly signed, answers HTTP 200
// with a well-formed envelope and the right code (02000 for a bad signature, 02001 for an invalid body, …), or
// 413 for an oversized body, never a 500; its control API answers bad input with a 4xx and a JSON body; and it
// serves normally afterwards.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  envelopeForViolations,
  isErrorCode,
  isPayMethod,
  isPlainObject,
  LIMITS,
  OTP_REQUEST,
  PAY_METHODS,
  PIN_REQUEST,
  REFUND_CREATE,
  REFERENCE_PATTERN,
  REFUND_QUERY,
  RESEND_OTP_REQUEST,
  SERVICE_PATHS,
  STATUS_REQUEST,
  SUCCESS_CODE,
  validate,
  validateCreateRequest,
  type RuleTable,
  type ServiceOperation,
  type Violation,
} from '../../src/core/index.js';
import { signRequest } from '../../src/server/index.js';
import { createSandbox, DEFAULT_MERCHANT, DELIVERY_FAULT_KINDS, FAULT_KINDS, type Sandbox, type SandboxMerchant } from '../../src/sandbox/index.js';
import { EXPECTATION_FIELDS } from '../../src/sandbox/scenarios/expectations.js';
import { bankAccountRequest, posRequest, referenceCodeRequest } from '../core/fixtures.js';
import { listen } from '../support/fake-service.js';
import { ACCEPTS, candidates, fieldPaths, isAbsent, shapeNamed, withField, wrongType } from './requests.js';
import {
  closeAgent,
  corrupt,
  deeplyNested,
  expectPrototypesClean,
  hostileKey,
  hostileString,
  invalidUtf8,
  jsonText,
  jsonTree,
  numberish,
  send,
  tally,
  watchUnhandled,
  withMembers,
  type RawAnswer,
} from './support.js';

const MIB = 1024 * 1024;
const cases = tally('property suite: sandbox');
const unhandled = watchUnhandled();

/** The default merchant, one configured for Pos only, and one that is not available. */
const MERCHANTS: SandboxMerchant[] = [
  { ...DEFAULT_MERCHANT },
  { merchantId: '20000000000001', privateKey: 'pos-only-merchant-key', methods: ['Pos'] },
  { merchantId: '30000000000001', privateKey: 'unavailable-merchant-key', available: false },
];

let sandbox: Sandbox;
let sink: { url: string; close(): Promise<void> };
const sinkHits: string[] = [];
/** Orders of the default merchant waiting for an OTP and a PIN, and the reference of a paid one (for refunds). */
const orders: string[] = [];
let paidReference = '';

async function signed(base: string, operation: ServiceOperation, body: unknown, merchant: SandboxMerchant = DEFAULT_MERCHANT) {
  const text = JSON.stringify(body);
  const answer = await send(base, {
    method: 'POST',
    path: SERVICE_PATHS[operation],
    headers: { 'Content-Type': 'application/json', MerchantId: merchant.merchantId, Authorization: `Bearer ${await signRequest(text, merchant.privateKey)}` },
    body: text,
  });
  return answer.json as { code: string; data: { orderNo: string; referenceCode?: string } };
}

async function control(base: string, method: string, path: string, body?: unknown): Promise<RawAnswer> {
  return send(base, { method, path, headers: { 'Content-Type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
}

beforeAll(async () => {
  // Callbacks of generated orders come here, never to an address a generated body proposed.
  sink = await listen((request, response) => {
    sinkHits.push(request.url ?? '');
    request.resume();
    request.on('end', () => response.writeHead(204).end());
  });
  sandbox = await createSandbox({ merchants: MERCHANTS });
  for (const account of ['2215381176', '2215381183']) {
    orders.push((await signed(sandbox.url, 'create', bankAccountRequest({ reference: `fixture-${account}`, bankAccountNumber: account }))).data.orderNo);
  }
  const paid = await signed(sandbox.url, 'create', posRequest({ reference: 'fixture-paid', sn: 'FIXTURE-1', callbackUrl: `${sink.url}/hook` }));
  await control(sandbox.url, 'POST', `/sandbox/v1/orders/${paid.data.orderNo}/complete`, { status: 'SUCCESS' });
  paidReference = 'fixture-paid';
});

afterAll(async () => {
  console.log(cases.report());
  unhandled.stop();
  closeAgent();
  await sandbox?.close();
  await sink?.close();
});

// --- The service API ---------------------------------------------------------------------------------------------

const OPERATIONS = Object.keys(SERVICE_PATHS) as ServiceOperation[];
const SHAPES_OF_OPERATION: Record<ServiceOperation, string[]> = {
  // The specification also sends {country, orderNo, otp} to the create path.
  create: ['Pos create', 'BankAccount create', 'ReferenceCode create', 'OTP'],
  inputOtp: ['OTP'],
  inputPin: ['PIN'],
  resendOtp: ['resend OTP'],
  status: ['status'],
  refundCreate: ['refund create'],
  refundQuery: ['refund query'],
};
const TABLES: Record<Exclude<ServiceOperation, 'create'>, RuleTable> = {
  inputOtp: OTP_REQUEST,
  inputPin: PIN_REQUEST,
  resendOtp: RESEND_OTP_REQUEST,
  status: STATUS_REQUEST,
  refundCreate: REFUND_CREATE,
  refundQuery: REFUND_QUERY,
};
const SERVICE_RULES = new Set(['mismatch', 'state', 'limit', 'duplicate', 'max']);
const KNOWN_PATHS = new Set(
  ['Pos create', 'BankAccount create', 'ReferenceCode create', 'OTP', 'PIN', 'status', 'refund create', 'refund query'].flatMap((shape) => [
    ...fieldPaths(shapeNamed(shape).table),
  ]),
);

/** How a case signs: the ways that pass, then the ways that must be refused with 02000. */
const PASSING = ['signed', 'signed, lowercase bearer', 'signed, uppercase hex', 'public key'] as const;
const FAILING = ['unsigned', 'wrong key', 'other bytes signed', 'no Bearer', 'unknown merchant', 'no MerchantId', 'signature of another merchant', 'junk'] as const;
type Signing = (typeof PASSING)[number] | (typeof FAILING)[number];

/** A valid body of the operation with up to three things broken; callbacks only ever go to the local sink. */
function nearlyValid(operation: ServiceOperation): fc.Arbitrary<string> {
  return fc.constantFrom(...SHAPES_OF_OPERATION[operation]).chain((shape) => {
    const fields = shapeNamed(shape).fields;
    const breakage = fc.oneof(
      fc.constantFrom(...Object.keys(fields)).chain((field) =>
        fc.tuple(fc.constant(field), fc.oneof(candidates(fields[field]!), wrongType(fields[field]!.kind), fc.constant(undefined))),
      ),
      fc.tuple(hostileKey, fc.jsonValue({ maxDepth: 2 })),
    );
    return fc
      .tuple(
        shapeNamed(shape).valid,
        fc.array(breakage, { maxLength: 3 }),
        fc.array(fc.tuple(fc.constantFrom('__proto__', 'constructor', 'prototype'), jsonTree), { maxLength: 2 }),
        fc.option(fc.constantFrom(...orders), { nil: undefined }),
        fc.boolean(),
      )
      .map(([request, breaks, unsafe, realOrder, paid]) => {
        let body: Record<string, unknown> = { ...request };
        if (realOrder !== undefined && 'orderNo' in body) body['orderNo'] = realOrder;
        if (paid && 'originalReference' in body) body['originalReference'] = paidReference;
        for (const [field, value] of breaks) body = withField(body, field, value);
        if (ACCEPTS.url(body['callbackUrl'])) body['callbackUrl'] = `${sink.url}/hook`;
        return withMembers(body, unsafe);
      });
  });
}

function serviceBody(operation: ServiceOperation): fc.Arbitrary<string | Uint8Array> {
  const valid = nearlyValid(operation);
  return fc.oneof(
    { arbitrary: valid, weight: 10 },
    { arbitrary: jsonTree.map(jsonText), weight: 3 },
    { arbitrary: fc.tuple(valid, fc.integer({ min: 1, max: 100_000 })).map(([text, depth]) => deeplyNested(text, depth)), weight: 1 },
    {
      // Just under, at, and over the sandbox's 1 MiB.
      arbitrary: fc.tuple(valid, fc.integer({ min: MIB - 200, max: MIB + 200 })).map(([text, size]) =>
        text.replace(/^\{/, `{"padding":"${'x'.repeat(Math.max(0, size - text.length - 14))}",`),
      ),
      weight: 1,
    },
    { arbitrary: fc.tuple(valid, invalidUtf8, fc.double({ min: 0, max: 1, noNaN: true })).map(([text, bytes, at]) => corrupt(text, bytes, at)), weight: 1 },
    { arbitrary: fc.oneof(hostileString, fc.constantFrom('', 'null', '{', '[]', '"x"', '\ufeff{}')), weight: 1 },
  );
}

interface ServiceCase {
  operation: ServiceOperation;
  method: string;
  merchant: number;
  signing: Signing;
  body: string | Uint8Array;
}

function serviceCases(): fc.Arbitrary<ServiceCase> {
  return fc.constantFrom(...OPERATIONS).chain((operation) =>
    fc.record({
      operation: fc.constant(operation),
      method: fc.oneof({ arbitrary: fc.constant('POST'), weight: 15 }, { arbitrary: fc.constantFrom('GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'), weight: 1 }),
      merchant: fc.oneof({ arbitrary: fc.constant(0), weight: 6 }, { arbitrary: fc.constantFrom(1, 2), weight: 1 }),
      signing: fc.oneof(
        { arbitrary: fc.constantFrom<Signing>('signed', 'signed, lowercase bearer', 'signed, uppercase hex'), weight: 6 },
        { arbitrary: fc.constant<Signing>('public key'), weight: 1 },
        { arbitrary: fc.constantFrom(...FAILING), weight: 2 },
      ),
      body: serviceBody(operation),
    }),
  );
}

async function headersFor(serviceCase: ServiceCase, bytes: Uint8Array): Promise<Record<string, string>> {
  const merchant = MERCHANTS[serviceCase.merchant]!;
  const signature = await signRequest(bytes, merchant.privateKey);
  const headers: Record<string, string> = { 'Content-Type': 'application/json', MerchantId: merchant.merchantId };
  switch (serviceCase.signing) {
    case 'signed':
      headers['Authorization'] = `Bearer ${signature}`;
      break;
    case 'signed, lowercase bearer':
      headers['Authorization'] = `bearer ${signature}`;
      break;
    case 'signed, uppercase hex':
      headers['Authorization'] = `Bearer ${signature.toUpperCase()}`;
      break;
    case 'public key':
      headers['Authorization'] = `Bearer ${merchant.publicKey ?? 'no-public-key'}`;
      break;
    case 'unsigned':
      delete headers['Authorization'];
      break;
    case 'wrong key':
      headers['Authorization'] = `Bearer ${await signRequest(bytes, `${merchant.privateKey}x`)}`;
      break;
    case 'other bytes signed':
      headers['Authorization'] = `Bearer ${await signRequest(new Uint8Array([...bytes, 0x20]), merchant.privateKey)}`;
      break;
    case 'no Bearer':
      headers['Authorization'] = signature;
      break;
    case 'unknown merchant':
      headers['Authorization'] = `Bearer ${signature}`;
      headers['MerchantId'] = '99999';
      break;
    case 'no MerchantId':
      headers['Authorization'] = `Bearer ${signature}`;
      delete headers['MerchantId'];
      break;
    case 'signature of another merchant':
      headers['Authorization'] = `Bearer ${await signRequest(bytes, MERCHANTS[(serviceCase.merchant + 1) % MERCHANTS.length]!.privateKey)}`;
      break;
    case 'junk':
      headers['Authorization'] = 'Bearer zz';
      break;
  }
  return headers;
}

function bytesOf(body: string | Uint8Array): Uint8Array {
  return typeof body === 'string' ? new TextEncoder().encode(body) : body;
}

function parsedValue(bytes: Uint8Array): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes)) };
  } catch {
    return undefined;
  }
}

interface Envelope {
  code: string;
  message: string;
  data: unknown;
}

function expectEnvelope(answer: RawAnswer): Envelope {
  expect(answer.status, answer.text.slice(0, 300)).toBe(200);
  const envelope = answer.json as Envelope;
  expect(isPlainObject(envelope)).toBe(true);
  expect(envelope.code === SUCCESS_CODE || isErrorCode(envelope.code), `code ${envelope.code}`).toBe(true);
  expect(typeof envelope.message).toBe('string');
  expect(Object.hasOwn(envelope, 'data')).toBe(true);
  return envelope;
}

function errorsOf(envelope: Envelope): Violation[] {
  const errors = (envelope.data as { errors?: Violation[] } | null)?.errors;
  expect(Array.isArray(errors), `no data.errors in ${JSON.stringify(envelope)}`).toBe(true);
  return errors ?? [];
}

function expectRefusal(envelope: Envelope, violations: Violation[]): void {
  expect(envelope.code).toBe(envelopeForViolations(violations).code);
  expect(errorsOf(envelope).map(({ field, rule }) => `${field}:${rule}`)).toEqual(violations.map(({ field, rule }) => `${field}:${rule}`));
}

function expectBusiness(envelope: Envelope): void {
  if (envelope.code !== '02001') return;
  for (const violation of errorsOf(envelope)) {
    expect(SERVICE_RULES, JSON.stringify(violation)).toContain(violation.rule);
    expect(KNOWN_PATHS, JSON.stringify(violation)).toContain(violation.field);
  }
}

/** README ("The sandbox"): 413 over 1 MiB, 405 for other methods, then 02000, 02007, 02002, 02001, and the rest. */
function expectServiceAnswer(serviceCase: ServiceCase, bytes: Uint8Array, answer: RawAnswer): void {
  const { operation, method, signing } = serviceCase;
  const merchant = MERCHANTS[serviceCase.merchant]!;
  if (method !== 'GET' && method !== 'HEAD' && bytes.length > MIB) {
    expect(answer.status).toBe(413);
    expect(typeof (answer.json as { message?: unknown }).message).toBe('string');
    return;
  }
  if (method !== 'POST') {
    expect(answer.status).toBe(405);
    if (method !== 'HEAD') expect(typeof (answer.json as { message?: unknown }).message).toBe('string');
    return;
  }
  const envelope = expectEnvelope(answer);
  const passes = (PASSING as readonly string[]).includes(signing) && (signing !== 'public key' || (operation === 'status' && merchant.publicKey !== undefined));
  if (!passes) {
    expect(envelope).toEqual({ code: '02000', message: 'authentication failed.', data: null });
    return;
  }
  if (merchant.available === false) {
    expect(envelope.code).toBe('02007');
    return;
  }
  const json = parsedValue(bytes);
  if (!json) return expectRefusal(envelope, [{ field: 'body', rule: 'json', message: '' }]);
  const value = json.value;
  let checked;
  if (operation === 'create' && isPlainObject(value) && value['otp'] !== undefined && value['payMethod'] === undefined) {
    checked = validate(OTP_REQUEST, value);
  } else if (operation === 'create') {
    const method = isPlainObject(value) ? value['payMethod'] : undefined;
    if (isPayMethod(method) && !(merchant.methods ?? PAY_METHODS).includes(method)) {
      expect(envelope.code).toBe('02002');
      return;
    }
    checked = validateCreateRequest(value, { now: new Date(sandbox.clock.now()) });
  } else {
    checked = validate(TABLES[operation], value);
  }
  if (!checked.ok) return expectRefusal(envelope, checked.violations);
  expectBusiness(envelope);
}

function outcome(answer: RawAnswer): string {
  const code = answer.status === 200 ? (answer.json as { code?: unknown } | undefined)?.code : undefined;
  return typeof code === 'string' ? `${answer.status} ${code}` : String(answer.status);
}

async function stillServes(base: string): Promise<void> {
  const created = await signed(base, 'create', referenceCodeRequest({ reference: `after-${Date.now()}` }));
  expect(created.code).toBe(SUCCESS_CODE);
  expect(created.data.referenceCode).toMatch(/^\d{9}$/);
  const status = await signed(base, 'status', { country: 'EG', orderNo: created.data.orderNo });
  expect(status.code).toBe(SUCCESS_CODE);
}

// --- The control API --------------------------------------------------------------------------------------------

interface ControlRoute {
  method: 'GET' | 'POST' | 'DELETE';
  /** The path, given the generated parameter. */
  path: (parameter: string) => string;
  /** Fields a 400 may name besides `body`. */
  fields: string[];
  /** A body README says is right. */
  valid: fc.Arbitrary<Record<string, unknown>>;
  /** The fields README says a body breaks (at least those must be refused). */
  broken: (body: Record<string, unknown>) => string[];
  /** The route names each field it does not know in a 400 (the newer control calls refuse them). */
  refusesUnknown?: true;
  /** The route reads nothing from a JSON body, so that any JSON value is taken. */
  takesNoBody?: true;
}

const presentAndNot = (value: unknown, accepts: (value: unknown) => boolean) => !isAbsent(value) && !accepts(value);
/** Keys a body has beyond `known`; the JSON reader drops `__proto__`, `constructor` and `prototype` first. */
const unknownKeys = (body: Record<string, unknown>, known: readonly string[]) =>
  Object.keys(body).filter((key) => !known.includes(key) && !['__proto__', 'constructor', 'prototype'].includes(key));
const positiveWhole = (value: unknown) => typeof value === 'number' && Number.isInteger(value) && value >= 1;

const CONTROL_ROUTES: Record<string, ControlRoute> = {
  complete: {
    method: 'POST',
    path: (orderNo) => `/sandbox/v1/orders/${orderNo}/complete`,
    fields: ['status', 'failureCode', 'failureReason'],
    valid: fc.record(
      { status: fc.constantFrom('SUCCESS', 'FAIL', 'CLOSE'), failureCode: fc.stringMatching(/^[A-Z_]{1,20}$/), failureReason: fc.string({ minLength: 1, maxLength: 40 }) },
      { requiredKeys: ['status'] },
    ),
    broken: (body) => [
      ...(isAbsent(body['status']) || !['SUCCESS', 'FAIL', 'CLOSE'].includes(body['status'] as string) ? ['status'] : []),
      ...(['failureCode', 'failureReason'] as const).filter((field) => presentAndNot(body[field], (value) => typeof value === 'string')),
    ],
  },
  pay: {
    method: 'POST',
    path: (code) => `/sandbox/v1/reference-codes/${code}/pay`,
    fields: ['referenceCode'],
    takesNoBody: true,
    valid: fc.constant({}),
    broken: () => [],
  },
  swipe: {
    method: 'POST',
    path: (sn) => `/sandbox/v1/pos/${sn}/swipe`,
    fields: ['outcome'],
    valid: fc.record({ outcome: fc.constantFrom('success', 'fail') }, { requiredKeys: [] }),
    broken: (body) => (presentAndNot(body['outcome'], (value) => value === 'success' || value === 'fail') ? ['outcome'] : []),
  },
  advance: {
    method: 'POST',
    path: () => '/sandbox/v1/clock/advance',
    fields: ['minutes'],
    valid: fc.record({ minutes: fc.oneof(fc.integer({ min: 1, max: 120 }), fc.double({ min: 0.01, max: 60, noNaN: true })) }),
    broken: (body) => (typeof body['minutes'] === 'number' && Number.isFinite(body['minutes']) && body['minutes'] > 0 ? [] : ['minutes']),
  },
  faults: {
    method: 'POST',
    path: () => '/sandbox/v1/faults',
    fields: ['kind', 'count', 'delayMs'],
    valid: fc.record({ kind: fc.constantFrom(...FAULT_KINDS), count: fc.integer({ min: 1, max: 5 }), delayMs: fc.integer({ min: 1, max: 1_000 }) }, { requiredKeys: ['kind'] }),
    broken: (body) => [
      ...(isAbsent(body['kind']) || !(FAULT_KINDS as readonly unknown[]).includes(body['kind']) ? ['kind'] : []),
      ...(['count', 'delayMs'] as const).filter((field) => presentAndNot(body[field], positiveWhole)),
    ],
  },
  order: { method: 'GET', path: (orderNo) => `/sandbox/v1/orders/${orderNo}`, fields: [], valid: fc.constant({}), broken: () => [] },
  orders: { method: 'GET', path: () => '/sandbox/v1/orders', fields: [], valid: fc.constant({}), broken: () => [] },
  callbacks: { method: 'GET', path: (orderNo) => `/sandbox/v1/callbacks?orderNo=${orderNo}`, fields: [], valid: fc.constant({}), broken: () => [] },
  notifications: { method: 'GET', path: (orderNo) => `/sandbox/v1/notifications?orderNo=${orderNo}`, fields: [], valid: fc.constant({}), broken: () => [] },
  clock: { method: 'GET', path: () => '/sandbox/v1/clock', fields: [], valid: fc.constant({}), broken: () => [] },
  clearFaults: { method: 'DELETE', path: () => '/sandbox/v1/faults', fields: [], valid: fc.constant({}), broken: () => [] },
  expect: {
    method: 'POST',
    path: () => '/sandbox/v1/expectations',
    fields: [...EXPECTATION_FIELDS],
    refusesUnknown: true,
    valid: fc.record(
      {
        reference: fc.constantFrom('control-pos', 'control-code', 'control-later'),
        outcome: fc.constantFrom('SUCCESS', 'FAIL', 'CLOSE'),
        afterMinutes: fc.integer({ min: 0, max: 600 }),
      },
      { requiredKeys: ['reference', 'outcome'] },
    ),
    broken: (body) => [
      ...(typeof body['reference'] === 'string' && REFERENCE_PATTERN.test(body['reference']) && body['reference'].length <= LIMITS.referenceLength ? [] : ['reference']),
      ...(presentAndNot(body['outcome'], (value) => ['SUCCESS', 'FAIL', 'CLOSE'].includes(value as string)) ? ['outcome'] : []),
      ...(isAbsent(body['outcome']) && isAbsent(body['nextAction']) ? ['outcome'] : []),
      ...(presentAndNot(body['afterMinutes'], (value) => typeof value === 'number' && value >= 0 && value <= 5_256_000) ? ['afterMinutes'] : []),
      ...unknownKeys(body, EXPECTATION_FIELDS),
    ],
  },
  deliveryFault: {
    method: 'POST',
    path: () => '/sandbox/v1/delivery-faults',
    fields: ['kind', 'count', 'orderNo', 'reference', 'merchantId', 'field', 'afterMinutes'],
    refusesUnknown: true,
    valid: fc.record({ kind: fc.constantFrom(...DELIVERY_FAULT_KINDS.filter((kind) => kind !== 'tamper' && kind !== 'replay')), count: fc.integer({ min: 1, max: 5 }) }, { requiredKeys: ['kind'] }),
    broken: (body) => [
      ...(isAbsent(body['kind']) || !(DELIVERY_FAULT_KINDS as readonly unknown[]).includes(body['kind']) ? ['kind'] : []),
      ...(presentAndNot(body['count'], (value) => positiveWhole(value) && (value as number) <= 1000) ? ['count'] : []),
      ...unknownKeys(body, ['kind', 'count', 'orderNo', 'reference', 'merchantId', 'field', 'afterMinutes']),
    ],
  },
  resend: { method: 'POST', path: (notifyId) => `/sandbox/v1/callbacks/${notifyId}/resend`, fields: [], takesNoBody: true, valid: fc.constant({}), broken: () => [] },
  replay: { method: 'POST', path: (notifyId) => `/sandbox/v1/callbacks/${notifyId}/replay`, fields: [], takesNoBody: true, valid: fc.constant({}), broken: () => [] },
  deliveries: { method: 'GET', path: (orderNo) => `/sandbox/v1/deliveries?orderNo=${orderNo}`, fields: [], valid: fc.constant({}), broken: () => [] },
  expectations: { method: 'GET', path: () => '/sandbox/v1/expectations', fields: [], valid: fc.constant({}), broken: () => [] },
  deliveryFaults: { method: 'GET', path: () => '/sandbox/v1/delivery-faults', fields: [], valid: fc.constant({}), broken: () => [] },
  refunds: { method: 'GET', path: () => '/sandbox/v1/refunds', fields: [], valid: fc.constant({}), broken: () => [] },
  state: { method: 'GET', path: () => '/sandbox/v1/state', fields: [], valid: fc.constant({}), broken: () => [] },
  scenarios: { method: 'GET', path: () => '/sandbox/v1/scenarios', fields: [], valid: fc.constant({}), broken: () => [] },
  removeFault: { method: 'DELETE', path: (id) => `/sandbox/v1/faults/${id}`, fields: [], valid: fc.constant({}), broken: () => [] },
  removeExpectation: { method: 'DELETE', path: (id) => `/sandbox/v1/expectations/${id}`, fields: [], valid: fc.constant({}), broken: () => [] },
  clearExpectations: { method: 'DELETE', path: () => '/sandbox/v1/expectations', fields: [], valid: fc.constant({}), broken: () => [] },
  removeDeliveryFault: { method: 'DELETE', path: (id) => `/sandbox/v1/delivery-faults/${id}`, fields: [], valid: fc.constant({}), broken: () => [] },
  clearDeliveryFaults: { method: 'DELETE', path: () => '/sandbox/v1/delivery-faults', fields: [], valid: fc.constant({}), broken: () => [] },
};

/**
 * README ("Control API"): plain JSON with HTTP statuses, 400 naming the fields, 404 not found, 405 another
 * method, 409 already settled. A body that is not JSON is a 400 on every control path.
 */
function expectControlAnswer(name: string, method: string, param: string, bytes: Uint8Array | undefined, answer: RawAnswer, real: string[]): void {
  const route = CONTROL_ROUTES[name]!;
  const described = `${method} ${route.path(param)} ${bytes ? new TextDecoder().decode(bytes).slice(0, 100) : ''} -> ${answer.status} ${answer.text.slice(0, 200)}`;
  expect(answer.status, described).toBeLessThan(500);
  expect(isPlainObject(answer.json), described).toBe(true);
  if (answer.status >= 400) expect(typeof (answer.json as { message?: unknown }).message, described).toBe('string');
  const json = bytes === undefined ? { value: undefined } : bytesAreBlank(bytes) ? { value: undefined } : parsedValue(bytes);
  if (!json) {
    expect(answer.status, described).toBe(400);
    return;
  }
  if (method !== route.method) {
    // Another route may take this method at the same path (GET and DELETE of /faults); otherwise 404 or 405.
    expect([200, 400, 404, 405, 409], described).toContain(answer.status);
    return;
  }
  if (route.method !== 'POST') {
    expect([200, 404], described).toContain(answer.status);
    return;
  }
  const value = json.value ?? {};
  const mustRefuse = route.takesNoBody ? [] : !isPlainObject(value) ? ['body'] : route.broken(value);
  if (name === 'pay' && !/^\d{9}$/.test(decodedOrRaw(param))) mustRefuse.push('referenceCode');
  if (mustRefuse.length > 0) {
    // Whether a missing order or terminal (404) or a bad body (400) is reported first is not written down.
    const mayBeMissing = route.path('a') !== route.path('b') && !real.includes(param);
    expect(mayBeMissing ? [400, 404] : [400], `${described}: must refuse ${mustRefuse.join(', ')}`).toContain(answer.status);
  }
  if (answer.status === 400) {
    const fields = ((answer.json as { errors?: Violation[] }).errors ?? []).map((error) => error.field);
    expect(fields.length, described).toBeGreaterThan(0);
    const known = ['body', ...route.fields, ...(route.refusesUnknown && isPlainObject(json.value) ? Object.keys(json.value) : [])];
    for (const field of fields) expect(known, described).toContain(field);
    for (const field of mustRefuse) expect(fields, described).toContain(field);
  } else {
    expect([200, 404, 409], described).toContain(answer.status);
  }
}

function bytesAreBlank(bytes: Uint8Array): boolean {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes).trim() === '';
  } catch {
    return false;
  }
}

/** A path parameter: a real one, text encoded for a path, or raw escapes that do not decode. */
function parameter(real: string[]): fc.Arbitrary<string> {
  const encoded = hostileString.map((text) => {
    try {
      return encodeURIComponent(text);
    } catch {
      return '%ED%A0%80'; // a lone surrogate has no UTF-8 form; this is what it would have been
    }
  });
  return fc.oneof(fc.constantFrom(...real), encoded, fc.constantFrom('%zz', '%', '..', '%2F', '0', '12345678', '1234567890', '%00'), fc.stringMatching(/^\d{9}$/));
}

describe('property: the sandbox', () => {
  const runs = 800;
  it(`answers every generated service call with an envelope and the right code, or 413, 405 (${runs} cases)`, async () => {
    await cases.check('service API', serviceCases(), async (serviceCase) => {
      const bytes = bytesOf(serviceCase.body);
      const headers = await headersFor(serviceCase, bytes);
      const withBody = serviceCase.method !== 'GET' && serviceCase.method !== 'HEAD';
      const answer = await send(sandbox.url, { method: serviceCase.method, path: SERVICE_PATHS[serviceCase.operation], headers, ...(withBody ? { body: bytes } : {}) });
      expectServiceAnswer(serviceCase, bytes, answer);
      return outcome(answer);
    }, runs);
    await stillServes(sandbox.url);
    expect(sinkHits.every((path) => path === '/hook')).toBe(true);
    expect(unhandled.problems).toEqual([]);
    expectPrototypesClean();
  }, 90_000);

  const controlRuns = 1_200;
  it(`answers every generated control call with JSON: 2xx, 404, 409, or a 4xx naming the fields for bad input (${controlRuns} cases)`, async () => {
    const own = await createSandbox();
    try {
      const pos = await signed(own.url, 'create', posRequest({ reference: 'control-pos', sn: 'CONTROL-SN-1' }));
      const code = await signed(own.url, 'create', referenceCodeRequest({ reference: 'control-code' }));
      const real = [pos.data.orderNo, code.data.orderNo, code.data.referenceCode!, 'CONTROL-SN-1'];
      const names = Object.keys(CONTROL_ROUTES);
      const arbitrary = fc.constantFrom(...names).chain((name) => {
        const route = CONTROL_ROUTES[name]!;
        const value = fc.oneof(route.valid, numberish, hostileString, fc.constantFrom(null, true, [], {}, [1]));
        const body = fc.oneof(
          { arbitrary: fc.tuple(route.valid, fc.array(fc.tuple(fc.oneof(fc.constantFrom(...route.fields, 'extra'), hostileKey), value), { maxLength: 2 })).map(([valid, breaks]) => {
            let broken: Record<string, unknown> = { ...valid };
            for (const [field, replacement] of breaks) broken = { ...broken, [field]: isPlainObject(replacement) && Object.keys(replacement).length > 0 ? replacement[field] : replacement };
            return JSON.stringify(broken);
          }), weight: 6 },
          { arbitrary: jsonTree.map(jsonText), weight: 2 },
          { arbitrary: fc.tuple(route.valid, invalidUtf8).map(([valid, bytes]) => corrupt(JSON.stringify(valid), bytes, 0.5)), weight: 1 },
          { arbitrary: fc.constantFrom('', '   ', '{', 'minutes=5', '[]', 'null', '"x"'), weight: 1 },
        );
        return fc.record({
          name: fc.constant(name),
          method: fc.oneof({ arbitrary: fc.constant(route.method), weight: 10 }, { arbitrary: fc.constantFrom('GET', 'POST', 'DELETE', 'PUT', 'PATCH'), weight: 1 }),
          parameter: parameter(real),
          body,
        });
      });
      await cases.check('control API', arbitrary, async ({ name, method, parameter: param, body }) => {
        const path = CONTROL_ROUTES[name]!.path(param);
        const bytes = bytesOf(body);
        const withBody = method !== 'GET';
        const answer = await send(own.url, { method, path, headers: { 'Content-Type': 'application/json' }, ...(withBody ? { body: bytes } : {}) });
        expectControlAnswer(name, method, param, withBody ? bytes : undefined, answer, real);
        return outcome(answer);
      }, controlRuns);
      await control(own.url, 'DELETE', '/sandbox/v1/faults');
      await stillServes(own.url);
      expect((await control(own.url, 'GET', '/sandbox/v1/clock')).status).toBe(200);
      expect(unhandled.problems).toEqual([]);
    } finally {
      await own.close();
    }
  }, 90_000);
});

/** The path parameter as the router decodes it; a malformed escape decodes to nothing and stays as sent. */
function decodedOrRaw(parameter: string): string {
  try {
    return decodeURIComponent(parameter);
  } catch {
    return parameter;
  }
}
