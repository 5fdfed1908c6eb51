// The floor for the merchant kit: the least a signing hop can do, written by hand with Node's own modules. node:http
// in, the body parsed and serialised again with sorted keys, an HMAC-SHA512 of those bytes from node:crypto, and a
// node:http request out on a keep-alive connection; the service's answer is sent back as it came. No token, no
// validation, no limits: what the kit does on top of this is its overhead. It serves the kit's two hot routes with
// bodies that name the order themselves (status: `{country, orderNo}`; create: the order), in front of the sandbox at
// SANDBOX_URL. Prints its address on the first line of its output; stops on SIGTERM.
import { createHmac } from 'node:crypto';
import { Agent, createServer, request as httpRequest } from 'node:http';
import { DEFAULT_MERCHANT } from '../dist/sandbox/index.js';
import { sorted } from './floor/sorted-json.mjs';

const { merchantId, privateKey } = DEFAULT_MERCHANT;
const service = new URL(process.env.SANDBOX_URL);
const agent = new Agent({ keepAlive: true });
const ROUTES = {
  '/payments': '/api/v1/international/payment/create',
  '/payments/status': '/api/v1/international/cashier/status',
};

function answer(response, status, body) {
  response.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
  response.end(body);
}

const server = createServer((request, response) => {
  const path = ROUTES[request.url];
  if (request.method !== 'POST' || !path) return answer(response, 404, '{"message":"no such path"}');
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => {
    let text;
    try {
      text = sorted(JSON.parse(Buffer.concat(chunks).toString('utf8')));
    } catch {
      return answer(response, 415, '{"message":"the body is not JSON"}');
    }
    const signature = createHmac('sha512', privateKey).update(text).digest('hex');
    const outgoing = httpRequest(
      {
        host: service.hostname,
        port: service.port,
        path,
        method: 'POST',
        agent,
        headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), Authorization: `Bearer ${signature}`, MerchantId: merchantId },
      },
      (incoming) => {
        const parts = [];
        incoming.on('data', (chunk) => parts.push(chunk));
        incoming.on('end', () => answer(response, 200, Buffer.concat(parts)));
      },
    );
    outgoing.on('error', () => answer(response, 200, '{"code":"50003","message":"service not available, please try again.","data":null}'));
    outgoing.end(text);
  });
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`forwarder listening on http://127.0.0.1:${server.address().port}\n`));
process.once('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
