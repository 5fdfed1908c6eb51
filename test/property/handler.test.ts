// Generated bad requests to every route of the merchant kit, through toNodeListener on 127.0.0.1 in front of a
// real sandbox: every answer is HTTP 200 with a well-formed envelope carrying the right code, or one of the
// documented transport statuses with a JSON problem body; never a 500, never a crash, never an unhandled
// rejection; and the kit still takes a valid order afterwards.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  attemptOf,
  attemptReference,
  CALLBACK_BODY,
  CHECKOUT_TOKEN_HEADER,
  checkoutReferenceViolation,
  envelopeForViolations,
  isPayMethod,
  isErrorCode,
  isPlainObject,
  MERCHANT_PATHS,
  ORDER_TOKEN_HEADER,
  OTP_REQUEST,
  PAYER_FIELDS,
  PIN_REQUEST,
  RESEND_OTP_REQUEST,
  STATUS_REQUEST,
  SUCCESS_CODE,
  validate,
  validateCreateRequest,
  type MerchantOperation,
  type PaymentStatus,
  type RuleTable,
  type Violation,
} from '../../src/core/index.js';
import { createMerchantHandler, LIMIT_TABLE, issueCheckoutToken, signCallback, toNodeListener, type CheckoutOrder, type MerchantHandler, type NodeListener } from '../../src/server/index.js';
import { outcomeKey, type CallbackEvent } from '../../src/server/callbacks/hand-over.js';
import { createSandbox, DEFAULT_MERCHANT, SandboxControl, type Sandbox } from '../../src/sandbox/index.js';
import { bankAccountRequest, posRequest } from '../core/fixtures.js';
import { listen } from '../support/fake-service.js';
import { orderOf } from '../support/tokens.js';
import { candidates, fieldPaths, shapeNamed, withField, wrongType } from './requests.js';
import {
  closeAgent,
  corrupt,
  deeplyNested,
  expectPrototypesClean,
  hostileKey,
  hostileString,
  hugeString,
  invalidUtf8,
  jsonText,
  jsonTree,
  send,
  tally,
  watchUnhandled,
  withMembers,
  type RawAnswer,
} from './support.js';

const { merchantId, privateKey } = DEFAULT_MERCHANT;
const LIMIT = 16 * 1024;
const cases = tally('property suite: merchant kit');
const unhandled = watchUnhandled();
const logged: string[] = [];
const delivered: CallbackEvent[] = [];
/** Order numbers the kit created, with the token it issued for each. */
const tokens = new Map<string, string>();
let sandbox: Sandbox;
let kit: { url: string; close(): Promise<void> };
let handler: MerchantHandler;

beforeAll(async () => {
  sandbox = await createSandbox();
  let listener: NodeListener = () => undefined;
  kit = await listen((request, response) => listener(request, response));
  handler = createMerchantHandler({
    merchantId,
    privateKey,
    environment: { baseUrl: sandbox.url },
    // Every order's callbacks come back here, whatever a generated body proposed.
    callbackUrl: `${kit.url}${MERCHANT_PATHS.callbacks}`,
    retryDelayMs: 1,
    // The limits have their own tests (test/server/attacks.test.ts); here every generated call is weighed alone.
    limits: Object.fromEntries(Object.keys(LIMIT_TABLE).map((name) => [name, false])),
    // Its bank account payers' pages.
    returnUrlOrigins: [kit.url],
    logger: { warn: () => undefined, error: (line) => logged.push(line) },
    onCallback: (event) => {
      delivered.push(event);
    },
  });
  listener = toNodeListener(handler, { onError: (error) => logged.push(`listener: ${String(error)}`) });
  // Real orders waiting for an OTP (two, so that one's token can be sent with the other) and a PIN, so that
  // generated actions can carry a valid token.
  for (const account of ['2215381176', '2215381183', '2215381176']) {
    const body = bankAccountRequest({ reference: `property-${account}-${tokens.size}`, bankAccountNumber: account, returnUrl: `${kit.url}/back` });
    const answer = await post(MERCHANT_PATHS.create, body, { [CHECKOUT_TOKEN_HEADER]: await checkoutToken(orderOf(body)) });
    const orderNo = (answer.json as { data: { orderNo: string } }).data.orderNo;
    tokens.set(orderNo, String(answer.headers[ORDER_TOKEN_HEADER.toLowerCase()]));
  }
});

afterAll(async () => {
  console.log(cases.report());
  unhandled.stop();
  closeAgent();
  await kit?.close();
  await sandbox?.close();
});

/** The decided part of every generated create: what the shop's server put in its checkout tokens. */
const DECIDED: CheckoutOrder = {
  reference: 'property-order',
  amount: { total: 12_500, currency: 'EGP' },
  country: 'EG',
  product: { name: 'Espresso beans', description: 'Single-origin beans' },
  expireAt: 30,
};

function checkoutToken(order: CheckoutOrder): Promise<string> {
  return issueCheckoutToken({ merchantId, privateKey }, order);
}

function post(path: string, body: unknown, headers: Record<string, string> = {}): Promise<RawAnswer> {
  return send(kit.url, { method: 'POST', path, headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(body) });
}

// --- Generated requests ----------------------------------------------------------------------------------------

type ElementRoute = Exclude<MerchantOperation, 'callbacks' | 'returnPage' | 'events' | 'health' | 'timings'>;
const ELEMENT_ROUTES = Object.keys(MERCHANT_PATHS).filter((route) => !['callbacks', 'returnPage', 'events', 'health', 'timings'].includes(route)) as ElementRoute[];

const SHAPE_OF_ROUTE: Record<ElementRoute, string[]> = {
  create: ['Pos create', 'BankAccount create', 'ReferenceCode create'],
  otp: ['OTP'],
  pin: ['PIN'],
  resendOtp: ['resend OTP'],
  status: ['status'],
  // A kit whose orders come from checkout tokens answers every ticket request as a create without a token.
  ticket: ['BankAccount create'],
};
const TABLE_OF_ACTION: Record<Exclude<ElementRoute, 'create' | 'ticket'>, RuleTable> = {
  otp: OTP_REQUEST,
  pin: PIN_REQUEST,
  resendOtp: RESEND_OTP_REQUEST,
  status: STATUS_REQUEST,
};

/** Content types, and whether the kit takes them as JSON: application/json, text/json or any +json, parameters allowed. */
const CONTENT_TYPES: [string | undefined, boolean][] = [
  ['application/json', true],
  ['application/json; charset=utf-8', true],
  ['Application/JSON', true],
  ['text/json', true],
  ['application/problem+json', true],
  ['application/json;charset=latin1', true],
  [undefined, false],
  ['text/plain', false],
  ['application/x-www-form-urlencoded', false],
  ['multipart/form-data; boundary=x', false],
  ['application/jsonp', false],
  ['application/json-seq', false],
  ['json', false],
];

const METHODS = ['GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD', 'TRACE', 'PROPFIND', 'PURGE', 'M-SEARCH'];

/**
 * Headers a client may send that the kit must take in its stride, the Host header above all. (Expect is sent as
 * 100-continue only: Node itself answers 417 to any other expectation, before a listener sees the request.)
 */
const oddHeaders = fc.oneof(
  fc.dictionary(
    fc.constantFrom('Host', 'X-Forwarded-Host', 'Origin', 'Cookie', 'Accept', 'Content-Encoding', 'Connection', 'MerchantId', 'Authorization', 'X-Unknown'),
    fc.oneof(
      fc.constantFrom('[', ']', ':', 'a:99999', '[::1', 'evil.example', '127.0.0.1:1', 'x'.repeat(300), 'gzip', 'close', 'keep-alive', '', '\u00ff\u00e9'),
      fc.stringMatching(/^[\x21-\x7e]{0,40}$/),
    ),
    { maxKeys: 3 },
  ),
  fc.constant({ Expect: '100-continue' }),
);

/** A route's valid body with up to three things broken in it, as JSON text; actions may name a real order. */
function nearlyValid(route: ElementRoute, orders: string[]): fc.Arbitrary<string> {
  const breakage = (shape: string) => {
    const fields = shapeNamed(shape).fields;
    return fc.oneof(
      fc.constantFrom(...Object.keys(fields)).chain((field) =>
        fc.tuple(fc.constant(field), fc.oneof(candidates(fields[field]!), wrongType(fields[field]!.kind), fc.constant(undefined))),
      ),
      fc.tuple(hostileKey, fc.jsonValue({ maxDepth: 2 })),
    );
  };
  return fc.constantFrom(...SHAPE_OF_ROUTE[route]).chain((shape) =>
    fc
      .tuple(
        shapeNamed(shape).valid,
        fc.array(breakage(shape), { maxLength: 3 }),
        fc.array(fc.tuple(fc.constantFrom('__proto__', 'constructor', 'prototype'), jsonTree), { maxLength: 2 }),
        fc.option(fc.constantFrom(...orders), { nil: undefined }),
      )
      .map(([request, breaks, unsafe, realOrder]) => {
        let body: Record<string, unknown> = route === 'create' || realOrder === undefined ? request : { ...request, orderNo: realOrder };
        for (const [field, value] of breaks) body = withField(body, field, value);
        return withMembers(body, unsafe);
      }),
  );
}

/** The body bytes of a case: mostly nearly valid, then every other kind of bad. */
function bodyFor(route: ElementRoute, orders: string[]): fc.Arbitrary<string | Uint8Array> {
  const valid = nearlyValid(route, orders);
  return fc.oneof(
    { arbitrary: valid, weight: 8 },
    { arbitrary: jsonTree.map(jsonText), weight: 3 },
    { arbitrary: fc.tuple(valid, fc.integer({ min: 1, max: 9_000 })).map(([text, depth]) => deeplyNested(text, depth)), weight: 1 },
    {
      // A member grown to just under or just over the body limit.
      arbitrary: fc.tuple(valid, fc.integer({ min: LIMIT - 400, max: LIMIT + 400 }), hugeString).map(([text, size, filler]) => {
        const padding = filler.repeat(Math.ceil(size / filler.length)).slice(0, Math.max(0, size - text.length));
        return text.replace(/^\{/, `{"padding":${JSON.stringify(padding)},`);
      }),
      weight: 1,
    },
    { arbitrary: fc.tuple(valid, invalidUtf8, fc.double({ min: 0, max: 1, noNaN: true })).map(([text, bytes, at]) => corrupt(text, bytes, at)), weight: 1 },
    { arbitrary: fc.oneof(hostileString, fc.constantFrom('', ' ', 'null', '{', '{"a":1}}', '\ufeff{}', "{'a':1}", 'undefined', 'NaN')), weight: 1 },
  );
}

interface KitCase {
  route: ElementRoute;
  path: string;
  method: string;
  contentType: [string | undefined, boolean];
  headers: Record<string, string>;
  /** The proof the call carries: a checkout token (for its reference, or another), an order token, junk, or none. */
  token: 'issued' | 'other order' | 'junk' | 'none';
  /** A status query names its order by the order token, or by a reference its checkout token covers. */
  statusBy: 'order token' | 'reference';
  chunked: boolean;
  body: string | Uint8Array;
}

/** Paths near a route's: a trailing slash, a query, a suffix, encodings, an absolute URL, an unparsable one. */
function oddPaths(route: ElementRoute): string[] {
  const path = MERCHANT_PATHS[route];
  return [`${path}/`, `${path}?x=1`, `${path}/x`, '/nope', '/', '/PAYMENTS', '/%70ayments', '/payments%2Fotp', `//evil.example${path}`,
    `http://[${path}`, `http://a:99999${path}`, '*', `/checkout${path}`, `${path}#x`];
}

function kitCases(orders: string[]): fc.Arbitrary<KitCase> {
  return fc.constantFrom(...ELEMENT_ROUTES).chain((route) =>
    fc.record({
      route: fc.constant(route),
      path: fc.oneof({ arbitrary: fc.constant<string>(MERCHANT_PATHS[route]), weight: 12 }, { arbitrary: fc.constantFrom(...oddPaths(route)), weight: 2 }),
      method: fc.oneof({ arbitrary: fc.constant('POST'), weight: 12 }, { arbitrary: fc.constantFrom(...METHODS), weight: 1 }),
      contentType: fc.oneof({ arbitrary: fc.constant(CONTENT_TYPES[0]!), weight: 8 }, { arbitrary: fc.constantFrom(...CONTENT_TYPES), weight: 2 }),
      headers: fc.oneof({ arbitrary: fc.constant({}), weight: 3 }, { arbitrary: oddHeaders, weight: 1 }),
      token: fc.constantFrom<KitCase['token']>('issued', 'issued', 'issued', 'other order', 'junk', 'none'),
      statusBy: fc.constantFrom<KitCase['statusBy']>('order token', 'reference'),
      chunked: fc.boolean(),
      body: bodyFor(route, orders),
    }),
  );
}

// --- What the kit must answer ------------------------------------------------------------------------------

const ELEMENT_PATHS = new Set([...fieldPaths(OTP_REQUEST), ...fieldPaths(PIN_REQUEST), ...fieldPaths(STATUS_REQUEST)]);
const CREATE_PATHS = new Set(['Pos create', 'BankAccount create', 'ReferenceCode create'].flatMap((shape) => [...fieldPaths(shapeNamed(shape).table)]));
/** Rules the service (here the sandbox) adds to the validator's: wrong codes, wrong state, limits. */
const SERVICE_RULES = new Set(['mismatch', 'state', 'limit', 'duplicate']);

function bytesOf(body: string | Uint8Array): Uint8Array {
  return typeof body === 'string' ? new TextEncoder().encode(body) : body;
}

/** The JSON value of the body, or undefined when it is not UTF-8 JSON. */
function parsed(body: string | Uint8Array): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytesOf(body))) };
  } catch {
    return undefined;
  }
}

function expectProblem(answer: RawAnswer, status: number, method: string): void {
  expect(answer.status, answer.text).toBe(status);
  if (method === 'HEAD') return;
  expect(isPlainObject(answer.json), answer.text).toBe(true);
  expect(typeof (answer.json as { message?: unknown }).message).toBe('string');
}

interface Envelope {
  code: string;
  message: string;
  data: unknown;
}

function expectEnvelope(answer: RawAnswer): Envelope {
  expect(answer.status, answer.text.slice(0, 500)).toBe(200);
  const envelope = answer.json as Envelope;
  expect(isPlainObject(envelope), answer.text.slice(0, 500)).toBe(true);
  expect(envelope.code === SUCCESS_CODE || isErrorCode(envelope.code), `code ${envelope.code}`).toBe(true);
  expect(typeof envelope.message).toBe('string');
  expect(Object.hasOwn(envelope, 'data')).toBe(true);
  return envelope;
}

function violationsIn(envelope: Envelope): Violation[] {
  const errors = (envelope.data as { errors?: Violation[] } | null)?.errors;
  expect(Array.isArray(errors), `02001 without data.errors: ${JSON.stringify(envelope)}`).toBe(true);
  for (const violation of errors ?? []) {
    expect(typeof violation.field).toBe('string');
    expect(typeof violation.rule).toBe('string');
    expect(typeof violation.message).toBe('string');
  }
  return errors ?? [];
}

/** A refusal the kit decides itself: exactly the validator's violations, in its envelope. */
function expectRefusal(envelope: Envelope, violations: Violation[]): void {
  const expected = envelopeForViolations(violations);
  expect(envelope.code).toBe(expected.code);
  expect(violationsIn(envelope).map(({ field, rule }) => `${field}:${rule}`)).toEqual(violations.map(({ field, rule }) => `${field}:${rule}`));
}

/** An answer that came from the service: any code of the table; 02001 only for what the service checks. */
function expectForwarded(envelope: Envelope, paths: Set<string>): void {
  if (envelope.code !== '02001') return;
  for (const violation of violationsIn(envelope)) {
    expect(SERVICE_RULES, JSON.stringify(violation)).toContain(violation.rule);
    expect(paths, JSON.stringify(violation)).toContain(violation.field);
  }
}

/** The order token a case sends: its order's, another order's, junk, or none. */
function orderTokenFor(token: KitCase['token'], orderNo: unknown): string | undefined {
  const issued = typeof orderNo === 'string' ? tokens.get(orderNo.trim()) : undefined;
  switch (token) {
    case 'issued':
      return issued ?? [...tokens.values()][0];
    case 'other order':
      return [...tokens.values()].find((candidate) => candidate !== issued);
    case 'junk':
      return 'ot1.e30.AAAA';
    case 'none':
      return undefined;
  }
}

/** The checkout token a case sends: one covering the body's reference, one for another order, junk, or none. */
async function checkoutTokenFor(token: KitCase['token'], reference: unknown): Promise<{ header?: string; base?: string }> {
  switch (token) {
    case 'issued': {
      // A reference a shop could open a checkout for (no attempt's pattern, room for attempts), else the decided one.
      const given = typeof reference === 'string' ? reference.trim() : '';
      const base = /^[A-Za-z0-9._:-]{1,64}$/.test(given) && !checkoutReferenceViolation(given) ? given : DECIDED.reference;
      return { header: await checkoutToken({ ...DECIDED, reference: base }), base };
    }
    case 'other order':
      return { header: await checkoutToken({ ...DECIDED, reference: 'someone-elses-order' }), base: 'someone-elses-order' };
    case 'junk':
      return { header: 'ct1.e30.AAAA' };
    case 'none':
      return {};
  }
}

function expectTokenRefused(envelope: Envelope): void {
  expect(envelope.code, JSON.stringify(envelope)).toBe('02000');
  expect(typeof (envelope.data as { reason?: unknown } | null)?.reason).toBe('string');
}

/**
 * A create with a checkout token: refused without a valid one; refused when the body names a reference the token
 * does not cover; otherwise the token's order with the payer's fields of the body, validated — so the browser can
 * break only its own fields — and a return address only on the kit's own origin.
 */
function expectedForCreate(answer: RawAnswer, value: unknown, base: string | undefined): void {
  const envelope = expectEnvelope(answer);
  if (!isPlainObject(value)) return expectRefusal(envelope, [{ field: 'body', rule: 'type', message: '' }]);
  if (base === undefined) return expectTokenRefused(envelope);
  const reference = value['reference'] === undefined ? base : value['reference'];
  if (typeof reference !== 'string' || attemptOf(base, reference) === undefined) return expectTokenRefused(envelope);
  const method = value['payMethod'];
  const payer = isPayMethod(method) ? Object.fromEntries(PAYER_FIELDS[method].filter((field) => Object.hasOwn(value, field)).map((field) => [field, value[field]])) : {};
  const order = { ...payer, payMethod: method, reference, amount: DECIDED.amount, country: DECIDED.country, product: DECIDED.product, expireAt: DECIDED.expireAt };
  const checked = validateCreateRequest(order);
  if (!checked.ok) {
    for (const violation of checked.violations) expect([...PAYER_FIELDS.BankAccount, ...PAYER_FIELDS.Pos, 'notify', 'payMethod', 'reference']).toContain(violation.field.split('.')[0]);
    return expectRefusal(envelope, checked.violations);
  }
  const request = checked.value;
  if (request.payMethod === 'BankAccount' && new URL(request.returnUrl).origin !== kit.url) {
    return expectRefusal(envelope, [{ field: 'returnUrl', rule: 'origin', message: '' }]);
  }
  expectForwarded(envelope, CREATE_PATHS);
  if (envelope.code === SUCCESS_CODE) {
    expect(typeof (envelope.data as { orderNo?: unknown }).orderNo).toBe('string');
    expect(answer.headers[ORDER_TOKEN_HEADER.toLowerCase()]).toMatch(/^ot1\.[\w-]+\.[\w-]{43}$/);
  }
}

/**
 * An order's own call: refused without its order token; with one, the order and its country come from the
 * token and only the code from the body, so only the code can be wrong. A status query without an order token
 * needs a checkout token covering its reference.
 */
function expectedForAction(route: Exclude<ElementRoute, 'create' | 'ticket'>, answer: RawAnswer, value: unknown, proof: Proof): void {
  const envelope = expectEnvelope(answer);
  if (!isPlainObject(value)) return expectRefusal(envelope, [{ field: 'body', rule: 'type', message: '' }]);
  if (route === 'status' && proof.orderToken === undefined) {
    if (proof.base === undefined) return expectTokenRefused(envelope);
    const reference = value['reference'] === undefined ? proof.base : value['reference'];
    if (typeof reference !== 'string' || attemptOf(proof.base, reference) === undefined) return expectTokenRefused(envelope);
    return expectForwarded(envelope, ELEMENT_PATHS);
  }
  if (proof.orderToken === undefined || !proof.orderTokenValid) return expectTokenRefused(envelope);
  if (route === 'status' || route === 'resendOtp') return expectForwarded(envelope, ELEMENT_PATHS);
  const forwarded = { country: 'EG', orderNo: '1', [route]: value[route] };
  const checked = validate(TABLE_OF_ACTION[route], forwarded);
  if (!checked.ok) return expectRefusal(envelope, checked.violations);
  expectForwarded(envelope, ELEMENT_PATHS);
}

interface Proof {
  orderToken?: string | undefined;
  orderTokenValid?: boolean;
  checkoutToken?: string | undefined;
  base?: string | undefined;
}

/** The proofs a case carries on its route: checkout tokens on creates, order tokens (or, for status, either). */
async function proofFor(kitCase: KitCase, value: unknown): Promise<Proof> {
  const body = isPlainObject(value) ? value : {};
  if (kitCase.route === 'create' || (kitCase.route === 'status' && kitCase.statusBy === 'reference')) {
    const { header, base } = await checkoutTokenFor(kitCase.token, body['reference']);
    return { checkoutToken: header, base };
  }
  const orderToken = orderTokenFor(kitCase.token, body['orderNo']);
  return { orderToken, orderTokenValid: kitCase.token === 'issued' || kitCase.token === 'other order' };
}

/** README's rule for the kit's transport statuses, then the route's own. */
function expectAnswer(kitCase: KitCase, answer: RawAnswer, proof: Proof): void {
  const { route, method, contentType, body } = kitCase;
  if (kitCase.path !== MERCHANT_PATHS[route]) {
    // A path that is not exactly the route's: served as some route, or 404, 405, 413, 415; never anything else.
    expect([200, 404, 405, 413, 415], `${kitCase.path}: ${answer.status} ${answer.text.slice(0, 300)}`).toContain(answer.status);
    if (answer.status === 200) expectEnvelope(answer);
    else expectProblem(answer, answer.status, method);
    return;
  }
  if (method !== 'POST') {
    expectProblem(answer, 405, method);
    expect(answer.headers['allow']).toBe('POST');
    return;
  }
  if (!contentType[1]) return expectProblem(answer, 415, method);
  if (bytesOf(body).length > LIMIT) return expectProblem(answer, 413, method);
  const json = parsed(body);
  if (!json) return expectProblem(answer, 415, method);
  if (route === 'create') expectedForCreate(answer, json.value, proof.base);
  else if (route === 'ticket') expectTokenRefused(expectEnvelope(answer));
  else expectedForAction(route, answer, json.value, proof);
}

/** A case's label in the report: the status, and the envelope's code. */
function outcome(answer: RawAnswer): string {
  const code = answer.status === 200 ? (answer.json as { code?: unknown } | undefined)?.code : undefined;
  return typeof code === 'string' ? `${answer.status} ${code}` : String(answer.status);
}

async function stillServes(): Promise<void> {
  const reference = `after-${Date.now()}`;
  const answer = await post(MERCHANT_PATHS.create, posRequest({ reference }), { [CHECKOUT_TOKEN_HEADER]: await checkoutToken({ ...DECIDED, reference }) });
  const envelope = expectEnvelope(answer);
  expect(envelope.code).toBe(SUCCESS_CODE);
  expect((envelope.data as { status: string }).status).toBe('PENDING');
}

describe('property: the merchant kit', () => {
  const runs = 800;
  it(`answers every generated request to its element routes with an envelope or a documented status (${runs} cases)`, async () => {
    await cases.check('element routes', kitCases([...tokens.keys()]), async (kitCase) => {
      const value = parsed(kitCase.body)?.value;
      const proof = await proofFor(kitCase, value);
      const headers: Record<string, string> = { ...kitCase.headers };
      if (kitCase.contentType[0] !== undefined) headers['Content-Type'] = kitCase.contentType[0];
      if (proof.orderToken !== undefined) headers[ORDER_TOKEN_HEADER] = proof.orderToken;
      if (proof.checkoutToken !== undefined) headers[CHECKOUT_TOKEN_HEADER] = proof.checkoutToken;
      // Node's own parser refuses a TRACE with a body (400, no listener involved), so TRACE goes without one.
      const body = kitCase.method === 'TRACE' ? undefined : kitCase.body;
      const answer = await send(kit.url, { method: kitCase.method, path: kitCase.path, headers, body, chunked: kitCase.chunked && body !== undefined });
      expectAnswer(kitCase, answer, proof);
      return outcome(answer);
    }, runs);
    await stillServes();
    expect(logged).toEqual([]);
    expect(unhandled.problems).toEqual([]);
    expectPrototypesClean();
  }, 90_000);

  const callbackRuns = 400;
  it(`answers every generated callback with 200, 400, 401, 405 or 413, and hands each outcome over once (${callbackRuns} cases)`, async () => {
    const seen = new Set<string>();
    const expectCallbackAnswer = (answer: RawAnswer, method: string, how: string, bytes: Uint8Array) => {
      if (method !== 'POST') return expectProblem(answer, 405, method);
      if (bytes.length > LIMIT) return expectProblem(answer, 413, method);
      if (!['right', 'Signature header', 'Bearer'].includes(how)) {
        expectProblem(answer, 401, method);
        expect(typeof (answer.json as { reason?: unknown }).reason).toBe('string');
        return;
      }
      const json = parsed(bytes);
      if (!json) return expectProblem(answer, 400, method);
      const checked = validate<{ notifyId: string; orderNo: string; status: PaymentStatus }>(CALLBACK_BODY, json.value);
      if (!checked.ok) {
        expectProblem(answer, 400, method);
        expect((answer.json as { errors: Violation[] }).errors.map(({ field }) => field)).toEqual(checked.violations.map(({ field }) => field));
        return;
      }
      const envelope = expectEnvelope(answer);
      expect(envelope.code).toBe(SUCCESS_CODE);
      // One hand-over per order and settled status, whatever its notifyId (per notifyId for any other status).
      const key = outcomeKey(checked.value.orderNo, checked.value.status, checked.value.notifyId);
      expect(envelope.data).toEqual({ duplicate: seen.has(key) });
      seen.add(key);
    };
    const signing = fc.constantFrom('right', 'right', 'right', 'wrong key', 'none', 'malformed', 'stale', 'other merchant', 'Signature header', 'Bearer');
    const callbackBody = fc.oneof(
      { arbitrary: shapeNamed('callback body').valid.map((body) => JSON.stringify(body)), weight: 4 },
      {
        arbitrary: fc
          .tuple(shapeNamed('callback body').valid, fc.constantFrom(...Object.keys(CALLBACK_BODY.fields)), fc.oneof(...Object.values(shapeNamed('callback body').fields).map((spec) => candidates(spec))))
          .map(([body, field, value]) => JSON.stringify(withField(body, field, value))),
        weight: 4,
      },
      { arbitrary: jsonTree.map(jsonText), weight: 2 },
      { arbitrary: fc.tuple(shapeNamed('callback body').valid, invalidUtf8, fc.double({ min: 0, max: 1, noNaN: true })).map(([body, bytes, at]) => corrupt(JSON.stringify(body), bytes, at)), weight: 1 },
      { arbitrary: fc.tuple(fc.nat({ max: 2 * LIMIT }), hugeString).map(([size, filler]) => JSON.stringify({ notifyId: filler.repeat(Math.ceil((LIMIT + size) / filler.length)) })), weight: 1 },
    );
    const arbitrary = fc.record({
      method: fc.oneof({ arbitrary: fc.constant('POST'), weight: 10 }, { arbitrary: fc.constantFrom(...METHODS), weight: 1 }),
      signing,
      contentType: fc.constantFrom(...CONTENT_TYPES.map(([type]) => type)),
      body: callbackBody,
    });
    await cases.check('callback route', arbitrary, async ({ method, signing: how, contentType, body }) => {
      const bytes = bytesOf(body);
      const timestamp = String(how === 'stale' ? Date.now() - 3_600_000 : Date.now());
      const signature = await signCallback(timestamp, bytes, how === 'wrong key' ? `${privateKey}-not` : privateKey);
      const headers: Record<string, string> = { MerchantId: how === 'other merchant' ? '1' : merchantId, RequestTimestamp: timestamp };
      if (contentType !== undefined) headers['Content-Type'] = contentType;
      if (how === 'Signature header') headers['Signature'] = signature;
      else if (how === 'Bearer') headers['Authorization'] = `Bearer ${signature}`;
      else if (how === 'malformed') headers['Authorization'] = signature.slice(0, 100);
      else if (how !== 'none') headers['Authorization'] = signature;
      const answer = await send(kit.url, { method, path: MERCHANT_PATHS.callbacks, headers, body: method === 'TRACE' ? undefined : bytes });
      expectCallbackAnswer(answer, method, how, bytes);
      return outcome(answer);
    }, callbackRuns);
    const handedOver = delivered.map((event) => outcomeKey(event.body.orderNo, event.body.status, event.notifyId));
    expect(new Set(handedOver).size).toBe(handedOver.length);
    expect([...seen].every((key) => handedOver.includes(key))).toBe(true);
    await stillServes();
    expect(logged).toEqual([]);
    expect(unhandled.problems).toEqual([]);
  }, 90_000);

  const checkoutRuns = 25;
  it(`keeps each cart one amount and one sequence through generated opens, creates and outcomes (${checkoutRuns} runs)`, async () => {
    const control = new SandboxControl(sandbox.url);
    const AMOUNTS = [{ total: 1_500, currency: 'EGP' }, { total: 3_500, currency: 'EGP' }] as const;
    const ATTEMPTS = 3;
    let run = 0;
    const step = fc.record({
      kind: fc.constantFrom('open', 'create', 'create', 'settle'),
      cart: fc.nat({ max: 2 }),
      amount: fc.nat({ max: 1 }),
      hint: fc.integer({ min: 1, max: 4 }),
      leaving: fc.constantFrom(false, false, false, true),
      outcome: fc.constantFrom('SUCCESS', 'FAIL'),
    });
    await cases.check('carts, amounts and attempts', fc.array(step, { minLength: 4, maxLength: 14 }), async (steps) => {
      run += 1;
      const base = `pc${Date.now().toString(36)}r${run}`;
      // Ids that collide under a naive scheme: a cart, a cart whose own id is its attempt 2 of the earlier scheme, and
      // one at the longest id a checkout may have. The kit's own pattern and longer ids are never a cart's.
      const carts = [base, `${base}-2`, base.padEnd(60, 'y')];
      for (const reference of [`${base}--2`, base.padEnd(61, 'y')]) {
        await expect(checkoutToken({ ...DECIDED, reference })).rejects.toThrow(/reference/);
      }
      const ordersOf = async (cart: string) =>
        (await control.orders()).filter((order) => order.reference === cart || (attemptOf(cart, order.reference, 99) ?? 0) > 1);
      const amountOf = (order: { amount: { total: number | string; currency: string } }) => ({ total: Number(order.amount.total), currency: order.amount.currency });
      const same = (a: { total: number; currency: string }, b: { total: number; currency: string }) => a.total === b.total && a.currency === b.currency;
      let leavings = 0;
      for (const { kind, cart: index, amount: which, hint, leaving, outcome } of steps) {
        const cart = carts[index]!;
        const amount = AMOUNTS[which]!;
        const order: CheckoutOrder = { ...DECIDED, reference: cart, amount, attempts: ATTEMPTS };
        const before = await ordersOf(cart);
        const paid = before.filter((item) => item.status === 'SUCCESS');
        if (kind === 'settle') {
          const pending = before.filter((item) => item.status === 'PENDING').at(-1);
          if (pending) await control.complete(pending.orderNo, { status: outcome as 'SUCCESS' | 'FAIL' });
          await sandbox.idle();
          continue;
        }
        if (kind === 'open') {
          const opened = await handler.openCheckout(order);
          const expected = paid.some((item) => same(amountOf(item), amount))
            ? 'paid'
            : paid.length > 0
              ? 'changed'
              : before.some((item) => item.status === 'PENDING' && same(amountOf(item), amount))
                ? 'pending'
                : before.length === 0
                  ? 'new'
                  : 'failed';
          expect(opened.state, `${cart} opened at ${amount.total}`).toBe(expected);
          continue;
        }
        if (leaving) leavings += 1;
        const answer = await post(MERCHANT_PATHS.create, { payMethod: 'Pos', sn: 'N78101818218', reference: attemptReference(cart, hint), ...(leaving ? { leaving: true } : {}) }, {
          [CHECKOUT_TOKEN_HEADER]: await checkoutToken(order),
        });
        const envelope = expectEnvelope(answer) as { code: string; data: { reference?: string; status?: string; amount?: { total: number } } };
        const after = await ordersOf(cart);
        const open = before.filter((item) => item.status === 'PENDING' && same(amountOf(item), amount));
        if (paid.some((item) => same(amountOf(item), amount)) || (open.length > 0 && !leaving)) {
          expect(envelope.code, `${cart}: its payment or the order in progress`).toBe('ORDER_EXISTS');
          expect(carts.some((other) => other !== cart && envelope.data.reference === other)).toBe(false);
        } else if (paid.length > 0) expect(envelope.code, `${cart}: paid at another amount`).toBe('CHECKOUT_CHANGED');
        else if (before.length >= ATTEMPTS) expect(envelope.code, `${cart}: every attempt made`).toBe('ATTEMPTS_EXHAUSTED');
        else {
          // The next attempt, whatever attempt the request named, for the token's amount.
          expect(envelope.code, `${cart}: the next attempt`).toBe(SUCCESS_CODE);
          expect(envelope.data.reference).toBe(attemptReference(cart, before.length + 1));
          expect(envelope.data.amount?.total).toBe(amount.total);
        }
        expect(after.length, `${cart}: orders made`).toBe(before.length + (envelope.code === SUCCESS_CODE ? 1 : 0));
      }
      // Each cart's orders are its attempts one after another; a cart is paid once unless the payer left an order.
      for (const cart of carts) {
        const made = (await ordersOf(cart)).map((item) => attemptOf(cart, item.reference, 99)!).sort((a, b) => a - b);
        expect(made, cart).toEqual(made.map((_, index) => index + 1));
        const payments = (await ordersOf(cart)).filter((item) => item.status === 'SUCCESS').length;
        expect(payments, `${cart} paid`).toBeLessThanOrEqual(1 + leavings);
      }
      return `${steps.length} steps`;
    }, checkoutRuns);
    expect(logged).toEqual([]);
    expect(unhandled.problems).toEqual([]);
  }, 90_000);
});
