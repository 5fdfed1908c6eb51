/**
 * Generated requests to the merchant kit's element routes, and a scripted service that answers them as a function
 * of what it was sent only: for suites that send the same requests to two kits (the Node adapter's fast path and
 * the Web path, a Node kit and one in a runtime without Node's modules) and compare what each answered and sent.
 */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { CHECKOUT_TOKEN_HEADER, MERCHANT_PATHS, ORDER_TOKEN_HEADER } from '../../src/core/index.js';
import { issueCheckoutToken, issueOrderToken } from '../../src/server/index.js';
import { bankAccountRequest, posRequest, referenceCodeRequest } from '../core/fixtures.js';
import { shapeNamed } from '../property/requests.js';
import { corrupt, hostileString, invalidUtf8, jsonText, jsonTree, withMembers, type RawAnswer } from '../property/support.js';
import type { FakeService, RecordedRequest } from './fake-service.js';
import { orderOf } from './tokens.js';

export const merchantId = '256612345678901';
export const privateKey = 'OPAYPRV-kit-cases-test-key';
export const credentials = { merchantId, privateKey };
/** Both kits read the same clock: tokens and throttle windows then come out the same. */
export const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);
const LIMIT = 16 * 1024;

/** The service's answer, a function of what it was sent only, so that both kits' services answer alike. */
/**
 * The service's clock in every scripted answer: a fixed `Date`, so that two paths answering the same request agree
 * on the order token's clock offset (Node's own `Date` header is the real second, which may turn between them).
 */
const SERVICE_DATE = { Date: new Date(NOW).toUTCString() };

export function scripted(request: RecordedRequest) {
  const body = (request.json ?? {}) as Record<string, unknown>;
  const reference = typeof body['reference'] === 'string' ? body['reference'] : undefined;
  const orderNo = typeof body['orderNo'] === 'string' ? body['orderNo'] : `ORD${createHash('sha256').update(String(reference)).digest('hex').slice(0, 12)}`;
  if (reference?.endsWith('-taken')) return { body: { code: '02004', message: 'the payment reference already exists.', data: null } };
  if (reference?.endsWith('-down')) return { status: 503, body: 'busy' };
  return {
    headers: SERVICE_DATE,
    body: { code: '00000', message: 'SUCCESSFUL', data: { orderNo, reference: reference ?? 'order-1001', status: 'PENDING', amount: { total: 12_500, currency: 'EGP' } } },
  };
}

export const ROUTES = ['create', 'otp', 'pin', 'resendOtp', 'status'] as const;
export type Route = (typeof ROUTES)[number];

const CONTENT_TYPES = [undefined, 'application/json', 'application/json; charset=utf-8', 'Application/JSON', 'text/json', 'application/problem+json', 'text/plain', 'application/jsonp'];

function pathsOf(route: Route): string[] {
  const path = MERCHANT_PATHS[route];
  const odd = [`${path}/`, `${path}//`, `${path}?x=1`, `${path}#x`, `${path}/x`, `/%70ayments`, `//evil.example${path}`, `http://[${path}`, `http://shop.example${path}`];
  return [...Array.from({ length: 3 * odd.length }, () => path), ...odd];
}

/** A create body of some method, valid or with a field broken; the reference sometimes scripts the service's answer. */
const createBody = fc
  .tuple(
    fc.constantFrom(
      () => posRequest(),
      () => bankAccountRequest(),
      () => bankAccountRequest({ returnUrl: 'https://elsewhere.example/back' }),
      () => referenceCodeRequest(),
      () => referenceCodeRequest({}, { notifyMethod: 'SMS' }),
    ),
    fc.constantFrom('order-1001', 'order-1001-2', 'order-1001-11', 'order-1001-taken', 'order-1001-down', 'other-9'),
    fc.option(fc.tuple(fc.constantFrom('sn', 'amount', 'payMethod', 'notify', 'bankCode', 'userClientIP', 'callbackUrl', 'dobYear'), fc.jsonValue({ maxDepth: 2 })), { nil: undefined }),
  )
  .map(([make, reference, broken]) => {
    const body: Record<string, unknown> = { ...make(), reference };
    if (broken) body[broken[0]] = broken[1];
    return body;
  });

export const ORDERS = ['ORD000000000001', 'ORD000000000002'];

function bodyFor(route: Route): fc.Arbitrary<string | Uint8Array> {
  const valid: fc.Arbitrary<unknown> =
    route === 'create'
      ? createBody
      : fc.tuple(shapeNamed(route === 'resendOtp' ? 'resend OTP' : route === 'status' ? 'status' : route.toUpperCase()).valid, fc.option(fc.constantFrom(...ORDERS), { nil: undefined })).map(([request, orderNo]) =>
          orderNo ? { ...request, orderNo } : request,
        );
  const text = fc.tuple(valid, fc.array(fc.tuple(fc.constantFrom('__proto__', 'constructor'), jsonTree), { maxLength: 1 })).map(([value, unsafe]) => withMembers(value, unsafe));
  return fc.oneof(
    { arbitrary: text, weight: 10 },
    { arbitrary: fc.constant('{}'), weight: 2 },
    { arbitrary: jsonTree.map(jsonText), weight: 2 },
    { arbitrary: fc.tuple(text, invalidUtf8, fc.double({ min: 0, max: 1, noNaN: true })).map(([body, bytes, at]) => corrupt(body, bytes, at)), weight: 1 },
    { arbitrary: fc.tuple(text, fc.integer({ min: LIMIT - 200, max: LIMIT + 200 })).map(([body, size]) => body.replace(/^\{/, `{"padding":"${'x'.repeat(Math.max(0, size - body.length))}",`)), weight: 1 },
    { arbitrary: fc.oneof(hostileString, fc.constantFrom('', 'null', '[]', '{', '\ufeff{}', 'NaN')), weight: 1 },
  );
}

export type Proof = 'checkout token' | 'checkout token, other order' | 'expired checkout token' | 'order token' | 'order token, other merchant' | 'junk' | 'none';

export interface Case {
  route: Route;
  path: string;
  method: string;
  contentType: string | undefined;
  proof: Proof;
  headers: Record<string, string>;
  chunked: boolean;
  body: string | Uint8Array;
}

export const caseOf = fc.constantFrom(...ROUTES).chain((route) =>
  fc.record<Case>({
    route: fc.constant(route),
    path: fc.constantFrom(...pathsOf(route)),
    method: fc.constantFrom(...Array.from({ length: 12 }, () => 'POST'), 'GET', 'PUT', 'TRACE'),
    contentType: fc.constantFrom(...CONTENT_TYPES, ...Array.from({ length: 12 }, () => 'application/json')),
    proof: fc.constantFrom<Proof>(
      ...Array.from({ length: 4 }, (): Proof => (route === 'create' || route === 'status' ? 'checkout token' : 'order token')),
      ...Array.from({ length: 2 }, (): Proof => (route === 'status' ? 'order token' : 'checkout token')),
      'checkout token, other order',
      'expired checkout token',
      'order token, other merchant',
      'junk',
      'none',
    ),
    headers: fc.dictionary(
      fc.constantFrom('Host', 'Origin', 'X-Client-Address', 'X-Client-Address', 'X-Refuse', 'X-Unknown'),
      fc.constantFrom('[', 'a:99999', 'evil.example', 'https://shop.example', '203.0.113.7', '2001:db8::1', 'yes', 'x'.repeat(200)),
      { maxKeys: 2 },
    ),
    chunked: fc.boolean(),
    body: bodyFor(route),
  }),
);

/** The token headers a case's proof stands for, issued at `now` (the clock of the kits under comparison). */
export async function proofHeaders(proof: Proof, body: string | Uint8Array, now = NOW): Promise<Record<string, string>> {
  let value: unknown;
  try {
    value = JSON.parse(typeof body === 'string' ? body : new TextDecoder().decode(body));
  } catch {
    value = undefined;
  }
  const order = orderOf(value);
  const checkout = (extra: object, at = now) => issueCheckoutToken(credentials, { ...order, reference: 'order-1001', ...extra }, { now: at });
  const orderToken = (id: { merchantId: string; privateKey: string }) =>
    issueOrderToken(id.privateKey, { merchantId: id.merchantId, orderNo: ORDERS[0]!, reference: 'order-1001', country: 'EG', expiresAt: Math.floor(now / 1000) + 3_600 });
  switch (proof) {
    case 'checkout token':
      return { [CHECKOUT_TOKEN_HEADER]: await checkout({ attempts: 3 }) };
    case 'checkout token, other order':
      return { [CHECKOUT_TOKEN_HEADER]: await checkout({ reference: 'someone-else' }) };
    case 'expired checkout token':
      return { [CHECKOUT_TOKEN_HEADER]: await checkout({}, now - 7_200_000) };
    case 'order token':
      return { [ORDER_TOKEN_HEADER]: await orderToken(credentials) };
    case 'order token, other merchant':
      return { [ORDER_TOKEN_HEADER]: await orderToken({ merchantId: '256600000000000', privateKey }) };
    case 'junk':
      return { [CHECKOUT_TOKEN_HEADER]: 'ct1.e30.AAAA', [ORDER_TOKEN_HEADER]: 'junk' };
    case 'none':
      return {};
  }
}

/** What a client can see of an answer: the status, the headers the kit sets, the body. */
export function seen(answer: RawAnswer) {
  const { headers } = answer;
  const pick = ['content-type', 'cache-control', 'x-content-type-options', 'allow', 'retry-after', ORDER_TOKEN_HEADER.toLowerCase(), 'svc-expires-in'];
  return {
    status: answer.status,
    headers: Object.fromEntries(pick.filter((name) => headers[name] !== undefined).map((name) => [name, headers[name]])),
    closes: answer.status === 413 ? headers['connection'] : undefined,
    text: answer.text,
  };
}

/** What the service received since `from`: path, signature, merchant and the exact bytes. */
export const received = (service: FakeService, from: number) =>
  service.requests.slice(from).map((request) => ({ path: request.path, authorization: request.headers['authorization'], merchantId: request.headers['merchantid'], raw: request.raw.toString('hex') }));

