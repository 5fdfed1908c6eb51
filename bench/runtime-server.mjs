// One hop of the bench on Deno or Bun (`deno run -A bench/runtime-server.mjs`, `bun bench/runtime-server.mjs`), served
// by the runtime's own server (Deno.serve, Bun.serve), in front of the sandbox at SANDBOX_URL:
//   ROLE=kit    the merchant kit from dist/, as a shop runs it there (it signs with node:crypto and calls the service
//               over its node:http pool, which both runtimes have);
//   ROLE=floor  the bare forwarder in that runtime: the body parsed and serialised again with sorted keys, an
//               HMAC-SHA512 of those bytes from node:crypto, the runtime's fetch out (keep-alive), the service's
//               answer sent back as it came. No token, no validation, no limits: the floor the kit is measured against.
// MERCHANT_ID and PRIVATE_KEY are the sandbox's test merchant. Prints its address on its first line; stops on SIGTERM.
import { createHmac } from 'node:crypto';
import { createMerchantHandler } from '../dist/server/index.js';
import { sorted } from './floor/sorted-json.mjs';

const env = typeof Deno !== 'undefined' ? Deno.env.toObject() : Bun.env;
const { ROLE, SANDBOX_URL, MERCHANT_ID, PRIVATE_KEY } = env;

const kit = () =>
  createMerchantHandler({
    merchantId: MERCHANT_ID,
    privateKey: PRIVATE_KEY,
    environment: { baseUrl: SANDBOX_URL },
    // Every request of the bench comes from 127.0.0.1: the per-client limits would count them as one payer. As the Node
    // hop's (bench/kit-server.mjs), its status limits are off: what the bench measures is the kit's cost.
    limits: { createsPerClient: false, statusPerClient: false, statusPerOrder: false },
    logger: { warn() {}, error() {} },
  });

const ROUTES = {
  '/payments': '/api/v1/international/payment/create',
  '/payments/status': '/api/v1/international/cashier/status',
};
const JSON_TYPE = { 'Content-Type': 'application/json; charset=utf-8' };

async function forward(request) {
  const path = ROUTES[new URL(request.url).pathname];
  if (request.method !== 'POST' || !path) return new Response('{"message":"no such path"}', { status: 404, headers: JSON_TYPE });
  let text;
  try {
    text = sorted(await request.json());
  } catch {
    return new Response('{"message":"the body is not JSON"}', { status: 415, headers: JSON_TYPE });
  }
  const signature = createHmac('sha512', PRIVATE_KEY).update(text).digest('hex');
  try {
    const answer = await fetch(`${SANDBOX_URL}${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${signature}`, MerchantId: MERCHANT_ID },
      body: text,
    });
    return new Response(await answer.arrayBuffer(), { status: 200, headers: JSON_TYPE });
  } catch {
    return new Response('{"code":"50003","message":"service not available, please try again.","data":null}', { status: 200, headers: JSON_TYPE });
  }
}

const handler = ROLE === 'kit' ? kit() : forward;
const say = (port) => console.log(`${ROLE} listening on http://127.0.0.1:${port}`);
if (typeof Deno !== 'undefined') Deno.serve({ hostname: '127.0.0.1', port: 0, onListen: ({ port }) => say(port) }, handler);
else say(Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: handler }).port);
