/**
 * The service's API over HTTP, at the specification's paths: POST only, signed by a merchant of this sandbox
 * (the status query may carry the merchant's public key instead), every business answer HTTP 200 with the
 * envelope, each call meeting the next queued fault first. What each operation does is api.ts's.
 */
import type { IncomingMessage } from 'node:http';
import { errorEnvelope, parseJson, type Envelope, type ServiceOperation } from '../../core/index.js';
import { decodeUtf8, readHeader, SIGNING_HEADERS } from '../../core/signing.js';
import { verifyRequest } from '../signing.js';
import { answerWithFault, type HeldCalls } from './fault-injection.js';
import type { Route } from '../http/router.js';
import * as service from './api.js';
import type { SandboxWorld } from '../world/world.js';

const OPERATIONS: Record<ServiceOperation, (context: service.ServiceContext, body: unknown) => Envelope> = {
  create: service.createPayment,
  inputOtp: service.submitOtp,
  inputPin: service.submitPin,
  resendOtp: service.resendOtp,
  status: service.queryStatus,
  refundCreate: service.createRefund,
  refundQuery: service.queryRefund,
};

export function serviceRoutes(world: SandboxWorld, options: { publicUrl: string; held: HeldCalls }): Route {
  const { publicUrl, held } = options;

  async function serveService(operation: ServiceOperation, request: IncomingMessage, raw: Uint8Array): Promise<Envelope> {
    const merchantId = readHeader(request.headers, SIGNING_HEADERS.merchantId)?.trim() ?? '';
    const merchant = world.merchants.get(merchantId);
    const signed =
      merchant !== undefined &&
      (await verifyRequest({
        authorization: readHeader(request.headers, SIGNING_HEADERS.authorization),
        body: raw,
        privateKey: merchant.privateKey,
        // The SDK queries status with the public key in place of a signature.
        ...(operation === 'status' && merchant.publicKey !== undefined ? { publicKey: merchant.publicKey } : {}),
      }));
    if (!merchant || !signed) return errorEnvelope('02000');
    if (!merchant.available) return errorEnvelope('02007');
    const text = decodeUtf8(raw);
    const parsed = text === undefined ? undefined : parseJson(text);
    if (!parsed?.ok) {
      return errorEnvelope('02001', { data: { errors: [{ field: 'body', rule: 'json', message: 'the request body is not JSON' }] } });
    }
    world.tick();
    const { book, outbox, clock, scenarios, expectations } = world;
    return OPERATIONS[operation]({ merchant, book, outbox, clock, scenarios, expectations, publicUrl }, parsed.value);
  }

  return async (exchange) => {
    const { request, method, operation, raw, finish } = exchange;
    if (!operation) return false;
    if (method !== 'POST') {
      finish(405, { message: 'use POST' }, { Allow: 'POST' });
      return true;
    }
    await answerWithFault(world.faults.take(), exchange, held, () => serveService(operation, request, raw));
    return true;
  };
}
